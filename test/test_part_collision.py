"""The collision shapes fitted to HEBI's part meshes (hrdf_ros/parts/part_collision.py),
against the real meshes of ../shared/hebi_description (trimesh):

* per mesh file: every vertex of the mesh lies inside the union of its shapes (1 mm
  tolerance; measured: all inside), so do 20 000 area-weighted surface samples, and the
  shapes' summed volume (an upper bound of their union's) is at most 1.5x the volume of
  the mesh's convex hull;
* per part as exported (actuators, every bracket side, links of every style and twist,
  the parallel gripper): the collision shapes of the element contain the vertices of
  every mesh its visuals place, so the placement of the shapes follows the meshes';
* the pinned file list, the fitted table and the parts' meshes name the same files.
"""
import functools
import os

import numpy as np
import pytest

from hrdf_ros import loads
from hrdf_ros.parts.geometry import element_geometry
from hrdf_ros.parts.hebi_mesh_files import FILES
from hrdf_ros.parts.hebi_parts import MESH_SCALE, mesh_files, part_pieces
from hrdf_ros.parts.mesh_sources import mesh_source
from hrdf_ros.parts.part_collision import SHAPES
from hrdf_ros.hrdf.catalogue import BRACKETS
from hrdf_ros.kinematics.rotations import rpy_to_rotation

from hebi_description import HEBI_DESCRIPTION, require_hebi_description

require_hebi_description()
trimesh = pytest.importorskip('trimesh')
MESHES = os.path.join(HEBI_DESCRIPTION, 'meshes')
#: Coverage tolerance (m) and volume bound (x convex hull) of the issue.
TOLERANCE, VOLUME_RATIO = 1e-3, 1.5


@functools.lru_cache(maxsize=None)
def load_mesh(name):
    mesh = trimesh.load(os.path.join(MESHES, name), force='mesh')
    mesh.apply_scale(MESH_SCALE)
    return mesh


def outside(kind, size, pose, points):
    """(n,) distance of each point outside one shape (0 inside), m."""
    local = (points - pose[:3, 3]) @ pose[:3, :3]
    if kind == 'box':
        return np.linalg.norm(np.maximum(np.abs(local) - np.asarray(size) / 2, 0.0), axis=1)
    if kind == 'sphere':
        return np.maximum(np.linalg.norm(local, axis=1) - size[0], 0.0)
    radial = np.maximum(np.hypot(local[:, 0], local[:, 1]) - size[0], 0.0)
    return np.hypot(radial, np.maximum(np.abs(local[:, 2]) - size[1] / 2, 0.0))


def union_outside(shapes, points):
    """(n,) distance of each point outside the union of (kind, size, pose) shapes."""
    return np.min([outside(kind, size, pose, points) for kind, size, pose in shapes], axis=0)


def pose(xyz, rpy):
    out = np.eye(4)
    out[:3, :3] = rpy_to_rotation(*rpy)
    out[:3, 3] = xyz
    return out


def volume(kind, size):
    return float(np.prod(size)) if kind == 'box' else np.pi * size[0] ** 2 * size[1]


def test_one_list_of_meshes():
    assert sorted(SHAPES) == mesh_files() == sorted(FILES)
    assert len(mesh_files()) == 23


@pytest.mark.parametrize('name', mesh_files())
def test_shapes_cover_the_mesh_within_bounds(name):
    mesh = load_mesh(name)
    shapes = [(kind, size, pose(xyz, rpy)) for kind, size, xyz, rpy in SHAPES[name]]
    vertices = union_outside(shapes, mesh.vertices)
    samples, _ = trimesh.sample.sample_surface(mesh, 20000, seed=3)
    surface = union_outside(shapes, samples)
    hull = mesh.convex_hull.volume
    fitted = sum(volume(kind, size) for kind, size, _ in shapes)
    print(f'{name}: {len(shapes)} shapes, {fitted / hull:.2f} x hull volume '
          f'({hull * 1e6:.1f} cm3), vertices outside by at most {vertices.max() * 1e3:.3f} '
          f'mm, surface samples by {surface.max() * 1e3:.3f} mm')
    assert vertices.max() <= TOLERANCE
    assert surface.max() <= TOLERANCE
    assert fitted <= VOLUME_RATIO * hull


PARTS = (['<actuator type="%s"/>' % t for t in ('X5-1', 'X8-9', 'R8-16', 'T5-4', 'T8-3')]
         + ['<bracket type="%s"/>' % t for t in sorted(BRACKETS) if not t.startswith('R25')]
         + ['<link type="%s" extension="%s" twist="%s" input="%s" output="%s"/>'
            % (family, extension, twist, i, o) for family in ('X5', 'R8')
            for extension, twist in (('0.325', 'pi'), ('0.1', '0.7'), ('0.02', '-pi/2'))
            for i in ('RightAngle', 'Inline') for o in ('RightAngle', 'Inline')]
         + ['<end-effector type="X5Parallel"/>', '<end-effector type="R8Parallel"/>'])


@pytest.mark.parametrize('part', PARTS)
def test_exported_collision_shapes_contain_the_placed_meshes(part):
    """Element level: the visuals (HEBI's meshes, placed) inside the collision shapes."""
    mount = '' if 'actuator' in part else ('<actuator type="R8-9"/>' if 'R8' in part
                                           else '<actuator type="X5-1"/>')
    model = loads(f'<robot version="1.6.0">{mount}{part}</robot>')
    element = model.elements[1 if mount else 0]
    source = mesh_source(MESHES)
    visual, collision, _ = element_geometry(element, source)
    assert len(visual) == len(part_pieces(element)) > 0
    shapes = [(s.kind, s.size, s.pose) for s in collision]
    for shape in visual:
        if shape.kind != 'mesh':
            continue
        mesh = load_mesh(os.path.basename(shape.filename))
        points = mesh.vertices @ shape.pose[:3, :3].T + shape.pose[:3, 3]
        assert union_outside(shapes, points).max() <= TOLERANCE, shape.filename
