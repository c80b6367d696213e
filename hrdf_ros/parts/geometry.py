"""Visual and collision geometry of HEBI elements, for the URDF and SDFormat.

In: an :class:`~hrdf_ros.model.Element`, the export's
:class:`~hrdf_ros.parts.mesh_sources.MeshSource` and, for an HRDF ``mesh_path``, the
reference to write. Out: :class:`Shape` lists for ``<visual>`` and ``<collision>``, in
the element's input frame, visuals with a colour (a key of
:data:`~hrdf_ros.parts.hebi_parts.COLOURS`).

* A part HEBI has meshes for (:func:`~hrdf_ros.parts.hebi_parts.part_pieces`: X5, X8,
  R8, T5, T8 actuators, X5/R8 light and heavy brackets, X5/R8 link caps and tube,
  parallel grippers) is drawn with HEBI's meshes where the mesh source has them, placed
  and coloured as HEBI does; its collision geometry is always the boxes and cylinders
  fitted to those meshes (:mod:`.part_collision`), which also draw a piece whose mesh
  the source lacks. So collision geometry, and the MoveIt collision matrix, are the
  same whichever source the meshes come from.
* Other elements (R25/T25 series, rigid bodies, massive Custom end effectors) get
  primitives sized to the module, coloured like their series (R black, T tangerine;
  rigid bodies black): housing boxes, link tubes, bracket plates, a sphere at the COM of
  a rigid body or end effector with mass. HRDF ``joint`` elements and massless Custom
  end effectors are not drawn (nothing is there).
* An HRDF ``mesh_path`` replaces the primitives: a web mesh (``http(s)://``) is drawn
  (``<visual>``; RViz fetches it) but never used for collision, where the element's
  primitives stand in (simulators and planners cannot open URLs); a local mesh file
  serves both; a local mesh file that does not exist is replaced by the primitives in
  both.

Every shape is placed in the element's *input* frame (its URDF link frame), m. The
primitives of parts without a HEBI mesh approximate the modules' outer dimensions (HEBI
data sheets: R25 housing 160 x 120 mm; link tubes 25 mm) for display and coarse
collision checking, not for dynamics (mass properties come from the catalogue).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from .. import reproducible
from ..model import Element
from .hebi_parts import MESH_SCALE, SERIES_COLOURS, Piece, part_pieces, pose
from .mesh_sources import MeshSource
from .part_collision import SHAPES as FITTED_SHAPES

#: Housing footprint (length along x, width along y) of actuators by series, m.
_HOUSING = {'X': (0.110, 0.074), 'R8': (0.122, 0.085), 'R25': (0.160, 0.120)}
#: Radius of link tubes and of the segments drawn for brackets and rigid bodies, m.
TUBE_RADIUS = 0.0125
#: Radius of the output disc drawn on actuators, m.
OUTPUT_RADIUS = 0.02


@dataclass
class Shape:
    """One URDF geometry with its pose in the link frame.

    Attributes:
        kind: ``box``, ``cylinder``, ``sphere`` or ``mesh``.
        size: box (x, y, z) m; cylinder (radius, length) m (axis along z); sphere
            (radius,) m; mesh (scale,) (1 for metres, 0.001 for millimetres).
        pose: (4, 4) pose in the link (input) frame.
        filename: mesh file name or URL (meshes only).
        material: colour name (a key of :data:`~hrdf_ros.parts.hebi_parts.COLOURS`)
            for visuals, ``None`` for collision shapes.
    """

    kind: str
    size: Tuple[float, ...]
    pose: np.ndarray
    filename: Optional[str] = None
    material: Optional[str] = None


def _translation(p) -> np.ndarray:
    out = np.eye(4)
    out[:3, 3] = p
    return out


def _segment(start, end, radius: float) -> Optional[Shape]:
    """A cylinder from point ``start`` to ``end`` (input frame), or None when short."""
    start, end = np.asarray(start, float), np.asarray(end, float)
    axis = end - start
    length = float(reproducible.norm(axis))
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
        rotation = np.eye(3) + vx + reproducible.matmul(vx, vx) / (1.0 + c)
    pose = np.eye(4)
    pose[:3, :3] = rotation
    pose[:3, 3] = (start + end) / 2
    return Shape('cylinder', (radius, length), pose)


def actuator_family(element: Element) -> str:
    """``X5``, ``X8``, ``R8``, ``T5``, ``T8``, ``R25`` or ``T25`` from the actuator type."""
    name = element.type or ''
    return name.split('-')[0]


def element_colour(element: Element) -> str:
    """Colour of an element drawn with primitives: by series for actuators (X red,
    T tangerine, R black), black otherwise (HEBI's brackets, links and rigid bodies)."""
    if element.kind == 'actuator':
        return SERIES_COLOURS.get(actuator_family(element)[:1], 'hebi_black')
    return 'hebi_black'


def is_web_url(reference: str) -> bool:
    """True for an ``http://`` or ``https://`` mesh reference."""
    return reference.startswith(('http://', 'https://'))


def fitted_shapes(piece: Piece, material: Optional[str] = None) -> List[Shape]:
    """The collision shapes of a HEBI piece (its fitted primitives, or the primitive
    itself), in the frame its pose is given in."""
    if piece.mesh is None:
        return [Shape(piece.primitive[0], tuple(piece.primitive[1]), piece.pose,
                      material=material)]
    return [Shape(kind, tuple(size), reproducible.compose(piece.pose, pose(xyz, rpy)),
                  material=material) for kind, size, xyz, rpy in FITTED_SHAPES[piece.mesh]]


def piece_visuals(piece: Piece, source: MeshSource) -> List[Shape]:
    """A HEBI piece drawn: its mesh when the source has it, else its fitted shapes."""
    reference = None if piece.mesh is None else source.reference(piece.mesh)
    if reference is None:
        return fitted_shapes(piece, piece.colour)
    return [Shape('mesh', (MESH_SCALE,), piece.pose, reference, piece.colour)]


def element_geometry(element: Element, source: MeshSource, mesh: Optional[str] = None,
                     series: Optional[str] = None, output_height: Optional[float] = None
                     ) -> Tuple[List[Shape], List[Shape], str]:
    """Visual and collision shapes of one element, and a note when its mesh was replaced.

    Args:
        element: the element.
        source: where HEBI's part meshes come from.
        mesh: the reference to write for the element's HRDF ``mesh_path`` (its URL, a
            ``file://`` URI of the file or of a local copy;
            :func:`~hrdf_ros.parts.meshes.mesh_references`), ``None``: primitives.
        series: interface series of an actuator (``X``, ``R8``, ``R25``), for the
            housing size of actuators without a HEBI mesh.
        output_height: actuator output height, m.

    Returns:
        (visual shapes, collision shapes, note); the note is ``''`` unless a missing
        local mesh file was replaced by primitives.
    """
    pieces = part_pieces(element)
    if pieces:
        visual = [s for piece in pieces for s in piece_visuals(piece, source)]
        return visual, [s for piece in pieces for s in fitted_shapes(piece)], ''
    colour = element_colour(element)
    collision = primitive_shapes(element, series, output_height)
    visual = [Shape(s.kind, s.size, s.pose, material=colour) for s in collision]
    hrdf_mesh = element.mesh_file
    if not hrdf_mesh or mesh is None:
        return visual, collision, ''
    if not is_web_url(hrdf_mesh) and not os.path.isfile(hrdf_mesh):
        return visual, collision, (f'mesh file {hrdf_mesh} not found: primitive shapes '
                                   'instead')
    reference = mesh
    placed = element.mesh_transform if element.mesh_transform is not None else np.eye(4)
    drawn = [Shape('mesh', (1.0,), placed, reference, colour)]
    mesh_collision = Shape('mesh', (1.0,), placed, reference)
    return drawn, (collision if is_web_url(reference) else [mesh_collision]), ''


def primitive_shapes(element: Element, series: Optional[str] = None,
                     output_height: Optional[float] = None) -> List[Shape]:
    """The primitives drawing one element (ignoring its ``mesh_path`` and HEBI's meshes),
    input frame.

    Args:
        element: the element.
        series: interface series of an actuator (``X``, ``R8``, ``R25``), for its
            housing size.
        output_height: actuator output height, m.
    """
    outputs = [np.asarray(o)[:3, 3] for o in element.outputs]
    if element.kind == 'actuator':
        length, width = _HOUSING.get(series or 'X', _HOUSING['X'])
        height = output_height if output_height else 0.04
        com = np.asarray(element.com)[:3, 3]
        # the housing extends from the output axis towards its COM side
        centre = (float(np.clip(1.6 * com[0], -length / 2, length / 2)),
                  float(np.clip(com[1], -width / 2, width / 2)), height / 2)
        disc = _translation((0.0, 0.0, height))
        return [Shape('box', (length, width, height), _translation(centre)),
                Shape('cylinder', (OUTPUT_RADIUS, 0.004),
                      reproducible.compose(disc, _translation((0, 0, -0.002))))]
    if element.kind == 'joint':
        return []
    if element.kind == 'end-effector':      # grippers are HEBI parts (hebi_parts)
        return [_mass_sphere(element)] if element.mass > 0.0 else []
    shapes = []
    radius = TUBE_RADIUS if element.kind == 'link' else 0.8 * TUBE_RADIUS
    for point in outputs:
        for start, end in _path(point, element.kind == 'rigid-body'):
            segment = _segment(start, end, radius)
            if segment is not None:
                shapes.append(segment)
    if element.kind == 'bracket':
        shapes.append(Shape('box', (0.04, 0.04, 0.01), _translation((0.0, 0.0, 0.005))))
    if element.kind == 'rigid-body' and element.mass > 0.0 \
            and np.asarray(element.com)[2, 3] >= 0.0:
        shapes.append(_mass_sphere(element))
    return shapes


def _path(output, around: bool):
    """The segments from the input frame's origin to an output point: straight; for
    a body bolted to an actuator's output (``around``) whose output lies behind that
    face (z < 0), out along the face to above the output, then back to it."""
    output = np.asarray(output, dtype=float)
    if not around or output[2] >= 0.0:
        return [((0.0, 0.0, 0.0), output)]
    corner = (float(output[0]), float(output[1]), 0.0)
    return [((0.0, 0.0, 0.0), corner), (corner, output)]


def _mass_sphere(element: Element) -> Shape:
    """A sphere at the COM, 1-5 cm radius growing with the cube root of the mass."""
    r = max(0.01, min(0.05, 0.03 * math.cbrt(element.mass)))
    return Shape('sphere', (r,), _translation(np.asarray(element.com)[:3, 3]))
