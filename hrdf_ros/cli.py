"""``hrdf``: command-line access to hrdf_ros without ROS.

Subcommands:
    hrdf validate FILE... [--json]   exit 0 valid (warnings allowed), 1 invalid, 2 usage/IO;
                                     --json: one {"file", "valid", "errors", "warnings"}
                                     object per line
    hrdf urdf FILE [-o OUT] [--name N] [--joint-prefix P] [--xacro] [--limits YAML]
              [--hebi-meshes] [--ros2-control {mock,gazebo,hebi} [--hebi-config PKG FILE]]
    hrdf fk FILE --positions "q1 q2 ..." [--frame-type T] [--json]
    hrdf jacobian FILE --positions "q1 q2 ..." [--frame-type T] [--json]
    hrdf info FILE [--json]          dof, joint names, frame counts, total mass (kg) and the
                                     element tree (a chain per output of branching elements)
    hrdf moveit FILE -o DIR [--name N] [--joint-prefix P] [--limits YAML]
              [--collision-samples N] [--seed S] [--ros2-control ...] [--hebi-config ...]
                                     a MoveIt 2 config package in DIR (hrdf_ros.export.moveit);
                                     prints the paths written

Positions are in rad (m for prismatic joints), in HEBI joint order. Frames are 4x4
homogeneous transforms in the robot's reference frame (base frame applied), row major.
Jacobians are 6 x dof, rows [vx vy vz wx wy wz] in the reference frame (m/s, rad/s per
unit joint velocity).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import List, Optional

import numpy as np

from .hrdf.diagnostics import HrdfError
from .export.frame_tree import build_frame_tree
from .kinematics import FRAME_TYPES, Kinematics
from .export.limits import read_limits
from .hrdf.reader import load
from .export.urdf import to_urdf, to_xacro
from .hrdf.validation import validate_file

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


class _UsageError(Exception):
    pass


def _io_error(diagnostics) -> bool:
    """True when the errors are about reading the file itself (line 0, no element)."""
    errors = [d for d in diagnostics if d.severity == 'error']
    return bool(errors) and all(d.line == 0 and d.element is None for d in errors)


def _load_or_report(path: str):
    try:
        model = load(path)
    except HrdfError as exc:
        for d in exc.diagnostics:
            print(d, file=sys.stderr)
        return None, (EXIT_USAGE if _io_error(exc.diagnostics) else EXIT_INVALID)
    for w in model.warnings:
        print(w, file=sys.stderr)
    return model, EXIT_OK


def _cmd_validate(args) -> int:
    worst = EXIT_OK
    for path in args.files:
        report = validate_file(path)
        if not report.valid:
            worst = max(worst, EXIT_USAGE if _io_error(report.errors) else EXIT_INVALID)
        if args.json:
            print(json.dumps({'file': path, **report.to_dict()}))
        else:
            for d in report.errors + report.warnings:
                print(d, file=sys.stderr)
            print(f'{path}: {"valid" if report.valid else "invalid"}')
    return worst


def _robot_name(args) -> str:
    """``--name``, else the HRDF file name without extension."""
    return args.name or os.path.splitext(os.path.basename(args.file))[0]


def _cmd_urdf(args) -> int:
    model, code = _load_or_report(args.file)
    if model is None:
        return code
    name = _robot_name(args)
    try:
        limits = read_limits(args.limits) if args.limits else None
        write = to_xacro if args.xacro else to_urdf
        text = write(model, name, joint_prefix=args.joint_prefix, position_limits=limits,
                     hebi_meshes=args.hebi_meshes)
        control = _ros2_control_options(args)
        if control is not None:
            from .export.ros2_control import add_ros2_control
            text = add_ros2_control(text, control)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    if args.output and args.output != '-':
        with open(args.output, 'w', encoding='utf-8') as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _parse_positions(text: Optional[str], dof: int) -> np.ndarray:
    if text is None:
        return np.zeros(dof)
    try:
        values = [float(v) for v in text.replace(',', ' ').split()]
    except ValueError:
        raise _UsageError(f'--positions must be numbers, got "{text}"') from None
    if len(values) != dof:
        raise _UsageError(f'--positions has {len(values)} values; the robot has {dof} DoF')
    q = np.array(values)
    if not np.all(np.isfinite(q)):
        raise _UsageError('--positions must be finite')
    return q


def _matrices_command(method: str, json_key: str):
    """A subcommand printing one matrix per frame: ``Kinematics.<method>(frame_type, q)``."""
    def run(args) -> int:
        model, code = _load_or_report(args.file)
        if model is None:
            return code
        q = _parse_positions(args.positions, model.dof_count)
        matrices = getattr(Kinematics(model), method)(args.frame_type, q)
        if args.json:
            print(json.dumps({'frame_type': args.frame_type, json_key: matrices.tolist()}))
        else:
            for k, matrix in enumerate(matrices):
                print(f'{args.frame_type}[{k}]')
                for row in matrix:
                    print('  ' + ' '.join(f'{v: .9f}' for v in row))
        return EXIT_OK
    return run


_cmd_fk = _matrices_command('frames', 'frames')
_cmd_jacobian = _matrices_command('jacobians', 'jacobians')


def _element_tree(model, tree) -> list:
    """The robot's shape as nested chains, mirroring HRDF's own nesting.

    Returns the root chain: a list of element dicts (``index``, ``kind``, ``type``,
    ``tag``, ``link``, ``joint`` (DoF name or ``None``), ``mass`` kg, ``file``, ``line``).
    An element with one output continues its chain with the element mounted on it; an
    element with several outputs ends its chain and gets ``outputs``: one chain per
    output (empty when nothing is mounted there). Built without recursion.
    """
    mounted = {(e.parent, e.parent_output): i for i, e in enumerate(model.elements)}
    joint_of = {e: tree.dof_names[k] for k, e in enumerate(model.dof_elements)}
    roots: list = []
    work = [(mounted.get((-1, 0)), roots)]
    while work:
        index, chain = work.pop()
        while index is not None:
            e = model.elements[index]
            node = {'index': index, 'kind': e.kind, 'type': e.type, 'tag': e.tag,
                    'link': tree.element_links[index], 'joint': joint_of.get(index),
                    'mass': e.mass, 'file': e.path or None, 'line': e.line}
            chain.append(node)
            if len(e.outputs) == 1:
                index = mounted.get((index, 0))
                continue
            node['outputs'] = [[] for _ in e.outputs]
            work.extend((mounted.get((index, k)), node['outputs'][k])
                        for k in reversed(range(len(e.outputs))))
            index = None
    return roots


def _print_tree(chain: list) -> None:
    """Print :func:`_element_tree` indented by branch level (no recursion)."""
    work = [('chain', chain, 1)]
    while work:
        what, item, depth = work.pop()
        if what == 'text':
            print('  ' * depth + item)
            continue
        for n, node in enumerate(item):
            joint = f' [{node["joint"]}]' if node['joint'] else ''
            print(f'{"  " * depth}[{node["index"]}] {node["kind"]} {node["type"] or ""}'
                  f'{joint} {node["mass"]:.6g} kg -> {node["link"]}')
            if 'outputs' in node:  # a branch point ends its chain
                for k in reversed(range(len(node['outputs']))):
                    work.append(('chain', node['outputs'][k], depth + 2))
                    work.append(('text', f'output {k + 1}:', depth + 1))
                break


def _cmd_info(args) -> int:
    model, code = _load_or_report(args.file)
    if model is None:
        return code
    tree = build_frame_tree(model)
    info = {
        'file': args.file,
        'version': '.'.join(map(str, model.version)),
        'description': model.description,
        'dof': model.dof_count,
        'joint_names': tree.dof_names,
        'frame_counts': {t: model.frame_count(t) for t in FRAME_TYPES},
        'total_mass': model.total_mass,
        'elements': [{'index': i, 'kind': e.kind, 'type': e.type, 'tag': e.tag,
                      'parent': e.parent, 'parent_output': e.parent_output,
                      'mass': e.mass, 'link': tree.element_links[i],
                      'implicit': e.implicit}
                     for i, e in enumerate(model.elements)],
        'tree': _element_tree(model, tree),
    }
    if args.json:
        print(json.dumps(info))
    else:
        print(f'{args.file}: HRDF {info["version"]}, {model.dof_count} DoF '
              f'({", ".join(tree.dof_names)}), total mass {model.total_mass:.6g} kg')
        print('frames: ' + ', '.join(f'{k} {v}' for k, v in info['frame_counts'].items()))
        _print_tree(info['tree'])
    return EXIT_OK


def _ros2_control_options(args):
    """The ``--ros2-control`` / ``--hebi-config`` choice, or ``None``."""
    # imported here: only these options need it
    from .export.ros2_control import Ros2ControlOptions
    if args.ros2_control is None:
        if args.hebi_config:
            raise _UsageError('--hebi-config needs --ros2-control hebi')
        return None
    package, config = args.hebi_config or ('', '')
    return Ros2ControlOptions(args.ros2_control, package, config)


def _cmd_moveit(args) -> int:
    # imported here: only this subcommand needs Jinja2 (and python-fcl)
    from .export.moveit import moveit_package, write_moveit_package
    from .export.moveit.limits import read_limits_file
    model, code = _load_or_report(args.file)
    if model is None:
        return code
    name = args.name or re.sub(r'[^A-Za-z0-9_.-]', '_', _robot_name(args)).lstrip('.-')
    try:
        package = moveit_package(
            model, name, joint_prefix=args.joint_prefix,
            limits=read_limits_file(args.limits) if args.limits else None,
            samples=args.collision_samples, seed=args.seed,
            ros2_control=_ros2_control_options(args))
    except (ValueError, ImportError) as exc:
        raise _UsageError(str(exc)) from None
    for path in write_moveit_package(package, args.output):
        print(path)
    for note in package.notes:
        print(f'hrdf: note: {note}', file=sys.stderr)
    print(f'hrdf: MoveIt config package {package.name} in {args.output}: build it in a '
          f'colcon workspace, then: ros2 launch {package.name} demo.launch.py',
          file=sys.stderr)
    return EXIT_OK


def _add_ros2_control_options(parser, help_text: str) -> None:
    parser.add_argument('--ros2-control', choices=('mock', 'gazebo', 'hebi'), help=help_text)
    parser.add_argument('--hebi-config', nargs=2, metavar=('PKG', 'FILE'),
                        help='HEBI robot config for --ros2-control hebi: package and file '
                             'in its share folder (hebi_hardware config_pkg, config_file)')


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of the ``hrdf`` command."""
    parser = argparse.ArgumentParser(prog='hrdf', description='HEBI HRDF tools (hrdf_ros)')
    sub = parser.add_subparsers(dest='command', required=True)
    p = sub.add_parser('validate', help='check HRDF files')
    p.add_argument('files', nargs='+', metavar='FILE')
    p.add_argument('--json', action='store_true', help='one JSON report per file')
    p.set_defaults(run=_cmd_validate)
    p = sub.add_parser('urdf', help='write the URDF of an HRDF file')
    p.add_argument('file', metavar='FILE')
    p.add_argument('-o', '--output', help='output file (default: stdout)')
    p.add_argument('--name', help='URDF robot name (default: file name)')
    p.add_argument('--joint-prefix', default='J', help='joint name prefix (default J)')
    p.add_argument('--xacro', action='store_true',
                   help='write a xacro macro (prefix, parent, xyz, rpy) instead')
    p.add_argument('--limits', metavar='YAML',
                   help='joint position limits, a YAML mapping joint: [lower, upper]')
    p.add_argument('--hebi-meshes', action='store_true',
                   help='actuator meshes from package://hebi_description')
    _add_ros2_control_options(p, 'add a <ros2_control> block for every movable joint')
    p.set_defaults(run=_cmd_urdf)
    for name, run, help_text in (
            ('fk', _cmd_fk, 'forward kinematics'),
            ('jacobian', _cmd_jacobian, 'geometric Jacobians (rows vx vy vz wx wy wz)')):
        p = sub.add_parser(name, help=help_text)
        p.add_argument('file', metavar='FILE')
        p.add_argument('--positions', help='joint positions "q1 q2 ..." (rad / m); default zeros')
        p.add_argument('--frame-type', default='end_effector', choices=FRAME_TYPES)
        p.add_argument('--json', action='store_true')
        p.set_defaults(run=run)
    p = sub.add_parser('info', help='summary of a robot')
    p.add_argument('file', metavar='FILE')
    p.add_argument('--json', action='store_true')
    p.set_defaults(run=_cmd_info)
    p = sub.add_parser('moveit', help='write a MoveIt 2 config package of an HRDF file')
    p.add_argument('file', metavar='FILE')
    p.add_argument('-o', '--output', required=True, metavar='DIR',
                   help='package folder (e.g. ~/ws/src/<name>_moveit_config)')
    p.add_argument('--name', help='robot name and file stem (default: file name); the '
                                  'package is <name as a ROS name>_moveit_config')
    p.add_argument('--joint-prefix', default='J', help='joint name prefix (default J)')
    p.add_argument('--limits', metavar='YAML',
                   help='joint limits: joint: [lower, upper] or joint: {position: '
                        '[lower, upper], velocity: v, acceleration: a, effort: e}')
    p.add_argument('--collision-samples', type=int, default=10000, metavar='N',
                   help='random states for the self-collision matrix (default 10000; '
                        '0: only adjacent links are disabled)')
    p.add_argument('--seed', type=int, default=0, help='seed of those states (default 0)')
    _add_ros2_control_options(p, 'default hardware of the package\'s ros2_control '
                                 'xacro (default mock)')
    p.set_defaults(run=_cmd_moveit)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of ``hrdf``; returns the exit code (0 ok, 1 invalid HRDF, 2 usage/IO)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_USAGE if exc.code else EXIT_OK
    try:
        return args.run(args)
    except _UsageError as exc:
        print(f'hrdf: error: {exc}', file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f'hrdf: error: {exc}', file=sys.stderr)
        return EXIT_USAGE


if __name__ == '__main__':
    sys.exit(main())
