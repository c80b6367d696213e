"""Our robot looks like HEBI's: every kit of ../shared/hebi_description/urdf/kits with an
HRDF in ../shared/hrdf/kits, HEBI's URDF (the real xacro on HEBI's kit file) and ours
(HEBI's meshes from ``mesh_dir``), both posed at the same 3 random arm configurations:
the 95th percentile of the distance from area-weighted samples of one model's visual
surface to the other model's triangles, both ways, is at most 1 mm.

Ours is posed by our URDF (whose joint origins equal hebi-py's frames, test_urdf.py) and
HEBI's by its own joint origins: where the two place frames apart (HEBI's X-series
output heights are rounded to 0.1 mm, a rigid body's rotation to 4 digits;
doc/explanation/meshes.md, "Compared with HEBI's own model"), the distance includes it.
The gripper's parts are links moved by its finger joint in both (ours ``gripper_joint``,
HEBI's ``input_l_finger``), set to the same random position in [0, 0.37 pi] in each
configuration. Surfaces that only one model has count too: our spheres at the COM of
HEBI's massive rigid bodies, HEBI's 1 mm cube at a Custom end effector.
"""
import contextlib
import io
import os

import numpy as np
import pytest
from urdf_parser_py.urdf import URDF

from hrdf_ros import load, to_urdf
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.kinematics.gripper import GRIPPER_LOWER, GRIPPER_UPPER
from hrdf_ros.kinematics.rotations import rotation_to_rpy, rpy_to_rotation

from conftest import KITS_DIR
from hebi_description import HEBI_DESCRIPTION, hebi_kits, kit_urdf, require_hebi_description

require_hebi_description()
trimesh = pytest.importorskip('trimesh')
import visual_surface as vs  # noqa: E402  (needs trimesh)

#: Area-weighted samples per model and configuration; configurations per kit.
SAMPLES, CONFIGURATIONS = 3000, 3
#: The bound of the issue, m.
P95_BOUND = 1e-3
MESHES = os.path.join(HEBI_DESCRIPTION, 'meshes')
RESULTS = {}


def parse(text):
    with contextlib.redirect_stderr(io.StringIO()):     # "Unknown tag gazebo" and the like
        return URDF.from_xml_string(text)


def arm_joints(hebi):
    """HEBI's actuator joints in chain order: the movable joints that mimic nothing and
    are not the gripper's (``<end effector>/...``)."""
    return [j.name for j in hebi.joints
            if j.type != 'fixed' and j.mimic is None and '/' not in j.name]


def hebi_finger_joint(hebi):
    """HEBI's actuated finger joint (``<end effector>/input_l_finger``)."""
    [name] = [j.name for j in hebi.joints if j.name.endswith('/input_l_finger')]
    return name


@pytest.mark.parametrize('kit', hebi_kits())
def test_visual_surfaces_match_hebi_within_1_mm(kit):
    model = load(os.path.join(KITS_DIR, kit + '.hrdf'))
    tree = build_frame_tree(model)
    ours = parse(to_urdf(model, kit, tree=tree, mesh_dir=MESHES))
    hebi = parse(kit_urdf(kit))
    arm = arm_joints(hebi)
    assert len(arm) == model.dof_count
    assert sum(hasattr(v.geometry, 'filename') for link in ours.links
               for v in link.visuals) >= model.dof_count           # meshes, not boxes
    rng = np.random.default_rng(21)
    worst = []
    for _ in range(CONFIGURATIONS):
        q = rng.uniform(-np.pi, np.pi, model.dof_count)
        ours_values, hebi_values = dict(zip(tree.dof_names, q)), dict(zip(arm, q))
        for gripper in tree.grippers:       # the fingers at a random position too
            hebi_values[hebi_finger_joint(hebi)] = ours_values[gripper.joint] = \
                rng.uniform(GRIPPER_LOWER, GRIPPER_UPPER)
        our_parts = vs.visual_parts(ours, ours_values)
        hebi_parts = vs.visual_parts(hebi, hebi_values)
        ours_to_hebi = vs.distances_to(hebi_parts, vs.sample_surface(our_parts, SAMPLES, rng))
        hebi_to_ours = vs.distances_to(our_parts, vs.sample_surface(hebi_parts, SAMPLES, rng))
        worst.append((np.percentile(ours_to_hebi, 95), np.percentile(hebi_to_ours, 95)))
    worst = np.max(worst, axis=0)
    RESULTS[kit] = worst
    print(f'{kit}: 95th percentile ours -> HEBI {worst[0] * 1e3:.3f} mm, HEBI -> ours '
          f'{worst[1] * 1e3:.3f} mm')
    assert worst.max() <= P95_BOUND, worst


def test_distances_agree_with_trimesh_closest_point():
    """The fcl point-to-mesh distances the test uses equal trimesh's closest_point to
    0.01 mm (1 % of the bound; measured: 1e-6 m at most, GJK's tolerance), on points near
    and far from a gripper arm's surface."""
    kit = 'A-2085-06G'
    model = load(os.path.join(KITS_DIR, kit + '.hrdf'))
    tree = build_frame_tree(model)
    ours = parse(to_urdf(model, kit, tree=tree, mesh_dir=MESHES))
    rng = np.random.default_rng(5)
    parts = vs.visual_parts(ours, dict(zip(tree.dof_names, rng.uniform(-3, 3, 6))))
    points = vs.sample_surface(parts, 300, rng) + rng.normal(0, 0.01, (300, 3))
    np.testing.assert_allclose(vs.distances_to(parts, points),
                               vs.closest_distances(parts, points), atol=1e-5, rtol=0)


def test_a_misplaced_part_is_seen():
    """The measure can fail: our gripper's surface (every gripper link) is within 1 mm of
    HEBI's model, and more than 1 mm from it (95th percentile) once turned a quarter turn
    about its axis."""
    kit = 'A-2085-06G'
    model = load(os.path.join(KITS_DIR, kit + '.hrdf'))
    tree = build_frame_tree(model)
    ours = parse(to_urdf(model, kit, tree=tree, mesh_dir=MESHES))
    hebi = parse(kit_urdf(kit))
    zero = dict(zip(tree.dof_names, np.zeros(model.dof_count)))
    hebi_parts = vs.visual_parts(hebi, dict(zip(arm_joints(hebi), np.zeros(6))))
    gripper = ['end_effector_mount1'] + list(tree.grippers[0].links.values())
    rng = np.random.default_rng(1)
    near = vs.distances_to(hebi_parts, vs.sample_surface(
        vs.visual_parts(ours, zero, links=gripper), SAMPLES, rng))
    [mount] = [j for j in ours.joints if j.child == 'end_effector_mount1']
    turned = rpy_to_rotation(*mount.origin.rpy) @ rpy_to_rotation(0.0, 0.0, np.pi / 2)
    mount.origin.rpy = list(rotation_to_rpy(turned))      # the gripper turned about z
    far = vs.distances_to(hebi_parts, vs.sample_surface(
        vs.visual_parts(ours, zero, links=gripper), SAMPLES, rng))
    print(f'gripper: 95th percentile {np.percentile(near, 95) * 1e3:.3f} mm in place, '
          f'{np.percentile(far, 95) * 1e3:.1f} mm turned')
    assert np.percentile(near, 95) <= P95_BOUND < np.percentile(far, 95)


def placed_meshes(robot, values):
    """[(mesh file name, (4, 4) world pose, RGBA)] of a parsed URDF's mesh visuals."""
    poses = vs.link_poses(robot, values)
    out = []
    for link in robot.links:
        for visual in link.visuals:
            if hasattr(visual.geometry, 'filename'):
                rgba = tuple(visual.material.color.rgba) if visual.material is not None \
                    and visual.material.color is not None else None
                out.append((os.path.basename(visual.geometry.filename),
                            poses[link.name] @ vs._origin(visual.origin), rgba))
    return out


@pytest.mark.parametrize('kit', ['A-2085-06G', 'A-2580-06G', 'A-2240-05', 'A-2099-07'])
def test_every_mesh_has_hebis_file_place_and_colour(kit):
    """Mesh by mesh at the zero configuration: each of our mesh visuals has a HEBI visual
    of the same file within 0.3 mm and 1e-3 rad (HEBI's rounded frames, see the module
    docstring), in the same colour, and the two models have the same number of each."""
    model = load(os.path.join(KITS_DIR, kit + '.hrdf'))
    ours = placed_meshes(parse(to_urdf(model, kit, mesh_dir=MESHES)), {})
    hebi = placed_meshes(parse(kit_urdf(kit)), {})
    assert sorted(m[0] for m in ours) == sorted(m[0] for m in hebi)
    for name, pose, rgba in ours:
        match = [h for h in hebi if h[0] == name
                 and np.linalg.norm(h[1][:3, 3] - pose[:3, 3]) < 3e-4
                 and np.abs(h[1][:3, :3] - pose[:3, :3]).max() < 1e-3]
        assert match, (kit, name, pose)
        assert all(np.allclose(h[2], rgba, atol=1e-9) for h in match), (name, rgba, match)


def test_gripper_bodies_are_hebis_links_at_position_0():
    """The gripper's bodies (hebi_parts.GRIPPER_BODIES, for models whose fingers move)
    are HEBI's gripper links at position 0, relative to the gripper's own link, and each
    body's pieces are that link's visuals (file or primitive, origin, colour)."""
    from hrdf_ros.parts.hebi_parts import COLOURS, gripper_body_poses, gripper_pieces
    hebi = parse(kit_urdf('A-2085-06G'))
    poses = vs.link_poses(hebi, {})
    base = np.linalg.inv(poses['end_effector_1'])
    links = {'base': 'end_effector_1'}
    links.update({b: f'end_effector_1/{b}' for b in gripper_body_poses() if b != 'base'})
    for body, pose in gripper_body_poses().items():
        np.testing.assert_allclose(base @ poses[links[body]], pose, atol=1e-12, err_msg=body)
    for body, link in links.items():
        theirs = hebi.link_map[link].visuals
        mine = [p for p in gripper_pieces() if p.body == body]
        assert len(mine) == len(theirs), body
        for piece, visual in zip(mine, theirs):
            np.testing.assert_allclose(vs._origin(visual.origin), piece.pose, atol=1e-12)
            if piece.mesh:
                assert os.path.basename(visual.geometry.filename) == piece.mesh
            else:
                assert (visual.geometry.radius, visual.geometry.length) == \
                    piece.primitive[1]
            assert tuple(visual.material.color.rgba) == COLOURS[piece.colour]
