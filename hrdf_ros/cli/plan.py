"""``hrdf plan``: a collision-free motion, timed within the joints' limits.

In: parsed arguments: the HRDF, a goal (``--goal`` joint positions, or a pose: ``--xyz``
m and ``--rpy``, ``--quat`` or ``--tip-axis``, as ``hrdf ik``; ``--cartesian`` for a
straight line of the end effector), ``--start``, ``--collision-objects FILE`` (the schema
of :mod:`hrdf_ros.motion.objects`), ``--floor Z``, the scaling factors. Out: the plan's
duration, fraction and points on stdout (``--json``: one object), ``--plot FILE.png``;
exit 0 when planned, 1 with one line when there is no plan (the goal in collision, no
IK solution, no path in time: the reason) or when a Cartesian path stops short of the
goal (its part is printed, then why it stopped: a script must not take it for the whole
motion), 2 on bad input, 1 for an invalid HRDF.
"""
from __future__ import annotations

import json
import sys

import numpy as np

from ..description.limits import read_limits
from ..kinematics.ik import ORIENTATIONS
from ..numbers import table_number
from .common import (EXIT_INVALID, EXIT_OK, UsageError, add_collision_object_options,
                     collision_objects_of, load_or_report, note, parse_positions)
from .ik import _finite, _target


def add_parser(sub) -> None:
    """Register ``hrdf plan`` on the subcommand parsers ``sub``."""
    p = sub.add_parser('plan', help='a collision-free motion to a joint goal or a pose, '
                                    'timed within the joint limits')
    p.add_argument('file', metavar='FILE')
    p.add_argument('--goal', metavar='"Q1 Q2 ..."',
                   help='joint goal (rad / m, joint order); or give a pose with --xyz')
    p.add_argument('--xyz', nargs=3, type=float, metavar=('X', 'Y', 'Z'),
                   help='goal position of the end effector, m, in the reference frame')
    rotation = p.add_mutually_exclusive_group()
    rotation.add_argument('--rpy', nargs=3, type=float, metavar=('R', 'P', 'Y'),
                          help='goal orientation, roll pitch yaw, rad')
    rotation.add_argument('--quat', nargs=4, type=float, metavar=('X', 'Y', 'Z', 'W'),
                          help='goal orientation as a quaternion')
    rotation.add_argument('--tip-axis', nargs=3, type=float, metavar=('X', 'Y', 'Z'),
                          help="goal direction of the end effector's z axis")
    p.add_argument('--orientation', choices=ORIENTATIONS,
                   help='IK objective of a pose goal (as hrdf ik)')
    p.add_argument('--cartesian', action='store_true',
                   help='move the end effector along a straight line to the pose')
    p.add_argument('--start', metavar='"Q1 Q2 ..."', help='start positions; default zeros')
    p.add_argument('--end-effector', type=int, default=0, metavar='INDEX',
                   help='which end effector (default 0)')
    add_collision_object_options(p)
    p.add_argument('--limits', metavar='YAML', help='joint position limits (as hrdf ik)')
    p.add_argument('--ignore-collisions', action='store_true',
                   help='plan without collision checks (the straight line)')
    p.add_argument('--planning-time', type=float, default=5.0, metavar='S',
                   help='cap on the search against a hang, s (default 5, MoveIt\'s; the '
                        'search itself is bounded by counts: the same request gives the '
                        'same plan)')
    p.add_argument('--seed', type=int, default=0, metavar='N',
                   help='seed of the sampling-based planner, 0 to 2^32 - 1 (default 0)')
    p.add_argument('--max-step', type=float, default=0.01, metavar='M',
                   help='Cartesian step, m (default 0.01)')
    p.add_argument('--max-velocity-scaling-factor', type=float, default=1.0, metavar='F',
                   help='share of the velocity limits, (0, 1] (default 1)')
    p.add_argument('--max-acceleration-scaling-factor', type=float, default=1.0,
                   metavar='F', help='share of the acceleration limits, (0, 1] (default 1)')
    p.add_argument('--json', action='store_true', help='one JSON object on stdout')
    p.add_argument('--plot', metavar='FILE.png',
                   help='draw positions, velocities and accelerations against time, with '
                        'the limits (matplotlib: the plot extra)')
    p.set_defaults(run=cmd_plan)



def _planner(args, model):
    from ..motion.planner import MotionPlanner  # noqa: PLC0415 - the motion extra, on use
    try:
        limits = read_limits(args.limits) if args.limits else None
        return MotionPlanner(model, collision_objects_of(args), joint_limits=limits)
    except ImportError as exc:
        raise UsageError(str(exc)) from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _request(args, planner, start):
    options = dict(avoid_collisions=not args.ignore_collisions,
                   max_velocity_scaling_factor=args.max_velocity_scaling_factor,
                   max_acceleration_scaling_factor=args.max_acceleration_scaling_factor)
    if args.goal is not None:
        if args.xyz is not None or args.cartesian:
            raise UsageError('--goal is a joint goal: give --xyz (and --cartesian) instead, '
                             'not both')
        goal = parse_positions(args.goal, planner.model.dof_count, '--goal')
        return planner.plan(start, goal, planning_time=args.planning_time, seed=args.seed,
                            **options)
    if args.xyz is None:
        raise UsageError('give a goal: --goal "q1 q2 ..." or a pose with --xyz')
    target, orientation = _target(args)     # position only without a rotation option
    if args.rpy is not None or args.quat is not None:
        orientation = args.orientation     # None: the objective the chain gives (hrdf ik)
    if args.cartesian:
        return planner.cartesian_path(start, [target], index=args.end_effector,
                                      max_step=args.max_step, **options)
    return planner.plan(start, pose=target, index=args.end_effector, orientation=orientation,
                        planning_time=args.planning_time, seed=args.seed, **options)


def cmd_plan(args) -> int:
    """``hrdf plan``: plan, print (module docstring)."""
    model, code = load_or_report(args)
    if model is None:
        return code
    if args.xyz is not None:
        _finite('--xyz', args.xyz)
    start = parse_positions(args.start, model.dof_count, '--start')
    planner = _planner(args, model)
    try:
        plan = _request(args, planner, start)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        out = {'success': plan.success, 'error_code': plan.error_code,
               'message': plan.message, 'fraction': plan.fraction,
               'planning_time': plan.planning_time,
               'trajectory': plan.trajectory.to_dict() if plan.trajectory else None}
        print(json.dumps(out))
    if not plan.success:
        if not args.json:
            print(f'hrdf: no plan (MoveIt error code {plan.error_code}): {plan.message}',
                  file=sys.stderr)
        return EXIT_INVALID
    trajectory = plan.trajectory
    if not args.json:
        print(f'duration {table_number(trajectory.duration).strip()} s, fraction '
              f'{plan.fraction:.3f}, {len(trajectory.time_from_start)} points '
              f'({", ".join(trajectory.joint_names)}):')
        for t, q in zip(trajectory.time_from_start, trajectory.positions):
            print(f'{t: 9.4f} ' + ' '.join(table_number(v, 6) for v in q))
        note(f'planned in {plan.planning_time:.3f} s')
    if args.plot:
        from .plot import plot_trajectory  # noqa: PLC0415 - matplotlib, on use
        columns = [planner.joint_names.index(j) for j in trajectory.joint_names]
        try:
            plot_trajectory(trajectory, planner.velocity_limits[columns]
                            * args.max_velocity_scaling_factor,
                            planner.acceleration_limits[columns]
                            * args.max_acceleration_scaling_factor, args.plot)
        except ImportError as exc:
            raise UsageError(f'--plot needs matplotlib: pip install \'hrdf_ros[plot]\' '
                             f'({exc})') from None
        except OSError as exc:
            raise UsageError(f'--plot: {exc.strerror}: {args.plot}') from None
        note(f'plot in {args.plot}')
    if plan.fraction < 1.0:
        if not args.json:
            print(f'hrdf: the path stops short of the goal: {plan.message}', file=sys.stderr)
        return EXIT_INVALID
    return EXIT_OK
