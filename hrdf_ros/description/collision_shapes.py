"""Collision geometry of a robot's links, as python-fcl objects with bounding boxes.

In: each link's collision geometry as :class:`CollisionGeometry` (from the description's
link shapes, :func:`geometry_of_shape`, or a URDF document read by
:func:`hrdf_ros.export.urdf_structure.urdf_collisions`). Out: :class:`CollisionShapes`,
one :class:`LinkShape` per shape (box, cylinder, sphere, or a local STL/OBJ mesh), with
its pose in the link frame and an oriented bounding box used by :mod:`.collision_matrix`
to skip pairs that cannot touch.

URDF conventions (the same as MoveIt's and FCL's): a box is centred on its origin, a
cylinder is centred with its axis along z, a mesh is scaled by ``scale`` then placed at
``origin``. Units: m.

A mesh that cannot be read here (a ``package://`` or web URL, a missing file, a format
other than binary/ASCII STL or OBJ) makes its link *opaque*: its collision pairs are
never disabled by sampling (only ``Adjacent``), since nothing can be said about them.

python-fcl (PyPI ``python-fcl``, BSD) is imported on first use; :func:`require_fcl`
raises a clear error when it is missing.
"""
from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple
from urllib.parse import unquote, urlparse

import numpy as np

from .. import reproducible
from ..numbers import LENGTH, RATIO, rounded
from .structure import written_pose

#: Install hint printed when python-fcl is missing.
FCL_HINT = ('the self-collision matrix needs python-fcl: pip install python-fcl '
            '(or pass samples=0 / --collision-samples 0 to keep only Adjacent pairs)')


def require_fcl():
    """The ``fcl`` module (python-fcl).

    Raises:
        ImportError: with an install hint when python-fcl is not installed.
    """
    try:
        import fcl  # noqa: PLC0415 - optional dependency, imported on use
    except ImportError as exc:
        raise ImportError(f'{FCL_HINT} ({exc})') from None
    return fcl


@dataclass(frozen=True)
class CollisionGeometry:
    """One collision shape of a link, as a URDF ``<collision>`` states it.

    Attributes:
        kind: ``box``, ``cylinder``, ``sphere`` or ``mesh`` (``''`` with ``error``).
        size: box (x, y, z) sizes; cylinder (radius, length); sphere (radius,); mesh
            (x, y, z) scale. m.
        pose: (4, 4) pose of the shape in the link frame (a box and a cylinder centred
            on it, a cylinder along its z axis; a mesh scaled, then placed).
        filename: a mesh's URI or path.
        error: why the shape cannot be read (its link is then opaque).
    """

    kind: str
    size: Tuple[float, ...]
    pose: np.ndarray
    filename: str = ''
    error: str = ''


def geometry_of_shape(shape) -> CollisionGeometry:
    """The :class:`CollisionGeometry` of a description shape
    (:class:`~hrdf_ros.parts.geometry.Shape`), as the URDF states it: its numbers as
    written (:mod:`hrdf_ros.numbers`), the pose as translation and fixed-axis
    roll-pitch-yaw, the rotation rebuilt from those angles (what MoveIt and every URDF
    reader check for collisions)."""
    pose = written_pose(shape.pose)
    if shape.kind == 'mesh':
        return CollisionGeometry('mesh', (rounded(shape.size[0], RATIO),) * 3, pose,
                                 shape.filename)
    return CollisionGeometry(shape.kind, tuple(rounded(v, LENGTH) for v in shape.size), pose)


@dataclass
class LinkShape:
    """One collision shape.

    Attributes:
        link: index of its link in :attr:`CollisionShapes.links`.
        kind: ``box``, ``cylinder``, ``sphere`` or ``mesh``.
        obb_pose: (4, 4) pose of the shape's bounding box centre in the link frame.
        half_extents: (3,) half sizes of that box along its axes, m; the box contains
            the shape.
        geometry: the fcl geometry, placed with :attr:`shape_pose`.
        shape_pose: (4, 4) pose of the fcl geometry in the link frame.
    """

    link: int
    kind: str
    obb_pose: np.ndarray
    half_extents: np.ndarray
    geometry: object
    shape_pose: np.ndarray


@dataclass
class CollisionShapes:
    """The collision geometry of every link that has some.

    Attributes:
        links: names of links with at least one ``<collision>`` (MoveIt's
            ``getLinkModelNamesWithCollisionGeometry``), URDF order.
        shapes: the loadable shapes.
        opaque: links with geometry that could not be loaded (see module docstring),
            with the reason.
    """

    links: List[str]
    shapes: List[LinkShape]
    opaque: Dict[str, str] = field(default_factory=dict)


def _translation(offset) -> np.ndarray:
    pose = np.eye(4)
    pose[:3, 3] = offset
    return pose


def _read_stl(data: bytes) -> np.ndarray:
    """(n, 3, 3) triangle corners of a binary or ASCII STL file."""
    if len(data) >= 84:
        count = struct.unpack_from('<I', data, 80)[0]
        if 84 + 50 * count == len(data):
            records = np.frombuffer(data, dtype=np.dtype([
                ('normal', '<f4', 3), ('corners', '<f4', (3, 3)), ('attr', '<u2')]),
                count=count, offset=84)
            return records['corners'].astype(float)
    words = data.decode('ascii', errors='replace').split()
    vertices = [[float(words[i + 1]), float(words[i + 2]), float(words[i + 3])]
                for i, word in enumerate(words) if word == 'vertex']
    if not vertices or len(vertices) % 3:
        raise ValueError('not a binary or ASCII STL file')
    return np.array(vertices, dtype=float).reshape(-1, 3, 3)


def _read_obj(data: bytes) -> np.ndarray:
    """(n, 3, 3) triangle corners of a Wavefront OBJ file (faces fanned)."""
    vertices, triangles = [], []
    for line in data.decode('utf-8', errors='replace').splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == 'v':
            vertices.append([float(v) for v in parts[1:4]])
        elif parts[0] == 'f':
            corners = [int(p.split('/')[0]) for p in parts[1:]]
            corners = [c - 1 if c > 0 else len(vertices) + c for c in corners]
            triangles.extend((corners[0], corners[k], corners[k + 1])
                             for k in range(1, len(corners) - 1))
    if not triangles:
        raise ValueError('no faces in OBJ file')
    return np.array(vertices, dtype=float)[np.array(triangles)]


def _mesh_path(filename: str) -> Tuple[Optional[str], str]:
    """(local path or None, reason when None) of a URDF mesh filename."""
    parsed = urlparse(filename)
    if parsed.scheme in ('', 'file'):
        path = unquote(parsed.path) if parsed.scheme else filename
        if not os.path.isfile(path):
            return None, f'mesh file {path} not found'
        if os.path.splitext(path)[1].lower() not in ('.stl', '.obj'):
            return None, f'mesh {path}: only STL and OBJ meshes are read'
        return path, ''
    return None, f'mesh {filename} is not a local file'


def mesh_triangles(geometry: CollisionGeometry,
                   cache: Optional[Dict[str, np.ndarray]] = None) -> np.ndarray:
    """(n, 3, 3) corners of a mesh geometry's triangles, scaled, in the mesh's frame (m).

    Args:
        geometry: a ``mesh`` :class:`CollisionGeometry` (a local STL or OBJ file).
        cache: file path -> unscaled triangles, filled and reused.

    Raises:
        ValueError: the mesh is no local STL/OBJ file, or cannot be read.
        OSError: the file cannot be opened.
    """
    cache = {} if cache is None else cache
    path, reason = _mesh_path(geometry.filename)
    if path is None:
        raise ValueError(reason)
    if path not in cache:
        with open(path, 'rb') as handle:
            data = handle.read()
        reader = _read_stl if path.lower().endswith('.stl') else _read_obj
        try:
            cache[path] = reader(data)
        except (ValueError, IndexError, struct.error) as exc:
            raise ValueError(f'mesh {path}: {exc}') from None
    return cache[path] * np.array(geometry.size, dtype=float)


def _mesh(fcl, geometry: CollisionGeometry, cache: Dict[str, np.ndarray]):
    """(fcl geometry, centre, half extents) of a mesh in its own (scaled) frame."""
    corners = mesh_triangles(geometry, cache)
    vertices = corners.reshape(-1, 3)
    model = fcl.BVHModel()
    model.beginModel(len(vertices), len(corners))
    model.addSubModel(vertices, np.arange(len(vertices)).reshape(-1, 3))
    model.endModel()
    low, high = vertices.min(axis=0), vertices.max(axis=0)
    return model, (low + high) / 2, np.maximum((high - low) / 2, 1e-9)


def _shape(fcl, geometry: CollisionGeometry, cache):
    """(fcl geometry, bounding-box centre, half extents) of one shape."""
    if geometry.error:
        raise ValueError(geometry.error)
    if geometry.kind == 'box':
        size = np.array(geometry.size, dtype=float)
        return fcl.Box(*size), np.zeros(3), size / 2
    if geometry.kind == 'cylinder':
        radius, length = geometry.size
        return fcl.Cylinder(radius, length), np.zeros(3), np.array([radius, radius, length / 2])
    if geometry.kind == 'sphere':
        radius = geometry.size[0]
        return fcl.Sphere(radius), np.zeros(3), np.full(3, radius)
    if geometry.kind == 'mesh':
        return _mesh(fcl, geometry, cache)
    raise ValueError(f'unsupported geometry {geometry.kind}')


def collision_shapes(links: Sequence[Tuple[str, Sequence[CollisionGeometry]]]
                     ) -> CollisionShapes:
    """Every link's collision geometry as fcl geometry.

    Args:
        links: ``[(link, its shapes)]`` of the links with collision geometry, in link
            order.

    Returns:
        The shapes; links whose geometry cannot be read are listed as opaque.

    Raises:
        ImportError: python-fcl missing (:func:`require_fcl`).
    """
    fcl = require_fcl()
    names, shapes, opaque, cache = [], [], {}, {}
    for name, geometries in links:
        if not geometries:
            continue
        index = len(names)
        names.append(name)
        found = []
        try:
            for geometry in geometries:
                shape, centre, half = _shape(fcl, geometry, cache)
                pose = reproducible.compose(geometry.pose, _translation(centre))
                found.append(LinkShape(index, geometry.kind, pose, half, shape, geometry.pose))
        except (ValueError, TypeError, AttributeError, OSError) as exc:
            opaque[name] = str(exc)
            continue
        shapes.extend(found)
    return CollisionShapes(names, shapes, opaque)
