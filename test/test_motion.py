"""hrdf_ros.motion and ``hrdf plan``: requests, answers and errors; the timing's rules
(its peers check it in test_consumers_motion.py)."""
import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import yaml

from hrdf_ros import load
from hrdf_ros.cli import main
from hrdf_ros.export.moveit import moveit_package
from hrdf_ros.motion import MotionPlanner, collision_objects, read_collision_objects
from hrdf_ros.motion import joint_path
from hrdf_ros.motion.joint_path import segment_free, turned_goals
from hrdf_ros.motion.objects import collision_object
from hrdf_ros.motion.timing import line_trajectory, polyline_trajectory
from hrdf_ros.motion.trajectory import JointTrajectory, demand, playback, quintic_coefficients

from conftest import BUNDLED_ARM, KITS_DIR
from motion_helpers import MIN_SEGMENT, check_trajectory, free_states, played_states

GRIPPER_KIT = os.path.join(KITS_DIR, 'A-2085-06G.hrdf')


@pytest.fixture(scope='module')
def arm():
    return MotionPlanner(load(BUNDLED_ARM))


# -- collision objects --------------------------------------------------------------------

def test_collision_objects_read_the_schema(tmp_path):
    path = tmp_path / 'objects.yaml'
    path.write_text(yaml.safe_dump({'collision_objects': [
        {'name': 'table', 'type': 'box', 'dimensions': [1, 1, 0.1],
         'pose': {'position': [0.5, 0, -0.05], 'orientation': [0, 0, 0, 2]}},
        {'name': 'post', 'type': 'cylinder', 'dimensions': [0.5, 0.05]},
        {'name': 'ball', 'type': 'sphere', 'dimensions': [0.1],
         'pose': {'position': [0.3, 0.3, 0.3]}},
        {'name': 'floor', 'type': 'floor', 'pose': {'position': [0, 0, -0.2]}}]}))
    objects = read_collision_objects(str(path))
    assert [o.type for o in objects] == ['box', 'cylinder', 'sphere', 'floor']
    assert objects[0].orientation == (0.0, 0.0, 0.0, 1.0)          # normalised
    assert objects[1].pose().tolist() == np.eye(4).tolist()
    assert collision_objects([o.to_dict() for o in objects]) == objects


@pytest.mark.parametrize('entry,words', [
    ({'name': 'a', 'type': 'cone', 'dimensions': [1]}, 'type must be one of'),
    ({'name': 'a', 'type': 'box', 'dimensions': [1, 1]}, 'expected 3 numbers'),
    ({'name': 'a', 'type': 'box', 'dimensions': [1, 1, -1]}, 'must be > 0'),
    ({'name': 'a', 'type': 'sphere', 'dimensions': [math.nan]}, 'must be finite'),
    ({'name': 'a', 'type': 'sphere'}, 'needs dimensions'),
    ({'name': 'a', 'type': 'sphere', 'dimensions': [1], 'colour': 'red'}, 'unknown field'),
    ({'name': 'a', 'type': 'sphere', 'dimensions': [1],
      'pose': {'orientation': [0, 0, 0, 0]}}, 'zero quaternion'),
    ({'name': 'a', 'type': 'sphere', 'dimensions': [1], 'pose': [1, 2, 3]}, 'pose must be'),
])
def test_a_wrong_collision_object_is_named(entry, words):
    with pytest.raises(ValueError, match=words) as info:
        collision_object(entry)
    assert "'a'" in str(info.value)


def test_two_objects_with_one_name_are_refused():
    with pytest.raises(ValueError, match='used twice: a'):
        collision_objects([{'name': 'a', 'type': 'sphere', 'dimensions': [1]}] * 2)


# -- the planner's answers -----------------------------------------------------------------

def test_requests_that_are_wrong_raise(arm):
    q = np.zeros(6)
    for call, words in (
            (lambda: arm.plan(np.full(6, math.nan), q), 'finite'),
            (lambda: arm.plan(q[:5], q), 'expected 6 joint positions'),
            (lambda: arm.plan(q, q, max_velocity_scaling_factor=0.0), r'\(0, 1\]'),
            (lambda: arm.plan(q, q, max_acceleration_scaling_factor=1.5), r'\(0, 1\]'),
            (lambda: arm.plan(q, q, planning_time=0.0), 'planning_time'),
            (lambda: arm.plan(q), 'a joint goal or a pose'),
            (lambda: arm.plan(q, pose=np.full((4, 4), math.nan)), 'finite'),
            (lambda: arm.cartesian_path(q, [np.eye(4)], max_step=-1), 'max_step'),
            (lambda: arm.cartesian_path(q, []), 'waypoints'),
            (lambda: arm.in_collision([math.inf] * 6), 'finite'),
            (lambda: MotionPlanner(arm.model, joint_limits={'nope': (0, 1)}), 'nope')):
        with pytest.raises(ValueError, match=words):
            call()


def test_answers_carry_moveits_error_codes(arm):
    rng = np.random.default_rng(1)
    free = free_states(arm, 2, rng, width=1.0)
    colliding = next(q for q in rng.uniform(-3, 3, (200, 6)) if arm.in_collision(q))
    start = arm.plan(colliding, free[0])
    assert (start.success, start.error_code) == (False, -10)
    assert 'the start is in collision: ' in start.message and ' - ' in start.message
    goal = arm.plan(free[0], colliding)
    assert (goal.success, goal.error_code, goal.trajectory) == (False, -12, None)
    far = np.eye(4)
    far[:3, 3] = [3.0, 0.0, 0.0]
    unreachable = arm.plan(free[0], pose=far)
    assert unreachable.error_code == -31 and 'no collision-free IK solution' in unreachable.message
    limited = MotionPlanner(arm.model, joint_limits={'J1': (-0.5, 0.5)})
    outside = free[0].copy()
    outside[0] = 1.0
    assert limited.plan(free[1] * 0, outside).error_code == -27
    assert limited.plan(outside, free[1] * 0).error_code == -26
    # without collision checks the goal in collision is planned, straight
    plain = arm.plan(free[0], colliding, avoid_collisions=False)
    assert plain.success and len(plain.path) == 2


def test_the_time_cap_is_code_minus_one_and_says_so(arm):
    """The line from start to goal through a ball: a time cap of 1 ms ends the search
    before its first motion check (-1, and the message says that it was the cap); with
    the default cap there is a path."""
    start = np.array([0.0, 1.0, 1.8, 0.5, 1.4, 0.0])
    goal = start.copy()
    goal[0] = 1.5
    middle = arm.kinematics.end_effector((start + goal) / 2)[:3, 3]
    planner = MotionPlanner(arm.model, [{'name': 'ball', 'type': 'sphere',
                                         'dimensions': [0.04],
                                         'pose': {'position': list(middle)}}])
    assert not planner.in_collision(start) and not planner.in_collision(goal)
    plan = planner.plan(start, goal, planning_time=0.001)
    assert (plan.success, plan.error_code) == (False, -1)
    assert plan.message == ('planning stopped at its time cap of 0.001 s (planning_time) '
                            f'after 0 of {joint_path.MOTION_CHECKS} motion checks; give it '
                            'more time; most often blocked by end_effector_mount1 - ball '
                            '(1 of 1 states in collision)')
    assert planner.plan(start, goal).success     # there is one


def test_trajectories_are_the_controllers(arm, tmp_path):
    """Joint names in controllers.yaml's order, the rules of joint_trajectory_controller,
    the scaled limits as played."""
    model = load(GRIPPER_KIT)
    planner = MotionPlanner(model)
    package = moveit_package(model, 'robot')
    controllers = yaml.safe_load(package.files['config/ros2_controllers.yaml'])
    arm_controller = package.groups[0].controller
    start, goal = free_states(planner, 2, np.random.default_rng(3), width=1.0)
    plan = planner.plan(start, goal, max_velocity_scaling_factor=0.5,
                        max_acceleration_scaling_factor=0.25, planning_time=2.0)
    assert plan.success, plan.message
    assert plan.trajectory.joint_names == \
        controllers[arm_controller]['ros__parameters']['joints']
    check_trajectory(plan.trajectory, start, goal, planner, 0.5, 0.25)
    assert plan.planning_time > 0 and plan.fraction == 1.0


def test_a_joint_without_limits_is_an_angle_reached_the_shorter_way(arm):
    """A revolute joint without limits (URDF continuous) goes to the goal's angle the
    shorter way, as MoveIt plans continuous joints, ending whole turns from the value
    given; a joint with limits ends at the value given."""
    start = np.array([0.0, 1.0, 1.8, 0.5, 1.4, 0.0])
    goal = start + np.array([0.0, 0.0, 0.0, 0.0, 0.0, 5.0])
    plan = arm.plan(start, goal)
    assert plan.success and len(plan.path) == 2
    assert plan.path[-1][5] == pytest.approx(5.0 - 2 * math.pi, abs=1e-12)
    assert plan.trajectory.positions[-1][5] == pytest.approx(5.0 - 2 * math.pi, abs=1e-12)
    limited = MotionPlanner(arm.model, joint_limits={'J6': (-10.0, 10.0)})
    plan = limited.plan(start, goal)
    assert plan.success and plan.trajectory.positions[-1][5] == pytest.approx(5.0, abs=1e-12)


def test_an_angle_may_be_reached_turning_either_way(arm):
    """The goals a plan may end at: the goal with each angle the shorter way first, then
    with angles turned the other way round, the least turning first; a joint with limits
    keeps the value given."""
    start = np.array([0.0, 1.0, 1.8, 0.5, 1.4, 0.0])
    goal = np.array([2.5, 1.0, 1.8 - 3.0, 0.5, 1.4, 0.0])
    goals = turned_goals(start, goal, arm._continuous, arm._arms)
    assert len(goals) == 4            # J1 and J3 move: 2 x 2 ways
    np.testing.assert_array_equal(goals[0], goal)
    np.testing.assert_array_equal(goals[-1], goal - 2 * math.pi * np.array([1, 0, -1, 0, 0, 0]))
    turning = np.abs(goals - start) @ arm._arms
    assert np.all(np.diff(turning) > 0)
    bounded = MotionPlanner(arm.model, joint_limits={'J1': (-math.pi, math.pi)})
    assert np.all(turned_goals(start, goal, bounded._continuous, bounded._arms)[:, 0] == 2.5)


def test_an_angle_goes_the_other_way_round_when_the_shorter_way_is_walled(arm):
    """A wall (from 0.15 m to 1.35 m out from the base's axis, 3 m tall) stands at 1.25
    rad of base yaw, between the start (J1 = 0) and the goal (J1 = 2.5): the straight
    line the shorter way collides, the one the other way round (to 2.5 - 2 pi) is free,
    and the plan reaches the goal's angle."""
    yaw, inner, length = 1.25, 0.15, 1.2
    out = inner + length / 2
    wall = {'name': 'wall', 'type': 'box', 'dimensions': [length, 0.05, 3.0],
            'pose': {'position': [out * math.cos(yaw), out * math.sin(yaw), 0.5],
                     'orientation': [0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)]}}
    walled = MotionPlanner(arm.model, collision_objects=[wall])
    start = np.array([0.0, 1.0, 1.8, 0.5, 1.4, 0.0])
    goal = start + np.array([2.5, 0.0, 0.0, 0.0, 0.0, 0.0])
    assert walled.in_collision(start + np.array([yaw, 0, 0, 0, 0, 0]))
    other_way = goal - np.array([2 * math.pi, 0, 0, 0, 0, 0])
    assert segment_free(walled.scene, start, other_way)
    plan = walled.plan(start, goal)
    assert plan.success, plan.message
    check_trajectory(plan.trajectory, start, goal, walled)


def test_collision_free_ik_batches_and_its_option(arm):
    states = free_states(arm, 5, np.random.default_rng(4), width=1.5)
    targets = arm.kinematics.end_effector(states)
    batch = arm.solve_ik(targets, timeout=None, max_iterations=300)
    assert batch.positions.shape == (5, 6) and batch.success.all()
    assert not any(arm.in_collision(q) for q in batch.positions)
    plain = arm.solve_ik(targets[0], avoid_collisions=False, timeout=None, max_iterations=300)
    assert plain.success
    again = arm.solve_ik(targets, timeout=None, max_iterations=300)
    np.testing.assert_array_equal(again.positions, batch.positions)      # deterministic


def test_max_attempts_bounds_the_starts_without_a_timeout(arm):
    """``max_attempts`` (timeout None): the seed's solve alone when 1, at most that many
    starts of ``max_iterations`` steps otherwise; anything but an integer >= 1 (or None,
    the default) refused.
    And the Halton points of the restarts, vectorised, are ``halton``'s bits."""
    from hrdf_ros.kinematics.ik_solver import halton, halton_points, primes
    far = np.eye(4)
    far[:3, 3] = (3.0, 0.0, 0.0)                               # out of reach
    one = arm.solve_ik(far, timeout=None, max_iterations=50, max_attempts=1)
    assert not one.success and one.iterations == 50
    few = arm.solve_ik(far, timeout=None, max_iterations=50, max_attempts=5)
    assert not few.success and 50 < few.iterations <= 5 * 50
    for bad in (0, 2.0, -3, '4'):
        with pytest.raises(ValueError, match='max_attempts'):
            arm.solve_ik(far, timeout=None, max_attempts=bad)
    bases = primes(7)
    points = halton_points(3, 500, bases)
    assert points.tobytes() == np.array([[halton(k, b) for b in bases]
                                         for k in range(3, 503)]).tobytes()


def test_restarts_start_from_the_free_configurations_nearest_the_target(arm):
    """The seed table holds only free configurations, the nearest first by the pose's
    distance, and is built again when the objects change (its scene's version)."""
    ik = arm._ik
    table = ik.table(0)
    assert len(table.states) > 100 and arm.scene.free(table.states).all()
    np.testing.assert_allclose(table.poses, arm.kinematics.end_effector(table.states),
                               atol=1e-12)
    target = table.poses[37].copy()
    target[:3, 3] += 0.001
    rows = table.nearest(target, 0, 0.3, 5)             # FULL: position and rotation
    assert rows[0] == 37 and len(rows) == 5
    distance = np.linalg.norm(table.poses[rows, :3, 3] - target[:3, 3], axis=1) \
        + 0.3 / math.sqrt(2) * np.linalg.norm(table.poses[rows, :3, :3] - target[:3, :3],
                                               axis=(1, 2))
    assert np.all(np.diff(distance) >= 0)
    ball = {'name': 'ball', 'type': 'sphere', 'dimensions': [0.2],
            'pose': {'position': target[:3, 3].tolist()}}
    arm.set_collision_objects([ball])
    try:
        fewer = ik.table(0)
        assert fewer is not table and len(fewer.states) < len(table.states)
        assert arm.scene.free(fewer.states).all()
    finally:
        arm.set_collision_objects([])


def test_the_compiled_seed_search_finds_the_rows_numpy_finds():
    """The numba kernel (the compiled path) and the numpy path pick the same nearest rows
    in the same order, ties included (positions on a 0.1 m grid: many equal distances)."""
    pytest.importorskip('numba')
    from hrdf_ros.kinematics.rotations import rpy_to_rotation
    from hrdf_ros.motion.collision_free_ik import SeedTable
    rng = np.random.default_rng(9)
    poses = np.tile(np.eye(4), (600, 1, 1))
    poses[:, :3, :3] = [rpy_to_rotation(*a) for a in rng.uniform(-3, 3, (600, 3))]
    poses[:, :3, 3] = np.round(rng.uniform(-1, 1, (600, 3)), 1)
    numpy_path = SeedTable(np.zeros((600, 6)), poses)
    compiled_path = SeedTable(np.zeros((600, 6)), poses, compiled=True)
    for mode in range(3):
        for k in range(100):
            target = poses[rng.integers(600)].copy()
            target[:3, 3] += np.round(rng.normal(0.0, 0.2, 3), 1)
            rows = numpy_path.nearest(target, mode, 0.3, 32)
            np.testing.assert_array_equal(rows, compiled_path.nearest(target, mode, 0.3, 32))
    assert len(numpy_path.nearest(target, 0, 0.3, 1000)) == 600


def test_a_gripper_is_checked_where_its_fingers_are():
    """Closed fingers are posed closed in every check (mplib agrees:
    test_consumers_motion.py); a wrong finger joint or value is refused."""
    from hrdf_ros.kinematics.gripper import GRIPPER_UPPER
    model = load(GRIPPER_KIT)
    planner = MotionPlanner(model)
    closed = MotionPlanner(model, gripper_positions={'gripper_joint': GRIPPER_UPPER})
    assert planner.scene.gripper_positions == {'gripper_joint': 0.0}
    assert closed.scene.gripper_positions == {'gripper_joint': GRIPPER_UPPER}
    jaws = [k for k, link in enumerate(planner.scene.links) if link.endswith('_jaw')]
    q = np.zeros((1, model.dof_count))
    apart = planner.scene.link_poses(q)[0, jaws, :3, 3]
    together = closed.scene.link_poses(q)[0, jaws, :3, 3]
    assert len(jaws) == 2 and np.linalg.norm(apart[0] - apart[1]) \
        > np.linalg.norm(together[0] - together[1]) + 0.01
    version = planner.scene.version
    planner.set_gripper_positions({'gripper_joint': GRIPPER_UPPER})
    assert planner.scene.version > version
    np.testing.assert_array_equal(planner.scene.link_poses(q), closed.scene.link_poses(q))
    states = np.random.default_rng(2).uniform(-3, 3, (300, model.dof_count))
    np.testing.assert_array_equal(planner.scene.free(states), closed.scene.free(states))
    for positions, words in (({'J1': 0.1}, 'not a finger joint'),
                             ({'gripper_joint': 2.0}, 'must be a number in'),
                             ({'gripper_joint': math.nan}, 'must be a number in')):
        with pytest.raises(ValueError, match=words):
            planner.set_gripper_positions(positions)
    with pytest.raises(ValueError, match='no parallel gripper'):
        MotionPlanner(load(BUNDLED_ARM), gripper_positions={'gripper_joint': 0.1})


# -- timing --------------------------------------------------------------------------------

def test_changing_the_objects_builds_the_ik_seeds_there_not_in_the_next_request():
    """The collision-free IK's seed table (its states checked against the scene) is built
    when the objects change, not within the next request's timeout (on a 7-DoF kit 35-50
    ms: most of the node's default 0.05 s, -31 in a loaded CI run): after
    ``set_collision_objects`` every end effector's table is the new scene's, and a solve
    uses it as it is."""
    planner = MotionPlanner(load(os.path.join(KITS_DIR, 'A-2099-07.hrdf')))
    planner.set_collision_objects([{'name': 'floor', 'type': 'floor',
                                    'pose': {'position': [0.0, 0.0, -0.3]}}])
    version = planner.scene.version
    tables = dict(planner._ik._tables)
    assert list(tables) == [0] and tables[0][0] == version
    free = np.array([0.1, -0.9, -0.2, -1.2, 0.6, 0.8, -0.9])
    assert not planner.in_collision(free)
    result = planner.solve_ik(planner.kinematics.end_effector(free), np.zeros(7),
                              max_attempts=50, max_iterations=300, timeout=None)
    assert result.success and planner._ik._tables[0] is tables[0]


def test_an_end_effector_no_joint_moves_is_answered_without_restarts():
    """HEBI's Daisy (hebi-python-examples): its one end effector is on the body, which
    no joint moves. Collision-free IK answers from the seed alone (restarts cannot move
    it), and the warm-up a server runs before its first request goes through."""
    from hrdf_ros.motion.warm_up import warm_up
    daisy = os.path.join(os.path.dirname(KITS_DIR), 'real', 'trees',
                         'HebiRobotics_hebi-python-examples@e8d76a5728', 'kits', 'daisy',
                         'resources', 'daisy.hrdf')
    planner = MotionPlanner(load(daisy))
    assert len(planner.kinematics.end_effector_joints(0)) == 0
    zero = np.zeros(planner.model.dof_count)
    here = planner.kinematics.end_effector(zero)
    assert planner.solve_ik(here, zero, timeout=None, max_iterations=100).success
    far = here.copy()
    far[:3, 3] += 1.0
    for timeout in (None, 0.01):
        result = planner.solve_ik(far, zero, timeout=timeout, max_iterations=100)
        alone = planner.solve_ik(far, zero, avoid_collisions=False, timeout=timeout,
                                 max_iterations=100)
        assert not result.success and result.restarts == alone.restarts
    warm_up(planner)



# -- corners passed without stopping -------------------------------------------------------

def _polylines(count, rng, dof=4, corners=(1, 4)):
    """Random polylines of 2 to 5 segments (consecutive corners distinct)."""
    for _ in range(count):
        k = rng.integers(corners[0], corners[1] + 1) + 2
        yield np.cumsum(rng.uniform(-1.0, 1.0, (k, dof)), axis=0)


def test_a_rounded_path_turns_within_the_deviation_asked():
    """Kunz and Stilman's arcs: the path is continuous with a unit tangent that turns
    continuously, passes each rounded corner at its recorded deviation (no more than
    asked), keeps the ends, and has a kink (a stop) where a corner is not rounded."""
    from hrdf_ros.motion.blend_path import BlendPath
    rng = np.random.default_rng(5)
    for waypoints in _polylines(30, rng):
        asked = rng.uniform(0.0, 0.5, len(waypoints))
        asked[rng.random(len(waypoints)) < 0.2] = 0.0
        path = BlendPath(waypoints, asked)
        s = np.linspace(0.0, path.length, 40001)
        q, tangent = path.evaluate(s), path.evaluate(s, 1)
        np.testing.assert_allclose(q[[0, -1]], waypoints[[0, -1]], atol=1e-12)
        np.testing.assert_allclose(np.linalg.norm(tangent, axis=1), 1.0, atol=1e-12)
        assert np.max(np.linalg.norm(np.diff(q, axis=0), axis=1)) <= 1.01 * s[1]
        kinks = np.array(path.stops)
        smooth = np.ones(len(s) - 1, bool)
        for stop in kinks:
            smooth &= ~((s[:-1] <= stop) & (s[1:] >= stop))
        turn = np.linalg.norm(np.diff(tangent, axis=0), axis=1)[smooth]
        assert turn.max() <= 0.05, turn.max()          # no jump of direction elsewhere
        for k in range(1, len(waypoints) - 1):
            nearest = np.min(np.linalg.norm(q - waypoints[k], axis=1))
            assert path.deviations[k] <= asked[k] + 1e-12
            if asked[k] == 0.0:
                assert nearest <= 1e-3 and path.deviations[k] == 0.0
            elif path.deviations[k] > 0.0:
                assert abs(nearest - path.deviations[k]) <= 1e-3


def test_rounded_corners_are_timed_within_the_limits_as_played():
    """The timed rounded path: the controller's rules, the limits as played (0.1 %), at
    rest at both ends on the first and last corners; faster than stopping at every
    corner where the corners may be cut far enough."""
    from hrdf_ros.motion.blend_path import BlendPath
    from hrdf_ros.motion.blended_timing import blended_trajectory
    rng = np.random.default_rng(6)
    velocity = np.array([1.0, 2.0, 3.0, 1.5])
    acceleration = velocity / 0.5
    ratios = []
    for waypoints in _polylines(20, rng):
        path = BlendPath(waypoints, np.full(len(waypoints), 10.0))
        trajectory, where = blended_trajectory(list('abcd'), path, velocity, acceleration)
        times = trajectory.time_from_start
        assert times[0] == 0.0 and np.diff(times).min() >= MIN_SEGMENT
        assert np.all(np.diff(where) >= 0) and where[0] == 0.0
        np.testing.assert_allclose(where[-1], path.length, rtol=1e-12)
        for end in (0, -1):
            assert not trajectory.velocities[end].any()
            assert not trajectory.accelerations[end].any()
        np.testing.assert_allclose(trajectory.positions[[0, -1]], waypoints[[0, -1]],
                                   atol=1e-9)
        assert demand(trajectory, velocity, acceleration) <= 1.001
        _, played = playback(trajectory)
        np.testing.assert_allclose(played[-1], waypoints[-1], atol=1e-9)
        stops = polyline_trajectory(list('abcd'), waypoints, velocity, acceleration)
        ratios.append(trajectory.duration / stops.duration)
    assert max(ratios) <= 1.0 and np.median(ratios) <= 0.85, ratios


def test_a_corner_whose_arc_collides_is_cut_less(arm):
    """A ball where a rounded corner's arc takes the end effector (and the polyline does
    not): the corner is cut less, the trajectory proven free as played and free at every
    10 kHz sample, no faster than without the ball, no slower than stopping at the
    corner."""
    from hrdf_ros.motion import corners
    path = np.array([[-1.5, 0.8, 1.6, 0.0, 0.6, 0.0], [1.5, 0.8, 1.6, 0.0, 0.6, 0.0],
                     [1.5, -0.6, 0.4, 0.0, 0.6, 0.0]])
    columns = np.array(arm._columns)
    limits = arm._scaled_limits(1.0, 1.0)

    def rounded():
        return corners.rounded_trajectory(arm.scene, path, arm.trajectory_joints,
                                          columns, arm._ratios, *limits, math.inf)
    free = rounded()
    states = played_states(free, path[0], columns, arm._ratios, 10000.0)
    tool = arm.kinematics.end_effector(states)[:, :3, 3]
    line = arm.kinematics.end_effector(np.concatenate(
        [np.linspace(a, b, 400) for a, b in zip(path[:-1], path[1:])]))[:, :3, 3]
    away = np.array([np.min(np.linalg.norm(line - p, axis=1)) for p in tool])
    middle = tool[int(np.argmax(away))]
    ball = {'name': 'ball', 'type': 'sphere', 'dimensions': [0.4 * float(away.max())],
            'pose': {'position': middle.tolist()}}
    arm.set_collision_objects([ball])
    try:
        assert all(segment_free(arm.scene, a, b) for a, b in zip(path[:-1], path[1:]))
        assert not arm.scene.free(states).all()          # the first rounding hits it
        assert not corners.played_free(arm.scene, free, path[0], columns, arm._ratios)
        cut = rounded()
        stopping = arm._timed(path, False, limits)
        assert cut is not None
        assert corners.played_free(arm.scene, cut, path[0], columns, arm._ratios)
        assert arm.scene.free(played_states(cut, path[0], columns, arm._ratios,
                                            10000.0)).all()
        assert free.duration < cut.duration <= stopping.duration
    finally:
        arm.set_collision_objects([])


def test_no_path_names_the_pair_that_blocked_most_often():
    """A wall in the plane y = 0 in front of the arm, its base turning at most 2.5 rad
    either way: from one side of the wall to the other there is no path, and
    PLANNING_FAILED's message says which pair blocked the search most often."""
    from hrdf_ros.motion.warm_up import warm_up
    wall = {'name': 'wall', 'type': 'box', 'dimensions': [2.0, 0.02, 3.0],
            'pose': {'position': [1.1, 0.0, 0.0]}}
    planner = MotionPlanner(load(BUNDLED_ARM), [wall], joint_limits={'J1': (-2.5, 2.5)})
    warm_up(planner)
    start = np.array([2.0, 0.6, 1.5, 0.0, 1.0, 0.0])
    goal = start * [-1, 1, 1, 1, 1, 1]
    assert not planner.in_collision(start) and not planner.in_collision(goal)
    plan = planner.plan(start, goal, planning_time=60.0)
    assert plan.error_code == -1
    assert re.fullmatch(rf'no collision-free path found in {joint_path.MOTION_CHECKS} motion '
                        r'checks; most often blocked by link1 - wall \((\d+) of (\d+) '
                        r'states in collision\)', plan.message), plan.message


def test_the_controllers_quintic_plays_a_cubic_exactly():
    c = np.array([0.3, -0.2, 0.5, 0.7])
    p = np.polynomial.Polynomial(c)
    v, a = p.deriv(), p.deriv(2)
    q = quintic_coefficients(0.8, (p(0.0)[None], v(0.0)[None], a(0.0)[None]),
                             (p(0.8)[None], v(0.8)[None], a(0.8)[None]))
    np.testing.assert_allclose(q[:, 0], np.append(c, [0.0, 0.0]), atol=1e-12)


def test_a_line_is_an_s_curve_within_its_limits():
    start, goal = np.array([0.0, 1.0, -2.0]), np.array([2.0, 0.5, 1.0])
    velocity, acceleration = np.array([1.0, 2.0, 1.5]), np.array([2.0, 4.0, 3.0])
    t, p, v, a = line_trajectory(start, goal, velocity, acceleration)
    trajectory = JointTrajectory(['a', 'b', 'c'], t, p, v, a)
    assert demand(trajectory, velocity, acceleration) <= 1.0 + 1e-6
    # the controller plays it as planned: along the line, never past the goal
    _, played = playback(trajectory, 1000.0)
    fraction = (played - start) / (goal - start)
    np.testing.assert_allclose(fraction, fraction[:, :1].repeat(3, axis=1), atol=1e-9)
    assert fraction.min() >= -1e-12 and fraction.max() <= 1 + 1e-12
    # a polyline stops at its corners
    corner = polyline_trajectory(['a', 'b', 'c'], np.stack([start, goal, start]),
                                 velocity, acceleration)
    middle = np.flatnonzero(np.all(corner.positions == goal, axis=1))
    assert len(middle) == 1 and np.all(corner.velocities[middle] == 0.0)


def test_a_lines_knots_are_never_a_rounding_error_apart():
    """Short moves never reach top speed (a triangle): the cruise between speeding up
    and slowing down is then zero up to rounding, and must not become a segment of a few
    ulps, which the controller's quintic cannot play."""
    rng = np.random.default_rng(2)
    velocity, acceleration = np.array([1.5, 3.0]), np.array([4.0, 8.0])
    triangles = 0
    for _ in range(200):
        goal = rng.uniform(-1.0, 1.0, 2) * rng.choice([0.01, 0.1, 1.0])
        t, p, v, a = line_trajectory(np.zeros(2), goal, velocity, acceleration)
        resting = np.all(np.abs(a) < 1e-12, axis=1)[1:-1]    # interior knots, a = 0
        triangles += not np.any(resting[:-1] & resting[1:])       # no cruise between two
        assert np.min(np.diff(t)) >= MIN_SEGMENT
        trajectory = JointTrajectory(['a', 'b'], t, p, v, a)
        assert demand(trajectory, velocity, acceleration) <= 1.0 + 1e-6
        assert np.array_equal(p[-1], goal) and not v[-1].any() and not a[-1].any()
    assert triangles > 50


# -- hrdf plan -----------------------------------------------------------------------------

def _hrdf(*args, cwd=None):
    return subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', 'plan', *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def test_hrdf_plan_prints_writes_json_and_plots(tmp_path):
    result = _hrdf(BUNDLED_ARM, '--start', '0 1 1.8 0.5 1.4 0', '--goal', '1 0.5 1.5 0 1 0',
                   '--plot', str(tmp_path / 'plan.png'))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('duration ') and 'fraction 1.000' in result.stdout
    assert 'Traceback' not in result.stderr
    from PIL import Image
    with Image.open(tmp_path / 'plan.png') as image:
        assert image.size == (800, 800)
        assert len(image.convert('L').getcolors(1 << 16)) > 20           # not blank
    result = _hrdf(BUNDLED_ARM, '--start', '0 1 1.8 0.5 1.4 0', '--xyz', '0.3', '0', '0.35',
                   '--cartesian', '--json')
    plan = json.loads(result.stdout)
    assert result.returncode == 0 and plan['success'] and plan['fraction'] > 0
    assert len(plan['trajectory']['time_from_start']) > 2


@pytest.mark.parametrize('args,code,words', [
    (['--goal', 'nan 0 0 0 0 0'], 2, '--goal must be finite'),
    (['--goal', '0 0'], 2, '--goal has 2 values'),
    (['--xyz', '0.3', '0', 'nan'], 2, '--xyz must be finite'),
    (['--goal', '0 0 0 0 0 0', '--max-velocity-scaling-factor', '0'], 2, r'\(0, 1\]'),
    ([], 2, 'give a goal'),
    (['--goal', '0 0 0 0 0 0', '--collision-objects', '/no/such.yaml'], 2, 'No such file'),
    (['--start', '0 1 1.8 0.5 1.4 0', '--goal', '0 0 0 0 0 0', '--floor', '0.2'], 1,
     'MoveIt error code -10'),
    (['--start', '0 1 1.8 0.5 1.4 0', '--xyz', '3', '0', '0'], 1, 'code -31'),
    (['--start', '0 1 1.8 0.5 1.4 0', '--xyz', '3', '0', '0.35', '--cartesian'], 1,
     r'^hrdf: the path stops short of the goal: followed [0-9.]+ % of the path; the next '
     'step has no IK solution'),
])
def test_hrdf_plan_fails_in_one_line(args, code, words):
    result = _hrdf(BUNDLED_ARM, *args)
    assert result.returncode == code, result.stderr
    lines = [line for line in result.stderr.splitlines() if not line.startswith('hrdf: note')]
    assert len(lines) == 1 and __import__('re').search(words, lines[0]), result.stderr
    assert 'Traceback' not in result.stderr


def test_without_the_motion_extra_one_message_names_it(tmp_path):
    code = ("import sys\n"
            "for name in ('pinocchio', 'ompl', 'toppra', 'hppfcl', 'coal'):\n"
            "    sys.modules[name] = None\n"
            "import hrdf_ros\n"
            "from hrdf_ros.motion import MotionPlanner\n"
            "try:\n"
            f"    MotionPlanner(hrdf_ros.load({BUNDLED_ARM!r}))\n"
            "except ImportError as exc:\n"
            "    print(exc)\n"
            "from hrdf_ros.cli import main\n"
            f"sys.exit(main(['plan', {BUNDLED_ARM!r}, '--goal', '0 0 0 0 0 0']))\n")
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=120)
    assert "pip install 'hrdf_ros[motion]'" in result.stdout
    assert result.returncode == 2 and 'hrdf_ros[motion]' in result.stderr
    assert 'Traceback' not in result.stderr


def test_the_compiled_sieve_keeps_what_the_numpy_sieve_keeps():
    """The numba kernel (the compiled path) and the numpy stages pass the same (state,
    pair) entries to FCL, robot pairs, solid objects and a floor alike; and what FCL then
    says about them is FCL's verdict on the whole state."""
    from hrdf_ros.description.robot import describe
    from hrdf_ros.description.semantics import semantics
    from hrdf_ros.kinematics import Kinematics
    from hrdf_ros.motion.scene import PlanningScene
    model = load(GRIPPER_KIT)
    description = describe(model, 'robot')
    meaning = semantics(description)
    objects = collision_objects([
        {'name': 'ball', 'type': 'sphere', 'dimensions': [0.15],
         'pose': {'position': [0.4, 0.0, 0.3]}},
        {'name': 'crate', 'type': 'box', 'dimensions': [0.3, 0.2, 0.1],
         'pose': {'position': [0.2, 0.3, 0.2], 'orientation': [0.3, 0.1, 0.0, 0.95]}},
        {'name': 'post', 'type': 'cylinder', 'dimensions': [0.6, 0.05],
         'pose': {'position': [-0.3, -0.2, 0.3]}},
        {'name': 'floor', 'type': 'floor', 'pose': {'position': [0.0, 0.0, -0.05]}}])
    scenes = {path: PlanningScene(description, meaning, objects,
                                  Kinematics(model, kinematics=path))
              for path in ('numpy', 'numba')}
    assert scenes['numba']._sieve.compiled and not scenes['numpy']._sieve.compiled
    states = np.random.default_rng(5).uniform(-math.pi, math.pi, (3000, model.dof_count))
    kept = {path: scene._sieve.candidates(states) for path, scene in scenes.items()}
    assert len(kept['numpy'][0]) > 3000
    assert all(np.array_equal(a, b) for a, b in zip(kept['numpy'], kept['numba']))
    whole = np.array([scenes['numba']._collides(q, True) for q in states])
    assert 0.1 < whole.mean() < 0.9
    for scene in scenes.values():
        assert np.array_equal(~scene.free(states), whole)
        assert [scene.in_collision(q) for q in states[:300]] == list(whole[:300])
