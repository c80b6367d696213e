"""``hrdf reach``: where an arm reaches, in which tool directions, and the payload it
holds there (a :class:`~hrdf_ros.reach.result.ReachMap`).

In: parsed arguments: the HRDF (or ``--hebi-config``: its names, and its gains lower the
effort limits), ``--voxel`` (m), ``--directions``, ``--end-effector``, ``--limits`` (joint
position limits, YAML as ``hrdf ik``), ``--avoid-collisions`` (only configurations free of
collision count; ``--collision-objects FILE`` and ``--floor Z``, as ``hrdf plan``'s, imply
it), ``--threads``, ``-o MAP.npz``, ``--plot OUT.png``.
Out: a summary on stdout (reachable volume, m^3; the volume where the reachability index
is at least 0.5; payload quantiles, kg; the joint that binds most often; solves per
second), the map and the plot when asked, a progress bar on a terminal's stderr; exit 0
when done, 2 on bad input (one line), 1 for an invalid HRDF.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

from ..description.limits import read_limits
from ..kinematics.ik_request import joint_limit_array
from .common import (EXIT_INVALID, EXIT_OK, UsageError, add_collision_object_options,
                     collision_objects_of, load_with_config)


def add_parser(sub, add_file_and_config) -> None:
    """Register ``hrdf reach`` on the subcommand parsers ``sub``."""
    p = sub.add_parser('reach', help='where the end effector reaches, in which tool '
                                     'directions, and the payload it holds there')
    add_file_and_config(p)
    p.add_argument('--voxel', type=float, default=0.05, metavar='M',
                   help='lattice spacing, m (default 0.05)')
    p.add_argument('--directions', type=int, default=50, metavar='N',
                   help='tool directions per point, spread over the sphere (default 50)')
    p.add_argument('--end-effector', type=int, default=0, metavar='INDEX',
                   help='which end effector (default 0)')
    p.add_argument('--limits', metavar='YAML', help='joint position limits (as hrdf ik)')
    p.add_argument('--avoid-collisions', action='store_true',
                   help='count only configurations free of collision (links with each '
                        'other, as MoveIt checks them, and with the collision objects; '
                        'implied by --collision-objects and --floor; the motion extra)')
    add_collision_object_options(p)
    p.add_argument('--threads', type=int, default=2, metavar='N',
                   help='threads of the batched IK (compiled path; default 2)')
    p.add_argument('-o', '--output', metavar='MAP.npz', help='write the map (numpy .npz)')
    p.add_argument('--plot', metavar='OUT.png',
                   help='heat maps of the reachability index, payload and manipulability '
                        'on the vertical plane through the base and the horizontal plane '
                        'at the shoulder (matplotlib: the plot extra)')
    p.set_defaults(run=cmd_reach)


def progress_bar(stream, unit: str = ' solves'):
    """``progress(done, total)`` drawing tqdm's bar on ``stream`` (silent when it is not
    a terminal), and the bar; ``unit`` what it counts."""
    from tqdm import tqdm  # noqa: PLC0415 - a core dependency, imported on use
    bar = tqdm(total=1, unit=unit, unit_scale=True, file=stream, disable=None,
               leave=False)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()
    return progress, bar


def cmd_reach(args) -> int:
    """Run ``hrdf reach`` (module docstring)."""
    if args.plot:
        try:
            import matplotlib  # noqa: F401, PLC0415 - checked before the work
        except ImportError:
            raise UsageError('--plot needs matplotlib (pip install hrdf_ros[plot])') from None
    for option, path in (('-o', args.output), ('--plot', args.plot)):
        folder = os.path.dirname(os.path.abspath(path)) if path else ''
        if path and not os.path.isdir(folder):       # before the work, not after
            raise UsageError(f'{option}: cannot write {path}: no folder {folder}')
    model, arm, code = load_with_config(args)
    if model is None:
        return code or EXIT_INVALID
    names = list(arm.joint_names) if arm is not None else model.joint_names()
    try:
        limits = joint_limit_array(read_limits(args.limits), names) if args.limits else None
    except (OSError, ValueError) as exc:
        raise UsageError(f'--limits: {exc}') from None
    efforts = None if arm is None else np.array([arm.limits[n].effort for n in names])
    objects = collision_objects_of(args)
    avoid = bool(args.avoid_collisions or objects)
    from ..reach import reach_map  # noqa: PLC0415 - only this command needs it
    progress, bar = progress_bar(sys.stderr)
    started = time.perf_counter()
    try:
        result = reach_map(model, voxel=args.voxel, directions=args.directions,
                           index=args.end_effector, joint_limits=limits,
                           threads=args.threads, effort_limits=efforts,
                           avoid_collisions=avoid, collision_objects=objects,
                           progress=progress)
    except (ValueError, IndexError, ImportError) as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    finally:
        bar.close()
    seconds = time.perf_counter() - started
    if arm is not None:
        from dataclasses import replace  # noqa: PLC0415
        result = replace(result, joint_names=tuple(names))
    for line in summary(result, bar.n, seconds):
        print(line)
    if args.output:
        try:
            result.save(args.output)
        except OSError as exc:
            raise UsageError(f'cannot write {args.output}: {exc.strerror or exc}') from None
        print(f'wrote {args.output}')
    if args.plot:
        from .reach_plot import plot_reach  # noqa: PLC0415 - the plot extra
        try:
            plot_reach(result, model, args.plot, title=os.path.basename(model.path))
        except OSError as exc:
            raise UsageError(f'cannot write {args.plot}: {exc.strerror or exc}') from None
        print(f'wrote {args.plot}')
    return EXIT_OK


def summary(result, solves: int, seconds: float):
    """The summary lines of a map (see the module docstring)."""
    cube = result.voxel ** 3
    reachable = result.reachable
    lines = [f'{len(result.centers)} points {result.voxel:g} m apart, '
             f'{len(result.directions)} tool directions; {solves} IK solves in '
             f'{seconds:.1f} s ({solves / max(seconds, 1e-9):.0f} per second)',
             f'reachable volume: {reachable.sum() * cube:.4f} m^3 '
             f'({int(reachable.sum())} points)',
             f'reachability index >= 0.5: {(result.reachability >= 0.5).sum() * cube:.4f} m^3',
             ]
    if result.avoid_collisions:
        lines.insert(1, 'collisions: every configuration counted is free of collision '
                        '(links with each other and with the collision objects)')
    held = result.payload[reachable]
    if len(held):
        q = np.quantile(held, [0.05, 0.5, 0.95])
        lines.append(f'payload (kg) where reachable: 5 % {q[0]:.3f}, median {q[1]:.3f}, '
                     f'95 % {q[2]:.3f}; it cannot hold itself at '
                     f'{int((held == 0).sum())} points')
        binding = result.binding_joint[reachable]
        binding = binding[binding >= 0]
        if len(binding):
            counts = np.bincount(binding, minlength=len(result.joint_names))
            joint = int(np.argmax(counts))
            lines.append(f'binding joint: {result.joint_names[joint]} at '
                         f'{counts[joint] / len(binding):.0%} of the points')
    return lines
