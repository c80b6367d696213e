"""``hrdf ik`` (joint positions for an end-effector pose) and ``hrdf gravity`` (the
efforts that hold the robot against gravity).

In: parsed arguments: the HRDF, the target (``--xyz`` m, and ``--rpy`` rad, ``--quat``
or ``--tip-axis``, in the robot's reference frame), ``--seed``, ``--limits``,
``--collision-objects`` / ``--floor`` / ``--ignore-collisions``; or ``--positions`` and
``--gravity``. Out: the joint positions (rad, m) or efforts (N m, N) by joint name on
stdout (``--json``: one object); exit 0. ``hrdf ik`` answers free of collision (the
robot's own links and the objects: :meth:`hrdf_ros.MotionPlanner.solve_ik`, the motion
extra) unless ``--ignore-collisions`` asks for plain IK
(:meth:`hrdf_ros.Kinematics.solve_ik`), as ~/solve_ik does unless a request says
``avoid_collisions: false``. It exits 1 with one line on stderr saying how far the best
configuration is when there is no solution. The search is bounded by counts
(``--max-attempts`` starts of ``--max-iterations`` steps; ``--timeout`` only adds a cap),
so the same command gives the same answer on any machine. Bad arguments (and a collision check without
the motion extra) exit 2 with one line, an invalid HRDF 1 with its diagnostics (as every
subcommand, :mod:`.common`).
"""
from __future__ import annotations

import json
import sys

import numpy as np

from ..description.limits import read_limits
from ..numbers import table_number
from ..kinematics import HEBI_GRAVITY, Kinematics
from ..kinematics.ik import ORIENTATIONS, default_orientation
from ..kinematics.rotations import frame_with_z, quaternion_to_rotation, rpy_to_rotation
from .common import (EXIT_INVALID, EXIT_OK, UsageError, add_collision_object_options,
                     collision_objects_of, load_or_report, note, parse_positions)

#: The command line's search, bounded by counts so that the same command gives the same
#: answer on any machine under any load: at most this many starts (collision-free IK:
#: the seed, then other starts; plain IK: the seed and its restarts) ...
DEFAULT_ATTEMPTS = 64
#: ... of at most this many Levenberg-Marquardt steps each (the goal IK of
#: ``hrdf plan``: hrdf_ros.motion.planner.GOAL_IK_ATTEMPTS and GOAL_IK_ITERATIONS).
DEFAULT_ITERATIONS = 300


def add_parsers(sub) -> None:
    """Register ``hrdf ik`` and ``hrdf gravity`` on the subcommand parsers ``sub``."""
    p = sub.add_parser('ik', help='joint positions that put an end effector at a pose '
                                  '(inverse kinematics)')
    p.add_argument('file', metavar='FILE')
    p.add_argument('--xyz', nargs=3, type=float, required=True, metavar=('X', 'Y', 'Z'),
                   help='target position of the end effector, m, in the reference frame')
    rotation = p.add_mutually_exclusive_group()
    rotation.add_argument('--rpy', nargs=3, type=float, metavar=('R', 'P', 'Y'),
                          help='target orientation, roll pitch yaw in rad (URDF: '
                               'Rz(yaw) Ry(pitch) Rx(roll))')
    rotation.add_argument('--quat', nargs=4, type=float, metavar=('X', 'Y', 'Z', 'W'),
                          help='target orientation as a quaternion (normalised)')
    rotation.add_argument('--tip-axis', nargs=3, type=float, metavar=('X', 'Y', 'Z'),
                          help="the direction of the end effector's z axis (normalised): "
                               "HEBI's 5-DoF objective")
    p.add_argument('--orientation', choices=ORIENTATIONS,
                   help='objective: full pose, tip axis or position only (default: none '
                        'without a rotation option; with --rpy or --quat by the degrees of '
                        'freedom that move the end effector, 6+ full, 5 tip axis, 4- none; '
                        'tip_axis with --tip-axis)')
    p.add_argument('--seed', metavar='"Q1 Q2 ..."',
                   help='start positions (rad / m, joint order); default zeros')
    p.add_argument('--limits', metavar='YAML',
                   help='joint limits, a YAML mapping joint: [lower, upper] (as hrdf urdf '
                        '--limits); joints without limits are free')
    p.add_argument('--end-effector', type=int, default=0, metavar='INDEX',
                   help='which end effector (default 0, the first)')
    p.add_argument('--position-tolerance', type=float, default=1e-5, metavar='M',
                   help='on the distance to the target (default 1e-5 m)')
    p.add_argument('--orientation-tolerance', type=float, default=1e-5, metavar='RAD',
                   help='on the orientation error angle (default 1e-5 rad)')
    p.add_argument('--max-attempts', type=int, default=DEFAULT_ATTEMPTS, metavar='N',
                   help=f'starts of the search (default {DEFAULT_ATTEMPTS}): the seed, then '
                        'others')
    p.add_argument('--max-iterations', type=int, default=DEFAULT_ITERATIONS, metavar='N',
                   help=f'steps per start (default {DEFAULT_ITERATIONS}); the search is '
                        'bounded by these counts, so the same command gives the same answer')
    p.add_argument('--timeout', type=float, default=None, metavar='S',
                   help='a wall-clock cap on the search besides the counts (default none; '
                        'with it the answer may depend on the machine\'s speed)')
    add_collision_object_options(p)
    p.add_argument('--ignore-collisions', action='store_true',
                   help='plain IK: the answer may collide (by default it is free of '
                        'collision with the robot\'s own links and the objects; the motion '
                        'extra)')
    p.add_argument('--json', action='store_true', help='one JSON object on stdout')
    p.set_defaults(run=cmd_ik)
    p = sub.add_parser('gravity', help='joint efforts that hold the robot still against '
                                       'gravity')
    p.add_argument('file', metavar='FILE')
    p.add_argument('--positions', help='joint positions "q1 q2 ..." (rad / m); default zeros')
    p.add_argument('--gravity', nargs=3, type=float, default=list(HEBI_GRAVITY),
                   metavar=('GX', 'GY', 'GZ'),
                   help='gravity in the reference frame, m/s^2 (default 0 0 -9.81, as '
                        "HEBI's arm API)")
    p.add_argument('--json', action='store_true', help='one JSON object on stdout')
    p.set_defaults(run=cmd_gravity)


def _finite(name: str, values) -> np.ndarray:
    array = np.array(values, dtype=float)
    if not np.all(np.isfinite(array)):
        raise UsageError(f'{name} must be finite numbers, got {" ".join(map(str, values))}')
    return array


def _unit(name: str, values) -> np.ndarray:
    array = _finite(name, values)
    norm = float(np.linalg.norm(array))
    if not norm > 1e-12:
        raise UsageError(f'{name} must not be zero')
    return array / norm


def _target(args):
    """(target (4, 4), orientation objective or None for the default) of the options."""
    target = np.eye(4)
    target[:3, 3] = _finite('--xyz', args.xyz)
    orientation = args.orientation
    if args.rpy is not None:
        target[:3, :3] = rpy_to_rotation(*_finite('--rpy', args.rpy))
    elif args.quat is not None:
        target[:3, :3] = quaternion_to_rotation(_unit('--quat', args.quat))
    elif args.tip_axis is not None:
        target[:3, :3] = frame_with_z(_unit('--tip-axis', args.tip_axis))
        if orientation == 'full':
            raise UsageError('--tip-axis gives a direction, not a whole orientation: use '
                             '--rpy or --quat for --orientation full')
        orientation = orientation or 'tip_axis'
    elif orientation in ('full', 'tip_axis'):
        raise UsageError(f'--orientation {orientation} needs --rpy, --quat or --tip-axis')
    else:
        orientation = 'none'
    return target, orientation


def cmd_ik(args) -> int:
    """``hrdf ik``: the solution by joint name (or JSON); exit 1 and one line when the
    target is not reached."""
    model, code = load_or_report(args)
    if model is None:
        return code
    target, orientation = _target(args)
    seed = parse_positions(args.seed, model.dof_count) if args.seed else None
    try:
        limits = read_limits(args.limits) if args.limits else None
    except ValueError as exc:
        raise UsageError(f'--limits: {exc}') from None
    count = model.frame_count('end_effector')
    if not 0 <= args.end_effector < count:
        raise UsageError(f'--end-effector {args.end_effector}: the robot has {count} end '
                         'effector(s)')
    kinematics = Kinematics(model)
    chain = len(kinematics.end_effector_joints(args.end_effector))
    if orientation is None:
        orientation = default_orientation(chain)
        if orientation != 'full':
            note(f'the end effector is moved by {chain} joint(s): solving for the '
                 f'{"position and tip axis" if orientation == "tip_axis" else "position"} '
                 'only (--orientation full to ask for the whole orientation)')
    for option, value in (('--max-attempts', args.max_attempts),
                          ('--max-iterations', args.max_iterations)):
        if value < 1:
            raise UsageError(f'{option} {value}: must be 1 or more')
    options = dict(index=args.end_effector, orientation=orientation,
                   position_tolerance=args.position_tolerance,
                   orientation_tolerance=args.orientation_tolerance, timeout=args.timeout)
    try:
        if args.ignore_collisions:
            if args.collision_objects or args.floor is not None:
                raise UsageError('--ignore-collisions checks no object: leave out '
                                 '--collision-objects and --floor, or the option')
            result = kinematics.solve_ik(
                target, seed, joint_limits=limits,
                max_iterations=args.max_attempts * args.max_iterations, **options)
        else:
            result = _free_ik(args, model, limits).solve_ik(
                target, seed, max_attempts=args.max_attempts,
                max_iterations=args.max_iterations, **options)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    names = model.joint_names()
    if args.json:
        print(json.dumps({
            'success': result.success, 'end_effector': args.end_effector,
            'orientation': orientation, 'joint_names': names,
            'positions': result.positions.tolist(),
            'position_error': result.position_error,
            'orientation_error': result.orientation_error,
            'iterations': result.iterations, 'restarts': result.restarts}))
    if not result.success:
        angle = '' if orientation == 'none' else \
            f' and {result.orientation_error:.3g} rad ({orientation})'
        free = '' if args.ignore_collisions else 'collision-free '
        cap = '' if args.timeout is None else f' (or {args.timeout:g} s)'
        print(f'hrdf: no {free}solution in {args.max_attempts} start(s) of '
              f'{args.max_iterations} iteration(s){cap}: the best configuration found is '
              f'{result.position_error:.3g} m{angle} from the target', file=sys.stderr)
        return EXIT_INVALID
    if not args.json:
        width = max((len(n) for n in names), default=0)
        for name, value in zip(names, result.positions):
            print(f'{name:<{width}} {table_number(value)}')
        errors = f'position error {result.position_error:.2g} m'
        if orientation != 'none':
            errors += f', orientation error {result.orientation_error:.2g} rad ({orientation})'
        note(f'{errors}; {result.iterations} iteration(s), {result.restarts} restart(s)')
    return EXIT_OK


def _free_ik(args, model, limits):
    """The motion planner that answers collision-free IK.

    Raises:
        UsageError: the motion extra missing (naming it and --ignore-collisions), or a
            wrong object or limit.
    """
    objects = collision_objects_of(args)
    try:
        from ..motion.planner import MotionPlanner  # noqa: PLC0415 - the motion extra
        return MotionPlanner(model, objects, joint_limits=limits)
    except ImportError as exc:
        raise UsageError(f'{exc} (hrdf ik answers free of collision; --ignore-collisions '
                         'for plain IK)') from None


def cmd_gravity(args) -> int:
    """``hrdf gravity``: the efforts by joint name (N m, or N for prismatic joints)."""
    model, code = load_or_report(args)
    if model is None:
        return code
    q = parse_positions(args.positions, model.dof_count)
    gravity = _finite('--gravity', args.gravity)
    efforts = Kinematics(model).gravity_efforts(q, gravity)
    names = model.joint_names()
    if args.json:
        print(json.dumps({'joint_names': names, 'positions': q.tolist(),
                          'gravity': gravity.tolist(), 'efforts': efforts.tolist()}))
        return EXIT_OK
    if not len(names):
        note('the robot has no degrees of freedom')
    prismatic = [model.elements[e].motion[0] == 't' for e in model.dof_elements]
    width = max((len(n) for n in names), default=0)
    for name, value, linear in zip(names, efforts, prismatic):
        print(f'{name:<{width}} {table_number(value)} {"N" if linear else "N m"}')
    return EXIT_OK
