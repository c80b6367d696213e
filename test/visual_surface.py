"""A URDF's visual surface, posed: forward kinematics over urdf_parser_py, HEBI's and our
meshes and primitives in trimesh, area-weighted surface samples and point-to-triangle
distances. Test helper for test_hebi_visuals.py (trimesh is a test dependency).

Forward kinematics (:func:`link_poses`): every joint of the parsed URDF, its origin
times its motion: rotation about the (normalised) axis for revolute/continuous joints,
translation along it for prismatic joints, nothing for fixed ones; a mimic joint takes
``multiplier * value + offset`` of the joint it mimics. URDF's default axis (1 0 0) and
offset 0 apply when absent. Other joint types raise. HEBI's gripper kits also carry a
``gearbox`` and pin joints, inside ``<gazebo>`` (SDFormat only): urdf_parser_py does
not read them, and neither do we.

Distances (:func:`distances_to`): for each point, the distance to the nearest triangle
of the other model: python-fcl's exact point-to-mesh distance, all parts in one
broadphase (42 us a point on this machine), cross-checked against trimesh's
``proximity.closest_point`` (:func:`closest_distances`, 5x slower) in the test.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Dict, List

import numpy as np
import trimesh

from hrdf_ros.parts.mesh_sources import local_mesh_path
from hrdf_ros.kinematics.rotations import rpy_to_rotation

#: Sections of a cylinder's tessellation: sagitta of a 22.5 mm radius under 0.03 mm.
CYLINDER_SECTIONS = 64


def _origin(origin) -> np.ndarray:
    out = np.eye(4)
    if origin is not None:
        out[:3, :3] = rpy_to_rotation(*(origin.rpy or (0.0, 0.0, 0.0)))
        out[:3, 3] = origin.xyz or (0.0, 0.0, 0.0)
    return out


def _axis_motion(kind: str, axis, value: float) -> np.ndarray:
    axis = np.asarray(axis if axis is not None else (1.0, 0.0, 0.0), dtype=float)
    axis = axis / np.linalg.norm(axis)
    out = np.eye(4)
    if kind in ('revolute', 'continuous'):
        k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        out[:3, :3] = np.eye(3) + np.sin(value) * k + (1 - np.cos(value)) * k @ k
    elif kind == 'prismatic':
        out[:3, 3] = axis * value
    elif kind != 'fixed':
        raise ValueError(f'joint type {kind} is not handled')
    return out


def link_poses(robot, values: Dict[str, float]) -> Dict[str, np.ndarray]:
    """(4, 4) pose of every link in the root link's frame at joint ``values`` (missing
    joints at 0)."""
    joints = {j.name: j for j in robot.joints}

    def value(name: str) -> float:
        joint = joints[name]
        if joint.mimic is not None:
            return (joint.mimic.multiplier if joint.mimic.multiplier is not None else 1.0) \
                * value(joint.mimic.joint) + (joint.mimic.offset or 0.0)
        return float(values.get(name, 0.0))

    by_child = {j.child: j for j in robot.joints}
    poses: Dict[str, np.ndarray] = {}

    def pose(link: str) -> np.ndarray:
        if link not in poses:
            joint = by_child.get(link)
            poses[link] = np.eye(4) if joint is None else pose(joint.parent) @ _origin(
                joint.origin) @ _axis_motion(joint.type, joint.axis, value(joint.name))
        return poses[link]

    for link in robot.links:
        pose(link.name)
    return poses


@functools.lru_cache(maxsize=None)
def load_mesh(path: str) -> trimesh.Trimesh:
    """A mesh file as trimesh (cached; HEBI's STLs are binary with a ``solid`` header)."""
    return trimesh.load(path, force='mesh')


@functools.lru_cache(maxsize=None)
def primitive(kind: str, size: tuple) -> trimesh.Trimesh:
    if kind == 'box':
        return trimesh.creation.box(extents=size)
    if kind == 'cylinder':
        return trimesh.creation.cylinder(radius=size[0], height=size[1],
                                         sections=CYLINDER_SECTIONS)
    return trimesh.creation.icosphere(subdivisions=4, radius=size[0])


@dataclass
class Part:
    """One visual: a mesh in its own frame, its uniform scale and its pose (m)."""

    mesh: trimesh.Trimesh
    scale: float
    pose: np.ndarray

    @property
    def area(self) -> float:
        return float(self.mesh.area) * self.scale ** 2


def visual_parts(robot, values: Dict[str, float], resolve=local_mesh_path,
                 links=None) -> List[Part]:
    """Every ``<visual>`` of a parsed URDF (of ``links`` only, when given), posed at
    joint ``values``.

    Raises:
        AssertionError: a mesh reference that does not resolve to a file, or a
            non-uniform scale.
    """
    poses = link_poses(robot, values)
    parts = []
    for link in robot.links:
        if links is not None and link.name not in links:
            continue
        for visual in link.visuals:
            geometry = visual.geometry
            pose = poses[link.name] @ _origin(visual.origin)
            if hasattr(geometry, 'filename'):
                path = resolve(geometry.filename)
                assert path, f'{link.name}: mesh {geometry.filename} not found'
                scale = geometry.scale or (1.0, 1.0, 1.0)
                assert len(set(scale)) == 1, scale
                parts.append(Part(load_mesh(path), float(scale[0]), pose))
            elif hasattr(geometry, 'size'):
                parts.append(Part(primitive('box', tuple(geometry.size)), 1.0, pose))
            elif hasattr(geometry, 'length'):
                parts.append(Part(primitive('cylinder', (geometry.radius, geometry.length)),
                                  1.0, pose))
            else:
                parts.append(Part(primitive('sphere', (geometry.radius,)), 1.0, pose))
    return parts


def sample_surface(parts: List[Part], count: int, rng: np.random.Generator) -> np.ndarray:
    """(count, 3) points on the parts' surfaces, uniform by area (m)."""
    areas = np.array([p.area for p in parts])
    counts = rng.multinomial(count, areas / areas.sum())
    points = []
    for part, n in zip(parts, counts):
        if n:
            local, _ = trimesh.sample.sample_surface(part.mesh, int(n),
                                                     seed=int(rng.integers(2 ** 31)))
            points.append(local * part.scale @ part.pose[:3, :3].T + part.pose[:3, 3])
    return np.concatenate(points)


@functools.lru_cache(maxsize=None)
def _bvh(mesh: trimesh.Trimesh, scale: float):
    import fcl
    model = fcl.BVHModel()
    model.beginModel(len(mesh.vertices), len(mesh.faces))
    model.addSubModel(mesh.vertices * scale, mesh.faces)
    model.endModel()
    return model


def distances_to(parts: List[Part], points: np.ndarray) -> np.ndarray:
    """(n,) distance from each point to the nearest triangle of ``parts``, m: python-fcl's
    sphere-to-mesh distance with a point-sized sphere (GJK, within 1e-6 m), all parts in
    one broadphase (dynamic AABB tree); :func:`closest_distances` is trimesh's, 5x
    slower, and checked to agree."""
    import fcl
    objects = [fcl.CollisionObject(_bvh(p.mesh, p.scale),
                                   fcl.Transform(p.pose[:3, :3], p.pose[:3, 3]))
               for p in parts]
    manager = fcl.DynamicAABBTreeCollisionManager()
    manager.registerObjects(objects)
    manager.setup()
    probe = fcl.CollisionObject(fcl.Sphere(1e-12), fcl.Transform())
    out = np.empty(len(points))
    for i, point in enumerate(points):
        probe.setTranslation(point)
        data = fcl.DistanceData()
        manager.distance(probe, data, fcl.defaultDistanceCallback)
        out[i] = max(data.result.min_distance, 0.0)
    return out


def closest_distances(parts: List[Part], points: np.ndarray) -> np.ndarray:
    """The same as :func:`distances_to` with trimesh.proximity.closest_point per part, in
    the part's frame; parts whose bounding box is farther than the best distance so far
    are skipped."""
    best = np.full(len(points), np.inf)
    locals_, bounds = [], []
    for part in parts:
        inverse = np.linalg.inv(part.pose)
        local = (points @ inverse[:3, :3].T + inverse[:3, 3]) / part.scale
        low, high = part.mesh.bounds
        gap = np.maximum(np.maximum(low - local, local - high), 0.0)
        locals_.append(local)
        bounds.append(np.linalg.norm(gap, axis=1) * part.scale)
    bounds = np.array(bounds)
    nearest = np.argmin(bounds, axis=0)
    # each point against the part whose box is nearest first (a small search), then
    # against every other part whose box is nearer than the distance found
    for first in (True, False):
        for k in range(len(parts)):
            mask = nearest == k if first else (nearest != k) & (bounds[k] < best)
            todo = np.flatnonzero(mask)
            if len(todo):
                _, distance, _ = trimesh.proximity.closest_point(parts[k].mesh,
                                                                 locals_[k][todo])
                best[todo] = np.minimum(best[todo], distance * parts[k].scale)
    return best
