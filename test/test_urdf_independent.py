"""The URDF, read by an independent URDF library (yourdfpy), puts every frame where
hrdf_ros's Kinematics and HEBI's own library (hebi-py) do, and its inertials give HEBI's
masses (``exact_masses``; by default plus the documented physical fill, within 0.1 %),
COM frames and whole-robot centre of mass.

Mapping: an element's input frame is its link (FrameTree.element_links), end-effector
frames are the end_effector links; a URDF joint value is the joint motion, i.e. the HEBI
position divided by the element's gear ratio (continuous joints take the angle as is).
"""
import io
import os

import numpy as np
import pytest

from hrdf_ros import Kinematics, load, loads, to_urdf
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.description.inertials import FILL_MASS

from conftest import (BUNDLED_ARM, hebi_frames, HEXAPOD, HEXAPOD_18, kit_id, KITS, REPO,
                      WRITTEN_ATOL, WRITTEN_RTOL)

yourdfpy = pytest.importorskip('yourdfpy')

# A tree with HRDF joints (prismatic, geared, negative gear ratio), a base frame and two
# end effectors: what the kits do not exercise.
GEARED_TREE = ('<robot version="1.5.0" rot="Rx(0.3)*Rz(-0.2)" trans="0.1 -0.2 0.3">'
               '<rigid-body mass="1.5" com_trans="0.01 0.02 0.03" com_rot="Ry(0.4)">'
               '<output trans="0.2 0 0"><actuator type="X5-1"/><joint axis="ty"/>'
               '<link type="X5" extension="0.3" twist="0.5"/><end-effector/></output>'
               '<output rot="Rz(1)"><joint axis="rx" gear_ratio="2.5"/>'
               '<actuator type="X8-9"/><joint axis="tz" gear_ratio="-3"/>'
               '<end-effector tag="tool"/></output></rigid-body></robot>')
CONFIGURATIONS = 8
TOL = 1e-9


def load_urdf(text):
    """yourdfpy model from URDF text (no files, no meshes)."""
    return yourdfpy.URDF.load(io.BytesIO(text.encode('utf-8')), build_scene_graph=True,
                              load_meshes=False, build_collision_scene_graph=False,
                              load_collision_meshes=False)


def urdf_configuration(model, tree, q):
    """{URDF joint: value}: the joint motion for HEBI position q."""
    return {name: q[k] / model.elements[e].gear_ratio
            for k, (name, e) in enumerate(zip(tree.dof_names, model.dof_elements))}


def link_poses(robot, links):
    return np.array([robot.get_transform(link, 'base_link') for link in links]).reshape(
        -1, 4, 4)


def com_frames_from_inertials(robot, links, grippers=()):
    """Per link with an inertial: mass and pose of the inertial frame in base_link. A
    parallel gripper's base link stands for all its links (their mass and composite COM,
    with the base link's axes): hebi-py's gripper is one body."""
    masses, frames = [], []
    by_base = {g.base_link: g for g in grippers}
    for link in links:
        if link in by_base:
            parts = [link] + list(by_base[link].links.values())
            weights, points = com_frames_from_inertials(robot, parts)
            frame = np.array(robot.get_transform(link, 'base_link'))
            frame[:3, 3] = weights @ np.stack([f[:3, 3] for f in points]) / weights.sum()
            masses.append(weights.sum())
            frames.append(frame)
            continue
        inertial = robot.link_map[link].inertial
        if inertial is None:
            masses.append(0.0)
            frames.append(None)
            continue
        origin = np.eye(4) if inertial.origin is None else inertial.origin
        masses.append(inertial.mass)
        frames.append(robot.get_transform(link, 'base_link') @ origin)
    return np.array(masses), frames


def check_robot(model, hebi, seed):
    tree = build_frame_tree(model)
    robot = load_urdf(to_urdf(model, 'independent', tree=tree, exact_masses=True))
    assert sorted(robot.actuated_joint_names) == sorted(tree.dof_names
                                                         + tree.gripper_joint_names)
    kinematics = Kinematics(model)
    com_elements = [i for i, e in enumerate(model.elements) if e.has_com_frame]
    com_links = [tree.element_links[i] for i in com_elements]
    urdf_masses, _ = com_frames_from_inertials(robot, com_links, tree.grippers)
    np.testing.assert_allclose(urdf_masses, hebi.masses, atol=0, rtol=WRITTEN_RTOL)
    np.testing.assert_allclose(urdf_masses.sum(), hebi.masses.sum(), atol=0, rtol=WRITTEN_RTOL)
    # the default URDF: every element keeps its mass, massless ones get FILL_MASS, every
    # other link but the root gets FILL_MASS too; in all within 0.1 % of HEBI's mass
    filled = load_urdf(to_urdf(model, 'independent', tree=tree))
    filled_masses, _ = com_frames_from_inertials(filled, com_links, tree.grippers)
    np.testing.assert_allclose(filled_masses, np.maximum(hebi.masses, FILL_MASS), atol=0,
                               rtol=WRITTEN_RTOL)
    total = sum(link.inertial.mass for link in filled.link_map.values() if link.inertial)
    assert hebi.masses.sum() < total <= hebi.masses.sum() * 1.001
    assert filled.link_map['base_link'].inertial is None      # KDL: no root inertia

    rng = np.random.default_rng(seed)
    for q in rng.uniform(-np.pi, np.pi, (CONFIGURATIONS, model.dof_count)):
        robot.update_cfg(urdf_configuration(model, tree, q))
        inputs = link_poses(robot, tree.element_links)
        # the file's 12 digits move poses by at most WRITTEN_ATOL from hrdf_ros's own
        np.testing.assert_allclose(inputs, kinematics.frames('input', q), atol=WRITTEN_ATOL,
                                   rtol=0)
        np.testing.assert_allclose(inputs, hebi_frames(hebi, 'input', [q])[0],
                                   atol=TOL, rtol=0)
        tips = link_poses(robot, tree.end_effector_links)
        np.testing.assert_allclose(tips, kinematics.frames('end_effector', q),
                                   atol=WRITTEN_ATOL, rtol=0)
        np.testing.assert_allclose(tips, hebi_frames(hebi, 'end_effector', [q])[0],
                                   atol=TOL, rtol=0)

        masses, frames = com_frames_from_inertials(robot, com_links, tree.grippers)
        hebi_com = hebi_frames(hebi, 'com', [q])[0]
        for k, frame in enumerate(frames):
            if frame is not None:     # massless bodies have no <inertial>
                np.testing.assert_allclose(frame, hebi_com[k], atol=TOL, rtol=0)
        if masses.sum() > 0:
            points = np.stack([f[:3, 3] if f is not None else np.zeros(3) for f in frames])
            urdf_com = masses @ points / masses.sum()
            hebi_center = hebi.masses @ hebi_com[:, :3, 3] / hebi.masses.sum()
            np.testing.assert_allclose(urdf_com, hebi_center, atol=TOL, rtol=0)


@pytest.mark.parametrize('path', KITS + [BUNDLED_ARM, HEXAPOD, HEXAPOD_18], ids=kit_id)
def test_urdf_frames_and_mass_match_hebi(path, hebi_import):
    import_from_hrdf, _ = hebi_import
    check_robot(load(path), import_from_hrdf(path), seed=len(path))


REAL = os.path.join(REPO, '..', 'shared', 'hrdf', 'real')
#: HEBI's real files with what the kits lack: negative joint axes (mapsArm, Tready),
#: no degree of freedom (tgorChassis), included files of other versions (igor, tgor).
REAL_SAMPLES = [
    'flat/HebiRobotics_hebi-python-examples__kits_maps_config_hrdf_mapsArm_7DoF.hrdf',
    'flat/HebiRobotics_hebi-python-examples__kits_igor2_hrdf_tgorChassis.hrdf',
    'trees/HebiRobotics_robot-config@a1aabca99a/tready/config/hrdf/Tready.hrdf',
    'trees/HebiRobotics_hebi-python-examples@27449543f3/kits/igor2/hrdf/tgor.hrdf',
    'trees/HebiRobotics_robot-config@a1aabca99a/daisy/config/hrdf/Daisy.hrdf',
]


@pytest.mark.parametrize('relative', REAL_SAMPLES, ids=kit_id)
def test_real_hebi_files_urdf_matches_hebi(relative, hebi_import):
    path = os.path.join(REAL, relative)
    if not os.path.isfile(path):
        pytest.skip(f'no {path}')
    check_robot(load(path), hebi_import[0](path), seed=len(relative))


def test_geared_tree_with_hrdf_joints_matches_hebi(hebi_import):
    _, import_from_string = hebi_import
    model = loads(GEARED_TREE)
    assert [model.elements[e].gear_ratio for e in model.dof_elements] == [1, 1, 2.5, 1, -3]
    check_robot(model, import_from_string(GEARED_TREE), seed=5)
