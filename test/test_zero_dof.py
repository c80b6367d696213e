"""Robots without degrees of freedom (a chassis, a bracket part file) work everywhere:
the Python API (FK of a (0,) configuration, (6, 0) Jacobians, (N, 0) batches), equal to
hebi-py; the URDF (fixed joints only, the same poses in yourdfpy); the CLI without
``--positions``; the MoveIt export (no planning group, a note). The node is tested in
test_ros_leniency.py.
"""
import io
import json
import os

import numpy as np
import pytest

from hrdf_ros import FRAME_TYPES, Kinematics, MassProperties, loads, to_urdf, to_xacro
from hrdf_ros.cli import main
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.export.moveit import moveit_package

from conftest import HEBI_FRAME_TYPES, REPO

CHASSIS = ('<robot version="1.4.0"><rigid-body mass="7" com_trans="0.01 0 0.13" '
           'output_trans="0.1 0 0.2"/></robot>')            # as HEBI's tgorChassis.hrdf
WITH_TOOL = ('<robot version="1.6.0" rot="Rz(0.3)" trans="0 0 0.5"><rigid-body mass="2" '
             'com_trans="0 0 0.1" output_trans="0.1 0 0.2" output_rot="Rx(0.2)"/>'
             '<end-effector mass="0.5" output_trans="0 0 0.05"/></robot>')
TREE = ('<robot version="1.6.0"><rigid-body mass="1"><output trans="0.1 0 0"/>'
        '<output trans="0 0.1 0"><bracket type="X5LightLeft"/></output></rigid-body>'
        '</robot>')
ROBOTS = {'chassis': CHASSIS, 'with_tool': WITH_TOOL, 'tree': TREE}
REAL_CHASSIS = os.path.join(REPO, '..', 'shared', 'hrdf', 'real', 'flat',
                            'HebiRobotics_hebi-python-examples__kits_igor2_hrdf_tgorChassis.hrdf')


@pytest.mark.parametrize('name', sorted(ROBOTS))
def test_api_shapes_and_values_equal_hebi(name, hebi_import):
    text = ROBOTS[name]
    model = loads(text)
    assert model.dof_count == 0
    kinematics = Kinematics(model)
    hebi = hebi_import[1](text)
    for q in (np.zeros(0), [], ()):
        frames = kinematics.forward_kinematics(q)
        for frame_type in FRAME_TYPES:
            count = model.frame_count(frame_type)
            assert frames[frame_type].shape == (count, 4, 4)
            if count:
                expected = np.asarray(hebi.get_forward_kinematics_mat(
                    HEBI_FRAME_TYPES[frame_type], np.zeros(0))).reshape(count, 4, 4)
                np.testing.assert_allclose(frames[frame_type], expected, atol=1e-12, rtol=0)
            np.testing.assert_array_equal(kinematics.frames(frame_type, q),
                                          frames[frame_type])
            assert kinematics.jacobians(frame_type, q).shape == (count, 6, 0)
    batch = np.zeros((5, 0))
    for frame_type, frames in kinematics.forward_kinematics(batch).items():
        assert frames.shape == (5, model.frame_count(frame_type), 4, 4)
        assert kinematics.jacobians(frame_type, batch).shape == (
            5, model.frame_count(frame_type), 6, 0)
    assert kinematics.frame('output', 0, []).shape == (4, 4)
    assert kinematics.frame_jacobian('com', 0, batch).shape == (5, 6, 0)
    assert kinematics.dof_transforms([]).shape == (0, 4, 4)
    assert kinematics.dof_transforms(batch).shape == (5, 0, 4, 4)
    mass = MassProperties(kinematics)
    assert mass.gravity_compensation([]).shape == (0,)
    assert mass.gravity_compensation(batch).shape == (5, 0)
    if model.frame_count('end_effector'):
        np.testing.assert_allclose(kinematics.end_effector([]), hebi.get_end_effector([]),
                                   atol=1e-12, rtol=0)
        assert kinematics.end_effector_jacobian([]).shape == (6, 0)
        assert kinematics.end_effector_jacobian(batch).shape == (5, 6, 0)
    else:
        with pytest.raises(IndexError, match='0 end_effector frames'):
            kinematics.end_effector([])
    with pytest.raises(ValueError, match=r'shape \(0,\)'):
        kinematics.forward_kinematics([0.0])


@pytest.mark.parametrize('name', sorted(ROBOTS))
def test_urdf_has_only_fixed_joints_and_the_same_poses(name):
    yourdfpy = pytest.importorskip('yourdfpy')
    model = loads(ROBOTS[name])
    tree = build_frame_tree(model)
    urdf = to_urdf(model, 'part', tree=tree)
    robot = yourdfpy.URDF.load(io.BytesIO(urdf.encode()), build_scene_graph=True,
                               load_meshes=False, build_collision_scene_graph=False,
                               load_collision_meshes=False)
    assert robot.actuated_joint_names == [] and tree.dof_names == []
    inputs = Kinematics(model).frames('input', [])
    for k, link in enumerate(tree.element_links):
        np.testing.assert_allclose(robot.get_transform(link, 'base_link'), inputs[k],
                                   atol=1e-12, rtol=0)
    assert '<xacro:macro' in to_xacro(model, 'part')


def _write(tmp_path, text, name='part.hrdf'):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_cli_fk_jacobian_info_without_positions(tmp_path, capsys):
    tool = _write(tmp_path, WITH_TOOL)
    assert main(['fk', tool, '--json']) == 0
    frames = json.loads(capsys.readouterr().out)['frames']
    np.testing.assert_array_equal(frames, Kinematics(loads(WITH_TOOL)).frames(
        'end_effector', []))
    assert main(['fk', tool, '--positions', '', '--frame-type', 'com']) == 0
    assert 'com[1]' in capsys.readouterr().out
    assert main(['jacobian', tool]) == 0
    assert 'end_effector[0]: 6 x 0 (the robot has no degrees of freedom)' in \
        capsys.readouterr().out
    assert main(['jacobian', tool, '--json']) == 0
    assert np.shape(json.loads(capsys.readouterr().out)['jacobians']) == (1, 6, 0)
    chassis = _write(tmp_path, CHASSIS, 'chassis.hrdf')
    assert main(['jacobian', chassis]) == 0
    captured = capsys.readouterr()
    assert captured.out == '' and 'no end_effector frames' in captured.err
    assert main(['info', chassis]) == 0
    assert '0 DoF, total mass 7 kg' in capsys.readouterr().out
    assert main(['fk', chassis, '--positions', '0.5']) == 2
    assert 'the robot has 0 DoF' in capsys.readouterr().err


def test_moveit_export_has_no_planning_group(tmp_path, capsys):
    chassis = _write(tmp_path, CHASSIS, 'chassis.hrdf')
    package = moveit_package(loads(CHASSIS), 'chassis', samples=100)
    assert package.groups == []
    srdf = package.files['config/chassis.srdf']
    assert '<group' not in srdf
    assert 'No planning group: the robot has no degree of freedom' in srdf
    assert main(['moveit', chassis, '-o', str(tmp_path / 'moveit')]) == 0
    captured = capsys.readouterr()
    assert 'no planning group' in captured.err and 'Traceback' not in captured.err
    assert len(captured.out.split()) == len(package.files)


@pytest.mark.skipif(not os.path.isfile(REAL_CHASSIS), reason='no real HRDF files')
def test_hebis_chassis_file(capsys):
    assert main(['fk', REAL_CHASSIS, '--frame-type', 'output']) == 0
    assert capsys.readouterr().out.startswith('output[0]')
