"""The files ``hrdf design`` writes, from a :class:`~.search.DesignResult`.

In: the result, the task, a folder and how many designs to write out. Out, in the folder:

* ``designs.csv``: one row per distinct design evaluated, best first
  (:meth:`~.search.DesignResult.ranked`), columns ``rank, file, mass_kg, dof,
  actuators, worst_effort_ratio, targets_met``: ``file`` is ``design-K.hrdf`` for the
  first ``top`` rows and empty after; ``mass_kg`` in kg to 1 g; ``actuators`` the types
  base to tip separated by spaces; ``worst_effort_ratio`` the largest effort over
  rated effort (less the margin) at the targets reached, to 1e-4 (``inf`` when none
  is); ``targets_met`` how many of the task's targets are met;
* ``design-K.hrdf``: the design as HRDF 1.6.0 (hebi-py and ``hrdf`` load it);
* ``design-K.yaml``: ``joint_names``, ``configurations`` (one list of joint positions in
  rad per target, in the task's order; where a target is not reached, the closest
  configuration found), ``reached`` and ``met`` per target, ``mass_kg``, the design's
  one-line text and, when the task lets the base move, ``base``: ``xyz`` (m) and ``yaw``
  (rad) in the task's frame (the HRDF's robot ``trans`` and ``rot``).

:func:`read_configurations` reads ``design-K.yaml`` back (``hrdf view --task``).

Every number is written from its value alone (CSV with fixed decimals, YAML as
PyYAML writes a float), so the same result gives the same bytes.
"""
from __future__ import annotations

import csv
import io
import math
import os
from typing import List

import numpy as np
import yaml

from .evaluate import Evaluation
from .search import DesignResult
from .task import read_yaml

COLUMNS = ('rank', 'file', 'mass_kg', 'dof', 'actuators', 'worst_effort_ratio',
           'targets_met')


def _ratio(evaluation: Evaluation) -> str:
    worst = evaluation.worst_effort_ratio
    return 'inf' if worst == float('inf') else f'{worst:.4f}'


def designs_csv(rows: List[Evaluation], top: int) -> str:
    """The text of ``designs.csv`` (module docstring)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow(COLUMNS)
    for k, e in enumerate(rows, 1):
        writer.writerow([k, f'design-{k}.hrdf' if k <= top else '', f'{e.mass:.3f}',
                         len(e.design.actuators), ' '.join(e.design.actuators), _ratio(e),
                         int(e.met.sum())])
    return out.getvalue()


def design_yaml(evaluation: Evaluation) -> str:
    """The text of ``design-K.yaml`` (module docstring)."""
    data = {'design': evaluation.design.text(),
            'end_effector': evaluation.design.end_effector,
            'mass_kg': round(evaluation.mass, 6),
            **({'base': {'xyz': [float(v) for v in evaluation.design.base[:3]],
                         'yaw': float(evaluation.design.base[3])}}
               if any(evaluation.design.base) else {}),
            'joint_names': list(evaluation.joint_names),
            'configurations': [[float(x) for x in q] for q in evaluation.configurations],
            'reached': [bool(x) for x in evaluation.reached],
            'met': [bool(x) for x in evaluation.met]}
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=100)


def write(result: DesignResult, folder: str, top: int) -> List[str]:
    """Write the files (module docstring) into ``folder`` (made when missing); returns
    their paths.

    Raises:
        OSError: the folder cannot be made or written.
    """
    os.makedirs(folder, exist_ok=True)
    rows = result.ranked()
    written = []

    def put(name: str, text: str) -> None:
        path = os.path.join(folder, name)
        with open(path, 'w', encoding='utf-8', newline='') as handle:
            handle.write(text)
        written.append(path)

    put('designs.csv', designs_csv(rows, top))
    for k, evaluation in enumerate(rows[:top], 1):
        put(f'design-{k}.hrdf', evaluation.design.hrdf(
            description=f'hrdf design: rank {k}, {evaluation.mass:.3f} kg'))
        put(f'design-{k}.yaml', design_yaml(evaluation))
    return written


def read_configurations(path: str, targets: int):
    """``joint_names`` and ``configurations`` of a ``design-K.yaml`` (module
    docstring) for a task of ``targets`` targets.

    Returns:
        ``(joint names (tuple of str), configurations: rad, shape (targets, joints))``.

    Raises:
        OSError: the file cannot be read.
        ValueError: not YAML, or not those two keys with one list of finite numbers per
            joint name for each target (one line naming the file).
    """
    data = read_yaml(path)
    names = data.get('joint_names') if isinstance(data, dict) else None
    if not isinstance(names, list) or not names or \
            not all(isinstance(n, str) for n in names):
        raise ValueError(f'{path}: joint_names must be a list of joint names (hrdf design '
                         'writes it in design-K.yaml)')
    rows = data.get('configurations')
    if not isinstance(rows, list) or len(rows) != targets:
        count = len(rows) if isinstance(rows, list) else 'no'
        raise ValueError(f'{path}: configurations must be one list per target: the task '
                         f'has {targets} targets, the file {count} lists')
    for k, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != len(names) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and
                math.isfinite(v) for v in row):
            raise ValueError(f'{path}: configurations[{k}] must be {len(names)} finite '
                             f'joint positions (rad), got {row!r}')
    return tuple(names), np.array(rows, dtype=float).reshape(targets, len(names))
