"""The same request gives the same plan, bit for bit, alone and with both cores busy:
in the API (one process, other requests between), and through ``hrdf plan`` (separate
processes). Planning is bounded by counts and OMPL is seeded from the request
(hrdf_ros.motion.joint_path); the node's ``~/plan_motion`` is tested the same way through
the real ``ros2 service call`` in test_ros_cli_motion.py.

"Busy" is two processes spinning beside the planner (the CI machine has two cores), so
that a planner bounded by time would plan less there.
"""
import contextlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from hrdf_ros import load

from conftest import KITS_DIR

pytest.importorskip('ompl', reason='the motion extra is not installed')
KIT = os.path.join(KITS_DIR, 'A-2099-07.hrdf')
START = [0.1, -0.9, -0.2, -1.2, 0.6, 0.8, -0.9]
#: free, but the straight lines from START to it (and to it with angles turned the other
#: way) collide: the plan goes around
BEHIND = [1.0, 1.6, 2.4, 1.7, -0.4, 2.4, 2.4]


@contextlib.contextmanager
def busy(count: int = 2):
    """``count`` processes spinning until the block ends."""
    loops = [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def _bytes(plan) -> bytes:
    return json.dumps(plan.trajectory.to_dict()).encode() + plan.path.tobytes()


def test_the_api_plans_the_same_trajectory_between_other_requests_and_when_busy():
    """5 plans of one request (a path around, its corners rounded), the last two with both
    cores busy, other requests (other seeds, other goals) between them: the same
    trajectory and path bytes every time. Other seeds plan other paths."""
    from hrdf_ros.motion import MotionPlanner
    planner = MotionPlanner(load(KIT))
    start, goal = np.array(START), np.array(BEHIND)
    first = planner.plan(start, goal, planning_time=60.0)
    assert first.success and len(first.path) > 2, first.message
    rng = np.random.default_rng(3)
    seen = {_bytes(first)}
    for run in range(4):
        for seed in (1, 2):
            other = planner.plan(start, goal, seed=seed, planning_time=60.0)
            assert other.success
            seen.add(_bytes(other))
        planner.plan(start, np.clip(rng.uniform(-2, 2, 7), *planner.position_limits.T),
                     planning_time=60.0)
        with busy(2) if run >= 2 else contextlib.nullcontext():
            again = planner.plan(start, goal, planning_time=60.0)
        assert _bytes(again) == _bytes(first), f'run {run + 2} planned another trajectory'
    assert len(seen) >= 2                     # the seed is the search's


def test_hrdf_plan_prints_the_same_trajectory_in_five_runs():
    """``hrdf plan --json`` five times in new processes, the last two with both cores busy:
    the same trajectory, the same bytes (the planning time aside)."""
    args = [sys.executable, '-m', 'hrdf_ros.cli', 'plan', KIT, '--start',
            ' '.join(map(str, START)), '--goal', ' '.join(map(str, BEHIND)), '--json',
            '--planning-time', '60']
    outputs = []
    for run in range(5):
        with busy(2) if run >= 3 else contextlib.nullcontext():
            result = subprocess.run(args, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        plan = json.loads(result.stdout)
        outputs.append(json.dumps({k: v for k, v in plan.items() if k != 'planning_time'}))
    assert len(set(outputs)) == 1
    assert len(json.loads(outputs[0])['trajectory']['time_from_start']) > 10
