"""Fit collision primitives to HEBI's part meshes and write hrdf_ros/parts/part_collision.py.

Usage (from the repository root, with the project's .venv, which has trimesh and scipy):

    python scripts/fit_collision_shapes.py [--meshes ../shared/hebi_description/meshes]

For every mesh file a HEBI part uses (:func:`hrdf_ros.parts.hebi_parts.mesh_files`), a
few boxes and cylinders that together contain the mesh: the union covers every vertex
and, since the mesh is first subdivided to edges of at most :data:`MAX_EDGE` (2 mm), every
point of the surface to within 1 mm. Their summed volume (an upper bound of the union's)
is kept at most :data:`TARGET` times the volume of the mesh's convex hull where up to
:data:`MAX_SHAPES` shapes can do it; the test (test/test_part_collision.py) requires
1.5x at most and full coverage of every vertex within 1 mm.

The method, per mesh (millimetres):

1. the enclosing box or cylinder of least volume among: boxes in the mesh axes and in
   trimesh's minimum-volume oriented box axes, cylinders along each of those six axes
   (the smallest circle around the projected points, trimesh.nsphere), and trimesh's
   minimum-volume cylinder; axis-aligned shapes win ties within 3 %;
2. greedy splitting: each shape's points are cut by a plane normal to one of its axes or
   to a mesh axis (at 17 quantiles), children fitted as in 1; the cut that lowers the
   total volume most is applied, until the total is within TARGET x the hull volume,
   MAX_SHAPES shapes are reached, or a cut saves less than 2 % of the hull volume;
3. numbers rounded to 0.1 mm (positions) and 1e-6 rad, sizes grown by the rounding, and
   the coverage checked again on the original vertices.

The output is derived numbers only (shape sizes and poses), no mesh data.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass

import numpy as np
import trimesh
from scipy.spatial import ConvexHull

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from hrdf_ros.parts.hebi_parts import MESH_SCALE, mesh_files  # noqa: E402
from hrdf_ros.kinematics.rotations import rotation_to_rpy, rpy_to_rotation  # noqa: E402

OUTPUT = os.path.join(ROOT, 'hrdf_ros', 'parts', 'part_collision.py')
DEFAULT_MESHES = os.path.normpath(os.path.join(ROOT, '..', 'shared', 'hebi_description',
                                               'meshes'))
#: Subdivision before fitting, mm: surface points are within MAX_EDGE / 2 of a vertex.
MAX_EDGE = 2.0
#: Volume goal (x convex hull) and the most shapes per mesh.
TARGET, MAX_SHAPES = 1.2, 5
#: A cut must save this fraction of the hull volume.
MIN_GAIN = 0.02
#: Rounding of positions and sizes, mm.
GRID = 0.1


@dataclass
class Shape:
    """A box (size x, y, z) or cylinder (radius, length; axis = rotation[:, 2]), mm."""

    kind: str
    size: tuple
    centre: np.ndarray
    rotation: np.ndarray

    @property
    def volume(self) -> float:
        if self.kind == 'box':
            return float(np.prod(self.size))
        return math.pi * self.size[0] ** 2 * self.size[1]

    def distance_outside(self, points: np.ndarray) -> np.ndarray:
        """(n,) how far each point is outside the shape (0 inside), mm."""
        local = (points - self.centre) @ self.rotation
        if self.kind == 'box':
            excess = np.abs(local) - np.asarray(self.size) / 2
            return np.linalg.norm(np.maximum(excess, 0.0), axis=1)
        radial = np.maximum(np.hypot(local[:, 0], local[:, 1]) - self.size[0], 0.0)
        axial = np.maximum(np.abs(local[:, 2]) - self.size[1] / 2, 0.0)
        return np.hypot(radial, axial)


def _frame_with_z(rotation: np.ndarray, k: int) -> np.ndarray:
    """A right-handed rotation whose z axis is column k of ``rotation``."""
    order = [(k + 1) % 3, (k + 2) % 3, k]
    out = rotation[:, order]
    return out if np.linalg.det(out) > 0 else out * np.array([1.0, -1.0, 1.0])


def box_in(points: np.ndarray, rotation: np.ndarray) -> Shape:
    local = points @ rotation
    low, high = local.min(axis=0), local.max(axis=0)
    return Shape('box', tuple(high - low), rotation @ ((low + high) / 2), rotation)


def cylinder_along(points: np.ndarray, rotation: np.ndarray, k: int) -> Shape:
    frame = _frame_with_z(rotation, k)
    local = points @ frame
    hull = local[ConvexHull(local[:, :2]).vertices, :2] if len(local) > 3 else local[:, :2]
    centre2, radius = trimesh.nsphere.minimum_nsphere(hull)
    low, high = local[:, 2].min(), local[:, 2].max()
    centre = frame @ np.array([centre2[0], centre2[1], (low + high) / 2])
    return Shape('cylinder', (float(radius), float(high - low)), centre, frame)


def fit(points: np.ndarray) -> Shape:
    """The enclosing shape of least volume (axis-aligned ones win within 3 %)."""
    hull = points[ConvexHull(points).vertices]
    axis_aligned = [box_in(hull, np.eye(3))] + [cylinder_along(hull, np.eye(3), k)
                                                 for k in range(3)]
    to_origin, _ = trimesh.bounds.oriented_bounds(hull)
    obb = np.linalg.inv(to_origin)[:3, :3]
    general = [box_in(hull, obb)] + [cylinder_along(hull, obb, k) for k in range(3)]
    try:
        cylinder = trimesh.bounds.minimum_cylinder(hull)
        frame = cylinder['transform'][:3, :3]
        general.append(cylinder_along(hull, frame, 2))
    except Exception:  # noqa: BLE001 - an optimiser failure just drops the candidate
        pass
    best_aligned = min(axis_aligned, key=lambda s: s.volume)
    best = min(general, key=lambda s: s.volume)
    return best_aligned if best_aligned.volume <= 1.03 * best.volume else best


def best_cut(points: np.ndarray, shape: Shape):
    """(children shapes, children point sets) of the best plane cut, or None."""
    axes = [shape.rotation[:, k] for k in range(3)] + list(np.eye(3))
    candidates = []
    for axis in axes:
        u = points @ axis
        for s in np.quantile(u, np.linspace(0.1, 0.9, 17)):
            a, b = points[u <= s], points[u >= s]
            if len(a) < 8 or len(b) < 8:
                continue
            cheap = box_in(a, shape.rotation).volume + box_in(b, shape.rotation).volume
            candidates.append((cheap, a, b))
    candidates.sort(key=lambda c: c[0])
    best = None
    for _, a, b in candidates[:8]:
        shapes = (fit(a), fit(b))
        volume = shapes[0].volume + shapes[1].volume
        if best is None or volume < best[0]:
            best = (volume, shapes, (a, b))
    return best


def fit_mesh(mesh: trimesh.Trimesh):
    """(shapes, hull volume) for one mesh, mm."""
    vertices, _ = trimesh.remesh.subdivide_to_size(mesh.vertices, mesh.faces, MAX_EDGE)
    points = np.unique(np.round(vertices, 6), axis=0)
    hull_volume = mesh.convex_hull.volume
    clusters = [(fit(points), points)]
    while len(clusters) < MAX_SHAPES:
        total = sum(s.volume for s, _ in clusters)
        if total <= TARGET * hull_volume:
            break
        options = []
        for i, (shape, pts) in enumerate(clusters):
            cut = best_cut(pts, shape)
            if cut is not None:
                options.append((shape.volume - cut[0], i, cut))
        if not options:
            break
        gain, i, cut = max(options, key=lambda o: o[0])
        if gain < MIN_GAIN * hull_volume:
            break
        clusters[i:i + 1] = list(zip(cut[1], cut[2]))
    return [s for s, _ in clusters], hull_volume


def rounded(shape: Shape) -> tuple:
    """(kind, size m, xyz m, rpy rad), positions on the 0.1 mm grid and the size grown
    by the rounding, so the rounded shape contains the fitted one."""
    rpy = tuple(round(a, 6) + 0.0 for a in rotation_to_rpy(shape.rotation))   # no -0.0
    rotation = rpy_to_rotation(*rpy)
    centre = np.round(shape.centre / GRID) * GRID
    # room for the moved centre and the turned axes (1e-6 rad over the shape's size)
    slack = float(np.linalg.norm(centre - shape.centre)) + 1e-5 * max(shape.size) + 1e-6
    if shape.kind == 'box':
        local = np.abs(rotation.T @ shape.rotation)          # old box axes in new ones
        half = local @ (np.asarray(shape.size) / 2) + slack
        size = tuple(math.ceil(2 * h / GRID - 1e-9) * GRID for h in half)
    else:
        radius = math.ceil((shape.size[0] + slack) / GRID - 1e-9) * GRID
        length = math.ceil((shape.size[1] + 2 * slack) / GRID - 1e-9) * GRID
        size = (radius, length)
    scale = MESH_SCALE
    return (shape.kind, tuple(round(v * scale, 7) for v in size),
            tuple(round(float(v) * scale, 7) + 0.0 for v in centre), rpy)


def as_shape(row: tuple) -> Shape:
    kind, size, xyz, rpy = row
    return Shape(kind, tuple(v / MESH_SCALE for v in size), np.asarray(xyz) / MESH_SCALE,
                 rpy_to_rotation(*rpy))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--meshes', default=DEFAULT_MESHES, help='hebi_description/meshes')
    parser.add_argument('--output', default=OUTPUT)
    args = parser.parse_args()
    table = {}
    print(f'{"mesh":24s} shapes  hull cm3  fitted cm3  ratio  outside mm')
    for name in mesh_files():
        mesh = trimesh.load(os.path.join(args.meshes, name), force='mesh')
        shapes, hull = fit_mesh(mesh)
        rows = [rounded(s) for s in shapes]
        check = [as_shape(r) for r in rows]
        outside = np.min([s.distance_outside(mesh.vertices) for s in check], axis=0).max()
        volume = sum(s.volume for s in check)
        assert outside <= 1e-6, (name, outside)
        table[name] = rows
        print(f'{name:24s} {len(rows):6d} {hull / 1e3:9.1f} {volume / 1e3:11.1f} '
              f'{volume / hull:6.2f} {outside:10.2g}', flush=True)
    write(args.output, table)
    print(f'wrote {args.output}')


def write(path: str, table: dict) -> None:
    lines = [
        '"""Collision shapes of HEBI\'s part meshes: boxes and cylinders fitted to each mesh.',
        '',
        'Generated by scripts/fit_collision_shapes.py (trimesh, from hebi_description\'s',
        'meshes at commit 49ee000); do not edit. In: nothing. Out: :data:`SHAPES`,',
        '``{mesh file: ((kind, size, xyz, rpy), ...)}``: ``box`` size (x, y, z) or',
        '``cylinder`` (radius, length; axis along z of its pose), m; pose (xyz m, URDF rpy',
        'rad) in the mesh\'s frame after its 0.001 scale, the frame a',
        ':class:`~hrdf_ros.parts.hebi_parts.Piece` places. Together the shapes of a mesh',
        'contain its every vertex; their volume is at most 1.5x its convex hull\'s',
        '(test/test_part_collision.py checks both on the real meshes). Derived numbers',
        'only: no mesh data.',
        '"""',
        '',
        'SHAPES = {',
    ]
    for name, rows in table.items():
        lines.append(f'    {name!r}: (')
        for kind, size, xyz, rpy in rows:
            lines.append(f'        ({kind!r}, {size!r},')
            lines.append(f'         {xyz!r}, {rpy!r}),')
        lines.append('    ),')
    lines.append('}')
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
