"""Reach map benchmark: ``hrdf_ros.reach_map`` at 5 cm and 50 tool directions on a 6-DoF
kit, every 7-DoF kit and the test's double-shoulder arms with grippers (test/data/arms:
R-series and T-series; compiled path, 2 threads, after one warm-up call), against
hebi-py's IK on the same (centre, direction) pairs in the same run.

Per kit: the map's time, its IK solves and solves per second (the target: at most 60 s
per map on a 2-core machine); then ``--pairs`` random pairs of the map, solved by
hebi-py (``solve_inverse_kinematics`` with the position and tip-axis objectives, seeded
with the map's position-only solution at the centre, as the map's first pass is): its
solves per second, the time it would take for the map's solves, the ratio, and how
often the two agree (a success of hebi-py's counts when its FK is within 2e-5 m and rad
of the pair). Then the same map free of collision (``avoid_collisions``): the links with
each other, then also with a floor 2 cm below the mount; its time against the map's
without. No other tool builds this map for a HEBI arm (Reuleaux needs IKFast and
ROS 1, REACH ROS and MoveIt), so hebi-py's IK is the peer.

Run with ``make bench`` or ``python benchmarks/reach_benchmark.py [--kits A-2085-06 ...]
[--pairs N]`` (a kit's name, or an HRDF file's path).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

for _var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ.setdefault(_var, '1')

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
KITS = os.path.normpath(os.path.join(REPO, '..', 'shared', 'hrdf', 'kits'))
ARMS = os.path.join(REPO, 'test', 'data', 'arms')
#: A 6-DoF kit, every 7-DoF kit, and the double-shoulder arms with grippers.
DEFAULT = ['A-2085-06', 'A-2099-07', 'A-2099-07G', 'X-Series-Double-Shoulder-7DOF',
           'R-Series-Double-Shoulder-7DOF', os.path.join(ARMS, 'r_double_shoulder_gripper.hrdf'),
           os.path.join(ARMS, 't_double_shoulder_gripper.hrdf')]

from hrdf_ros import load, reach_map  # noqa: E402
from hrdf_ros.reach.lattice import tool_rotations  # noqa: E402

LIMIT_SECONDS = 60.0
TOLERANCE = 2e-5


def hebi_agreement(path, result, pairs: int):
    """hebi-py on ``pairs`` random (centre, direction) pairs of reachable centres:
    (solves per second, successes where the map solved, pairs the map solved,
    successes where the map did not, pairs it did not)."""
    import hebi
    from hebi.robot_model import (endeffector_position_objective,
                                  endeffector_tipaxis_objective)
    robot = hebi.robot_model.import_from_hrdf(path)
    rows, columns = np.nonzero(np.repeat(result.reachable[:, None], len(result.directions),
                                         axis=1))
    pick = np.random.default_rng(1).choice(len(rows), pairs, replace=False)
    # the map's position-only solution is not stored: its best configuration is the
    # seed here (the same family of configurations the map's first pass starts from)
    ok_on_solved = solved_count = ok_on_unsolved = unsolved_count = 0
    started = time.perf_counter()
    answers = []
    for k in pick:
        centre, direction = result.centers[rows[k]], result.directions[columns[k]]
        try:
            q = np.asarray(robot.solve_inverse_kinematics(
                result.positions[rows[k]], endeffector_position_objective(centre),
                endeffector_tipaxis_objective(direction)))
        except Exception:  # noqa: BLE001 - hebi-py raises on a solver failure
            q = None
        answers.append(q)
    seconds = time.perf_counter() - started
    for k, q in zip(pick, answers):
        ok = False
        if q is not None:
            frame = np.asarray(robot.get_end_effector(q))
            ok = (np.linalg.norm(frame[:3, 3] - result.centers[rows[k]]) <= TOLERANCE and
                  np.arccos(np.clip(frame[:3, 2] @ result.directions[columns[k]], -1, 1))
                  <= TOLERANCE)
        if result.solved[rows[k], columns[k]]:
            solved_count += 1
            ok_on_solved += ok
        else:
            unsolved_count += 1
            ok_on_unsolved += ok
    return pairs / seconds, ok_on_solved, solved_count, ok_on_unsolved, unsolved_count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--kits', nargs='+', default=DEFAULT)
    parser.add_argument('--voxel', type=float, default=0.05)
    parser.add_argument('--directions', type=int, default=50)
    parser.add_argument('--threads', type=int, default=2)
    parser.add_argument('--pairs', type=int, default=2000)
    args = parser.parse_args()
    print(f'reach map: {args.voxel:g} m voxels, {args.directions} tool directions, '
          f'{args.threads} threads, {os.cpu_count()} CPUs')
    failed = False
    for name in args.kits:
        path = name if name.endswith('.hrdf') else os.path.join(KITS, name + '.hrdf')
        name = os.path.splitext(os.path.basename(path))[0]
        model = load(path)
        reach_map(model, voxel=0.3, directions=4, threads=args.threads)   # warm-up
        solves = [0]

        def progress(done, total):
            solves[0] = done
        started = time.perf_counter()
        result = reach_map(model, voxel=args.voxel, directions=args.directions,
                           threads=args.threads, progress=progress)
        seconds = time.perf_counter() - started
        rate = solves[0] / seconds
        verdict = 'PASS' if seconds <= LIMIT_SECONDS else 'FAIL'
        failed |= verdict == 'FAIL'
        print(f'{name} ({model.dof_count} DoF): {seconds:.1f} s ({verdict}: <= '
              f'{LIMIT_SECONDS:.0f} s), {len(result.centers)} points, '
              f'{int(result.reachable.sum())} reachable, {solves[0]} IK solves, '
              f'{rate:.0f} solves/s; mean index '
              f'{result.reachability[result.reachable].mean():.3f}')
        hebi_rate, on_solved, n_solved, on_unsolved, n_unsolved = \
            hebi_agreement(path, result, args.pairs)
        print(f'  hebi-py IK on {args.pairs} pairs: {hebi_rate:.0f} solves/s (1 thread); '
              f'the map\'s {solves[0]} solves would take {solves[0] / hebi_rate:.0f} s; '
              f'ratio {rate / hebi_rate:.1f}x ({args.threads} threads against 1; '
              f'{rate / args.threads / hebi_rate:.1f}x per thread); hebi-py solves {on_solved} of the '
              f'{n_solved} pairs the map solved and {on_unsolved} of the {n_unsolved} it '
              'did not')
        # the same map free of collision: the links with each other, then with a floor
        # 2 cm below the mount as well (the table it stands on)
        floor = {'name': 'floor', 'type': 'floor', 'pose': {'position': [0.0, 0.0, -0.02]}}
        for label, objects in (('self', []), ('self + floor', [floor])):
            reach_map(model, voxel=0.3, directions=4, threads=args.threads,
                      avoid_collisions=True, collision_objects=objects)       # warm-up
            started = time.perf_counter()
            free = reach_map(model, voxel=args.voxel, directions=args.directions,
                             threads=args.threads, avoid_collisions=True,
                             collision_objects=objects, progress=progress)
            took = time.perf_counter() - started
            print(f'  free of collision ({label}): {took:.1f} s ({took / seconds:.2f}x '
                  f'the map without), {int(free.reachable.sum())} reachable, '
                  f'{solves[0]} IK solves; mean index '
                  f'{free.reachability[free.reachable].mean():.3f}; '
                  f'{int(free.solved.sum())} of {int(result.solved.sum())} pairs solved')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
