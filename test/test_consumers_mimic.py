"""What each consumer does with a parallel gripper's mimic joints (URDF ``<mimic>``,
SDFormat 1.11 ``<mimic>`` and Drake's ``<drake:mimic>``): set the finger joint
``gripper_joint``, look at the mimicked parts (the right finger, the jaws, the inner
linkages). Where a consumer honours mimic, the test checks it; where it does not, the
test pins the limitation, so a consumer that changes fails here. Measured: yourdfpy
(test_gripper.py), Drake (URDF <mimic> and SDFormat <drake:mimic>: coupler constraints,
discrete SAP plants only) and MuJoCo 4.0.0 (joint equality constraints) honour it;
kdl_parser and Pinocchio 2.7.0 read mimic joints as independent joints
(robot_state_publisher computes their positions for KDL); PyBullet 3.2.7 ignores
<mimic>; libsdformat 12 drops it from the URDF and cannot read SDFormat 1.11.

Expected part poses: hebi-py's gripper input frame times hrdf_ros.kinematics.gripper's
part poses, which test_gripper.py checks against HEBI's own URDF of the kits.
"""
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from hrdf_ros import to_urdf
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.export.sdf import to_sdf
from hrdf_ros.kinematics import gripper as mechanism

from consumers import (CASES, WRITTEN_ATOL, ign_sdf, mimic_values, quaternion_xyzw_matrix,
                       transform)

pytestmark = pytest.mark.consumers
#: One kit per gripper type (X5Parallel, R8Parallel).
KITS = [c for c in CASES if c.id in ('A-2085-06G', 'A-2240-06G')]
GRIPPER = 0.5           # rad, the finger joint
#: Drake and MuJoCo enforce the coupling as a (stiff) constraint in simulation, rad
#: (measured: Drake 3.4e-8, MuJoCo 3.3e-6).
CONSTRAINT_TOL = 1e-4


def kit_ids():
    assert len(KITS) == 2
    return pytest.mark.parametrize('case', KITS, ids=[c.id for c in KITS])


def setup(case, tmp_path, **options):
    model = case.model()
    tree = build_frame_tree(model)
    gripper = tree.grippers[0]
    path = tmp_path / 'robot.urdf'
    path.write_text(to_urdf(model, 'robot', **options))
    return model, tree, gripper, str(path)


def expected_mimic(gripper, value=GRIPPER):
    return mimic_values(gripper, value)


def report(who, gripper, positions):
    """Assert every mimic joint follows the finger joint (CONSTRAINT_TOL) and print the
    largest deviation."""
    finger = positions[gripper.joint]
    worst = max(abs(positions[n] - v) for n, v in expected_mimic(gripper, finger).items())
    print(f'{who}: finger {finger:.3f} rad, mimic joints within {worst:.2g} rad')
    assert worst < CONSTRAINT_TOL


def part_in_base(gripper, name, value):
    """Pose of a part in the gripper base frame at finger position ``value``."""
    return mechanism.part_poses([value])[0][mechanism.PART_NAMES.index(name)]


# -- robot_state_publisher / KDL -----------------------------------------------------------
@kit_ids()
def test_kdl_has_no_mimic_and_robot_state_publisher_computes_it(case, tmp_path):
    """kdl_parser builds mimic joints as ordinary joints; robot_state_publisher computes
    their positions (multiplier * value + offset) and poses them: the fingers mirror."""
    kdl = pytest.importorskip('PyKDL', reason='python3-pykdl not installed')
    from test_consumers_urdf import _kdl_chain_values, _kdl_matrix, kdl_tree
    model, tree, gripper, path = setup(case, tmp_path)
    kdl_model, warnings = kdl_tree(kdl, path)
    assert warnings == []
    assert kdl_model.getNrOfJoints() == model.dof_count + len(gripper.moving_joints)

    def pose(link, values):
        chain = kdl_model.getChain(gripper.base_link, link)
        q, _ = _kdl_chain_values(kdl, chain, values)
        frame = kdl.Frame()
        kdl.ChainFkSolverPos_recursive(chain).JntToCart(q, frame)
        return _kdl_matrix(frame)
    rsp = dict(expected_mimic(gripper), **{gripper.joint: GRIPPER})
    alone = {name: 0.0 for name in gripper.mimic_joints}
    alone[gripper.joint] = GRIPPER
    for part in ('r_finger', 'l_jaw', 'r_jaw', 'l_inner_linkage'):
        expected = part_in_base(gripper, part, GRIPPER)
        np.testing.assert_allclose(pose(gripper.links[part], rsp), expected, atol=WRITTEN_ATOL)
        # KDL alone: the mimic joints stay where they are put
        assert np.abs(pose(gripper.links[part], alone) - expected).max() > 1e-3


# -- Pinocchio -------------------------------------------------------------------------------
@kit_ids()
def test_pinocchio_2_7_reads_mimic_joints_as_independent_joints(case, tmp_path):
    pin = pytest.importorskip('pinocchio', reason='pin not installed')
    model, tree, gripper, path = setup(case, tmp_path)
    robot = pin.buildModelFromUrdf(path)
    data = robot.createData()
    assert robot.nv == model.dof_count + len(gripper.moving_joints)
    q = pin.neutral(robot)
    q[robot.joints[robot.getJointId(gripper.joint)].idx_q] = GRIPPER
    pin.framesForwardKinematics(robot, data, q)
    base = data.oMf[robot.getFrameId(gripper.base_link)].homogeneous
    finger = np.linalg.inv(base) @ data.oMf[robot.getFrameId(gripper.links['r_finger'])] \
        .homogeneous
    # limitation: the right finger stays open (set mimic joints yourself)
    np.testing.assert_allclose(finger, part_in_base(gripper, 'r_finger', 0.0), atol=1e-12)
    for name, value in expected_mimic(gripper).items():
        q[robot.joints[robot.getJointId(name)].idx_q] = value
    pin.framesForwardKinematics(robot, data, q)
    finger = np.linalg.inv(base) @ data.oMf[robot.getFrameId(gripper.links['r_finger'])] \
        .homogeneous
    np.testing.assert_allclose(finger, part_in_base(gripper, 'r_finger', GRIPPER), atol=1e-12)


# -- Drake -------------------------------------------------------------------------------------
def _drake_follow(path, gripper, sdf=False):
    """Drake (discrete, SAP) from ``path``, no gravity, from rest at 0: a constant torque
    on the finger joint's actuator for 0.2 s. Returns ({joint: position}, number of
    constraints)."""
    pytest.importorskip('pydrake', reason='drake not installed')
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlant, MultibodyPlantConfig
    from pydrake.systems.analysis import Simulator
    from pydrake.systems.framework import DiagramBuilder
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlant(MultibodyPlantConfig(
        time_step=0.001, discrete_contact_approximation='sap'), builder)
    parser = Parser(plant)
    if sdf:
        parser.SetStrictParsing()
    parser.AddModels(path)
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName('base_link'))
    plant.mutable_gravity_field().set_gravity_vector([0.0, 0.0, 0.0])
    plant.Finalize()
    diagram = builder.Build()
    root = diagram.CreateDefaultContext()
    context = plant.GetMyMutableContextFromRoot(root)
    torque = np.zeros(plant.num_actuators())
    for index in plant.GetJointActuatorIndices():
        if plant.get_joint_actuator(index).joint().name() == gripper.joint:
            torque[plant.get_joint_actuator(index).input_start()] = 0.01    # N m
    plant.get_actuation_input_port().FixValue(context, torque)
    Simulator(diagram, root).AdvanceTo(0.2)
    names = gripper.moving_joints
    return ({n: plant.GetJointByName(n).get_angle(context) for n in names},
            plant.num_constraints())


@kit_ids()
def test_drake_urdf_mimic_is_a_coupler_constraint(case, tmp_path):
    model, tree, gripper, path = setup(case, tmp_path)
    positions, constraints = _drake_follow(path, gripper)
    assert constraints == len(gripper.mimic_joints)
    finger = positions[gripper.joint]
    assert finger > 0.05          # the torque closed the gripper part way
    report('Drake URDF', gripper, positions)


@kit_ids()
def test_drake_sdformat_reads_drake_mimic(case, tmp_path):
    model, tree, gripper, _ = setup(case, tmp_path)
    path = tmp_path / 'robot.sdf'
    path.write_text(to_sdf(model, 'robot'))
    positions, constraints = _drake_follow(str(path), gripper, sdf=True)
    assert constraints == len(gripper.mimic_joints)
    assert positions[gripper.joint] > 0.05
    report('Drake SDFormat', gripper, positions)


# -- MuJoCo ------------------------------------------------------------------------------------
@kit_ids()
def test_mujoco_turns_urdf_mimic_into_joint_equality_constraints(case, tmp_path):
    """MuJoCo 4.0.0's URDF import makes each mimic joint a joint equality constraint
    (polycoef offset, multiplier), enforced (softly) in simulation."""
    mujoco = pytest.importorskip('mujoco', reason='mujoco not installed')
    model, tree, gripper, path = setup(case, tmp_path)
    compiled = mujoco.MjModel.from_xml_path(path)
    compiled.opt.gravity[:] = 0.0
    data = mujoco.MjData(compiled)
    assert compiled.neq == len(gripper.mimic_joints)

    def joint(name):
        return mujoco.mj_name2id(compiled, mujoco.mjtObj.mjOBJ_JOINT, name)
    for k in range(compiled.neq):
        assert compiled.eq_type[k] == mujoco.mjtEq.mjEQ_JOINT
        follower = mujoco.mj_id2name(compiled, mujoco.mjtObj.mjOBJ_JOINT, compiled.eq_obj1id[k])
        assert compiled.eq_obj2id[k] == joint(gripper.joint)
        _, multiplier, offset = next(s.mimic for s in gripper.joint_specs()
                                     if s.name == follower)
        np.testing.assert_allclose(compiled.eq_data[k][:2], (offset, multiplier))
    data.qpos[compiled.jnt_qposadr[joint(gripper.joint)]] = GRIPPER
    for _ in range(500):
        mujoco.mj_step(compiled, data)
    positions = {n: float(data.qpos[compiled.jnt_qposadr[joint(n)]])
                 for n in gripper.moving_joints}
    assert positions[gripper.joint] > 0.05
    report('MuJoCo', gripper, positions)


# -- PyBullet ----------------------------------------------------------------------------------
@kit_ids()
def test_pybullet_ignores_urdf_mimic(case, tmp_path):
    p = pytest.importorskip('pybullet', reason='pybullet not installed')
    model, tree, gripper, path = setup(case, tmp_path)
    client = p.connect(p.DIRECT)
    try:
        body = p.loadURDF(path, useFixedBase=True, flags=p.URDF_USE_INERTIA_FROM_FILE,
                          physicsClientId=client)
        infos = [p.getJointInfo(body, j, physicsClientId=client)
                 for j in range(p.getNumJoints(body, physicsClientId=client))]
        joints = {info[1].decode(): info[0] for info in infos}
        links = {info[12].decode(): info[0] for info in infos}
        p.resetJointState(body, joints[gripper.joint], GRIPPER, physicsClientId=client)

        def part(name):
            state = p.getLinkState(body, links[gripper.links[name]],
                                   computeForwardKinematics=1, physicsClientId=client)
            base = p.getLinkState(body, links[gripper.base_link],
                                  computeForwardKinematics=1, physicsClientId=client)
            return np.linalg.inv(transform(quaternion_xyzw_matrix(base[5]), base[4])) @ \
                transform(quaternion_xyzw_matrix(state[5]), state[4])
        np.testing.assert_allclose(part('l_finger'), part_in_base(gripper, 'l_finger',
                                                                  GRIPPER), atol=1e-6)
        # limitation: the mimicked finger stays open
        np.testing.assert_allclose(part('r_finger'), part_in_base(gripper, 'r_finger', 0.0),
                                   atol=1e-6)
        assert p.getJointState(body, joints['gripper_r_finger_joint'],
                               physicsClientId=client)[0] == 0.0
    finally:
        p.disconnect(physicsClientId=client)


# -- SDFormat (Gazebo) -------------------------------------------------------------------------
@kit_ids()
def test_sdformat_12_drops_urdf_mimic_and_cannot_read_1_11(case, tmp_path):
    model, tree, gripper, path = setup(case, tmp_path)
    converted = ign_sdf('-p', path)
    assert converted.returncode == 0, converted.stderr
    joints = {j.get('name'): j for j in ET.fromstring(converted.stdout).iter('joint')}
    assert all(joints[name].get('type') == 'revolute' for name in gripper.moving_joints)
    # limitation of libsdformat 12 (Gazebo Fortress): the URDF conversion drops <mimic>
    assert 'mimic' not in converted.stdout
    sdf = tmp_path / 'robot.sdf'
    sdf.write_text(to_sdf(model, 'robot'))
    root = ET.parse(sdf).getroot()
    assert root.get('version') == '1.11'
    mimics = {j.get('name'): j.find('axis/mimic') for j in root.iter('joint')}
    for name, value in expected_mimic(gripper, 1.0).items():
        assert float(mimics[name].find('multiplier').text) == pytest.approx(value)
        assert mimics[name].get('joint') == gripper.joint
    check = ign_sdf('-k', str(sdf))
    assert 'Unable to convert from SDF version 1.11 to 1.9' in check.stderr
