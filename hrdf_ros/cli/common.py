"""What every ``hrdf`` subcommand shares: exit codes, usage errors, loading with diagnostics.

In: parsed arguments (a file, ``--strict``, ``--positions``). Out: the robot model with
its warnings printed on stderr, or an exit code; one-line usage errors; positions as a
(dof,) array (rad, m for prismatic joints).
"""
from __future__ import annotations

import argparse
import math
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


def _reported(exc: HrdfError) -> int:
    for d in exc.diagnostics:
        print(d, file=sys.stderr)
    return EXIT_USAGE if io_error(exc.diagnostics) else EXIT_INVALID


def load_or_report(args):
    """The model of ``args.file`` (warnings printed), or ``(None, exit code)``."""
    path = args.file
    try:
        model = load(path, strict=args.strict)
    except HrdfError as exc:
        return None, _reported(exc)
    for w in model.warnings:
        print(w, file=sys.stderr)
    return model, EXIT_OK


def load_with_config(args):
    """``(model, HebiArm or None, exit code)`` of ``args.file`` and ``--hebi-config``
    (the config's ``hrdf:`` when FILE is not given); diagnostics and notes printed; the
    model is ``None`` when loading failed.

    Raises:
        UsageError: neither FILE nor a config naming an HRDF, or a config that does not
            fit the robot (another number of joints; has_gripper false with a gripper).
    """
    config = None
    if getattr(args, 'hebi_config', None):
        # imported here: only --hebi-config needs the config reader
        from ..hrdf.arm_config import read_arm_config
        try:
            config = read_arm_config(args.hebi_config, strict=args.strict)
        except HrdfError as exc:
            return None, None, _reported(exc)
        for w in config.warnings:
            print(w, file=sys.stderr)
        if not args.file:
            if config.hrdf is None:
                raise UsageError(f'{config.path} names no hrdf: give the HRDF FILE')
            args.file = config.hrdf
    elif not args.file:
        raise UsageError('give the HRDF FILE, or --hebi-config naming one (see '
                         f'"hrdf {args.command} --help")')
    model, code = load_or_report(args)
    if model is None or config is None:
        return model, None, code
    from ..description.hebi_arm import hebi_arm
    try:
        hebi = hebi_arm(model, config, gripper_joints=getattr(args, 'gripper_joints', True))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    for text in hebi.notes:
        note(text)
    return model, hebi, code


def robot_name(args) -> str:
    """``--name``, else the HRDF file name without extension."""
    return args.name or os.path.splitext(os.path.basename(args.file))[0]


def parse_positions(text: Optional[str], dof: int, name: str = '--positions') -> np.ndarray:
    """``--positions`` (or the option ``name``) as a (dof,) array (rad, m for prismatic
    joints); zeros when not given.

    Raises:
        UsageError: not numbers, not finite, or not ``dof`` of them.
    """
    if text is None:
        return np.zeros(dof)
    try:
        values = [float(v) for v in text.replace(',', ' ').split()]
    except ValueError:
        raise UsageError(f'{name} must be numbers, got "{text}"') from None
    if len(values) != dof:
        raise UsageError(f'{name} has {len(values)} values; the robot has {dof} DoF')
    q = np.array(values)
    if not np.all(np.isfinite(q)):
        raise UsageError(f'{name} must be finite')
    return q


def add_gripper_option(parser) -> None:
    """``--no-gripper-joints`` (``args.gripper_joints``, default true)."""
    parser.add_argument('--no-gripper-joints', dest='gripper_joints', action='store_false',
                        help='an X5Parallel/R8Parallel gripper as one rigid end effector '
                             '(no gripper_joint, no mimic joints)')


def add_mesh_options(parser) -> None:
    """``--mesh-dir DIR`` and ``--meshes {auto,package,primitives}`` (the mesh rule of
    :mod:`hrdf_ros.parts.mesh_sources`)."""
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


def add_collision_object_options(parser) -> None:
    """``--collision-objects YAML`` and ``--floor Z`` (``hrdf plan``, ``hrdf view``)."""
    parser.add_argument('--collision-objects', metavar='YAML',
                        help='boxes, spheres, cylinders and floors (a YAML list: name, type, '
                             'dimensions, pose {position, orientation})')
    parser.add_argument('--floor', type=float, metavar='Z',
                        help='a floor: the half-space below z = Z m')


def collision_objects_of(args) -> list:
    """The collision objects the options name (the schema of
    :mod:`hrdf_ros.motion.objects`, checked; the floor last).

    Raises:
        UsageError: a file that cannot be read or is not the schema; a floor not finite.
    """
    from ..motion.objects import read_collision_objects  # noqa: PLC0415
    objects = []
    if args.collision_objects:
        try:
            objects = read_collision_objects(args.collision_objects)
        except OSError as exc:
            raise UsageError(f'--collision-objects: {exc.strerror}: '
                             f'{args.collision_objects}') from None
        except ValueError as exc:
            raise UsageError(f'--collision-objects: {exc}') from None
    if args.floor is not None:
        if not math.isfinite(args.floor):
            raise UsageError('--floor must be a finite number')
        objects.append({'name': 'floor', 'type': 'floor',
                        'pose': {'position': [0.0, 0.0, args.floor]}})
    return objects
