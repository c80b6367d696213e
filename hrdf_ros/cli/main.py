"""The ``hrdf`` command line: argument parsing and the guard that turns every failure
into an exit code and one line on stderr.

In: ``argv``. Out: the exit code of the subcommand (:mod:`.commands`, :mod:`.info`);
0 ok, 1 invalid HRDF, 2 usage or I/O problem, 130 interrupted. Never a traceback.
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
from typing import List, Optional

from ..hrdf.leniency import DEVIATIONS
from ..export.ros2_control import DEFAULT_ROS_DISTRO, GRIPPER_CONTROLLERS
from ..entry_points import interrupted_exit_code
from ..kinematics import FRAME_TYPES, backend
from .commands import cmd_export, cmd_fk, cmd_jacobian, cmd_mjcf, cmd_moveit, cmd_validate
from .common import (EXIT_INVALID, EXIT_OK, EXIT_USAGE, Parser, UsageError,
                     add_gripper_option, add_mesh_options)
from .ik import add_parsers as add_ik_parsers
from .plan import add_parser as add_plan_parser
from .reach import add_parser as add_reach_parser
from .design import add_parser as add_design_parser
from .info import cmd_info
from .meshes import add_parser as add_meshes_parser
from .view import add_view_parser


LIMITS_HELP = ('joint limits, a YAML mapping joint: [lower, upper] or '
               '{lower, upper, velocity, effort}')
MOVEIT_LIMITS_HELP = ('joint limits: joint: [lower, upper] or joint: {position: '
                      '[lower, upper], velocity: v, acceleration: a, effort: e}')


def _add_joint_options(parser, limits_help: str = LIMITS_HELP) -> None:
    """``--joint-prefix`` and ``--limits``, shared by every model writer."""
    parser.add_argument('--joint-prefix', default='J', help='joint name prefix (default J)')
    parser.add_argument('--limits', metavar='YAML', help=limits_help)


def _add_ros2_control_options(parser, help_text: str) -> None:
    parser.add_argument('--ros2-control', choices=('mock', 'gazebo', 'hebi'), help=help_text)


def _add_collision_options(parser, what: str) -> None:
    parser.add_argument('--collision-samples', type=int, default=10000, metavar='N',
                        help=f'random states for the self-collision matrix {what} '
                             '(default 10000; 0: only adjacent links are disabled, no '
                             'python-fcl needed)')
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of those states (default 0)')


def _add_file_and_config(parser) -> None:
    """FILE (optional with a config that names its HRDF) and ``--hebi-config``."""
    parser.add_argument('file', metavar='FILE', nargs='?',
                        help='the HRDF (default: the hrdf: of --hebi-config)')
    parser.add_argument('--hebi-config', metavar='CONFIG',
                        help='a HEBI arm config (PATH.cfg.yaml, or PKG:FILE in an installed '
                             'package): its names are the joint names, its gains bound '
                             'the velocity and effort limits, and hebi_hardware is told '
                             'its config_pkg and config_file')


class _Version(argparse.Action):
    """``--version``: ``hrdf_ros X.Y.Z`` on stdout, exit 0 (the version is read only
    when asked)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        import hrdf_ros  # noqa: PLC0415
        print(f'hrdf_ros {hrdf_ros.__version__}')
        parser.exit(EXIT_OK)


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of the ``hrdf`` command."""
    parser = Parser(prog='hrdf', description='HEBI HRDF tools (hrdf_ros)')
    parser.add_argument('--version', action=_Version,
                        help='print hrdf_ros\'s version and exit')
    sub = parser.add_subparsers(dest='command', required=True)
    strict_help = ('spec deviations hebi-py accepts are errors, not warnings (codes: '
                   + ', '.join(DEVIATIONS) + ')')
    p = sub.add_parser('validate', help='check HRDF files')
    p.add_argument('files', nargs='+', metavar='FILE')
    p.add_argument('--json', action='store_true', help='one JSON report per file')
    p.set_defaults(run=cmd_validate)
    for command, help_text in (('urdf', 'write the URDF of an HRDF file'),
                               ('sdf', 'write an SDFormat model of an HRDF file (1.9; '
                                       '1.11 with gripper mimic joints)')):
        p = sub.add_parser(command, help=help_text)
        _add_file_and_config(p)
        p.add_argument('-o', '--output', help='output file (default: stdout)')
        p.add_argument('--name', help='robot/model name (default: file name)')
        _add_joint_options(p)
        if command == 'urdf':
            p.add_argument('--xacro', action='store_true',
                           help='write a xacro macro (prefix, parent, xyz, rpy) instead')
            p.add_argument('--exact-masses', action='store_true',
                           help="HEBI's masses only, without the physical fill that "
                                'simulators need on massless moving bodies')
        p.add_argument('--hebi-meshes', action='store_true',
                       help='deprecated: the same as --meshes package')
        add_mesh_options(p)
        add_gripper_option(p)
        if command == 'urdf':
            _add_ros2_control_options(p, 'add a <ros2_control> block for every movable joint')
        p.set_defaults(run=cmd_export)
    p = sub.add_parser('mjcf', help='write a MuJoCo model (robot.xml) and a scene.xml that '
                                     'includes it')
    _add_file_and_config(p)
    p.add_argument('-o', '--output', required=True, metavar='DIR/robot.xml',
                   help='the robot\'s file; scene.xml is written beside it')
    p.add_argument('--name', help='model name (default: file name)')
    _add_joint_options(p)
    p.add_argument('--exact-masses', action='store_true',
                   help="HEBI's masses, but where MuJoCo refuses them (a massless body "
                        'behind a joint, a point mass): there the physical fill stays')
    p.add_argument('--gravity-compensation', action='store_true',
                   help='compensate gravity through the actuators, as HEBI\'s arm API does '
                        '(gravcomp); default: the position actuators alone hold the robot')
    _add_collision_options(p, 'for the contact exclusions and the home keyframe')
    add_mesh_options(p)
    add_gripper_option(p)
    p.set_defaults(run=cmd_mjcf)
    for name, run, help_text in (
            ('fk', cmd_fk, 'forward kinematics'),
            ('jacobian', cmd_jacobian, 'geometric Jacobians (rows vx vy vz wx wy wz)')):
        p = sub.add_parser(name, help=help_text)
        p.add_argument('file', metavar='FILE')
        p.add_argument('--positions',
                       help='joint positions "q1 q2 ..." (rad / m); default zeros')
        p.add_argument('--frame-type', default='end_effector', choices=FRAME_TYPES)
        p.add_argument('--json', action='store_true')
        p.set_defaults(run=run)
    add_ik_parsers(sub)
    add_plan_parser(sub)
    add_reach_parser(sub, _add_file_and_config)
    add_design_parser(sub)
    p = sub.add_parser('info', help='summary of a robot')
    p.add_argument('file', metavar='FILE')
    p.add_argument('--json', action='store_true')
    p.set_defaults(run=cmd_info)
    p = sub.add_parser('moveit', help='write a MoveIt 2 config package of an HRDF file')
    _add_file_and_config(p)
    p.add_argument('-o', '--output', required=True, metavar='DIR',
                   help='package folder (e.g. ~/ws/src/<name>_moveit_config)')
    p.add_argument('--name', help='robot name and file stem (default: file name); the '
                                  'package is <name as a ROS name>_moveit_config')
    _add_joint_options(p, MOVEIT_LIMITS_HELP)
    _add_collision_options(p, 'of the SRDF')
    _add_ros2_control_options(p, 'default hardware of the package\'s ros2_control '
                                 'xacro (default mock; its bring-up launch file chooses '
                                 'with use_mock_hardware)')
    p.add_argument('--ros-distro', choices=tuple(GRIPPER_CONTROLLERS),
                   default=DEFAULT_ROS_DISTRO,
                   help='the ROS 2 distribution the package is for: its gripper '
                        f'controller (default {DEFAULT_ROS_DISTRO})')
    add_mesh_options(p)
    add_gripper_option(p)
    p.set_defaults(run=cmd_moveit)
    add_meshes_parser(sub)
    add_view_parser(sub)
    kinematics_help = ('kinematics path: numpy (the default here: no start-up cost), numba '
                       '(compiled kernels of the extra hrdf_ros[fast]) or auto (numba when '
                       f'installed); {backend.KINEMATICS_VARIABLE} in the environment '
                       'overrides it')
    for p in sub.choices.values():
        p.add_argument('--strict', action='store_true', help=strict_help)
        p.add_argument('--kinematics', choices=backend.CHOICES, default='numpy',
                       help=kinematics_help)
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


@functools.lru_cache(maxsize=1)
def _parser() -> argparse.ArgumentParser:
    """The parser, built once per process (parsing changes nothing in it; building it
    costs ~17 ms, which ``main()`` called in-process for many commands paid each time)."""
    return build_parser()


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of ``hrdf``; returns the exit code (:data:`.common.EXIT_OK` and the
    others; what each means: :mod:`hrdf_ros.cli`). Never raises (SystemExit from
    ``--help`` aside, handled here too) and never prints a traceback."""
    try:
        try:
            args = _parser().parse_args(argv)
        except SystemExit as exc:  # --help
            return EXIT_USAGE if exc.code else EXIT_OK
        try:
            backend.resolve(args.kinematics)        # the environment variable, numba
        except (ValueError, ImportError) as exc:
            raise UsageError(str(exc)) from None
        previous = backend.default()
        backend.set_default(args.kinematics)
        try:
            code = args.run(args)
        finally:
            backend.set_default(previous)       # main() called in-process changes nothing
        sys.stdout.flush()
        return code
    except UsageError as exc:
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
        return interrupted_exit_code(argv)
    except Exception as exc:  # noqa: BLE001 - a bug must still not show a traceback
        print(f'hrdf: internal error ({type(exc).__name__}: {_one_line(exc)}); please '
              'report it with the input', file=sys.stderr)
        return EXIT_INVALID
