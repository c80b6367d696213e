"""The ``hrdf`` subcommands that validate, compute and write: validate, urdf/sdf, fk,
jacobian, moveit.

In: parsed arguments. Out: text on stdout (documents, matrices, JSON), diagnostics and
notes on stderr, and the exit code (:mod:`.common`).
"""
from __future__ import annotations

import json
import os
import re
import sys

from ..description.frame_tree import build_frame_tree
from ..description.limits import joint_limits, read_limits
from ..parts.mesh_fetch import MeshDownloadError, fetch_web_meshes, web_meshes
from ..parts.mesh_sources import MeshSourceError, mesh_source
from ..export.ros2_control import Ros2ControlOptions, add_ros2_control, hebi_arm_options
from ..numbers import table_number
from ..export.sdf import to_sdf
from ..export.urdf import to_urdf, to_xacro, urdf_notes
from ..hrdf.validation import validate_file
from ..kinematics import Kinematics
from .common import (EXIT_INVALID, EXIT_OK, EXIT_USAGE, UsageError, io_error,
                     load_or_report, load_with_config, note, parse_positions, robot_name,
                     mesh_options)


def cmd_validate(args) -> int:
    """``hrdf validate``: a report per file (text or JSON); exit 0 when all are valid,
    1 when one is invalid, 2 when one cannot be read."""
    worst = EXIT_OK
    for path in args.files:
        report = validate_file(path, strict=args.strict)
        if not report.valid:
            worst = max(worst, EXIT_USAGE if io_error(report.errors) else EXIT_INVALID)
        if args.json:
            print(json.dumps({'file': path, **report.to_dict()}))
        else:
            for d in report.errors + report.warnings:
                print(d, file=sys.stderr)
            print(f'{path}: {"valid" if report.valid else "invalid"}')
    return worst


def _download_into_mesh_dir(model, options) -> None:
    if options['mesh_dir'] and web_meshes(model):
        os.makedirs(options['mesh_dir'], exist_ok=True)     # as --mesh-dir always did
    try:
        source = mesh_source(options['mesh_dir'], options['meshes'])
    except MeshSourceError as exc:
        raise UsageError(str(exc)) from None
    if not options['mesh_dir'] or source.forced_primitives:
        return
    if any(source.web_copy(url) is None for url in web_meshes(model)):
        try:
            fetched = fetch_web_meshes(model, options['mesh_dir'])
        except (MeshDownloadError, MeshSourceError) as exc:
            raise UsageError(f'--mesh-dir: {exc}') from None
        note(f'{len(fetched)} web mesh(es) downloaded into {options["mesh_dir"]} '
             '(`hrdf meshes fetch FILE.hrdf` fills the shared cache instead)')


def _naming(args, model, hebi):
    """The frame tree and the limits (a HEBI config's bounds under ``--limits``) of an
    export."""
    limits = joint_limits(read_limits(args.limits)) if args.limits else {}
    if hebi is None:
        return build_frame_tree(model, joint_prefix=args.joint_prefix,
                                gripper_joints=args.gripper_joints), limits
    return hebi.frame_tree(model), hebi.limits_under(limits)[0]


def cmd_export(args) -> int:
    """``hrdf urdf`` and ``hrdf sdf``: the document on stdout or in ``-o``; what the
    export added or replaced (physical fill, missing meshes) as warnings on stderr, how
    HEBI's meshes were found as a note."""
    model, hebi, code = load_with_config(args)
    if model is None:
        return code
    name = robot_name(args)
    meshes = mesh_options(args)
    _download_into_mesh_dir(model, meshes)
    exact = getattr(args, 'exact_masses', False)
    try:
        tree, limits = _naming(args, model, hebi)
        options = dict(tree=tree, position_limits=limits, **meshes)
        if args.command == 'sdf':
            text = to_sdf(model, name, **options)
        else:
            write = to_xacro if args.xacro else to_urdf
            text = write(model, name, exact_masses=exact, **options)
            control = ros2_control_options(args, hebi)
            if control is not None:
                text = add_ros2_control(text, control)
        notes = urdf_notes(model, tree, exact_masses=exact, **meshes)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.output and args.output != '-':
        with open(args.output, 'w', encoding='utf-8') as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    _report(notes, args.command)  # after the document: a write that fails reports only that
    return EXIT_OK


def _report(notes, command: str) -> None:
    """An export's notes on stderr: how meshes were found as notes (``meshes:``), the
    rest (physical fill, shapes not drawn) as warnings."""
    for text in notes:
        if text.startswith('meshes: '):
            note(text[len('meshes: '):])
            continue
        hint = ' (HEBI\'s masses: --exact-masses)' if text.startswith('physical fill') \
            and command in ('urdf', 'mjcf') else ''
        print(f'hrdf: warning: {text}{hint}', file=sys.stderr)


def cmd_mjcf(args) -> int:
    """``hrdf mjcf``: ``-o DIR/robot.xml`` and ``DIR/scene.xml`` (:mod:`hrdf_ros.export.mjcf`);
    the paths on stdout, the fill and meshes not drawn as warnings, notes on stderr."""
    from ..export.mjcf import mjcf_files     # the collision matrix may need python-fcl
    model, hebi, code = load_with_config(args)
    if model is None:
        return code
    meshes = mesh_options(args)
    _download_into_mesh_dir(model, meshes)
    notes = []
    try:
        tree, limits = _naming(args, model, hebi)
        files = mjcf_files(model, robot_name(args), os.path.basename(args.output),
                           tree=tree, position_limits=limits, exact_masses=args.exact_masses,
                           samples=args.collision_samples, seed=args.seed, notes=notes,
                           gravity_compensation=args.gravity_compensation, **meshes)
    except (ValueError, ImportError) as exc:
        raise UsageError(str(exc)) from None
    folder = os.path.dirname(args.output) or '.'
    os.makedirs(folder, exist_ok=True)
    for name, text in files.items():
        path = os.path.join(folder, name)
        with open(path, 'w', encoding='utf-8') as handle:
            handle.write(text)
        print(path)
    _report(notes, args.command)
    note(f'MuJoCo model in {folder}: python -m mujoco.viewer --mjcf '
         f'{os.path.join(folder, "scene.xml")}')
    return EXIT_OK


def matrices_command(method: str, json_key: str):
    """A subcommand printing one matrix per frame: ``Kinematics.<method>(frame_type, q)``."""
    def run(args) -> int:
        model, code = load_or_report(args)
        if model is None:
            return code
        q = parse_positions(args.positions, model.dof_count)
        matrices = getattr(Kinematics(model), method)(args.frame_type, q)
        if args.json:
            print(json.dumps({'frame_type': args.frame_type, json_key: matrices.tolist()}))
            return EXIT_OK
        if not len(matrices):
            note(f'the robot has no {args.frame_type} frames')
        for k, matrix in enumerate(matrices):
            if not matrix.shape[1]:
                print(f'{args.frame_type}[{k}]: 6 x 0 (the robot has no degrees of freedom)')
                continue
            print(f'{args.frame_type}[{k}]')
            for row in matrix:
                print('  ' + ' '.join(table_number(v) for v in row))
        return EXIT_OK
    return run


cmd_fk = matrices_command('frames', 'frames')
cmd_jacobian = matrices_command('jacobians', 'jacobians')


def ros2_control_options(args, hebi=None):
    """The ``--ros2-control`` choice (with ``--hebi-config``'s ``config_pkg``,
    ``config_file`` and gripper joint), or ``None``."""
    hardware = getattr(args, 'ros2_control', None)
    if hardware is None:
        return None
    if hebi is not None:
        return hebi_arm_options(hebi, hardware)
    return Ros2ControlOptions(hardware)


def cmd_moveit(args) -> int:
    """``hrdf moveit``: write the MoveIt 2 config package; the paths on stdout, notes and
    the next command on stderr."""
    # imported here: only this subcommand needs Jinja2 (and python-fcl)
    from ..export.moveit import moveit_package, write_moveit_package
    model, hebi, code = load_with_config(args)
    if model is None:
        return code
    name = args.name or re.sub(r'[^A-Za-z0-9_.-]', '_', robot_name(args)).lstrip('.-')
    try:
        package = moveit_package(
            model, name, joint_prefix=args.joint_prefix,
            limits=read_limits(args.limits) if args.limits else None,
            samples=args.collision_samples, seed=args.seed,
            ros2_control=args.ros2_control and Ros2ControlOptions(args.ros2_control),
            gripper_joints=args.gripper_joints, hebi=hebi, ros_distro=args.ros_distro,
            **mesh_options(args))
    except (ValueError, ImportError) as exc:
        raise UsageError(str(exc)) from None
    for path in write_moveit_package(package, args.output):
        print(path)
    for text in package.notes:
        note(text)
    real = (' (mock hardware; with use_mock_hardware:=false the real arm through '
            'hebi_hardware)') if hebi else ' (mock hardware)'
    note(f'MoveIt config package {package.name} in {args.output}: build it in a colcon '
         f'workspace, then: ros2 launch {package.name} bringup.launch.py{real}')
    return EXIT_OK
