"""``hrdf``: command-line access to hrdf_ros without ROS.

Subcommands (each takes ``--strict``: spec deviations hebi-py accepts, such as a
negative joint axis, are errors instead of warnings; :mod:`hrdf_ros.hrdf.leniency`):
    hrdf validate FILE... [--json]   exit 0 valid (warnings allowed), 1 invalid, 2 usage/IO;
                                     --json: one {"file", "valid", "errors", "warnings"}
                                     object per line (each diagnostic with its "code")
    hrdf urdf FILE [-o OUT] [--name N] [--joint-prefix P] [--xacro] [--limits YAML]
              [--hebi-meshes] [--exact-masses] [--mesh-dir DIR]
                                     the physical fill and replaced meshes are reported
                                     on stderr as warnings
    hrdf sdf FILE [-o OUT] [--name N] [--joint-prefix P] [--limits YAML] [--hebi-meshes]
             [--mesh-dir DIR]        SDFormat 1.9 (hrdf_ros.export.sdf)
    hrdf fk FILE [--positions "q1 q2 ..."] [--frame-type T] [--json]
    hrdf jacobian FILE [--positions "q1 q2 ..."] [--frame-type T] [--json]
    hrdf info FILE [--json]          dof, joint names, frame counts, total mass (kg), the
                                     URDF's physical fill and the element tree (a chain
                                     per output of branching elements)
    hrdf moveit FILE -o DIR [--name N] [--joint-prefix P]
                                     MoveIt 2 config (URDF, SRDF, kinematics, joint limits,
                                     controllers; hrdf_ros.export.moveit) in DIR; prints the paths

Positions are in rad (m for prismatic joints), in HEBI joint order; default all zeros
(a robot without degrees of freedom needs none). Frames are 4x4 homogeneous transforms
in the robot's reference frame (base frame applied), row major. Jacobians are 6 x dof,
rows [vx vy vz wx wy wz] in the reference frame (m/s, rad/s per unit joint velocity).

Exit codes: 0 success; 1 invalid HRDF (every located diagnostic on stderr); 2 usage or
I/O problem (bad arguments, unreadable or unwritable files, a closed output pipe), one
line on stderr; 130 interrupted. No Python traceback is ever printed.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List, Optional

import numpy as np

from .export.frame_tree import build_frame_tree
from .export.limits import read_limits
from .export.inertials import fill_summary, link_inertials
from .export.meshes import MeshDownloadError
from .export.sdf import to_sdf
from .export.urdf import to_urdf, to_xacro, urdf_notes
from .hrdf.diagnostics import HrdfError
from .hrdf.leniency import DEVIATIONS
from .hrdf.reader import load
from .hrdf.validation import validate_file
from .kinematics import FRAME_TYPES, Kinematics

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class _UsageError(Exception):
    """Bad arguments or an unusable input/output file: exit 2 with one line."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``hrdf fk: error: ...``), not the usage
    text, and raises instead of exiting."""

    def error(self, message):
        raise _UsageError(f'{message} (see "{self.prog} --help")')


def _io_error(diagnostics) -> bool:
    """True when the errors are about reading the file itself (line 0, no element)."""
    errors = [d for d in diagnostics if d.severity == 'error']
    return bool(errors) and all(d.line == 0 and d.element is None for d in errors)


def _note(text: str) -> None:
    print(f'hrdf: note: {text}', file=sys.stderr)


def _load_or_report(args):
    """The model of ``args.file`` (warnings printed), or ``(None, exit code)``."""
    path = args.file
    try:
        model = load(path, strict=args.strict)
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
        report = validate_file(path, strict=args.strict)
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


def _cmd_export(args) -> int:
    """``hrdf urdf`` and ``hrdf sdf``: the document on stdout or in ``-o``; what the
    export added or replaced (physical fill, missing meshes) as warnings on stderr."""
    model, code = _load_or_report(args)
    if model is None:
        return code
    name = _robot_name(args)
    options = dict(joint_prefix=args.joint_prefix, hebi_meshes=args.hebi_meshes,
                   mesh_dir=args.mesh_dir)
    exact = getattr(args, 'exact_masses', False)
    try:
        options['position_limits'] = read_limits(args.limits) if args.limits else None
        if args.command == 'sdf':
            text = to_sdf(model, name, **options)
        else:
            write = to_xacro if args.xacro else to_urdf
            text = write(model, name, exact_masses=exact, **options)
        notes = urdf_notes(model, build_frame_tree(model, joint_prefix=args.joint_prefix),
                           exact_masses=exact)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    except MeshDownloadError as exc:
        raise _UsageError(f'--mesh-dir: {exc}') from None
    if args.output and args.output != '-':
        with open(args.output, 'w', encoding='utf-8') as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    for note in notes:  # after the document: a write that fails reports only that
        hint = ' (HEBI\'s masses: --exact-masses)' if note.startswith('physical fill') \
            and args.command == 'urdf' else ''
        print(f'hrdf: warning: {note}{hint}', file=sys.stderr)
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
        model, code = _load_or_report(args)
        if model is None:
            return code
        q = _parse_positions(args.positions, model.dof_count)
        matrices = getattr(Kinematics(model), method)(args.frame_type, q)
        if args.json:
            print(json.dumps({'frame_type': args.frame_type, json_key: matrices.tolist()}))
            return EXIT_OK
        if not len(matrices):
            _note(f'the robot has no {args.frame_type} frames')
        for k, matrix in enumerate(matrices):
            if not matrix.shape[1]:
                print(f'{args.frame_type}[{k}]: 6 x 0 (the robot has no degrees of freedom)')
                continue
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
    model, code = _load_or_report(args)
    if model is None:
        return code
    tree = build_frame_tree(model)
    fill = fill_summary(link_inertials(model, tree))
    info = {
        'file': args.file,
        'version': '.'.join(map(str, model.version)),
        'description': model.description,
        'dof': model.dof_count,
        'joint_names': tree.dof_names,
        'frame_counts': {t: model.frame_count(t) for t in FRAME_TYPES},
        'total_mass': model.total_mass,
        'urdf_fill': fill,
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
        joints = f' ({", ".join(tree.dof_names)})' if tree.dof_names else ''
        print(f'{args.file}: HRDF {info["version"]}, {model.dof_count} DoF{joints}, '
              f'total mass {model.total_mass:.6g} kg')
        print('frames: ' + ', '.join(f'{k} {v}' for k, v in info['frame_counts'].items()))
        added = sum(f['added_mass'] for f in fill)
        print(f'URDF physical fill: {len(fill)} link(s)' + (
            f' ({", ".join(f["link"] for f in fill)}), +{added:.3g} kg' if fill else '')
            + ' (hrdf_ros.export.inertials; hrdf urdf --exact-masses writes HEBI\'s masses)')
        _print_tree(info['tree'])
    return EXIT_OK


def _cmd_moveit(args) -> int:
    # imported here: only this subcommand needs PyYAML
    from .export.moveit import write_moveit_config
    model, code = _load_or_report(args)
    if model is None:
        return code
    name = _robot_name(args)
    try:
        paths = write_moveit_config(model, args.output, name, joint_prefix=args.joint_prefix)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    for path in paths:
        print(path)
    if not model.dof_count:
        _note('the robot has no degrees of freedom: the MoveIt configuration has no '
              'planning group (nothing to plan for)')
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of the ``hrdf`` command."""
    parser = _Parser(prog='hrdf', description='HEBI HRDF tools (hrdf_ros)')
    sub = parser.add_subparsers(dest='command', required=True)
    strict_help = ('spec deviations hebi-py accepts are errors, not warnings (codes: '
                   + ', '.join(DEVIATIONS) + ')')
    p = sub.add_parser('validate', help='check HRDF files')
    p.add_argument('files', nargs='+', metavar='FILE')
    p.add_argument('--json', action='store_true', help='one JSON report per file')
    p.set_defaults(run=_cmd_validate)
    for command, help_text in (('urdf', 'write the URDF of an HRDF file'),
                               ('sdf', 'write an SDFormat 1.9 model of an HRDF file')):
        p = sub.add_parser(command, help=help_text)
        p.add_argument('file', metavar='FILE')
        p.add_argument('-o', '--output', help='output file (default: stdout)')
        p.add_argument('--name', help='robot/model name (default: file name)')
        p.add_argument('--joint-prefix', default='J', help='joint name prefix (default J)')
        if command == 'urdf':
            p.add_argument('--xacro', action='store_true',
                           help='write a xacro macro (prefix, parent, xyz, rpy) instead')
            p.add_argument('--exact-masses', action='store_true',
                           help="HEBI's masses only, without the physical fill that "
                                'simulators need on massless moving bodies')
        p.add_argument('--limits', metavar='YAML',
                       help='joint limits, a YAML mapping joint: [lower, upper] or '
                            '{lower, upper, velocity, effort}')
        p.add_argument('--hebi-meshes', action='store_true',
                       help='actuator meshes from package://hebi_description')
        p.add_argument('--mesh-dir', metavar='DIR',
                       help='download web meshes once into DIR and reference the copies')
        p.set_defaults(run=_cmd_export)
    for name, run, help_text in (
            ('fk', _cmd_fk, 'forward kinematics'),
            ('jacobian', _cmd_jacobian, 'geometric Jacobians (rows vx vy vz wx wy wz)')):
        p = sub.add_parser(name, help=help_text)
        p.add_argument('file', metavar='FILE')
        p.add_argument('--positions',
                       help='joint positions "q1 q2 ..." (rad / m); default zeros')
        p.add_argument('--frame-type', default='end_effector', choices=FRAME_TYPES)
        p.add_argument('--json', action='store_true')
        p.set_defaults(run=run)
    p = sub.add_parser('info', help='summary of a robot')
    p.add_argument('file', metavar='FILE')
    p.add_argument('--json', action='store_true')
    p.set_defaults(run=_cmd_info)
    p = sub.add_parser('moveit', help='write a MoveIt 2 configuration of an HRDF file')
    p.add_argument('file', metavar='FILE')
    p.add_argument('-o', '--output', required=True, metavar='DIR', help='output folder')
    p.add_argument('--name', help='robot name and file stem (default: file name)')
    p.add_argument('--joint-prefix', default='J', help='joint name prefix (default J)')
    p.set_defaults(run=_cmd_moveit)
    for p in sub.choices.values():
        p.add_argument('--strict', action='store_true', help=strict_help)
    return parser


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f'{exc.filename}: {exc.strerror}'
    return ' '.join(str(exc).split()) or type(exc).__name__


def _silence_stdout() -> None:
    """After a closed pipe: send what is still buffered for stdout nowhere, so the
    interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a file (e.g. captured): nothing to flush later


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of ``hrdf``; returns the exit code: 0 ok, 1 invalid HRDF, 2 usage or
    I/O problem (one line on stderr), 130 interrupted. Never raises (SystemExit from
    ``--help`` aside, handled here too) and never prints a traceback."""
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help
            return EXIT_USAGE if exc.code else EXIT_OK
        code = args.run(args)
        sys.stdout.flush()
        return code
    except _UsageError as exc:
        print(f'hrdf: error: {_one_line(exc)}', file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        _silence_stdout()
        print('hrdf: error: output closed (broken pipe)', file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f'hrdf: error: {_one_line(exc)}', file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print('hrdf: interrupted', file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - a bug must still not show a traceback
        print(f'hrdf: internal error ({type(exc).__name__}: {_one_line(exc)}); please '
              'report it with the input', file=sys.stderr)
        return EXIT_INVALID


if __name__ == '__main__':
    sys.exit(main())
