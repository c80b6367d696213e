"""Our robot looks like HEBI's: every kit of ../shared/hebi_description/urdf/kits with an
HRDF in ../shared/hrdf/kits, HEBI's URDF (the real xacro on HEBI's kit file) and ours
(HEBI's meshes from ``mesh_dir``), both posed at the same 3 random arm configurations:
the 95th percentile of the distance from area-weighted samples of one model's visual
surface to the other model's triangles, both ways, is at most 1 mm.

Ours is posed by our URDF (whose joint origins equal hebi-py's frames, test_urdf.py) and
HEBI's by its own joint origins: where the two place frames apart (HEBI's X-series output
heights are rounded to 0.1 mm, a rigid body's rotation to 4 digits; README "HEBI's
meshes"), the distance includes it. The gripper parts sit on the gripper's input frame in
both, at gripper position 0 (every finger joint of HEBI's at 0). Surfaces that only one
model has count too: our spheres at the COM of HEBI's massive rigid bodies, HEBI's 1 mm
cube at a Custom end effector.
"""
import contextlib
import io
import os

import numpy as np
import pytest
from urdf_parser_py.urdf import URDF

from hrdf_ros import load, to_urdf
from hrdf_ros.export.frame_tree import build_frame_tree

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
        our_parts = vs.visual_parts(ours, dict(zip(tree.dof_names, q)))
        hebi_parts = vs.visual_parts(hebi, dict(zip(arm, q)))
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
    """The measure can fail: our gripper's surface is within 1 mm of HEBI's model, and
    more than 1 mm from it (95th percentile) once turned a quarter turn about its axis."""
    kit = 'A-2085-06G'
    model = load(os.path.join(KITS_DIR, kit + '.hrdf'))
    tree = build_frame_tree(model)
    ours = parse(to_urdf(model, kit, tree=tree, mesh_dir=MESHES))
    hebi = parse(kit_urdf(kit))
    zero = dict(zip(tree.dof_names, np.zeros(model.dof_count)))
    hebi_parts = vs.visual_parts(hebi, dict(zip(arm_joints(hebi), np.zeros(6))))
    gripper = ['end_effector_mount1']
    rng = np.random.default_rng(1)
    near = vs.distances_to(hebi_parts, vs.sample_surface(
        vs.visual_parts(ours, zero, links=gripper), SAMPLES, rng))
    for visual in ours.link_map['end_effector_mount1'].visuals:
        x, y, z = visual.origin.xyz
        roll, pitch, yaw = visual.origin.rpy
        visual.origin.xyz, visual.origin.rpy = [-y, x, z], [roll, pitch, yaw + np.pi / 2]
    far = vs.distances_to(hebi_parts, vs.sample_surface(
        vs.visual_parts(ours, zero, links=gripper), SAMPLES, rng))
    print(f'gripper: 95th percentile {np.percentile(near, 95) * 1e3:.3f} mm in place, '
          f'{np.percentile(far, 95) * 1e3:.1f} mm turned')
    assert np.percentile(near, 95) <= P95_BOUND < np.percentile(far, 95)
