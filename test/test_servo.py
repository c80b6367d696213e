"""The servo core (hrdf_ros.servo) on every HEBI kit of 3 to 7 joints, without ROS: a
twist moves the end effector by what the arm can do, as hebi-py's FK of the commanded
positions measures it; every step keeps the position, velocity and acceleration limits;
the arm slows and halts before a box, its own links, a singularity and a joint bound;
a pose target is reached. Counts of steps, never wall-clock time."""
import math
import os

import numpy as np
import pytest

from hrdf_ros import load
from hrdf_ros.servo import JointJog, PoseTarget, ServoCore, ServoParameters, StatusCode, Twist
from hrdf_ros.servo import task

from conftest import KITS, KITS_DIR
from motion_helpers import hebi_fk

pytest.importorskip('pinocchio', reason='the motion extra is not installed')
from hrdf_ros.motion import MotionPlanner  # noqa: E402

ARMS = [p for p in KITS if 3 <= load(p).dof_count <= 7]
NAMES = [os.path.splitext(os.path.basename(p))[0] for p in ARMS]
#: s per step (the default 1 kHz)
DT = ServoParameters().publish_period


@pytest.fixture(scope='module')
def planners():
    return {}


def _planner(planners, path, objects=()):
    key = (path, repr(objects))
    if key not in planners:
        planners[key] = MotionPlanner(load(path), objects)
    return planners[key]


def _home(planner):
    """The SRDF's home state (well conditioned and free), HEBI positions (a URDF joint
    value is the HEBI position / its gear ratio)."""
    values = planner.semantics.home()
    return np.array([values[j] for j in planner.joint_names]) * planner._ratios


def _hold(core, command, steps, every=50):
    """Send ``command`` every ``every`` steps for ``steps`` steps, then stop; run until at
    rest; every output."""
    out = []
    for k in range(steps):
        if k % every == 0:
            core.command(command)
        out.append(core.step())
    core.stop()
    for _ in range(20000):
        out.append(core.step())
        if not np.any(core.velocities):
            break
    assert not np.any(core.velocities), 'not at rest after 20 s'
    return out


def _within_limits(core, outputs, start):
    """Every step inside the position limits, under the velocity limits, and its
    velocity change under the acceleration limits (1e-9 for rounding)."""
    q = np.array([o.positions for o in outputs])
    v = np.array([o.velocities for o in outputs])
    assert np.all(q >= core._lower - 1e-12) and np.all(q <= core._upper + 1e-12)
    assert np.all(np.abs(v) <= core._velocity * (1 + 1e-9))
    dv = np.diff(np.vstack([np.zeros(core.dof), v]), axis=0)
    assert np.all(np.abs(dv) <= core._acceleration * DT * (1 + 1e-9) + 1e-12)
    # positions follow the velocities (the trapezoid rule), but on the step that puts a
    # joint on its bound (it stops there) and a step refused as unproven (it stays)
    previous = np.vstack([start, q[:-1]])
    speeds = np.vstack([np.zeros(core.dof), v[:-1]])
    rule = np.all(np.abs(q - previous - 0.5 * (speeds + v) * DT) <= 1e-12, axis=1)
    on_bound = np.any((q == core._lower) | (q == core._upper), axis=1)
    halted = np.array([o.status == StatusCode.HALT_FOR_COLLISION for o in outputs])
    assert np.all(rule | on_bound | halted)


@pytest.mark.parametrize('path', ARMS, ids=NAMES)
def test_a_held_twist_moves_the_end_effector_by_hebi_fk(planners, path, hebi_import):
    """A base-frame linear twist of 5 cm/s held for 2 s (then stopped, to rest): hebi-py's
    FK of the commanded positions moves by the commanded 10 cm within 2 %, or the
    servo says why not (a bound, a collision); every step within the limits."""
    planner = _planner(planners, path)
    hebi = hebi_import[0](path)
    start = _home(planner)
    core = ServoCore(planner, positions=start)
    begin = hebi_fk(hebi, start)
    # a direction the arm can take at home: along its reach, away from the base
    out_dir = begin[:3, 3] * [1.0, 1.0, 0.0]
    direction = out_dir / np.linalg.norm(out_dir) if np.linalg.norm(out_dir) > 1e-3 \
        else np.array([1.0, 0.0, 0.0])
    direction = np.array([-direction[1], direction[0], 0.0])    # sideways: no stretch
    if core._ranks[0] < 3:       # a wrist kit: along the position directions it has
        u = np.linalg.svd(planner.kinematics.end_effector_jacobian(start)[:3])[0]
        direction = u[:, 0]
    velocity = 0.05 * direction
    outputs = _hold(core, Twist(velocity, [0, 0, 0]), 2000)
    _within_limits(core, outputs, start)
    moved = hebi_fk(hebi, core.positions)[:3, 3] - begin[:3, 3]
    expected = velocity * 2.0
    statuses = {o.status for o in outputs}
    off = np.linalg.norm(moved - expected) / np.linalg.norm(expected)
    assert StatusCode.HALT_FOR_SINGULARITY not in statuses
    if core._ranks[0] < 3:
        # its end effector moves on a surface: a straight line leaves it; what cannot be
        # done is dropped and said, and the motion still goes along the command
        assert any('dropped' in o.message for o in outputs)
        assert moved @ expected >= 0.8 * expected @ expected, (moved, expected)
        return
    assert off <= 0.02 or statuses & {StatusCode.JOINT_BOUND, StatusCode.HALT_FOR_COLLISION,
                                      StatusCode.DECELERATE_FOR_COLLISION}, (off, statuses)


def test_most_kits_follow_the_twist_within_2_percent(planners, hebi_import):
    """The test above may pass on a clear status: most kits must move as commanded."""
    good = 0
    for path in ARMS:
        planner = _planner(planners, path)
        hebi = hebi_import[0](path)
        start = _home(planner)
        core = ServoCore(planner, positions=start)
        begin = hebi_fk(hebi, start)
        velocity = np.array([0.0, 0.0, 0.04])                   # up
        _hold(core, Twist(velocity, [0, 0, 0]), 1000)
        moved = hebi_fk(hebi, core.positions)[:3, 3] - begin[:3, 3]
        good += np.linalg.norm(moved - velocity) <= 0.02 * np.linalg.norm(velocity)
    assert good >= 0.8 * len(ARMS), (good, len(ARMS))


@pytest.mark.parametrize('path', [p for p in ARMS if load(p).dof_count in (4, 5)],
                         ids=[n for p, n in zip(ARMS, NAMES) if load(p).dof_count in (4, 5)])
def test_fewer_than_6_joints_do_not_halt_where_their_task_space_is_well_conditioned(
        planners, path):
    """At home, the achievable task space's condition number is below MoveIt's lower
    threshold (where MoveIt Servo's 6 x n measure is infinite), and a full twist moves
    the arm: its position part exactly, the rest dropped and said."""
    planner = _planner(planners, path)
    start = _home(planner)
    jacobian = planner.kinematics.end_effector_jacobian(start)
    core = ServoCore(planner, positions=start)
    assert core._ranks == (3, planner.model.dof_count)
    assert task.condition(jacobian, *core._ranks) < ServoParameters().lower_singularity_threshold
    assert np.linalg.svd(jacobian, compute_uv=False)[-1] < 1e-9 or jacobian.shape[1] < 6
    core.command(Twist([0.02, 0.01, 0.0], [0.3, -0.2, 0.1]))
    first = core.step()
    velocities, made, _ = task.solve(jacobian, np.array([0.02, 0.01, 0, 0.3, -0.2, 0.1]),
                                     *core._ranks)
    assert np.allclose(made[:3], [0.02, 0.01, 0.0], atol=1e-9)
    assert 'dropped' in first.message
    assert first.status not in (StatusCode.HALT_FOR_SINGULARITY,)
    assert np.any(first.velocities)


def test_the_task_solve_is_least_squares_and_position_first():
    """6+ joints: numpy's least squares; fewer: the position exactly where J_p has full
    rank, and the orientation error no larger than with the position alone."""
    rng = np.random.default_rng(4)
    for n in (3, 4, 5, 6, 7):
        for _ in range(20):
            jacobian = rng.normal(size=(6, n))
            twist = rng.normal(size=6)
            velocities, made, condition = task.solve(jacobian, twist, 3, min(n, 6))
            assert np.allclose(made, jacobian @ velocities)
            if n >= 6:
                assert np.allclose(velocities, np.linalg.lstsq(jacobian, twist, rcond=None)[0])
                sigma = np.linalg.svd(jacobian, compute_uv=False)
                assert math.isclose(condition, sigma[0] / sigma[5])
            else:
                assert np.allclose(made[:3], twist[:3], atol=1e-9)
                alone = np.linalg.pinv(jacobian[:3]) @ twist[:3]
                assert np.linalg.norm(made[3:] - twist[3:]) <= \
                    np.linalg.norm(jacobian[3:] @ alone - twist[3:]) + 1e-9
                assert 1.0 <= condition < math.inf


def test_commands_that_stop_bring_the_arm_to_rest_within_its_limits(planners):
    """A jog of every joint at its velocity limit, then no command: after the timeout
    (0.1 s) the arm decelerates at no more than its acceleration limits to rest."""
    planner = _planner(planners, os.path.join(KITS_DIR, 'A-2085-06.hrdf'))
    start = _home(planner)
    core = ServoCore(planner, positions=start, parameters=ServoParameters(
        check_collisions=False))
    core.command(JointJog(0.3 * np.sign(np.arange(core.dof) % 2 - 0.5)))
    outputs = [core.step() for _ in range(1000)]   # one command only: it times out
    _within_limits(core, outputs, start)
    moving = [k for k, o in enumerate(outputs) if np.any(o.velocities)]
    assert moving and moving[-1] < 999, 'still moving 1 s after one command'
    assert 100 <= moving[-1]                        # the command counted for 0.1 s


def test_a_jog_into_a_joint_limit_stops_on_it_and_may_go_back(planners):
    """Position limits of +-2 rad on every joint: a jog of the wrist into its upper bound
    gives JOINT_BOUND and stops on the bound, within it; a jog back moves."""
    model = load(os.path.join(KITS_DIR, 'A-2085-06.hrdf'))
    planner = MotionPlanner(model, joint_limits=np.tile([-2.0, 2.0], (model.dof_count, 1)))
    start = np.clip(_home(planner), -1.9, 1.9)
    core = ServoCore(planner, positions=start, parameters=ServoParameters(
        check_collisions=False))
    joint = model.dof_count - 1
    jog = np.zeros(core.dof)
    jog[joint] = 1.0
    outputs = _hold(core, JointJog(jog), int(2000 * (core._upper[joint] - start[joint]) + 3000))
    _within_limits(core, outputs, start)
    assert StatusCode.JOINT_BOUND in {o.status for o in outputs}
    assert core.positions[joint] <= core._upper[joint]
    assert core._upper[joint] - core.positions[joint] < 0.01
    back = _hold(core, JointJog(-jog), 200)
    assert core.positions[joint] < back[0].positions[joint]


def test_a_jog_toward_a_box_slows_then_halts_above_2_cm(planners):
    """A box in front of the end effector: a jog toward it slows
    (DECELERATE_FOR_COLLISION) and halts (HALT_FOR_COLLISION) with every pair with the
    box still 2 cm apart (the scene's exact distances, at every step)."""
    path = os.path.join(KITS_DIR, 'A-2085-06.hrdf')
    plain = _planner(planners, path)
    start = _home(plain)
    tip = plain.kinematics.end_effector(start)[:3, 3]
    box = {'name': 'box', 'type': 'box', 'dimensions': [0.1, 0.4, 0.4],
           'pose': {'position': [float(tip[0]) + 0.15, float(tip[1]), float(tip[2])]}}
    planner = _planner(planners, path, (box,))
    core = ServoCore(planner, positions=start)
    outputs = _hold(core, Twist([0.05, 0, 0], [0, 0, 0]), 8000)
    statuses = [o.status for o in outputs]
    assert StatusCode.DECELERATE_FOR_COLLISION in statuses
    assert StatusCode.HALT_FOR_COLLISION in statuses
    rows = planner.scene.clearance.object_rows
    for o in outputs[::10]:
        assert planner.scene.distances(o.positions)[rows].min() >= 0.02 - 1e-9
    moved = planner.kinematics.end_effector(core.positions)[0, 3] - tip[0]
    assert moved > 0.03                                # it went most of the way


def test_a_jog_toward_its_own_links_halts_above_1_cm(planners):
    """Folding the elbow in: the arm halts before any checked pair of its links comes
    within 1 cm (or half its distance at the start, if closer there)."""
    path = os.path.join(KITS_DIR, 'A-2085-06.hrdf')
    planner = _planner(planners, path)
    start = _home(planner)
    core = ServoCore(planner, positions=start)
    halt = core.guard.halt.copy()
    jog = np.zeros(core.dof)
    jog[2] = 1.0 if start[2] >= 0 else -1.0            # the elbow, further in
    outputs = _hold(core, JointJog(jog), 6000)
    rows = planner.scene.clearance.robot_rows
    for o in outputs[::10]:
        assert np.all(planner.scene.distances(o.positions)[rows] >= halt[rows] - 1e-9)
    statuses = {o.status for o in outputs}
    assert statuses & {StatusCode.HALT_FOR_COLLISION, StatusCode.JOINT_BOUND}


def test_a_jog_out_to_a_stretched_arm_slows_then_halts_for_the_singularity(planners):
    """Stretching the arm along its reach: DECELERATE_FOR_APPROACHING_SINGULARITY, then
    HALT_FOR_SINGULARITY before the arm is straight; a twist back in is let through
    (decelerated for leaving, not halted)."""
    path = os.path.join(KITS_DIR, 'A-2085-06.hrdf')
    planner = _planner(planners, path)
    start = _home(planner)
    core = ServoCore(planner, positions=start, parameters=ServoParameters(
        check_collisions=False))
    tip = planner.kinematics.end_effector(start)[:3, 3]
    outward = tip / np.linalg.norm(tip)
    outputs = _hold(core, Twist(0.1 * outward, [0, 0, 0]), 20000)
    statuses = [o.status for o in outputs]
    assert StatusCode.DECELERATE_FOR_APPROACHING_SINGULARITY in statuses
    assert StatusCode.HALT_FOR_SINGULARITY in statuses
    jacobian = planner.kinematics.end_effector_jacobian(core.positions)
    assert task.condition(jacobian, *core._ranks) < \
        ServoParameters().hard_stop_singularity_threshold + 1
    back = _hold(core, Twist(-0.05 * outward, [0, 0, 0]), 300)
    assert StatusCode.HALT_FOR_SINGULARITY not in {o.status for o in back[:300]}
    assert np.linalg.norm(planner.kinematics.end_effector(core.positions)[:3, 3]) < \
        np.linalg.norm(planner.kinematics.end_effector(outputs[-1].positions)[:3, 3])


@pytest.mark.parametrize('name', ['A-2085-06', 'A-2099-07', 'A-2240-05'])
def test_a_pose_target_is_reached_within_1_mm_and_0_01_rad(planners, name, hebi_import):
    """A pose hebi-py's FK gives at another free state: tracked to 1 mm and 0.01 rad by
    hebi-py's FK (a 5-DoF arm: to what it can do: the position), without overshoot (the
    distance to the target never grows by more than 0.1 mm)."""
    path = os.path.join(KITS_DIR, f'{name}.hrdf')
    planner = _planner(planners, path)
    hebi = hebi_import[0](path)
    start = _home(planner)
    rng = np.random.default_rng(11)
    goal = start + rng.uniform(-0.25, 0.25, start.shape)
    target = hebi_fk(hebi, goal)
    core = ServoCore(planner, positions=start)
    core.command(PoseTarget(target))
    distances = []
    for _ in range(10000):
        out = core.step()
        distances.append(np.linalg.norm(hebi_fk(hebi, out.positions)[:3, 3] - target[:3, 3]))
        if 'at the pose target' in out.message and not np.any(out.velocities):
            break
    reached = hebi_fk(hebi, core.positions)
    assert np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= 1e-3
    if planner.model.dof_count >= 6:
        angle = math.acos(max(-1.0, min(1.0, (np.trace(reached[:3, :3].T @ target[:3, :3])
                                               - 1) / 2)))
        assert angle <= 0.01
    assert max(b - a for a, b in zip(distances, distances[1:])) <= 1e-4


def test_a_command_times_out_and_pause_stops(planners):
    planner = _planner(planners, os.path.join(KITS_DIR, 'A-2085-06.hrdf'))
    core = ServoCore(planner, positions=_home(planner),
                     parameters=ServoParameters(check_collisions=False))
    core.command(Twist([0.02, 0, 0], [0, 0, 0]))
    for _ in range(100):
        assert np.any(core.step().velocities) or core.time < 0.01
    for _ in range(400):
        core.step()
    assert not np.any(core.velocities)                  # 0.1 s timeout, then braked
    core.paused = True
    core.command(Twist([0.02, 0, 0], [0, 0, 0]))
    for _ in range(50):
        assert not np.any(core.step().velocities)


def test_an_end_effector_frame_twist_is_the_base_twist_turned(planners):
    planner = _planner(planners, os.path.join(KITS_DIR, 'A-2085-06.hrdf'))
    start = _home(planner)
    rotation = planner.kinematics.end_effector(start)[:3, :3]
    results = []
    for twist in (Twist([0.01, 0.02, 0], [0, 0, 0.1], frame='end_effector'),
                  Twist(rotation @ [0.01, 0.02, 0], rotation @ [0, 0, 0.1])):
        core = ServoCore(planner, positions=start,
                         parameters=ServoParameters(check_collisions=False))
        core.command(twist)
        results.append(core.step().velocities)          # the first step: the same frame
    assert np.allclose(results[0], results[1], atol=1e-12)


def test_bad_commands_and_parameters_are_refused(planners):
    planner = _planner(planners, os.path.join(KITS_DIR, 'A-2085-06.hrdf'))
    core = ServoCore(planner, positions=_home(planner))
    with pytest.raises(ValueError):
        Twist([0, 0], [0, 0, 0])
    with pytest.raises(ValueError):
        Twist([0, 0, math.nan], [0, 0, 0])
    with pytest.raises(ValueError):
        Twist([0, 0, 0], [0, 0, 0], frame='tool')
    with pytest.raises(ValueError):
        JointJog([0.1] * 6, duration=0)
    with pytest.raises(ValueError):
        core.command(JointJog([0.1] * 3))
    with pytest.raises(ValueError):
        PoseTarget(np.diag([1.0, 1.0, -1.0, 1.0]))
    with pytest.raises(ValueError):
        ServoParameters(publish_period=0)
    with pytest.raises(ValueError):
        ServoParameters(lower_singularity_threshold=40)
    with pytest.raises(ValueError):
        core.reset(np.full(6, math.nan))
    with pytest.raises(ValueError):
        core.reset(np.zeros(5))
