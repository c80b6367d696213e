"""What every ``hrdf`` subcommand shares: exit codes, usage errors, loading with diagnostics.

In: parsed arguments (a file, ``--strict``, ``--positions``). Out: the robot model with
its warnings printed on stderr, or an exit code; one-line usage errors; positions as a
(dof,) array (rad, m for prismatic joints).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Optional

import numpy as np

from ..hrdf.diagnostics import HrdfError
from ..hrdf.reader import load

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """Bad arguments or an unusable input/output file: exit 2 with one line."""


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``hrdf fk: error: ...``), not the usage
    text, and raises instead of exiting."""

    def error(self, message):
        raise UsageError(f'{message} (see "{self.prog} --help")')


def io_error(diagnostics) -> bool:
    """True when the errors are about reading the file itself (line 0, no element)."""
    errors = [d for d in diagnostics if d.severity == 'error']
    return bool(errors) and all(d.line == 0 and d.element is None for d in errors)


def note(text: str) -> None:
    """One ``hrdf: note: ...`` line on stderr."""
    print(f'hrdf: note: {text}', file=sys.stderr)


def load_or_report(args):
    """The model of ``args.file`` (warnings printed), or ``(None, exit code)``."""
    path = args.file
    try:
        model = load(path, strict=args.strict)
    except HrdfError as exc:
        for d in exc.diagnostics:
            print(d, file=sys.stderr)
        return None, (EXIT_USAGE if io_error(exc.diagnostics) else EXIT_INVALID)
    for w in model.warnings:
        print(w, file=sys.stderr)
    return model, EXIT_OK


def robot_name(args) -> str:
    """``--name``, else the HRDF file name without extension."""
    return args.name or os.path.splitext(os.path.basename(args.file))[0]


def parse_positions(text: Optional[str], dof: int) -> np.ndarray:
    """``--positions`` as a (dof,) array (rad, m for prismatic joints); zeros when not
    given.

    Raises:
        UsageError: not numbers, not finite, or not ``dof`` of them.
    """
    if text is None:
        return np.zeros(dof)
    try:
        values = [float(v) for v in text.replace(',', ' ').split()]
    except ValueError:
        raise UsageError(f'--positions must be numbers, got "{text}"') from None
    if len(values) != dof:
        raise UsageError(f'--positions has {len(values)} values; the robot has {dof} DoF')
    q = np.array(values)
    if not np.all(np.isfinite(q)):
        raise UsageError('--positions must be finite')
    return q


def add_gripper_option(parser) -> None:
    """``--no-gripper-joints`` (``args.gripper_joints``, default true)."""
    parser.add_argument('--no-gripper-joints', dest='gripper_joints', action='store_false',
                        help='an X5Parallel/R8Parallel gripper as one rigid end effector '
                             '(no gripper_joint, no mimic joints)')


def add_mesh_options(parser) -> None:
    """``--mesh-dir DIR`` and ``--meshes {auto,package,primitives}`` (the mesh rule of
    :mod:`hrdf_ros.export.mesh_sources`)."""
    parser.add_argument('--mesh-dir', metavar='DIR',
                        help="HEBI's mesh files in DIR, written as file:// URIs (default: "
                             'HRDF_ROS_MESH_DIR, else hebi_description, else the cache of '
                             '"hrdf meshes fetch", else primitives); web meshes are looked '
                             'for in DIR/<host>/<path>')
    parser.add_argument('--meshes', default='auto', choices=('auto', 'package', 'primitives'),
                        help='auto: the rule above; package: package://hebi_description '
                             'URIs even when it is not installed here; primitives: no mesh '
                             'files')


def mesh_options(args) -> dict:
    """``mesh_dir`` and ``meshes`` of the export (``--hebi-meshes``, deprecated, is
    ``--meshes package``, with a note). With ``--mesh-dir DIR``, web meshes that neither
    DIR nor the cache holds are downloaded into ``DIR/<host>/<path>`` first, as
    ``--mesh-dir`` did before meshes had a cache (a note says so)."""
    meshes = args.meshes
    if getattr(args, 'hebi_meshes', False):
        note('--hebi-meshes is deprecated: it means --meshes package')
        meshes = 'package'
    return {'mesh_dir': args.mesh_dir, 'meshes': meshes}
