"""Parallel grippers (X5Parallel, R8Parallel): the finger joint, mimic joints and links,
against HEBI's own model of the gripper.

Oracle: HEBI's URDF of each G kit (hebi_description ``urdf/kits/<kit>.urdf.xacro``
expanded by the real xacro, test/hebi_description.py) and hebi-py. Both URDFs are posed
by one independent URDF library (yourdfpy, which computes mimic joints as
multiplier * value + offset); HEBI's ``gripper_joint`` is ``end_effector_1/input_l_finger``.

HEBI's kit URDFs build the arm with their own component models, so their gripper base
lies up to 0.14 mm from hebi-py's end-effector input frame, and their gripper's
``output`` frame is 45 mm closer to the base than hebi-py's ``EndEffector`` frame (the
``end_effector`` link here). hrdf_ros follows hebi-py for the arm; finger poses are
compared once the gripper base frames are matched (HEBI's poses moved by
``ours_base @ inv(hebi_base)``).
"""
import io
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from hrdf_ros import load, loads, to_urdf, to_xacro
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.description.gripper import GRIPPER_EFFORT, GRIPPER_VELOCITY
from hrdf_ros.kinematics import gripper as mechanism
from hrdf_ros.numbers import MASS, POSITION, lower_limit, rounded, upper_limit

from conftest import KITS_DIR, WRITTEN_ATOL, hebi_frames
from hebi_description import hebi_kits, kit_urdf, require_hebi_description

yourdfpy = pytest.importorskip('yourdfpy')
require_hebi_description()

G_KITS = [k for k in hebi_kits() if k.endswith('G')]
GRIPPER_POSITIONS = (0.0, 0.5, 1.1)
ARM_CONFIGURATIONS = 3
#: HEBI's pinion is a prismatic mimic joint of 1e-5 m/rad; here it is fixed.
PINION_TOL = 1e-5 * mechanism.GRIPPER_UPPER + 1e-9
WORST = {}


def load_urdf(text):
    return yourdfpy.URDF.load(io.BytesIO(text.encode('utf-8')), build_scene_graph=True,
                              load_meshes=False, build_collision_scene_graph=False,
                              load_collision_meshes=False)


def pose(robot, link):
    return robot.get_transform(link, robot.base_link)


def kit_model(kit):
    return load(os.path.join(KITS_DIR, f'{kit}.hrdf'))


def test_there_are_ten_gripper_kits():
    assert len(G_KITS) == 10, G_KITS


@pytest.mark.parametrize('kit', G_KITS)
def test_finger_poses_equal_hebi_description(kit):
    model = kit_model(kit)
    ours = load_urdf(to_urdf(model, kit))
    hebi = load_urdf(kit_urdf(kit))
    gripper = build_frame_tree(model).grippers[0]
    arm_ours = [j for j in ours.actuated_joint_names if j != gripper.joint]
    hebi_finger = 'end_effector_1/input_l_finger'
    arm_hebi = [j for j in hebi.actuated_joint_names if j != hebi_finger]
    assert len(arm_ours) == len(arm_hebi) == model.dof_count
    hebi_links = {p.name: f'end_effector_1/{p.hebi_name}' for p in mechanism.PARTS}
    rng = np.random.default_rng(20)
    worst = pinion = base_offset = 0.0
    output = (math.inf, 0.0)
    for _ in range(ARM_CONFIGURATIONS):
        q = rng.uniform(-math.pi, math.pi, model.dof_count)
        for g in GRIPPER_POSITIONS:
            ours.update_cfg(dict(zip(arm_ours, q), **{gripper.joint: g}))
            hebi.update_cfg(dict(zip(arm_hebi, q), **{hebi_finger: g}))
            base = pose(ours, gripper.base_link)
            match = base @ np.linalg.inv(pose(hebi, 'end_effector_1'))
            base_offset = max(base_offset, float(np.linalg.norm(match[:3, 3])))
            tip = np.linalg.norm(pose(ours, 'end_effector')[:3, 3]
                                 - pose(hebi, 'end_effector_1/output')[:3, 3])
            output = (min(output[0], tip), max(output[1], tip))
            for part, link in gripper.links.items():
                error = np.abs(pose(ours, link) - match @ pose(hebi, hebi_links[part])).max()
                if part == 'pinion':
                    pinion = max(pinion, error)
                else:
                    worst = max(worst, error)
    WORST[kit] = worst
    print(f'{kit}: finger links {worst:.2g} m, pinion {pinion:.2g} m, gripper base '
          f'{base_offset * 1e3:.3f} mm from HEBI\'s; HEBI\'s gripper output '
          f'{output[0] * 1e3:.1f}-{output[1] * 1e3:.1f} mm from end_effector')
    assert worst < 1e-6
    assert pinion < PINION_TOL
    assert base_offset < 1e-3           # HEBI's arm model vs hebi-py's


@pytest.mark.parametrize('kit', G_KITS)
def test_end_effector_stays_at_hebi_py_frame_and_hebi_output_is_45_mm_off(kit,
                                                                          hebi_import):
    model = kit_model(kit)
    ours = load_urdf(to_urdf(model, kit))
    hebi_model = hebi_import[0](os.path.join(KITS_DIR, f'{kit}.hrdf'))
    tree = build_frame_tree(model)
    joint = tree.grippers[0].joint
    hebi = load_urdf(kit_urdf(kit))
    rng = np.random.default_rng(4)
    q = rng.uniform(-math.pi, math.pi, (2, model.dof_count))
    expected = hebi_frames(hebi_model, 'end_effector', q)[:, 0]
    for k in range(len(q)):
        for g in GRIPPER_POSITIONS:
            ours.update_cfg(dict(zip(tree.dof_names, q[k]), **{joint: g}))
            np.testing.assert_allclose(pose(ours, 'end_effector'), expected[k], atol=1e-9)
    hebi.update_cfg({})
    output = np.linalg.inv(pose(hebi, 'end_effector_1')) @ pose(hebi, 'end_effector_1/output')
    ee = model.elements[tree.grippers[0].element].outputs[0]
    offset = ee[:3, 3] - output[:3, 3]
    print(f'{kit}: HEBI\'s gripper output is {offset[2] * 1e3:.1f} mm below hebi-py\'s')
    np.testing.assert_allclose(offset, [0, 0, 0.045], atol=1e-6)


@pytest.mark.parametrize('kit', G_KITS)
def test_total_mass_equals_hebi_py(kit, hebi_import):
    model = kit_model(kit)
    hebi_total = float(np.sum(hebi_import[0](os.path.join(KITS_DIR, f'{kit}.hrdf')).masses))
    root = ET.fromstring(to_urdf(model, kit, exact_masses=True))
    total = sum(float(n.get('value')) for n in root.iter('mass'))
    print(f'{kit}: URDF {total!r} kg, hebi-py {hebi_total!r} kg')
    assert abs(total - hebi_total) < 1e-9
    masses = {link.get('name') for link in root.findall('link')
              if link.find('inertial') is not None}
    gripper = build_frame_tree(model).grippers[0]
    assert set(gripper.links.values()) | {gripper.base_link} <= masses


def test_rigid_gripper_is_unchanged_at_position_zero():
    """Together, the gripper's links at position 0 have the end effector's mass, COM and
    inertia tensor: hebi-py's rigid gripper (and the --no-gripper-joints URDF)."""
    from hrdf_ros.description.inertials import link_inertials, tensor_matrix
    model = kit_model(G_KITS[0])
    tree = build_frame_tree(model)
    gripper = tree.grippers[0]
    inertials = link_inertials(model, tree, exact_masses=True)
    zero = dict(mechanism.zero_poses(), base=np.eye(4))
    items = []
    for part in ['base'] + list(gripper.links):
        inertial = inertials[gripper.link_of(part)]
        frame = zero[part] @ inertial.com
        items.append((inertial.mass, frame[:3, 3],
                      frame[:3, :3] @ tensor_matrix(inertial.inertia) @ frame[:3, :3].T))
    element = model.elements[gripper.element]
    mass = sum(m for m, _, _ in items)
    com = sum(m * c for m, c, _ in items) / mass
    inertia = sum(r + m * ((c - com) @ (c - com) * np.eye(3) - np.outer(c - com, c - com))
                  for m, c, r in items)
    assert mass == pytest.approx(element.mass, abs=1e-15)
    np.testing.assert_allclose(com, element.com[:3, 3], atol=1e-15)
    np.testing.assert_allclose(inertia, tensor_matrix(element.inertia), atol=1e-15)


def test_mechanism_poses_equal_the_urdf():
    """kinematics.gripper (the node's and MoveIt's) = the URDF's mimic joints."""
    model = kit_model(G_KITS[0])
    robot = load_urdf(to_urdf(model, 'r'))
    gripper = build_frame_tree(model).grippers[0]
    for g in (0.0, 0.3, mechanism.GRIPPER_UPPER):
        robot.update_cfg({gripper.joint: g})
        base = pose(robot, gripper.base_link)
        poses = mechanism.part_poses([g])[0]
        for k, name in enumerate(mechanism.PART_NAMES):
            expected = np.linalg.inv(base) @ pose(robot, gripper.links[name])
            np.testing.assert_allclose(poses[k], expected, atol=WRITTEN_ATOL)


def test_jaws_close_and_stay_parallel():
    poses = dict(zip(mechanism.PART_NAMES, mechanism.part_poses(
        [mechanism.GRIPPER_UPPER])[0]))
    opened = dict(mechanism.zero_poses())
    for side in ('l', 'r'):
        np.testing.assert_allclose(poses[f'{side}_jaw'][:3, :3], np.eye(3) if side == 'l'
                                   else opened[f'{side}_jaw'][:3, :3], atol=1e-12)
    gap_open = opened['l_jaw'][1, 3] - opened['r_jaw'][1, 3]
    gap_closed = poses['l_jaw'][1, 3] - poses['r_jaw'][1, 3]
    assert gap_open > 0.1 and gap_closed < 0.03


def test_urdf_joints_limits_and_names():
    model = kit_model(G_KITS[0])
    root = ET.fromstring(to_urdf(model, 'r'))
    joints = {j.get('name'): j for j in root.findall('joint')}
    finger = joints['gripper_joint']
    assert finger.get('type') == 'revolute' and finger.find('mimic') is None
    limit = finger.find('limit').attrib
    assert float(limit['lower']) == 0.0
    # as written: 12 digits, rounded inward (hrdf_ros.numbers)
    assert float(limit['upper']) == upper_limit(0.37 * math.pi, POSITION) <= 0.37 * math.pi
    assert float(limit['velocity']) == GRIPPER_VELOCITY
    assert float(limit['effort']) == GRIPPER_EFFORT
    mimics = {n: j.find('mimic').attrib for n, j in joints.items() if j.find('mimic') is not None}
    assert sorted(mimics) == sorted(['gripper_r_finger_joint', 'gripper_l_jaw_joint',
                                     'gripper_r_jaw_joint', 'gripper_l_inner_linkage_joint',
                                     'gripper_r_inner_linkage_joint'])
    assert all(m['joint'] == 'gripper_joint' for m in mimics.values())
    assert float(mimics['gripper_l_jaw_joint']['multiplier']) == -1.0
    jaw = joints['gripper_l_jaw_joint'].find('limit').attrib
    assert (float(jaw['lower']), float(jaw['upper'])) == (
        lower_limit(-mechanism.GRIPPER_UPPER, POSITION), 0.0)
    transmissions = [t.find('joint').get('name') for t in root.findall('transmission')]
    assert 'gripper_joint' in transmissions and not set(mimics) & set(transmissions)


def test_user_limits_reach_the_finger_and_its_mimic_joints():
    model = kit_model(G_KITS[0])
    root = ET.fromstring(to_urdf(model, 'r', position_limits={
        'gripper_joint': {'lower': 0.1, 'upper': 1.0, 'velocity': 0.5}}))
    joints = {j.get('name'): j.find('limit') for j in root.findall('joint')}
    assert float(joints['gripper_joint'].get('upper')) == 1.0
    assert float(joints['gripper_r_jaw_joint'].get('lower')) == -1.0
    assert float(joints['gripper_r_jaw_joint'].get('velocity')) == 0.5


def test_no_gripper_joints_gives_the_rigid_end_effector():
    model = kit_model(G_KITS[0])
    text = to_urdf(model, 'r', gripper_joints=False)
    assert '<mimic' not in text and '"gripper_' not in text
    tree = build_frame_tree(model, gripper_joints=False)
    assert text == to_urdf(model, 'r', tree=tree)
    root = ET.fromstring(text)
    link = root.find(f"link[@name='{tree.element_links[-1]}']")
    assert float(link.find('inertial/mass').get('value')) == rounded(model.elements[-1].mass,
                                                                     MASS)
    plain = load(os.path.join(KITS_DIR, 'A-2085-06.hrdf'))
    assert to_urdf(plain, 'r') == to_urdf(plain, 'r', gripper_joints=False)


def test_xacro_prefixes_the_gripper_names(tmp_path):
    model = kit_model(G_KITS[0])
    macro = to_xacro(model, 'r')
    path = tmp_path / 'r.urdf.xacro'
    path.write_text(macro)
    xacro = os.path.join(os.path.dirname(sys.executable), 'xacro')
    alone = subprocess.run([xacro, str(path)], capture_output=True, text=True, check=True)
    assert ET.tostring(ET.fromstring(alone.stdout)) is not None
    user = tmp_path / 'user.urdf.xacro'
    user.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="two">'
                    '<xacro:arg name="standalone" default="false"/>'
                    '<link name="table"/><xacro:include filename="r.urdf.xacro"/>'
                    '<xacro:r prefix="left_" parent="table"/></robot>')
    result = subprocess.run([xacro, str(user)], capture_output=True, text=True, check=True)
    robot = load_urdf(result.stdout)
    assert 'left_gripper_joint' in robot.actuated_joint_names
    assert robot.joint_map['left_gripper_r_jaw_joint'].mimic.joint == 'left_gripper_joint'


def test_two_grippers_are_numbered():
    model = loads('<robot version="1.3.0"><rigid-body mass="1">'
                  '<output><actuator type="X5-1"/><end-effector type="X5Parallel"/></output>'
                  '<output trans="0.3 0 0"><actuator type="R8-3"/>'
                  '<end-effector type="R8Parallel"/></output></rigid-body></robot>')
    tree = build_frame_tree(model)
    assert [g.joint for g in tree.grippers] == ['gripper1_joint', 'gripper2_joint']
    robot = load_urdf(to_urdf(model, 'r'))
    assert set(robot.actuated_joint_names) == {'J1', 'J2', 'gripper1_joint', 'gripper2_joint'}


def test_a_name_taken_by_a_tag_is_an_error():
    model = loads('<robot version="1.4.0"><actuator type="X5-1" tag="gripper_hub"/>'
                  '<end-effector type="X5Parallel"/></robot>')
    with pytest.raises(ValueError, match='gripper_hub'):
        build_frame_tree(model)
    assert build_frame_tree(model, gripper_joints=False).grippers == ()
