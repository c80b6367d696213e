"""Gazebo's side: SDFormat's URDF conversion (``ign sdf -p``, what Gazebo does when it
spawns ``robot_description``; Debian libsdformat-dev 12.3) and ``hrdf sdf``'s SDFormat
1.9, checked by ``ign sdf -k`` and loaded by Drake's SDFormat parser.

The conversion must keep every moving joint, every end-effector link and every link but
the first element's, whose fixed joint from the massless root (KDL requires a root
without inertia) SDFormat merges into ``base_link``; it must keep the total mass; and the
links of the converted model must be where hebi-py puts them. SDFormat prints poses it
converts after a quaternion -> roll-pitch-yaw round trip and with 16 significant
digits; near pitch +-pi/2 the round trip loses about sqrt(machine epsilon) (the arcsine
of a number near 1), measured up to 8.3e-8 on the double-shoulder arms, the tready arms
and Maggie-CamTail (1e-15 elsewhere), so the converted poses are compared at
:data:`CONVERSION_TOL` = 1e-7, the strictest power of ten that holds. ``hrdf sdf`` writes poses itself with
full precision and is compared at 1e-9.
"""
import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from hrdf_ros.export.sdf import to_sdf

from consumers import (assert_pose, check_total_mass, count_visual_meshes, ign_sdf,
                       mesh_folder, parametrize_cases, pose_error, reference, visual_meshes,
                       write_urdf)

pytestmark = pytest.mark.consumers
#: Pose tolerance for models converted by SDFormat 12.3 (see the module docstring), m.
CONVERSION_TOL = 1e-7


def drake_poses(path, ref, links, strict=True):
    """{link or frame: (N, 4, 4)} in Drake (SDFormat parser), base_link welded to world;
    ``strict``: Drake's warnings are errors. Every moving joint (a gripper's mimic
    joints too) is set to its value."""
    pytest.importorskip('pydrake', reason='drake not installed (make test-consumers)')
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant
    plant = MultibodyPlant(0.0)
    parser = Parser(plant)
    if strict:
        parser.SetStrictParsing()
    parser.AddModels(path)
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName('base_link'))
    plant.Finalize()
    context = plant.CreateDefaultContext()
    assert plant.num_positions() == len(ref.moving_joints)
    base = plant.GetFrameByName('base_link')
    poses = {link: [] for link in links}
    for k in range(len(ref.positions)):
        q = np.zeros(plant.num_positions())
        for name, value in ref.values_by_joint(k).items():
            q[plant.GetJointByName(name).position_start()] = value
        plant.SetPositions(context, q)
        for link in links:
            poses[link].append(plant.CalcRelativeTransform(
                context, base, plant.GetFrameByName(link)).GetAsMatrix4())
    return plant, context, poses


@parametrize_cases()
def test_sdformat_converts_the_urdf_keeping_joints_links_and_frames(case, tmp_path):
    ref = reference(case)
    urdf_path = write_urdf(ref, tmp_path)
    result = ign_sdf('-p', urdf_path)
    assert result.returncode == 0, result.stderr
    assert not result.stderr.strip(), result.stderr
    sdf_path = os.path.join(tmp_path, 'converted.sdf')
    with open(sdf_path, 'w', encoding='utf-8') as handle:
        handle.write(result.stdout)
    model = ET.fromstring(result.stdout).find('model')
    assert count_visual_meshes(result.stdout) == visual_meshes(ref.model)
    links = {link.get('name') for link in model.findall('link')}
    joints = {joint.get('name'): joint.get('type') for joint in model.findall('joint')}
    urdf = ET.parse(urdf_path).getroot()
    moving = {j.get('name'): j.get('type') for j in urdf.findall('joint')
              if j.get('type') != 'fixed'}
    assert {n: joints.get(n) for n in moving} == {
        n: 'prismatic' if t == 'prismatic' else 'revolute' for n, t in moving.items()}
    merged = {j.child for j in ref.tree.joints if j.parent == 'base_link'}
    gripper_links = {link for g in ref.tree.grippers for link in g.links.values()}
    assert links == (set(ref.tree.links) | gripper_links) - merged, 'links lost or merged'
    assert set(ref.tree.end_effector_links) <= links
    masses = [float(link.find('inertial/mass').text) for link in model.findall('link')]
    urdf_masses = [float(m.get('value')) for m in urdf.iter('mass')]
    assert sum(masses) == pytest.approx(sum(urdf_masses), rel=1e-12)

    kept = sorted(set(ref.poses) & links | {'base_link'})
    # not strict: SDFormat's conversion writes Gazebo <physics> settings Drake ignores
    _, _, poses = drake_poses(sdf_path, ref, kept, strict=False)
    worst = 0.0
    for link in set(kept) & set(ref.poses):
        for k in range(len(ref.positions)):
            assert_pose(poses[link][k], ref.poses[link][k], tol=CONVERSION_TOL, what=link,
                        who='SDFormat URDF conversion (in Drake)')
            worst = max(worst, pose_error(poses[link][k], ref.poses[link][k]))
    print(f'{case.id}: converted SDF poses within {worst:.2g} of hebi-py')


@parametrize_cases()
def test_hrdf_sdf_is_valid_and_drake_puts_every_frame_where_hebi_does(case, tmp_path):
    ref = reference(case)
    mesh_dir = mesh_folder(ref.model, tmp_path / 'meshes')
    path = str(tmp_path / 'robot.sdf')
    text = to_sdf(ref.model, 'robot', tree=ref.tree, mesh_dir=mesh_dir,
                  position_limits=ref.limits)
    assert count_visual_meshes(text) == visual_meshes(ref.model)
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write(text)
    # a gripper's mimic joints need SDFormat 1.11, which libsdformat 12 cannot read
    # (test_consumers_mimic.py); Drake's strict parser (libsdformat 14+) checks it below,
    # and `ign sdf -k` the rigid-gripper 1.9 file of --no-gripper-joints
    rigid = str(tmp_path / 'rigid.sdf')
    with open(rigid, 'w', encoding='utf-8') as handle:
        handle.write(to_sdf(ref.model, 'robot', gripper_joints=False, mesh_dir=mesh_dir))
    check = ign_sdf('-k', rigid if ref.tree.grippers else path)
    assert check.returncode == 0 and check.stdout.strip() == 'Valid.', check.stdout + \
        check.stderr
    assert not check.stderr.strip(), check.stderr
    root = ET.parse(path).getroot()
    assert root.get('version') == ('1.11' if ref.tree.grippers else '1.9')
    assert ET.parse(rigid).getroot().get('version') == '1.9'
    model = root.find('model')
    frames = {f.get('name') for f in model.findall('frame')}
    assert {'base_link', *ref.tree.end_effector_links} <= frames
    gripper_links = {link for g in ref.tree.grippers for link in g.links.values()}
    assert {link.get('name') for link in model.findall('link')} == \
        set(ref.tree.element_links) | gripper_links

    plant, context, poses = drake_poses(path, ref, sorted(ref.poses))
    for link in ref.poses:
        for k in range(len(ref.positions)):
            assert_pose(poses[link][k], ref.poses[link][k], what=link,
                        who='hrdf sdf (in Drake)')
    check_total_mass(plant.CalcTotalMass(context), ref)
    # Drake's SDFormat parser makes every joint with an effort limit an actuator (the
    # mimic joints too: they keep the finger's limits, which Gazebo's mimic constraint
    # may need)
    assert plant.num_actuators() == len(ref.moving_joints)
