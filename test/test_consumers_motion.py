"""Motion planning checked by its real peers (hrdf_ros.motion, ``hrdf plan``).

* mplib 0.2.1 (OMPL + FCL in C++, on the URDF and SRDF of ``hrdf moveit``): its
  collision check agrees with the planning scene's on random states, and finds every
  collision-free IK answer and every planned trajectory, played at 1 kHz as
  joint_trajectory_controller plays it, free.
* hebi-py's FK: collision-free IK reaches the pose; a Cartesian path's states and the
  midpoints between them stay on the line (1 mm, 0.01 rad) where hebi-py's own IK can
  follow the line step by step.
* The closed form of a straight line's time-optimal duration: a plan along a free line
  takes at most 1 % more.
* MuJoCo 4 on ``hrdf mjcf --gravity-compensation``'s model: a planned trajectory, played
  by its position actuators, ends with the end effector within 2 mm of the goal 0.5 s
  after its end.

``make bench`` (benchmarks/motion_benchmark.py) runs the same on every kit with timings;
these tests are its smaller, deterministic part.
"""
import math
import os

import numpy as np
import pytest

from hrdf_ros import load
from hrdf_ros.motion import MotionPlanner
from hrdf_ros.motion.trajectory import playback

from conftest import BUNDLED_ARM, KITS_DIR
from motion_helpers import (Mplib, check_trajectory, distance_from_line, free_states, hebi_fk,
                            hebi_follows_line, python_fcl_clearance)

pytestmark = pytest.mark.consumers
pytest.importorskip('mplib', reason='mplib not installed (make test installs it)')

ROBOTS = {'A-2085-06G': os.path.join(KITS_DIR, 'A-2085-06G.hrdf'),
          'X-Series-Double-Shoulder-7DOF': os.path.join(KITS_DIR,
                                                        'X-Series-Double-Shoulder-7DOF.hrdf'),
          'bundled': BUNDLED_ARM}


@pytest.fixture(scope='module')
def robots(tmp_path_factory):
    """{name: (model, planner, mplib)}."""
    out = {}
    for name, path in ROBOTS.items():
        model = load(path)
        out[name] = (model, MotionPlanner(model), Mplib(model, tmp_path_factory.mktemp(name)))
    return out


def _clearance(planner, q) -> float:
    """m, the smallest distance between checked pairs at q (FCL's in Pinocchio)."""
    import pinocchio as pin
    scene = planner.scene
    robot = scene._robot
    pin.computeDistances(robot.model, scene._data, scene._geometry_model,
                         scene._geometry_data, robot.configuration(q))
    return min(r.min_distance for r in scene._geometry_data.distanceResults)


def _solved_free(planner, mplib, hebi, states, max_iterations):
    """How many of the targets hebi-py's end effector has at ``states`` collision-free IK
    solves (zero seed, an iteration cap); every answer asserted free in mplib and on its
    target by hebi-py's FK (2e-5 m, 4e-5 of the rotation)."""
    solved = 0
    for q in states:
        target = hebi_fk(hebi, q)
        result = planner.solve_ik(target, timeout=None, max_iterations=max_iterations)
        if not result.success:
            continue
        solved += 1
        assert not mplib.collides(result.positions)
        reached = hebi_fk(hebi, result.positions)
        assert np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= 2e-5
        assert np.abs(reached[:3, :3] - target[:3, :3]).max() <= 4e-5
    return solved


@pytest.mark.parametrize('name', ROBOTS)
def test_the_scene_agrees_with_mplibs_fcl(robots, name):
    """The same verdict as mplib on random states, but where two shapes are within a
    micrometre of touching (FCL's GJK tolerance: Pinocchio's Coal calls a cylinder 0.45 um
    from a box touching, mplib's FCL not), or where mplib calls shapes touching that a
    third checker (python-fcl) finds apart by as much as Pinocchio's Coal does (mplib
    0.2.1 calls the double shoulder's yoke rod 0.17 mm from the base actuator touching;
    python-fcl: 0.176 mm, a 720-sided mesh: 0.175 mm)."""
    model, planner, mplib = robots[name]
    states = np.random.default_rng(3).uniform(-math.pi, math.pi, (1500, model.dof_count))
    ours = ~planner.scene.free(states)
    theirs = np.array([mplib.collides(q) for q in states])
    assert 0.05 < theirs.mean() < 0.95            # both answers occur
    differ = np.flatnonzero(ours != theirs)
    assert len(differ) <= 3, differ
    for k in differ:
        clearance = _clearance(planner, states[k])
        assert clearance <= 1e-5 or (
            not ours[k] and abs(python_fcl_clearance(planner, states[k]) - clearance)
            <= 1e-5), (k, clearance)
    assert [planner.in_collision(q) for q in states[:200]] == list(ours[:200])


@pytest.mark.parametrize('name', ROBOTS)
def test_collision_free_ik_is_free_in_mplib_and_reaches_the_pose(robots, name,
                                                                  hebi_import):
    """Targets from states mplib finds free, the zero seed (where plain IK lands in
    collision for some): every success free in mplib's check and at the pose by hebi-py's
    FK; at least 99 % solved."""
    model, planner, mplib = robots[name]
    hebi = hebi_import[0](ROBOTS[name])
    rng = np.random.default_rng(5)
    states = [q for q in rng.uniform(-math.pi, math.pi, (400, model.dof_count))
              if not mplib.collides(q)][:150]
    plain_collides = 0
    for q in states:
        plain = planner.kinematics.solve_ik(hebi_fk(hebi, q), timeout=None,
                                            max_iterations=2000)
        plain_collides += plain.success and mplib.collides(plain.positions)
    solved = _solved_free(planner, mplib, hebi, states, 500)
    print(f'{name}: {solved} of {len(states)} solved free; plain IK in collision '
          f'{plain_collides}')
    assert solved >= 0.99 * len(states)


def test_closed_fingers_agree_with_mplib_and_ik_avoids_them(tmp_path, hebi_import):
    """The gripper kit with its fingers closed (mplib's finger and mimic joints set
    alike): the same verdicts on random states, and collision-free IK answers that mplib
    finds free and hebi-py's FK puts on the target."""
    from hrdf_ros.kinematics.gripper import GRIPPER_UPPER
    path = ROBOTS['A-2085-06G']
    model = load(path)
    planner = MotionPlanner(model, gripper_positions={'gripper_joint': GRIPPER_UPPER})
    mplib = Mplib(model, tmp_path, gripper=GRIPPER_UPPER)
    states = np.random.default_rng(8).uniform(-math.pi, math.pi, (800, model.dof_count))
    ours = ~planner.scene.free(states)
    theirs = np.array([mplib.collides(q) for q in states])
    assert 0.05 < theirs.mean() < 0.95
    differ = np.flatnonzero(ours != theirs)
    assert len(differ) <= 2 and all(_clearance(planner, states[k]) <= 1e-5 for k in differ)
    hebi = hebi_import[0](path)
    assert _solved_free(planner, mplib, hebi, states[~theirs][:60], 500) >= 0.98 * 60


ARMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'arms')


@pytest.mark.parametrize('arm, closed', [('r_double_shoulder_gripper', False),
                                         ('r_double_shoulder_gripper', True),
                                         ('t_double_shoulder_gripper', False),
                                         ('t_double_shoulder_gripper', True)])
def test_collision_free_ik_on_double_shoulder_arms_with_grippers(arm, closed, tmp_path,
                                                                   hebi_import):
    """Arms no code was tuned for (test/data/arms: HEBI's double-shoulder layout, its
    yoke a rigid body, on R- and T-series actuators with the R8 parallel gripper), the
    fingers open or closed: 300 targets from states mplib finds free, the zero seed, an
    iteration cap (the same answers on any machine): at least 99.5 % solved, every answer
    free in mplib (fingers where the planner holds them) and on the target by hebi-py."""
    from hrdf_ros.kinematics.gripper import GRIPPER_UPPER
    path = os.path.join(ARMS, arm + '.hrdf')
    model = load(path)
    gripper = GRIPPER_UPPER if closed else 0.0
    planner = MotionPlanner(model, gripper_positions={'gripper_joint': gripper})
    mplib = Mplib(model, tmp_path, gripper=gripper)
    hebi = hebi_import[0](path)
    rng = np.random.default_rng(11)
    states = [q for q in rng.uniform(-math.pi, math.pi, (900, model.dof_count))
              if not mplib.collides(q)][:300]
    assert len(states) == 300
    solved = _solved_free(planner, mplib, hebi, states, 300)
    assert solved >= 0.995 * len(states), solved


@pytest.mark.parametrize('name', ['X-Series-Double-Shoulder-7DOF', 'A-2085-06G'])
def test_corners_are_passed_without_stopping_and_free_as_played(robots, name):
    """Polylines of 2 to 4 segments between random states, every segment proven free,
    rounded by the planner (``hrdf_ros.motion.corners``, counts not time:
    deterministic): each trajectory is proven free as played, and played at 1 kHz as
    joint_trajectory_controller plays it, is free in mplib's check at every sample, within
    the limits (0.1 %), at rest at the goal; none takes longer than stopping at every
    corner, and their median takes at most 0.85 of it."""
    from hrdf_ros.motion import corners
    from hrdf_ros.motion.joint_path import segment_free
    model, planner, mplib = robots[name]
    rng = np.random.default_rng(13)
    columns = np.array(planner._columns)
    limits = planner._scaled_limits(1.0, 1.0)
    ratios = []
    while len(ratios) < 10:
        count = int(rng.integers(3, 6))
        path = rng.uniform(-2.5, 2.5, (count, model.dof_count))
        if any(planner.in_collision(q) for q in path) or not all(
                segment_free(planner.scene, a, b) for a, b in zip(path[:-1], path[1:])):
            continue
        stopping = planner._timed(path, False, limits)
        rounded = corners.rounded_trajectory(planner.scene, path,
                                             planner.trajectory_joints, columns,
                                             planner._ratios, *limits, math.inf)
        if rounded is None:                     # the planner keeps stopping there
            ratios.append(1.0)
            continue
        assert corners.played_free(planner.scene, rounded, path[0], columns, planner._ratios)
        _, played = check_trajectory(rounded, path[0], path[-1], planner)
        full = np.tile(path[0], (len(played), 1))
        full[:, columns] = played * planner._ratios[columns]
        assert not any(mplib.collides(q) for q in full), 'collides as played'
        ratios.append(min(rounded.duration / stopping.duration, 1.0))
    print(f'{name}: duration / stopping at every corner: median {np.median(ratios):.3f}, '
          f'{np.round(ratios, 3).tolist()}')
    assert np.median(ratios) <= 0.85


def _line_duration(start, goal, velocity, acceleration):
    """The time-optimal duration of the line: s' <= min v/|d|, |s''| <= min a/|d|."""
    d = np.abs(goal - start)
    moving = d > 0
    v = np.min(velocity[moving] / d[moving])
    a = np.min(acceleration[moving] / d[moving])
    return 2 * math.sqrt(1 / a) if v * v / a >= 1 else 1 / v + v / a


@pytest.mark.parametrize('name', ROBOTS)
def test_joint_motions_are_free_as_played_and_lines_time_optimal(robots, name):
    """12 random pairs of free states: every plan, played as joint_trajectory_controller
    plays it, is free in mplib's check at every 1 kHz sample, within the limits, at rest
    at the goal, and the same request plans the same trajectory again (counts, not time:
    the same bits); a straight line is time-optimal but for its 0.5 % of jerk ramps."""
    model, planner, mplib = robots[name]
    rng = np.random.default_rng(7)
    pairs = free_states(planner, 24, rng, width=2.0).reshape(12, 2, -1)
    lines = planned = 0
    for k, (start, goal) in enumerate(pairs):
        plan = planner.plan(start, goal, planning_time=60.0, max_velocity_scaling_factor=0.8)
        if not plan.success:
            assert plan.error_code == -1 and 'no collision-free path' in plan.message
            continue
        planned += 1
        if k < 3:
            again = planner.plan(start, goal, planning_time=60.0,
                                 max_velocity_scaling_factor=0.8)
            assert again.trajectory.to_dict() == plan.trajectory.to_dict()
        times, played = check_trajectory(plan.trajectory, start, goal, planner, 0.8)
        columns = [planner.joint_names.index(j) for j in plan.trajectory.joint_names]
        full = np.tile(start, (len(played), 1))
        full[:, columns] = played
        assert not any(mplib.collides(q) for q in full), 'collides as played'
        if len(plan.path) == 2:                 # the line: time-optimal but for 0.5 %
            lines += 1
            optimal = _line_duration(start[columns], plan.path[-1][columns],
                                     planner.velocity_limits[columns] * 0.8,
                                     planner.acceleration_limits[columns])
            assert optimal <= plan.trajectory.duration <= 1.01 * optimal
    print(f'{name}: planned {planned} of {len(pairs)}, {lines} straight lines')
    assert planned >= len(pairs) // 2 and lines >= 1


@pytest.mark.parametrize('name', ['A-2085-06G', 'bundled'])
def test_cartesian_lines_stay_on_the_line(robots, name, hebi_import):
    """10 cm lines that hebi-py's IK follows in 1 mm steps (each seeded with the last, no
    joint step over 0.05 rad): fraction 1, every state and midpoint on the line by
    hebi-py's FK; a line through a wall stops short."""
    model, planner, _ = robots[name]
    hebi = hebi_import[0](ROBOTS[name])
    rng = np.random.default_rng(11)
    followed = tried = 0
    for start in free_states(planner, 40, rng, width=1.5):
        pose = hebi_fk(hebi, start)
        direction = rng.normal(size=3)
        direction *= 0.1 / np.linalg.norm(direction)
        goal = pose.copy()
        goal[:3, 3] += direction
        if not hebi_follows_line(hebi, start, direction):   # hebi-py, step by step
            continue
        tried += 1
        plan = planner.cartesian_path(start, [goal], max_step=0.01, avoid_collisions=False)
        followed += plan.fraction == 1.0
        states = plan.path
        off_line, off_angle = distance_from_line(hebi, states, pose, direction)
        assert off_line <= 1e-3 and off_angle <= 0.01, (off_line, off_angle)
        check_trajectory(plan.trajectory, start, states[-1], planner)
        if tried >= 12:
            break
    print(f'{name}: {followed} of {tried} lines followed whole')
    assert tried >= 8 and followed >= 0.99 * tried
    # a wall across the line: the path stops before it
    start = free_states(planner, 1, np.random.default_rng(2), width=1.0)[0]
    pose = planner.kinematics.end_effector(start)
    direction = -pose[:3, 3] / np.linalg.norm(pose[:3, 3])     # back toward the base
    wall = {'name': 'ball', 'type': 'sphere', 'dimensions': [0.05],
            'pose': {'position': list(pose[:3, 3] + 0.15 * direction)}}
    planner.set_collision_objects([wall])
    try:
        assert not planner.in_collision(start)
        goal = pose.copy()
        goal[:3, 3] += 0.25 * direction
        plan = planner.cartesian_path(start, [goal])
        assert plan.success and plan.fraction < 1.0
        reason = plan.message.partition(' of the path; ')[2]      # names what it hit
        assert reason.startswith('the next step collides: ') and reason.endswith(' - ball'), \
            plan.message
        assert not any(planner.in_collision(q) for q in plan.path)
        far = pose.copy()
        far[:3, 3] = [5.0, 0.0, 0.0]                # out of reach
        plan = planner.cartesian_path(start, [far])
        assert plan.fraction < 1.0 and 'has no IK solution' in plan.message
    finally:
        planner.set_collision_objects([])


@pytest.mark.parametrize('name', ['A-2085-06G', 'X-Series-Double-Shoulder-7DOF', 'bundled'])
def test_mujoco_plays_a_plan_to_the_goal(robots, name, tmp_path):
    mujoco = pytest.importorskip('mujoco')
    from hrdf_ros.export.mjcf import mjcf_files
    model, planner, _ = robots[name]
    for file_name, text in mjcf_files(model, 'robot', 'robot.xml', gravity_compensation=True,
                                      meshes='primitives').items():
        (tmp_path / file_name).write_text(text)
    sim = mujoco.MjModel.from_xml_path(str(tmp_path / 'scene.xml'))
    data = mujoco.MjData(sim)
    # the scene's floor is in the plan too (MuJoCo's floor: a plane at the semantics' height)
    floor = {'name': 'floor', 'type': 'floor',
             'pose': {'position': [0.0, 0.0, planner.semantics.floor]}}
    planner.set_collision_objects([floor])
    try:
        rng = np.random.default_rng(13)
        for _ in range(10):
            start, goal = free_states(planner, 2, rng, width=1.2)
            plan = planner.plan(start, goal, planning_time=1.0)
            if plan.success:
                break
    finally:
        planner.set_collision_objects([])
    assert plan.success, plan.message
    trajectory = plan.trajectory
    actuators = [mujoco.mj_name2id(sim, mujoco.mjtObj.mjOBJ_ACTUATOR, j)
                 for j in trajectory.joint_names]
    joints = [sim.jnt_qposadr[mujoco.mj_name2id(sim, mujoco.mjtObj.mjOBJ_JOINT, j)]
              for j in trajectory.joint_names]
    data.qpos[joints] = trajectory.positions[0]
    data.ctrl[actuators] = trajectory.positions[0]
    mujoco.mj_forward(sim, data)
    _, positions = playback(trajectory, 1.0 / sim.opt.timestep)
    for target in positions:
        data.ctrl[actuators] = target
        mujoco.mj_step(sim, data)
    for _ in range(int(0.5 / sim.opt.timestep)):
        mujoco.mj_step(sim, data)
    site = mujoco.mj_name2id(sim, mujoco.mjtObj.mjOBJ_SITE, 'end_effector')
    expected = planner.kinematics.end_effector(goal)
    error = np.linalg.norm(data.site_xpos[site] - expected[:3, 3])
    print(f'{name}: {trajectory.duration:.2f} s, end effector {error * 1000:.3f} mm from goal')
    assert error <= 0.002
