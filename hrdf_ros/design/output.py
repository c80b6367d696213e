"""The files ``hrdf design`` writes, from a :class:`~.search.DesignResult`.

In: the result, the task, a folder and how many designs to write out. Out, in the folder:

* ``designs.csv``: one row per distinct design evaluated, best first
  (:meth:`~.search.DesignResult.ranked`; a CoBRA task's as :func:`~.jobs.solve_job`
  ranks them), columns ``rank, file, mass_kg, dof, actuators, worst_effort_ratio,
  targets_met, base_x_m, base_y_m, base_z_m, base_yaw_rad, cycle_time_s``: ``file`` is
  ``design-K.hrdf`` for the first ``top`` rows and empty after; ``mass_kg`` in kg to 1
  g; ``actuators`` the types base to tip separated by spaces; ``worst_effort_ratio`` the
  largest effort over rated effort (less the margin) at the targets reached, to 1e-4
  (``inf`` when none is); ``targets_met`` how many of the task's targets are met;
  ``base_x_m``, ``base_y_m``, ``base_z_m`` and ``base_yaw_rad``: where the base stands
  in the task's frame (0 when the task does not let it move); ``cycle_time_s``, for a
  CoBRA task, the duration of the design's motion through the goals (``none``: tried, no
  motion; empty: not tried);
* ``design-K.hrdf``: the design as HRDF 1.6.0 (hebi-py and ``hrdf`` load it);
* ``design-K.yaml``: ``joint_names``, ``configurations`` (one list of joint positions in
  rad per target, in the task's order; where a target is not reached, the closest
  configuration found), ``reached`` and ``met`` per target, ``mass_kg``, the design's
  one-line text and, when the task lets the base move, ``base``: ``xyz`` (m) and ``yaw``
  (rad) in the task's frame (the HRDF's robot ``trans`` and ``rot``);
* for a CoBRA task, beside each design with a motion through the goals,
  ``design-K.urdf`` and ``design-K.solution.json`` (:mod:`.solution`).

:func:`read_configurations` reads ``design-K.yaml`` back (``hrdf view --task``).

Every number is written from its value alone (CSV with fixed decimals, YAML as
PyYAML writes a float), so the same result gives the same bytes.
"""
from __future__ import annotations

import csv
import io
import math
import os
from typing import List, Optional, Sequence

import numpy as np
import yaml

from .evaluate import Evaluation
from .job_motion import JobMotion
from .search import DesignResult
from .task import read_yaml

COLUMNS = ('rank', 'file', 'mass_kg', 'dof', 'actuators', 'worst_effort_ratio',
           'targets_met', 'base_x_m', 'base_y_m', 'base_z_m', 'base_yaw_rad',
           'cycle_time_s')


def _ratio(evaluation: Evaluation) -> str:
    worst = evaluation.worst_effort_ratio
    return 'inf' if worst == float('inf') else f'{worst:.4f}'


def _cycle(motion) -> str:
    if motion is None:
        return ''
    return f'{motion.cycle_time:.3f}' if isinstance(motion, JobMotion) else 'none'


def designs_csv(rows: List[Evaluation], top: int,
                motions: Optional[Sequence] = None) -> str:
    """The text of ``designs.csv`` (module docstring); ``motions``: each row's
    :class:`~.job_motion.JobMotion`, :class:`~.job_motion.JobMiss` or None."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow(COLUMNS)
    motions = motions or [None] * len(rows)
    for k, (e, motion) in enumerate(zip(rows, motions), 1):
        x, y, z, yaw = e.design.base
        writer.writerow([k, f'design-{k}.hrdf' if k <= top else '', f'{e.mass:.3f}',
                         len(e.design.actuators), ' '.join(e.design.actuators), _ratio(e),
                         int(e.met.sum()), f'{x:.3f}', f'{y:.3f}', f'{z:.3f}', f'{yaw:.6f}',
                         _cycle(motion)])
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


def write(result: DesignResult, folder: str, top: int, job=None) -> List[str]:
    """Write the files (module docstring) into ``folder`` (made when missing); returns
    their paths. ``job``: for a CoBRA task, ``(its CobraTask, the rows and motions of
    :func:`~.jobs.solve_job`)``: the rows in that order, and the solution files.

    Raises:
        OSError: the folder cannot be made or written.
    """
    os.makedirs(folder, exist_ok=True)
    rows, motions = (job[1], job[2]) if job else (result.ranked(), None)
    written = []

    def put(name: str, text: str) -> None:
        path = os.path.join(folder, name)
        with open(path, 'w', encoding='utf-8', newline='') as handle:
            handle.write(text)
        written.append(path)

    put('designs.csv', designs_csv(rows, top, motions))
    for k, evaluation in enumerate(rows[:top], 1):
        put(f'design-{k}.hrdf', evaluation.design.hrdf(
            description=f'hrdf design: rank {k}, {evaluation.mass:.3f} kg'))
        put(f'design-{k}.yaml', design_yaml(evaluation))
        if motions and isinstance(motions[k - 1], JobMotion):
            from .solution import design_urdf, solution_json          # noqa: PLC0415
            urdf, tcp = design_urdf(evaluation, f'design_{k}')
            put(f'design-{k}.urdf', urdf)
            put(f'design-{k}.solution.json',
                solution_json(evaluation, motions[k - 1], job[0], tcp))
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
