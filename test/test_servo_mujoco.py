"""The servo's commands played on the arm in MuJoCo, as the arm's controllers play them,
checked as played: mplib's FCL (the URDF and SRDF of ``hrdf moveit``) for clearances,
hebi-py's FK for poses.

The arm: ``hrdf mjcf --gravity-compensation``'s model of a 6-DoF kit (A-2085-06), its
position actuators tracking the controller's command. The controllers are those the
node's servo feeds (``servo.command_out_type``), run by ros2_control's controller_manager
at the 100 Hz ``update_rate`` that ``hrdf moveit`` writes: at each update,
forward_command_controller writes the latest command's positions, and
joint_trajectory_controller the latest one-point trajectory sampled one update period
ahead (``command_next_`` in ros2_controllers jazzy, joint_trajectory_controller.cpp),
which is past its point (1 ms ahead): that point's positions. Both therefore hold the
servo's latest positions from one update to the next; :func:`play` does that, with the
servo stepping at 1 kHz and MuJoCo at its 2 ms timestep.

Passing means, as played (every simulated state):
* a jog toward a box slows, then halts with mplib's distance to the box above 2 cm;
* a jog folding the arm onto itself halts with every checked pair above 1 cm (the
  scene's exact distances: see the test for why not mplib's);
* a jog out to a stretched arm slows, then halts for the singularity;
* a jog into a joint limit gives JOINT_BOUND and stops within the limit;
* after the commands stop, the arm is at rest (the servo's accelerations within the
  limits are test_servo.py's; here the played arm comes to rest);
* a pose target is reached within 1 mm and 0.01 rad by hebi-py's FK of the played state.
Tolerances for the simulated arm's tracking (PD position actuators): 1 mm on clearances,
2 mrad on a joint limit.
"""
import math
import os

import numpy as np
import pytest

from hrdf_ros import load
from hrdf_ros.export.moveit.config_files import CONTROLLER_UPDATE_RATE
from hrdf_ros.servo import JointJog, PoseTarget, ServoCore, ServoParameters, StatusCode, Twist

from conftest import KITS_DIR
from motion_helpers import Mplib, hebi_fk

mujoco = pytest.importorskip('mujoco')
pytest.importorskip('mplib', reason='mplib not installed (make test installs it)')
pytest.importorskip('pinocchio', reason='the motion extra is not installed')
from hrdf_ros.motion import MotionPlanner  # noqa: E402

KIT = os.path.join(KITS_DIR, 'A-2085-06.hrdf')
#: servo steps per controller update (1 kHz servo, 100 Hz controller_manager)
STEPS_PER_UPDATE = int(round(1000 / CONTROLLER_UPDATE_RATE))
#: m, rad: how far the simulated arm's tracking may take a played state past a command
TRACKING = 1e-3
JOINT_TRACKING = 2e-3


class Arm:
    """The kit in MuJoCo, at ``start``, and its mplib oracle."""

    def __init__(self, model, folder, start):
        from hrdf_ros.export.mjcf import mjcf_files
        for name, text in mjcf_files(model, 'robot', 'robot.xml', gravity_compensation=True,
                                     meshes='primitives').items():
            (folder / name).write_text(text)
        self.mj = mujoco.MjModel.from_xml_path(str(folder / 'scene.xml'))
        # no contacts: the servo's world is its planning scene (the tests' boxes, no
        # floor); MuJoCo's ground plane would stop an arm the servo rightly moves below it
        self.mj.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
        self.data = mujoco.MjData(self.mj)
        names = model.joint_names()
        ids = [mujoco.mj_name2id(self.mj, mujoco.mjtObj.mjOBJ_JOINT, n) for n in names]
        self.qpos = [self.mj.jnt_qposadr[j] for j in ids]
        self.qvel = [self.mj.jnt_dofadr[j] for j in ids]
        self.actuators = [mujoco.mj_name2id(self.mj, mujoco.mjtObj.mjOBJ_ACTUATOR, n)
                          for n in names]
        self.data.qpos[self.qpos] = start
        self.data.ctrl[self.actuators] = start
        mujoco.mj_forward(self.mj, self.data)
        self.oracle = Mplib(model, folder / 'mplib')
        self.time = 0.0
        self.start_time = 0.0            # where the next play() starts, s

    def positions(self):
        return self.data.qpos[self.qpos].copy()

    def velocities(self):
        return self.data.qvel[self.qvel].copy()

    def advance(self, until, played):
        """Simulate to time ``until`` (s), appending every state to ``played``."""
        while self.time + 1e-12 < until:
            mujoco.mj_step(self.mj, self.data)
            self.time += self.mj.opt.timestep
            played.append(self.positions())

    def distances(self, q):
        """(self, objects) minimum distances by mplib's FCL at state q (its self distance
        counts every pair, the SRDF's disabled ones too)."""
        world = self.oracle.planner
        world.robot.set_qpos(self.oracle.state(q), True)
        return (world.planning_world.distance_self().min_distance,
                world.planning_world.distance_robot().min_distance)


def play(arm, core, command, steps, settle=3000):
    """Hold ``command`` (sent every 50 servo steps) for ``steps`` steps, then no command
    until the servo is at rest and ``settle`` steps more; the servo's latest positions
    go to the arm at every controller update. Returns (servo outputs, played states)."""
    outputs, played = [], []
    dt = core.parameters.publish_period
    k, rest = 0, None
    while True:
        if k < steps and k % 50 == 0:
            core.command(command)
        if k == steps:
            core.stop()
        outputs.append(core.step())
        if k % STEPS_PER_UPDATE == 0:
            arm.data.ctrl[arm.actuators] = outputs[-1].positions
        arm.advance((k + 1) * dt + arm.start_time, played)
        k += 1
        if k > steps and rest is None and core.at_rest:
            rest = k
        if rest is not None and k >= rest + settle:
            break
        assert k < steps + 60000, 'the servo did not come to rest'
    arm.start_time += k * dt
    return outputs, np.array(played)


@pytest.fixture(scope='module')
def kit(hebi_import):
    """(model, planner, its SRDF home state (HEBI positions), hebi-py's model)."""
    model = load(KIT)
    planner = MotionPlanner(model)
    values = planner.semantics.home()
    home = np.array([values[j] for j in planner.joint_names]) * planner._ratios
    return model, planner, home, hebi_import[0](KIT)


def _arm(kit, tmp_path, start):
    arm = Arm(kit[0], tmp_path, start)
    arm.hebi = kit[3]
    return arm


def test_a_jog_toward_a_box_halts_above_2_cm_as_played(kit, tmp_path):
    import mplib
    from mplib.collision_detection import fcl
    model, plain, home, _ = kit
    tip = plain.kinematics.end_effector(home)[:3, 3]
    size = [0.1, 0.4, 0.4]
    centre = [float(tip[0]) + 0.15, float(tip[1]), float(tip[2])]
    box = {'name': 'box', 'type': 'box', 'dimensions': size, 'pose': {'position': centre}}
    planner = MotionPlanner(model, [box])
    arm = _arm(kit, tmp_path, home)
    arm.oracle.planner.planning_world.add_object(fcl.FCLObject(
        'box', mplib.Pose(p=centre), [fcl.CollisionObject(fcl.Box(size))], [mplib.Pose()]))
    core = ServoCore(planner, positions=home)
    outputs, played = play(arm, core, Twist([0.05, 0, 0], [0, 0, 0]), 8000)
    statuses = {o.status for o in outputs}
    assert {StatusCode.DECELERATE_FOR_COLLISION, StatusCode.HALT_FOR_COLLISION} <= statuses
    to_box = min(arm.distances(q)[1] for q in played[::5])
    moved = hebi_fk(arm.hebi, played[-1])[0, 3] - tip[0]
    print(f'box: closest {to_box * 1000:.2f} mm as played (mplib), the tip moved '
          f'{moved * 1000:.1f} mm toward it')
    assert to_box >= 0.02 - TRACKING
    assert moved > 0.03


def test_a_jog_onto_its_own_links_halts_above_1_cm_as_played(kit, tmp_path):
    """Folding the elbow in from the home state halts with every checked pair of links
    that started more than 2 cm apart still 1 cm apart as played, and one of them came
    within 1.5 cm (the halt, not a joint limit, stopped it); the pairs closer at the start
    (the wrist's) get no closer than half that. Distances: the scene's exact ones (Coal,
    the certified checks' lower bounds), on the played states. Not mplib's or python-fcl's
    here: both compute box-box distances with libccd, which overestimates (FCL issue 508;
    actuator2 - actuator5 at 10.7 mm where they say more), and mplib's self distance counts
    the pairs its SRDF disables too (one 3.4 mm apart in every state)."""
    model, planner, home, _ = kit
    arm = _arm(kit, tmp_path, home)
    core = ServoCore(planner, positions=home)
    jog = np.zeros(core.dof)
    jog[2] = 1.0 if home[2] >= 0 else -1.0              # the elbow, further in
    outputs, played = play(arm, core, JointJog(jog), 6000)
    rows = planner.scene.clearance.robot_rows
    start = planner.scene.distances(home)[rows]
    closest = np.min([planner.scene.distances(q)[rows] for q in played[::5]], axis=0)
    far = start > 0.02
    print(f'self: {far.sum()} pairs over 2 cm apart at the start, the closest of them '
          f'{closest[far].min() * 1000:.2f} mm as played')
    assert StatusCode.HALT_FOR_COLLISION in {o.status for o in outputs}
    assert 0.01 - TRACKING <= closest[far].min() < 0.015
    assert np.all(closest[~far] >= np.minimum(0.01, start[~far] / 2) - TRACKING)


def test_a_jog_out_to_a_stretched_arm_halts_for_the_singularity(kit, tmp_path):
    model, planner, home, _ = kit
    arm = _arm(kit, tmp_path, home)
    core = ServoCore(planner, positions=home,
                     parameters=ServoParameters(check_collisions=False))
    tip = planner.kinematics.end_effector(home)[:3, 3]
    outward = tip / np.linalg.norm(tip)
    outputs, played = play(arm, core, Twist(0.1 * outward, [0, 0, 0]), 20000)
    statuses = [o.status for o in outputs]
    assert StatusCode.DECELERATE_FOR_APPROACHING_SINGULARITY in statuses
    assert StatusCode.HALT_FOR_SINGULARITY in statuses
    reach = np.linalg.norm(hebi_fk(arm.hebi, played[-1])[:3, 3])
    assert reach > np.linalg.norm(tip) + 0.05
    assert np.abs(played[-1] - core.positions).max() < JOINT_TRACKING


def test_a_jog_into_a_joint_limit_stops_within_it_and_comes_to_rest(kit, tmp_path):
    model, _, home, _ = kit
    planner = MotionPlanner(model, joint_limits=np.tile([-2.0, 2.0], (model.dof_count, 1)))
    start = np.clip(home, -1.9, 1.9)
    arm = _arm(kit, tmp_path, start)
    core = ServoCore(planner, positions=start,
                     parameters=ServoParameters(check_collisions=False))
    joint = model.dof_count - 1
    jog = np.zeros(core.dof)
    jog[joint] = 1.0
    outputs, played = play(arm, core, JointJog(jog), int(2000 * (2.0 - start[joint]) + 3000))
    assert StatusCode.JOINT_BOUND in {o.status for o in outputs}
    assert played[:, joint].max() <= 2.0 + JOINT_TRACKING
    assert 2.0 - played[-1, joint] < 0.01
    # at rest as played: the last 0.5 s of the settle time moved less than 0.1 mrad
    assert np.abs(played[-250:] - played[-1]).max() < 1e-4
    assert np.abs(arm.velocities()).max() < 1e-3


@pytest.mark.parametrize('seed', [11, 12])
def test_a_pose_target_is_tracked_to_1_mm_and_0_01_rad_as_played(kit, tmp_path, seed):
    model, planner, home, _ = kit
    arm = _arm(kit, tmp_path, home)
    rng = np.random.default_rng(seed)
    target = hebi_fk(arm.hebi, home + rng.uniform(-0.25, 0.25, home.shape))
    core = ServoCore(planner, positions=home)
    outputs, played = play(arm, core, PoseTarget(target), 10000)
    reached = hebi_fk(arm.hebi, played[-1])
    error = np.linalg.norm(reached[:3, 3] - target[:3, 3])
    angle = math.acos(max(-1.0, min(1.0, (np.trace(reached[:3, :3].T @ target[:3, :3])
                                          - 1) / 2)))
    print(f'pose target: {error * 1000:.3f} mm and {angle:.4f} rad as played')
    assert error <= 1e-3 and angle <= 0.01
