"""URDF export: parses with urdf_parser_py; FK through the parsed URDF equals hebi-py."""
import numpy as np
import pytest
from urdf_parser_py.urdf import URDF

from hrdf_ros import Kinematics, load, loads, to_urdf
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.kinematics.rotations import rpy_to_rotation

from conftest import BUNDLED_ARM, KITS, WRITTEN_ATOL, kit_id


def axis_angle(axis, angle):
    a = np.asarray(axis, dtype=float)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    out = np.eye(4)
    out[:3, :3] = np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k
    return out


def urdf_pose(robot, positions_by_joint, link):
    """Pose of ``link`` in the root link, from the parsed URDF only (independent of
    hrdf_ros's kinematics): chain origin * motion along urdf_parser_py's get_chain."""
    pose = np.eye(4)
    for name in robot.get_chain(robot.get_root(), link, links=False):
        joint = robot.joint_map[name]
        origin = np.eye(4)
        origin[:3, :3] = rpy_to_rotation(*(joint.origin.rpy or [0, 0, 0]))
        origin[:3, 3] = joint.origin.xyz or [0, 0, 0]
        pose = pose @ origin
        q = positions_by_joint.get(name, 0.0)
        if joint.type in ('revolute', 'continuous'):
            pose = pose @ axis_angle(joint.axis, q)
        elif joint.type == 'prismatic':
            motion = np.eye(4)
            motion[:3, 3] = np.asarray(joint.axis) * q
            pose = pose @ motion
    return pose


@pytest.mark.parametrize('path', KITS + [BUNDLED_ARM], ids=kit_id)
def test_kit_urdf_parses_and_matches_hebi(path, hebi_import):
    import_from_hrdf, _ = hebi_import
    model = load(path)
    tree = build_frame_tree(model)
    robot = URDF.from_xml_string(to_urdf(model, 'kit'))
    assert robot.name == 'kit'
    assert robot.get_root() == 'base_link'
    # the HRDF's degrees of freedom, then a parallel gripper's finger joint (its other
    # moving joints are <mimic> joints)
    assert [j.name for j in robot.joints if j.type != 'fixed' and j.mimic is None] == \
        tree.dof_names + tree.gripper_joint_names
    # the physical fill (hrdf_ros.description.inertials) adds at most 0.1 % of the mass ...
    filled = sum(l.inertial.mass for l in robot.links if l.inertial)
    assert model.total_mass <= filled <= model.total_mass * 1.001
    # ... and exact_masses writes HEBI's masses only
    exact = URDF.from_xml_string(to_urdf(model, 'kit', exact_masses=True))
    assert sum(l.inertial.mass for l in exact.links if l.inertial) == pytest.approx(
        model.total_mass, abs=1e-12)
    hebi = import_from_hrdf(path)
    assert model.total_mass == pytest.approx(hebi.masses.sum(), abs=1e-12)
    rng = np.random.default_rng(11)
    for q in rng.uniform(-np.pi, np.pi, (20, model.dof_count)):
        pose = urdf_pose(robot, dict(zip(tree.dof_names, q)), 'end_effector')
        np.testing.assert_allclose(pose, hebi.get_end_effector(q), atol=1e-9, rtol=0)


def test_every_element_frame_is_a_urdf_link_with_hrdf_ros_pose():
    model = load(BUNDLED_ARM)
    tree = build_frame_tree(model)
    robot = URDF.from_xml_string(to_urdf(model))
    q = np.linspace(-1, 1, model.dof_count)
    inputs = Kinematics(model).frames('input', q)
    for index, link in enumerate(tree.element_links):
        pose = urdf_pose(robot, dict(zip(tree.dof_names, q)), link)
        np.testing.assert_allclose(pose, inputs[index], atol=WRITTEN_ATOL)


def test_inertials_follow_com_frames():
    model = loads('<robot version="1.2.0"><rigid-body mass="2" com_trans="0.1 0.2 0.3" '
                  'com_rot="Rz(0.4)*Rx(0.3)" ixx="1" iyy="2" izz="3" ixy="0.1" ixz="0.2" '
                  'iyz="0.3"/></robot>')
    # (this tensor breaks the triangle inequality: the default export makes it physical)
    assert [w.code for w in model.warnings] == ['nonphysical-inertia']
    robot = URDF.from_xml_string(to_urdf(model, exact_masses=True))
    inertial = robot.link_map['rigid_body1'].inertial
    assert inertial.mass == 2
    np.testing.assert_allclose(rpy_to_rotation(*inertial.origin.rpy),
                               model.elements[0].com[:3, :3], atol=WRITTEN_ATOL)
    np.testing.assert_allclose(inertial.origin.xyz, [0.1, 0.2, 0.3])
    i = inertial.inertia
    assert (i.ixx, i.iyy, i.izz, i.ixy, i.ixz, i.iyz) == (1, 2, 3, 0.1, 0.2, 0.3)


def test_joint_types_axes_and_limits():
    model = loads('<robot version="1.2.0"><actuator type="X8-16"/><joint axis="ty"/>'
                  '<joint axis="rx"/><end-effector/></robot>')
    robot = URDF.from_xml_string(to_urdf(model, joint_names=['shoulder', 'slide', 'roll']))
    j = robot.joint_map
    assert j['shoulder'].type == 'continuous' and list(j['shoulder'].axis) == [0, 0, 1]
    assert j['shoulder'].limit.effort == 44.0
    assert j['shoulder'].limit.velocity == pytest.approx(20 * 2 * np.pi / 60)
    assert j['slide'].type == 'prismatic' and list(j['slide'].axis) == [0, 1, 0]
    assert j['slide'].limit.lower == -1.0 and j['slide'].limit.upper == 1.0
    assert j['roll'].type == 'continuous' and list(j['roll'].axis) == [1, 0, 0]
    assert 'end_effector' in robot.link_map


def test_leaf_outputs_become_links_and_names_are_unique():
    model = loads('<robot version="1.2.0"><actuator type="X5-1"/></robot>')
    tree = build_frame_tree(model)
    assert tree.links == ['base_link', 'actuator1', 'actuator1_output']
    with pytest.raises(ValueError, match='joint names given'):
        build_frame_tree(model, ['a', 'b'])
    with pytest.raises(ValueError, match='not a valid'):
        build_frame_tree(model, ['1bad'])


def test_tagged_degrees_of_freedom_name_the_joint_and_link_tag_link():
    """A tagged actuator or HRDF joint names its joint after the tag and its link
    <tag>_link; other tagged elements name their link after the tag. No link and joint
    share a name (SDFormat, Drake's SDFormat parser and Pinocchio need that)."""
    model = loads('<robot version="1.4.0"><actuator type="X8-9" tag="shoulder"/>'
                  '<joint axis="ry" tag="tilt"/><bracket type="X5LightLeft" tag="br"/>'
                  '<actuator type="X5-1"/><end-effector tag="tool"/></robot>')
    tree = build_frame_tree(model)
    assert tree.dof_names == ['shoulder', 'tilt', 'J3']
    assert tree.element_links == ['shoulder_link', 'tilt_link', 'br', 'actuator1', 'tool']
    names = tree.links + [j.name for j in tree.joints]
    assert len(names) == len(set(names))
    # explicit joint names do not change link names
    assert build_frame_tree(model, ['a', 'b', 'c']).element_links == tree.element_links
    with pytest.raises(ValueError, match='"br" is used twice .a link and a joint'):
        build_frame_tree(model, ['a', 'br', 'c'])
    robot = URDF.from_xml_string(to_urdf(model))
    assert robot.joint_map['shoulder'].parent == 'shoulder_link'


def test_negative_axis_sign_is_written_as_a_negative_axis():
    model = loads('<robot version="1.2.0"><actuator type="X5-1"/><joint axis="ty"/>'
                  '<end-effector/></robot>')
    model.elements[1].axis_sign = -1.0      # what HRDF axis="-ty" gives (hebi-py accepts)
    robot = URDF.from_xml_string(to_urdf(model))
    assert list(robot.joint_map['J2'].axis) == [0, -1, 0]
    q = np.array([0.3, 0.2])
    pose = urdf_pose(robot, dict(zip(['J1', 'J2'], q)), 'end_effector')
    np.testing.assert_allclose(pose, Kinematics(model).end_effector(q), atol=1e-12)
