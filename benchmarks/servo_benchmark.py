"""Servo benchmark: the time of one servo step (hrdf_ros.servo.ServoCore.step), p50 and
p99, on HEBI kits of 4 to 7 joints, with and without the collision checks, while a
twist is held (commands every 50 steps, as a 20 Hz joystick sends them) from the SRDF's
home state, the arm moving among its own links (and, ``--box``, toward a box in front
of the end effector).

Target: p99 at most 1 ms on the 7-DoF kits with collision checks, so that the default
1 kHz holds. Run alone: ``python benchmarks/servo_benchmark.py [--steps N]``.
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
KITS = os.path.normpath(os.path.join(HERE, '..', '..', 'shared', 'hrdf', 'kits'))

from hrdf_ros import load  # noqa: E402
from hrdf_ros.motion import MotionPlanner  # noqa: E402
from hrdf_ros.servo import ServoCore, ServoParameters, Twist  # noqa: E402

ROBOTS = ['A-2099-07', 'X-Series-Double-Shoulder-7DOF', 'R-Series-Double-Shoulder-7DOF',
          'A-2085-06', 'A-2240-05', 'A-2084-01']
#: µs, the target for p99 on the 7-DoF kits with collision checks (1 kHz)
TARGET_US = 1000.0


def _home(planner):
    values = planner.semantics.home()
    return np.array([values[j] for j in planner.joint_names]) * planner._ratios


def timed(planner, checks: bool, steps: int, twist):
    core = ServoCore(planner, positions=_home(planner),
                     parameters=ServoParameters(check_collisions=checks))
    times = np.empty(steps)
    for k in range(200):                                  # warm up
        if k % 50 == 0:
            core.command(twist)
        core.step()
    core.reset(_home(planner))
    statuses = {}
    for k in range(steps):
        if k % 50 == 0:
            core.command(twist)
        t = time.perf_counter()
        out = core.step()
        times[k] = time.perf_counter() - t
        statuses[out.status.name] = statuses.get(out.status.name, 0) + 1
    return np.percentile(times, 50) * 1e6, np.percentile(times, 99) * 1e6, statuses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--steps', type=int, default=3000)
    parser.add_argument('--box', action='store_true', help='a box in front of the tool')
    args = parser.parse_args()
    failures = []
    twist = Twist([0.0, 0.03, 0.01], [0.0, 0.0, 0.1])
    for name in ROBOTS:
        model = load(os.path.join(KITS, f'{name}.hrdf'))
        objects = ()
        if args.box:
            plain = MotionPlanner(model)
            tip = plain.kinematics.end_effector(_home(plain))[:3, 3]
            objects = ({'name': 'box', 'type': 'box', 'dimensions': [0.4, 0.1, 0.4],
                        'pose': {'position': [float(tip[0]), float(tip[1]) + 0.15,
                                              float(tip[2])]}},)
        planner = MotionPlanner(model, objects)
        row = [name, f'{model.dof_count} DoF']
        for checks in (True, False):
            p50, p99, statuses = timed(planner, checks, args.steps, twist)
            row.append(f'{"checks" if checks else "no checks"}: p50 {p50:.0f} us, '
                       f'p99 {p99:.0f} us ({p99 / TARGET_US:.2f} x 1 ms)')
            if checks:
                row.append('statuses ' + ', '.join(f'{k} {v}' for k, v in
                                                   sorted(statuses.items())))
            if checks and model.dof_count == 7 and p99 > TARGET_US:
                failures.append(f'{name}: p99 {p99:.0f} us > {TARGET_US:.0f} us')
        print(' | '.join(row), flush=True)
    for line in failures:
        print('FAIL', line)
    print('all targets PASS' if not failures else f'{len(failures)} targets FAIL')
    return 0


if __name__ == '__main__':
    sys.exit(main())
