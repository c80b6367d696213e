"""Visual and collision geometry of HEBI elements, for the URDF and SDFormat.

In: an :class:`~hrdf_ros.model.Element` (and where its mesh is, see
:func:`element_geometry`). Out: :class:`Shape` lists for ``<visual>`` and
``<collision>``, in the element's input frame.

Simple primitives sized to each module, so that RViz shows a recognisable robot with no
extra packages; an HRDF ``mesh_path`` replaces them; HEBI's own meshes from the
``hebi_description`` package can be used for actuators instead.

Meshes: a web mesh (``http(s)://``) is drawn (``<visual>``; RViz fetches it) but never
used for collision, where the element's primitives stand in (simulators and planners
cannot open URLs); a local mesh file serves both; a local mesh file that does not exist
is replaced by the primitives in both.

Every shape is placed in the element's *input* frame (its URDF link frame), m. Sizes
are approximations of the modules' outer dimensions (HEBI data sheets: X-series housing
110 x 74 mm, R8 and T-series similar footprints; link tubes 25 mm) and are meant for
display and coarse collision checking, not for dynamics (mass properties come from the
catalogue).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from ..model import Element

#: Housing footprint (length along x, width along y) of actuators by series, m.
_HOUSING = {'X': (0.110, 0.074), 'R8': (0.122, 0.085), 'R25': (0.160, 0.120)}
#: Radius of link tubes and of the segments drawn for brackets and rigid bodies, m.
TUBE_RADIUS = 0.0125
#: Radius of the output disc drawn on actuators, m.
OUTPUT_RADIUS = 0.02
#: Meshes of HEBI actuators in ``hebi_description`` (input frame, millimetres).
HEBI_ACTUATOR_MESHES = {'X5': 'X5.stl', 'X8': 'X8.stl', 'R8': 'R8.stl', 'T5': 'T5.stl',
                        'T8': 'T8.stl'}


@dataclass
class Shape:
    """One URDF geometry with its pose in the link frame.

    Attributes:
        kind: ``box``, ``cylinder``, ``sphere`` or ``mesh``.
        size: box (x, y, z) m; cylinder (radius, length) m (axis along z); sphere
            (radius,) m; mesh (scale,) (1 for metres, 0.001 for millimetres).
        pose: (4, 4) pose in the link (input) frame.
        filename: mesh file name or URL (meshes only).
    """

    kind: str
    size: Tuple[float, ...]
    pose: np.ndarray
    filename: Optional[str] = None


def _translation(p) -> np.ndarray:
    out = np.eye(4)
    out[:3, 3] = p
    return out


def _segment(start, end, radius: float) -> Optional[Shape]:
    """A cylinder from point ``start`` to ``end`` (input frame), or None when short."""
    start, end = np.asarray(start, float), np.asarray(end, float)
    axis = end - start
    length = float(np.linalg.norm(axis))
    if length < 1e-4:
        return None
    z = axis / length
    # rotation taking +z to z (Rodrigues; the antiparallel case is a half turn about x)
    c = float(z[2])
    if c < -1.0 + 1e-12:
        rotation = np.diag([1.0, -1.0, -1.0])
    else:
        v = np.array([-z[1], z[0], 0.0])
        vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
        rotation = np.eye(3) + vx + vx @ vx / (1.0 + c)
    pose = np.eye(4)
    pose[:3, :3] = rotation
    pose[:3, 3] = (start + end) / 2
    return Shape('cylinder', (radius, length), pose)


def actuator_family(element: Element) -> str:
    """``X5``, ``X8``, ``R8``, ``T5``, ``T8``, ``R25`` or ``T25`` from the actuator type."""
    name = element.type or ''
    return name.split('-')[0]


def element_shapes(element: Element, series: Optional[str] = None,
                   output_height: Optional[float] = None,
                   hebi_meshes: bool = False) -> List[Shape]:
    """Shapes drawing one element, in its input frame.

    Args:
        element: the element.
        series: interface series of an actuator (``X``, ``R8``, ``R25``), for its
            housing size.
        output_height: actuator output height, m.
        hebi_meshes: use ``package://hebi_description/meshes/...`` for actuators that
            have one.

    Returns:
        The shapes (possibly none: HRDF ``joint`` elements are not drawn).
    """
    if element.mesh_file:
        return [Shape('mesh', (1.0,), element.mesh_transform if element.mesh_transform
                      is not None else np.eye(4), element.mesh_file)]
    return primitive_shapes(element, series, output_height, hebi_meshes)


def is_web_url(reference: str) -> bool:
    """True for an ``http://`` or ``https://`` mesh reference."""
    return reference.startswith(('http://', 'https://'))


def element_geometry(element: Element, series: Optional[str] = None,
                     output_height: Optional[float] = None, hebi_meshes: bool = False,
                     mesh: Optional[str] = None) -> Tuple[List[Shape], List[Shape], str]:
    """Visual and collision shapes of one element, and a note when its mesh was replaced.

    Args:
        element, series, output_height, hebi_meshes: as :func:`element_shapes`.
        mesh: the reference to write for the element's mesh (its URL, a ``file://`` URI
            of the file or of a downloaded copy), default ``element.mesh_file``.

    Returns:
        (visual shapes, collision shapes, note); the note is ``''`` unless a missing
        local mesh file was replaced by primitives.
    """
    primitives = primitive_shapes(element, series, output_height, hebi_meshes)
    source = element.mesh_file
    if not source:
        return primitives, primitives, ''
    if not is_web_url(source) and not os.path.isfile(source):
        return primitives, primitives, (f'mesh file {source} not found: primitive shapes '
                                        'instead')
    reference = mesh or source
    pose = element.mesh_transform if element.mesh_transform is not None else np.eye(4)
    visual = [Shape('mesh', (1.0,), pose, reference)]
    return visual, (primitives if is_web_url(reference) else visual), ''


def primitive_shapes(element: Element, series: Optional[str] = None,
                     output_height: Optional[float] = None,
                     hebi_meshes: bool = False) -> List[Shape]:
    """The primitives drawing one element (ignoring its ``mesh_path``), input frame.

    Args: as :func:`element_shapes`.
    """
    outputs = [np.asarray(o)[:3, 3] for o in element.outputs]
    if element.kind == 'actuator':
        family = actuator_family(element)
        if hebi_meshes and family in HEBI_ACTUATOR_MESHES:
            return [Shape('mesh', (0.001,), np.eye(4),
                          f'package://hebi_description/meshes/{HEBI_ACTUATOR_MESHES[family]}')]
        length, width = _HOUSING.get(series or 'X', _HOUSING['X'])
        height = output_height if output_height else 0.04
        com = np.asarray(element.com)[:3, 3]
        # the housing extends from the output axis towards its COM side
        centre = (float(np.clip(1.6 * com[0], -length / 2, length / 2)),
                  float(np.clip(com[1], -width / 2, width / 2)), height / 2)
        disc = _translation((0.0, 0.0, height))
        return [Shape('box', (length, width, height), _translation(centre)),
                Shape('cylinder', (OUTPUT_RADIUS, 0.004), disc @ _translation((0, 0, -0.002)))]
    if element.kind == 'joint':
        return []
    if element.kind == 'end-effector':
        if element.type and 'Parallel' in element.type:
            return [Shape('box', (0.05, 0.10, 0.06), _translation((0.0, 0.0, 0.03)))]
        return [Shape('sphere', (0.015,), np.eye(4))]
    shapes = []
    radius = TUBE_RADIUS if element.kind == 'link' else 0.8 * TUBE_RADIUS
    for point in outputs:
        segment = _segment((0.0, 0.0, 0.0), point, radius)
        if segment is not None:
            shapes.append(segment)
    if element.kind == 'bracket':
        shapes.append(Shape('box', (0.04, 0.04, 0.01), _translation((0.0, 0.0, 0.005))))
    if element.kind == 'rigid-body' and element.mass > 0.0:
        r = max(0.01, min(0.05, 0.03 * math.cbrt(element.mass)))
        shapes.append(Shape('sphere', (r,), _translation(np.asarray(element.com)[:3, 3])))
    return shapes
