"""URDF export options: xacro macro, gear ratios, position limits, tag names, geometry."""
import os
import subprocess
import sys

import numpy as np
import pytest
import xacro
from urdf_parser_py.urdf import URDF

from hrdf_ros import Kinematics, load, loads, to_urdf
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.export.urdf import to_xacro

from conftest import BUNDLED_ARM, HEXAPOD
from test_urdf import urdf_pose

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEARED = ('<robot version="1.5.0"><actuator type="X8-9" tag="base_yaw"/>'
          '<joint axis="ry" gear_ratio="-2" tag="tilt"/><actuator type="X5-1"/>'
          '<joint axis="tz" gear_ratio="4"/><rigid-body mass="0.3" com_trans="0 0 0.05" '
          'output_trans="0.1 0 0.2"/><end-effector/></robot>')


def expand(path, **mappings):
    return xacro.process_file(str(path), mappings=mappings).toxml()


@pytest.mark.parametrize('source', [BUNDLED_ARM, HEXAPOD, 'geared'])
def test_xacro_expands_to_the_same_urdf(source, tmp_path):
    model = loads(GEARED) if source == 'geared' else load(source)
    path = tmp_path / 'robot.urdf.xacro'
    path.write_text(to_xacro(model, 'robot'))
    expanded = URDF.from_xml_string(expand(path))
    direct = URDF.from_xml_string(to_urdf(model, 'robot'))
    assert expanded.to_xml_string() == direct.to_xml_string()


def test_xacro_macro_mounts_a_prefixed_robot_on_a_parent(tmp_path):
    model = load(BUNDLED_ARM)
    (tmp_path / 'arm.urdf.xacro').write_text(to_xacro(model, 'arm'))
    (tmp_path / 'cell.urdf.xacro').write_text(
        '<robot name="cell" xmlns:xacro="http://www.ros.org/wiki/xacro">'
        '<xacro:arg name="standalone" default="false"/><link name="table"/>'
        '<xacro:include filename="arm.urdf.xacro"/>'
        '<xacro:arm prefix="left_" parent="table" xyz="0.5 0 0.8" rpy="0 0 1.5707963267948966"/>'
        '<xacro:arm prefix="right_" parent="table" xyz="-0.5 0 0.8" rpy="0 0 0"/></robot>')
    cell = URDF.from_xml_string(expand(tmp_path / 'cell.urdf.xacro'))
    assert cell.get_root() == 'table'
    names = build_frame_tree(model).dof_names
    q = np.linspace(-1, 1, model.dof_count)
    mount = np.eye(4)
    mount[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    mount[:3, 3] = (0.5, 0, 0.8)
    pose = urdf_pose(cell, {f'left_{n}': v for n, v in zip(names, q)}, 'left_end_effector')
    np.testing.assert_allclose(pose, mount @ Kinematics(model).end_effector(q), atol=1e-9)
    assert {'left_base_link', 'right_base_link', 'right_end_effector'} <= \
        {link.name for link in cell.links}


def test_gear_ratios_urdf_joint_values_are_motions(hebi_import):
    model = loads(GEARED)
    robot = URDF.from_xml_string(to_urdf(model, 'geared'))
    names = build_frame_tree(model).dof_names
    assert names == ['base_yaw', 'tilt', 'J3', 'J4']      # tags name their joints
    ratios = np.array([model.elements[e].gear_ratio for e in model.dof_elements])
    hebi = hebi_import[1](GEARED)
    for q in np.random.default_rng(17).uniform(-2, 2, (10, model.dof_count)):
        # URDF joint value = HEBI position / gear ratio
        pose = urdf_pose(robot, dict(zip(names, q / ratios)), 'end_effector')
        np.testing.assert_allclose(pose, hebi.get_end_effector(q), atol=1e-9, rtol=0)
    reductions = {t.joints[0].name: t.actuators[0].mechanicalReduction
                  for t in robot.transmissions}
    # one SimpleTransmission per degree of freedom, reduction = HRDF gear ratio
    assert reductions == {'base_yaw': 1.0, 'tilt': -2.0, 'J3': 1.0, 'J4': 4.0}
    assert [t.joints[0].name for t in robot.transmissions] == names


def test_position_limits_make_revolute_joints(tmp_path):
    model = load(BUNDLED_ARM)
    robot = URDF.from_xml_string(to_urdf(model, 'arm', position_limits={'J2': (-1.5, 2.0)}))
    j2 = robot.joint_map['J2']
    assert j2.type == 'revolute' and (j2.limit.lower, j2.limit.upper) == (-1.5, 2.0)
    assert j2.limit.effort > 0 and j2.limit.velocity > 0
    assert robot.joint_map['J1'].type == 'continuous'
    with pytest.raises(ValueError, match='unknown joints: J9'):
        to_urdf(model, 'arm', position_limits={'J9': (-1, 1)})
    with pytest.raises(ValueError, match='lower < upper'):
        to_urdf(model, 'arm', position_limits={'J1': (1, -1)})
    limits = tmp_path / 'limits.yaml'
    limits.write_text('J1: [-3.0, 3.0]\nJ6: [-1, 1]\n')
    out = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', 'urdf', BUNDLED_ARM,
                          '--limits', str(limits)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert URDF.from_xml_string(out.stdout).joint_map['J6'].limit.upper == 1.0
    limits.write_text('J1: [a, b]\n')
    out = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', 'urdf', BUNDLED_ARM,
                          '--limits', str(limits)], capture_output=True, text=True)
    assert out.returncode == 2 and 'expected [lower, upper]' in out.stderr


def test_every_massive_link_has_visual_and_collision_geometry():
    """... and where nothing is (HRDF joints, massless Custom end effectors), none."""
    for model in (load(BUNDLED_ARM), load(HEXAPOD), loads(GEARED)):
        robot = URDF.from_xml_string(to_urdf(model, 'r'))
        tree = build_frame_tree(model)
        for name, element in zip(tree.element_links, model.elements):
            link = robot.link_map[name]
            empty = element.kind == 'joint' or (element.type == 'Custom'
                                                and element.mass == 0.0)
            assert bool(link.visuals and link.collisions) != empty, name
            for visual in link.visuals:
                g = visual.geometry
                sizes = getattr(g, 'size', None) or [
                    v for v in (getattr(g, 'radius', None), getattr(g, 'length', None))
                    if v is not None]
                assert all(0 < v < 1.0 for v in sizes), (name, sizes)


def test_mesh_attributes_and_hebi_meshes(tmp_path):
    (tmp_path / 'shell.stl').write_bytes(b'solid s\nendsolid s\n')
    (tmp_path / 'robot.hrdf').write_text(
        '<robot version="1.4.0"><actuator type="X5-4"/>'
        '<rigid-body mass="0.2" mesh_path="shell.stl" mesh_rot="Rz(pi/2)" '
        'mesh_trans="0.01 0 0.02" output_trans="0 0 0.1"/></robot>')
    model = load(tmp_path / 'robot.hrdf')
    robot = URDF.from_xml_string(to_urdf(model, 'r'))
    visual = robot.link_map['rigid_body1'].visuals[0]
    assert visual.geometry.filename.endswith('shell.stl')
    np.testing.assert_allclose(visual.origin.xyz, [0.01, 0, 0.02], atol=1e-12)
    np.testing.assert_allclose(visual.origin.rpy, [0, 0, np.pi / 2], atol=1e-6)
    hebi = URDF.from_xml_string(to_urdf(model, 'r', hebi_meshes=True))
    mesh = hebi.link_map['actuator1'].visuals[0].geometry
    assert mesh.filename == 'package://hebi_description/meshes/X5.stl'
    assert mesh.scale == [0.001, 0.001, 0.001]
