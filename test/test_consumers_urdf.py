"""The URDF hrdf_ros writes, opened by the programs people take it to: Drake, MuJoCo,
PyBullet, Pinocchio, KDL (the tree built as ROS kdl_parser builds it, what
robot_state_publisher and MoveIt's KDL plugin use) and urdfdom's check_urdf.

For every robot of consumers.CASES: the file loads with no "no inertial data" / "not
modeled" style warning, every link is where hebi-py puts the element's input frame or
end-effector frame (1e-9), every body a joint moves is physically valid (mass matrix
positive definite, forward dynamics finite), every degree of freedom is an actuator with
a positive effort and velocity limit, and the total mass is within 0.1 % of hebi-py's.

PyBullet returns the URDF link frame of getLinkState (worldLinkFramePosition/
Orientation) rounded to float32 (a link at y = 0.2 m comes back as 0.20000000298023224 =
float32(0.2)); its COM frame (linkWorldPosition/Orientation) and the link's inertial
frame (localInertialFramePosition/Orientation) come in double precision, so the link
frame is taken as COM frame x inertial frame^-1 and checked at 1e-9, and the rounded one
at 1e-6.

Marker ``consumers``: installed by ``make test-consumers`` (scripts/setup_consumers.sh);
.ci/run fails when any of these tests is skipped.
"""
import math
import os
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from hrdf_ros import Kinematics
from hrdf_ros.description.inertials import FILL_MASS

from consumers import (CASES, REAL_FILES, REAL_NOT_LOADED, WRITTEN_RTOL, assert_pose,
                       check_total_mass, parametrize_cases, quaternion_xyzw_matrix,
                       reference, require_tool, transform, visual_meshes, write_urdf)

pytestmark = pytest.mark.consumers
GRAVITY = np.array([0.0, 0.0, -9.80665])     # m/s^2, in base_link


def urdf_masses(path):
    """{link: mass} of the URDF's inertials."""
    root = ET.parse(path).getroot()
    return {link.get('name'): float(link.find('inertial/mass').get('value'))
            for link in root.findall('link') if link.find('inertial') is not None}


def expected_effort(ref, name):
    """Effort limit the URDF states for a degree of freedom (inf without <limit>)."""
    from hrdf_ros.description.gripper import GRIPPER_EFFORT
    from hrdf_ros.description.joints import joint_spec
    if name in ref.tree.gripper_joint_names:
        return GRIPPER_EFFORT
    if name in (ref.limits or {}):
        return ref.limits[name].effort
    element = ref.model.elements[ref.model.dof_elements[ref.tree.dof_names.index(name)]]
    spec = joint_spec(element)
    limit = spec.limit_values()
    return math.inf if limit is None else limit['effort']


def test_every_robot_is_covered():
    assert len(CASES) >= 4
    print(f'{len(CASES)} robots; {len(REAL_FILES) - len(REAL_NOT_LOADED)} of '
          f'{len(REAL_FILES)} real files load in hrdf_ros and hebi-py')


def test_real_files_that_do_not_load_are_listed():
    """The real files hrdf_ros or hebi-py (the reference) reject are not consumer cases
    (reported here; a file that starts to load after a reader change joins the cases
    automatically)."""
    for path in REAL_NOT_LOADED:
        print('not loaded by hrdf_ros or hebi-py:', os.path.relpath(path))


# -- Drake -----------------------------------------------------------------------------
def drake_visual_meshes(scene_graph):
    """Mesh geometries with the illustration role (the URDF's mesh visuals) in Drake."""
    from pydrake.geometry import Mesh, Role
    inspector = scene_graph.model_inspector()
    return sum(isinstance(inspector.GetShape(g), Mesh)
               for g in inspector.GetAllGeometryIds(Role.kIllustration))


@parametrize_cases()
def test_drake(case, tmp_path, caplog):
    pytest.importorskip('pydrake', reason='drake not installed (make test-consumers)')
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlant, MultibodyPlantConfig
    from pydrake.systems.analysis import Simulator
    from pydrake.systems.framework import DiagramBuilder
    ref = reference(case)
    # Drake opens visual meshes: web meshes need local copies (hrdf meshes fetch)
    path = write_urdf(ref, tmp_path)
    builder = DiagramBuilder()
    # a gripper's <mimic> joints become coupler constraints, which only a discrete plant
    # with the SAP solver simulates (a continuous one refuses constraints)
    mimic = len(ref.moving_joints) - len(ref.actuated_joints)
    plant, scene_graph = AddMultibodyPlant(MultibodyPlantConfig(
        time_step=0.001 if mimic else 0.0,
        discrete_contact_approximation='sap' if mimic else ''), builder)
    with caplog.at_level('WARNING', logger='drake'):
        Parser(plant).AddModels(path)
    # the only warning: Drake ignores mechanicalReduction (HRDF gear ratios) for dynamics
    for record in caplog.records:
        assert 'mechanicalReduction' in record.getMessage(), record.getMessage()
    geared = sum(ref.model.elements[e].gear_ratio != 1 for e in ref.model.dof_elements)
    assert len(caplog.records) == geared
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName('base_link'))
    plant.Finalize()
    assert drake_visual_meshes(scene_graph) == visual_meshes(ref.model)
    diagram = builder.Build()
    root_context = diagram.CreateDefaultContext()
    context = plant.GetMyMutableContextFromRoot(root_context)

    dof = len(ref.moving_joints)
    assert plant.num_positions() == dof and plant.num_actuators() == len(ref.actuated_joints)
    assert plant.num_constraints() == mimic
    for index in plant.GetJointActuatorIndices():
        actuator = plant.get_joint_actuator(index)
        assert actuator.effort_limit() == expected_effort(ref, actuator.joint().name())
        assert actuator.effort_limit() > 0
    assert np.all(plant.GetVelocityUpperLimits() > 0)
    check_total_mass(plant.CalcTotalMass(context), ref)

    base = plant.GetFrameByName('base_link')
    frames = {link: plant.GetFrameByName(link) for link in ref.poses}
    rng = np.random.default_rng(3)
    for k in range(len(ref.positions)):
        q = np.zeros(dof)
        for name, value in ref.values_by_joint(k).items():
            q[plant.GetJointByName(name).position_start()] = value
        plant.SetPositions(context, q)
        for link, frame in frames.items():
            assert_pose(plant.CalcRelativeTransform(context, base, frame).GetAsMatrix4(),
                        ref.poses[link][k], what=link, who='Drake (URDF)')
        if dof == 0:
            continue
        plant.SetVelocities(context, rng.normal(size=dof))
        assert np.linalg.eigvalsh(plant.CalcMassMatrix(context)).min() > 0
        plant.get_actuation_input_port().FixValue(context, rng.normal(
            size=plant.num_actuators()))
        if mimic:       # one discrete step (SAP) instead of the continuous dynamics
            simulator = Simulator(diagram, root_context)
            simulator.AdvanceTo(root_context.get_time() + 0.001)
            assert np.all(np.isfinite(plant.GetPositionsAndVelocities(context)))
            continue
        derivatives = plant.AllocateTimeDerivatives()
        plant.CalcTimeDerivatives(context, derivatives)
        assert np.all(np.isfinite(derivatives.get_vector().CopyToVector()))


# -- MuJoCo ----------------------------------------------------------------------------
@parametrize_cases()
def test_mujoco(case, tmp_path):
    mujoco = pytest.importorskip('mujoco', reason='mujoco not installed (make test-consumers)')
    ref = reference(case)
    # MuJoCo drops URDF visuals and cannot open file:// collision meshes (docs, consumers): web
    # meshes stay URLs, which are never collision geometry
    path = write_urdf(ref, tmp_path, web_meshes=False)
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    body = {mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, i): i
            for i in range(model.nbody)}
    masses = urdf_masses(path)
    # every link is a body (fusestatic="false"), with exactly the URDF's mass
    links = set(ref.tree.links) | set(ref.poses)
    assert links <= set(body)
    for link in links:
        assert model.body_mass[body[link]] == pytest.approx(masses.get(link, 0.0), abs=1e-15)
    check_total_mass(float(model.body_mass.sum()), ref)
    # MuJoCo's URDF import ignores <mimic>: a gripper's mimic joints are joints of their own
    moving = [i for i in range(model.nbody) if model.body_jntnum[i] > 0]
    assert len(moving) == len(ref.moving_joints)
    assert all(model.body_mass[i] > 0 and model.body_inertia[i].min() > 0 for i in moving)

    def address(name):
        return model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)]
    for k in range(len(ref.positions)):
        data.qpos[:] = 0
        for name, value in ref.values_by_joint(k).items():
            data.qpos[address(name)] = value
        mujoco.mj_kinematics(model, data)
        b = body['base_link']
        base = transform(data.xmat[b].reshape(3, 3), data.xpos[b])
        for link in ref.poses:
            i = body[link]
            pose = np.linalg.inv(base) @ transform(data.xmat[i].reshape(3, 3), data.xpos[i])
            assert_pose(pose, ref.poses[link][k], what=link, who='MuJoCo')
    mujoco.mj_resetData(model, data)
    for _ in range(20):
        mujoco.mj_step(model, data)
    assert np.all(np.isfinite(data.qacc)) and np.all(np.isfinite(data.qpos))


# -- PyBullet --------------------------------------------------------------------------
def _pybullet_pose(position, orientation):
    return transform(quaternion_xyzw_matrix(orientation), position)


@parametrize_cases()
def test_pybullet(case, tmp_path, capfd):
    p = pytest.importorskip('pybullet', reason='pybullet not installed (make test-consumers)')
    ref = reference(case)
    path = write_urdf(ref, tmp_path)
    capfd.readouterr()
    client = p.connect(p.DIRECT)
    try:
        body = p.loadURDF(path, useFixedBase=True, flags=p.URDF_USE_INERTIA_FROM_FILE,
                          physicsClientId=client)
        out = ''.join(capfd.readouterr())
        shapes = p.getVisualShapeData(body, physicsClientId=client)
        loaded = [s[4].decode() for s in shapes if s[2] == p.GEOM_MESH]
        assert len(loaded) == visual_meshes(ref.model) and all(map(os.path.isfile, loaded))
        # base_link, the root, has no <inertial> because KDL rejects a root inertia
        # (doc/explanation/consumers.md); PyBullet says so once and ignores it for a fixed
        # base. No other link lacks one.
        assert out.count('No inertial data for link') == 1, out
        assert out.count('base_link') == 1
        infos = [p.getJointInfo(body, j, physicsClientId=client)
                 for j in range(p.getNumJoints(body, physicsClientId=client))]
        index = {info[12].decode(): info[0] for info in infos}
        joints = {info[1].decode(): info[0] for info in infos}
        masses = urdf_masses(path)
        for link, j in index.items():
            assert p.getDynamicsInfo(body, j, physicsClientId=client)[0] == \
                pytest.approx(masses[link], abs=1e-15), link
        check_total_mass(sum(masses.values()), ref)
        for k in range(len(ref.positions)):
            for name, value in ref.values_by_joint(k).items():
                p.resetJointState(body, joints[name], float(value), physicsClientId=client)
            for link in ref.poses:
                state = p.getLinkState(body, index[link], computeForwardKinematics=1,
                                       physicsClientId=client)
                # the COM frame and the link's inertial frame come in double precision
                link_frame = _pybullet_pose(state[0], state[1]) @ np.linalg.inv(
                    _pybullet_pose(state[2], state[3]))
                assert_pose(link_frame, ref.poses[link][k], what=link,
                            who='PyBullet (COM frame x inertial frame^-1, double)')
                assert_pose(_pybullet_pose(state[4], state[5]), ref.poses[link][k],
                            tol=1e-6, what=link,    # rounded to float32
                            who='PyBullet (worldLinkFrame, float32)')
        for j in joints.values():
            p.setJointMotorControl2(body, j, p.VELOCITY_CONTROL, force=0,
                                    physicsClientId=client)
        p.stepSimulation(physicsClientId=client)
        assert not [line for line in ''.join(capfd.readouterr()).splitlines()
                    if 'warning' in line.lower() or 'error' in line.lower()]
    finally:
        p.disconnect(physicsClientId=client)


# -- Pinocchio -------------------------------------------------------------------------
def _pinocchio_q(pin, model, values_by_joint):
    q = pin.neutral(model)
    for name, value in values_by_joint.items():
        joint = model.joints[model.getJointId(name)]
        if joint.nq == 2:       # continuous: (cos, sin)
            q[joint.idx_q:joint.idx_q + 2] = (math.cos(value), math.sin(value))
        else:
            q[joint.idx_q] = value
    return q


@parametrize_cases()
def test_pinocchio(case, tmp_path, capfd):
    pin = pytest.importorskip('pinocchio', reason='pin not installed (make test-consumers)')
    ref = reference(case)
    path = write_urdf(ref, tmp_path)
    (tmp_path / 'exact').mkdir()
    exact_path = write_urdf(ref, tmp_path / 'exact', exact_masses=True)
    capfd.readouterr()
    model = pin.buildModelFromUrdf(path)
    exact = pin.buildModelFromUrdf(exact_path)
    assert not ''.join(capfd.readouterr()).strip()
    data, exact_data = model.createData(), exact.createData()
    for m in (model, exact):
        m.gravity.linear = np.array([0.0, 0.0, -9.80665])
    # bodies fixed to the root are merged into the universe (inertias[0]), which
    # computeTotalMass leaves out
    def total(m):
        return sum(m.inertias[i].mass for i in range(m.njoints))
    check_total_mass(total(model), ref)
    assert total(exact) == pytest.approx(float(ref.masses.sum()), rel=WRITTEN_RTOL, abs=0)
    frames = {link: model.getFrameId(link, pin.FrameType.BODY) for link in ref.poses}
    for k in range(len(ref.positions)):
        q = _pinocchio_q(pin, model, ref.values_by_joint(k))
        pin.framesForwardKinematics(model, data, q)
        for link, fid in frames.items():
            assert_pose(data.oMf[fid].homogeneous, ref.poses[link][k], what=link,
                        who='Pinocchio')
        if ref.model.dof_count == 0:
            continue
        mass_matrix = pin.crba(model, data, q)
        mass_matrix = np.triu(mass_matrix) + np.triu(mass_matrix, 1).T
        assert np.linalg.eigvalsh(mass_matrix).min() > 0
        v = np.zeros(model.nv)
        assert np.all(np.isfinite(pin.aba(model, data, q, v, np.zeros(model.nv))))
        # gravity torques of HEBI's exact masses = hebi-py's (URDF torque = HEBI effort *
        # gear ratio, the same power)
        # (a gripper at position 0: hebi-py's gripper is that rigid body)
        q = _pinocchio_q(pin, model, ref.values_by_joint(k, gripper=0.0))
        tau = pin.computeGeneralizedGravity(exact, exact_data, q)
        order = [exact.joints[exact.getJointId(n)].idx_v for n in ref.tree.dof_names]
        np.testing.assert_allclose(tau[order], ref.hebi_gravity_torques(k, GRAVITY),
                                   atol=1e-9, rtol=0)
        # and RNEA at rest = hrdf_ros's gravity efforts (times the gear ratio)
        zero = np.zeros(exact.nv)
        rnea = pin.rnea(exact, exact_data, q, zero, zero)
        ratios = np.array([ref.model.elements[e].gear_ratio for e in ref.model.dof_elements])
        np.testing.assert_allclose(
            rnea[order], Kinematics(ref.model).gravity_efforts(ref.positions[k], GRAVITY)
            * ratios, atol=1e-9, rtol=0)


# -- KDL (kdl_parser's tree, Debian python3-pykdl) ----------------------------------------
def _kdl_rotation(kdl, rpy):
    # urdfdom Rotation::setFromRPY (a quaternion), then KDL::Rotation::Quaternion
    roll, pitch, yaw = (a / 2.0 for a in rpy)
    x = math.sin(roll) * math.cos(pitch) * math.cos(yaw) - \
        math.cos(roll) * math.sin(pitch) * math.sin(yaw)
    y = math.cos(roll) * math.sin(pitch) * math.cos(yaw) + \
        math.sin(roll) * math.cos(pitch) * math.sin(yaw)
    z = math.cos(roll) * math.cos(pitch) * math.sin(yaw) - \
        math.sin(roll) * math.sin(pitch) * math.cos(yaw)
    w = math.cos(roll) * math.cos(pitch) * math.cos(yaw) + \
        math.sin(roll) * math.sin(pitch) * math.sin(yaw)
    n = math.sqrt(x * x + y * y + z * z + w * w)
    return kdl.Rotation.Quaternion(x / n, y / n, z / n, w / n)


def _kdl_frame(kdl, node):
    origin = node.find('origin') if node is not None else None
    if origin is None:
        return kdl.Frame()
    xyz = [float(v) for v in origin.get('xyz', '0 0 0').split()]
    rpy = [float(v) for v in origin.get('rpy', '0 0 0').split()]
    return kdl.Frame(_kdl_rotation(kdl, rpy), kdl.Vector(*xyz))


def kdl_tree(kdl, path):
    """kdl_parser's treeFromUrdfModel, on a URDF read with xml.etree (urdfdom ignores
    unknown elements such as <mujoco>, <gazebo>, <transmission> the same way).
    Returns (tree, warnings kdl_parser would print)."""
    root = ET.parse(path).getroot()
    links = {link.get('name'): link for link in root.findall('link')}
    joints = root.findall('joint')
    child_of = {j.find('child').get('link'): j for j in joints}
    root_link = next(name for name in links if name not in child_of)
    warnings = []
    if links[root_link].find('inertial') is not None:
        warnings.append(f'The root link {root_link} has an inertia specified in the URDF, '
                        'but KDL does not support a root link with an inertia.')
    tree = kdl.Tree(root_link)
    pending = [j for j in joints if j.find('parent').get('link') == root_link]
    while pending:
        joint = pending.pop(0)
        name, kind = joint.get('name'), joint.get('type')
        frame = _kdl_frame(kdl, joint)
        axis_node = joint.find('axis')
        axis = kdl.Vector(*[float(v) for v in (axis_node.get('xyz') if axis_node is not None
                                               else '1 0 0').split()])
        if kind == 'fixed':
            kdl_joint = kdl.Joint(name, kdl.Joint.Fixed)
        elif kind in ('revolute', 'continuous'):
            kdl_joint = kdl.Joint(name, frame.p, frame.M * axis, kdl.Joint.RotAxis)
        elif kind == 'prismatic':
            kdl_joint = kdl.Joint(name, frame.p, frame.M * axis, kdl.Joint.TransAxis)
        else:
            warnings.append(f"Converting unknown joint type of joint '{name}' into a fixed "
                            'joint')
            kdl_joint = kdl.Joint(name, kdl.Joint.Fixed)
        child = joint.find('child').get('link')
        inertial = links[child].find('inertial')
        inertia = kdl.RigidBodyInertia(0)
        if inertial is not None:
            i = inertial.find('inertia')
            tensor = kdl.RotationalInertia(*[float(i.get(k)) for k in
                                             ('ixx', 'iyy', 'izz', 'ixy', 'ixz', 'iyz')])
            origin = _kdl_frame(kdl, inertial)
            rotated = origin.M * kdl.RigidBodyInertia(0, kdl.Vector.Zero(), tensor)
            inertia = kdl.RigidBodyInertia(float(inertial.find('mass').get('value')),
                                           origin.p, rotated.getRotationalInertia())
        assert tree.addSegment(kdl.Segment(child, kdl_joint, frame, inertia),
                               joint.find('parent').get('link'))
        pending.extend(j for j in joints if j.find('parent').get('link') == child)
    return tree, warnings


def _kdl_chain_values(kdl, chain, values_by_joint):
    names = [chain.getSegment(i).getJoint().getName() for i in range(chain.getNrOfSegments())
             if chain.getSegment(i).getJoint().getType() != kdl.Joint.Fixed]
    q = kdl.JntArray(len(names))
    for i, name in enumerate(names):
        q[i] = values_by_joint[name]
    return q, names


def _kdl_matrix(frame):
    out = np.eye(4)
    for r in range(3):
        for c in range(3):
            out[r, c] = frame.M[r, c]
        out[r, 3] = frame.p[r]
    return out


@parametrize_cases()
def test_kdl(case, tmp_path):
    kdl = pytest.importorskip('PyKDL', reason='python3-pykdl not installed '
                                              '(make test-consumers)')
    ref = reference(case)
    tree, warnings = kdl_tree(kdl, write_urdf(ref, tmp_path))
    assert warnings == []
    exact_dir = tmp_path / 'exact'
    exact_dir.mkdir()
    exact_tree, _ = kdl_tree(kdl, write_urdf(ref, exact_dir, exact_masses=True))
    # kdl_parser ignores <mimic>: robot_state_publisher computes the mimic joints'
    # positions (multiplier * value + offset) and poses them as ordinary joints
    assert tree.getNrOfJoints() == len(ref.moving_joints)
    leaves = [link for link in ref.tree.links
              if not any(j.parent == link for j in ref.tree.joints)] + [
                  link for g in ref.tree.grippers for link in g.links.values()]
    serial = len(leaves) == 1
    for k in range(len(ref.positions)):
        values = ref.values_by_joint(k)
        for link in ref.poses:
            chain = tree.getChain('base_link', link)
            q, _ = _kdl_chain_values(kdl, chain, values)
            frame = kdl.Frame()
            assert kdl.ChainFkSolverPos_recursive(chain).JntToCart(q, frame) >= 0
            assert_pose(_kdl_matrix(frame), ref.poses[link][k], what=link, who='KDL')
        if not serial or ref.model.dof_count == 0:
            continue
        chain = tree.getChain('base_link', leaves[0])
        q, names = _kdl_chain_values(kdl, chain, values)
        mass = kdl.JntSpaceInertiaMatrix(len(names))
        gravity = kdl.Vector(0, 0, -9.80665)
        kdl.ChainDynParam(chain, gravity).JntToMass(q, mass)
        matrix = np.array([[mass[r, c] for c in range(len(names))] for r in range(len(names))])
        assert np.linalg.eigvalsh(matrix).min() > 0
        torques = kdl.JntArray(len(names))
        exact_chain = exact_tree.getChain('base_link', leaves[0])
        kdl.ChainDynParam(exact_chain, gravity).JntToGravity(q, torques)
        order = [ref.tree.dof_names.index(n) for n in names]
        np.testing.assert_allclose([torques[i] for i in range(len(names))],
                                   ref.hebi_gravity_torques(k, GRAVITY)[order], atol=1e-9,
                                   rtol=0)


# -- urdfdom check_urdf ----------------------------------------------------------------
@parametrize_cases()
def test_check_urdf(case, tmp_path):
    require_tool('check_urdf')
    ref = reference(case)
    path = write_urdf(ref, tmp_path)
    result = subprocess.run(['check_urdf', path], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'Successfully Parsed XML' in result.stdout
    text = (result.stdout + result.stderr).lower()
    assert 'warn' not in text and 'error' not in text, text
    assert 'root Link: base_link has' in result.stdout


def test_fill_is_small_on_every_robot():
    """The physical fill stays far inside 0.1 % of HEBI's mass on every case."""
    from hrdf_ros.description.inertials import added_mass, link_inertials
    for case in CASES:
        ref_model = case.model()
        from hrdf_ros.description.frame_tree import build_frame_tree
        added = added_mass(link_inertials(ref_model, build_frame_tree(ref_model)))
        assert added <= len(ref_model.elements) * 2 * FILL_MASS
        if ref_model.total_mass > 0:
            assert added / ref_model.total_mass < 1e-3, case.id
