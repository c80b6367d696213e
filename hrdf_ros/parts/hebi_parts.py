"""HEBI's parts as HEBI draws them: which mesh, where, in which colour.

In: an :class:`~hrdf_ros.model.Element` (actuator, bracket, link, end effector). Out: its
:class:`Piece` list (:func:`part_pieces`): every mesh of HEBI's description package
``hebi_description`` (file name in its ``meshes/`` folder, binary STL in millimetres,
scaled by :data:`MESH_SCALE`) or primitive (HEBI's own link tube and gripper cylinders),
each with its pose in the element's input frame (m) and its colour name
(:data:`COLOURS`). An element HEBI has no mesh for (R25/T25 series, rigid bodies,
HRDF joints, Custom end effectors) gives no pieces.

Source: the placement, scale and colours of ``hebi_description``'s
``urdf/components/*.xacro`` (HebiRobotics/hebi_description, commit 49ee000, the
reference this module was written from and is tested against: ``test_hebi_visuals.py``
poses HEBI's kit URDFs, expanded by the real xacro, next to ours). Where HEBI's xacro and
HEBI's kinematics library (hebi-py 2.16.1) disagree, the frames are hebi-py's: a link's
output cap is placed on the link's output frame as hebi-py computes it (HEBI's xacro
twists a RightAngle-to-Inline link's output the other way), and actuators keep hebi-py's
output heights. The list is in doc/explanation/meshes.md.

The parallel gripper (``X5Parallel``, ``R8Parallel``) is HEBI's assembly of 13 bodies
(:data:`GRIPPER_BODIES`: hub, pinion, and per finger side ``l``/``r`` the finger, outer
and inner linkages, the gripper pad and its bend), placed at gripper position 0 (every
finger joint at 0, as HEBI's mimic joints give at 0). :func:`gripper_pieces` lists each
body's pieces in that body's own frame, for models whose fingers move.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

from .. import reproducible
from ..kinematics import gripper as mechanism
from ..kinematics.rotations import rpy_to_rotation
from ..model import Element

#: hebi_description's STL files are in millimetres.
MESH_SCALE = 0.001
#: RGBA of HEBI's materials (hebi_description ``urdf/components/hebi.xacro``); the
#: material names in the URDF are these keys.
COLOURS: Dict[str, Tuple[float, float, float, float]] = {
    'hebi_red': (0.82, 0.06, 0.06, 1.0),
    'hebi_black': (0.1, 0.1, 0.1, 1.0),
    'hebi_silver': (0.6, 0.6, 0.6, 1.0),
    'hebi_tangerine': (0.91, 0.43, 0.218, 1.0),
    'hebi_beige': (0.96, 0.945, 0.871, 1.0),
}
#: Colour of a part by its series letter (X red, T tangerine, R black), for meshes and
#: for the primitives of parts without a mesh.
SERIES_COLOURS = {'X': 'hebi_red', 'T': 'hebi_tangerine', 'R': 'hebi_black'}
#: HEBI's link tube: radius, and how much shorter than the extension it is, m.
TUBE_RADIUS = 0.016
TUBE_SHORTENING = 0.0254


@dataclass(frozen=True)
class Piece:
    """One mesh or primitive of a HEBI part.

    Attributes:
        mesh: file name in ``hebi_description/meshes`` (STL, mm), or ``None`` for a
            primitive.
        pose: (4, 4) pose of the mesh (before scaling by :data:`MESH_SCALE`) or of the
            primitive (URDF conventions: centred, cylinder axis along z), m.
        colour: a key of :data:`COLOURS`.
        primitive: ``('cylinder', (radius, length))`` or ``('box', (x, y, z))`` in m,
            when ``mesh`` is ``None``.
        body: the gripper body it belongs to (a key of :data:`GRIPPER_BODIES`), ``''``
            for the element itself.
    """

    mesh: Optional[str]
    pose: np.ndarray
    colour: str
    primitive: Optional[Tuple[str, Tuple[float, ...]]] = None
    body: str = ''


def pose(xyz=(0.0, 0.0, 0.0), rpy=(0.0, 0.0, 0.0)) -> np.ndarray:
    """(4, 4) transform: translation ``xyz`` (m), URDF roll-pitch-yaw ``rpy`` (rad)."""
    out = np.eye(4)
    out[:3, :3] = rpy_to_rotation(*rpy)
    out[:3, 3] = xyz
    return out


_PI = math.pi


def _mesh(name: str, colour: str, xyz=(0.0, 0.0, 0.0), rpy=(0.0, 0.0, 0.0),
          body: str = '') -> Piece:
    return Piece(name, pose(xyz, rpy), colour, body=body)


# -- actuators: one mesh in the input frame ------------------------------------------
_ACTUATOR_MESHES = {'X5': 'X5.stl', 'X8': 'X8.stl', 'R8': 'R8.stl', 'T5': 'T5.stl',
                    'T8': 'T8.stl'}


def actuator_pieces(actuator_type: str) -> List[Piece]:
    """``X5-9`` and the like: the family's mesh, coloured by series; [] for R25/T25."""
    family = actuator_type.split('-')[0]
    mesh = _ACTUATOR_MESHES.get(family)
    return [] if mesh is None else [_mesh(mesh, SERIES_COLOURS[family[0]])]


# -- brackets ----------------------------------------------------------------------------
def _x5_heavy(side: str, mount: str) -> List[Piece]:
    # the base plate (PM-2149-01), and the side plate (PM-2150-01L/R) on the mount side
    right = side == 'Right'
    outside = mount == 'Outside'
    base_yaw = _PI / 2 if right == outside else -_PI / 2
    plate_y = (-0.03 if outside else 0.03) * (1 if right else -1)
    return [_mesh('PM-2149-01.stl', 'hebi_black', (0.0, 0.0, 0.005), (_PI / 2, 0.0, base_yaw)),
            _mesh(f'PM-2150-01{side[0]}.stl', 'hebi_black', (0.0, plate_y, 0.04),
                  (_PI / 2, 0.0, 0.0 if right else _PI))]


def bracket_pieces(bracket_type: str) -> List[Piece]:
    """``X5LightLeft``, ``R8HeavyRightOutside`` and the like; [] for R25 brackets."""
    for prefix in ('X5Light', 'R8Light', 'X5Heavy', 'R8Heavy'):
        if bracket_type.startswith(prefix):
            rest = bracket_type[len(prefix):]
            break
    else:
        return []
    side = 'Left' if rest.startswith('Left') else 'Right'
    mount = rest[len(side):]
    if prefix == 'X5Light':
        return [_mesh(f'PM-2132-01{side[0]}.stl', 'hebi_beige', rpy=(
            _PI / 2, 0.0, _PI / 2 if side == 'Left' else -_PI / 2))]
    if prefix == 'R8Light':
        return [_mesh('A-2220-01.stl', 'hebi_black',
                      rpy=(0.0, 0.0, _PI if side == 'Left' else 0.0))]
    if prefix == 'X5Heavy':
        return _x5_heavy(side, mount)
    flipped = (side == 'Left') == (mount == 'Outside')
    return [_mesh(f'A-2221-01-{mount}.stl', 'hebi_black',
                  rpy=(0.0, 0.0, _PI if flipped else 0.0))]


# -- links: input cap, tube, output cap ----------------------------------------------------
_INPUT_CAPS = {'RightAngle': 'A-2038-02.stl', 'Inline': 'A-2225-01.stl'}
_OUTPUT_CAPS = {'RightAngle': 'A-2039-02.stl', 'Inline': 'A-2226-01.stl'}
#: Output cap pose in the link's output frame, by output style: HEBI's inline cap is
#: turned a quarter turn about the output axis.
_OUTPUT_CAP_POSES = {'RightAngle': np.eye(4), 'Inline': pose(rpy=(0.0, 0.0, _PI / 2))}


def link_pieces(element: Element) -> List[Piece]:
    """A tube link of type X5 or R8 (HEBI's caps fit both): input cap at the input frame,
    the tube (HEBI's radius, extension - 25.4 mm long, none when that is not positive),
    output cap on the output frame; [] for R25 links or without link geometry."""
    link = element.link
    if link is None or element.type not in ('X5', 'R8'):
        return []
    pieces = [_mesh(_INPUT_CAPS[link.input], 'hebi_black')]
    length = link.extension - TUBE_SHORTENING
    if length > 0.0:
        if link.input == 'RightAngle':
            tube = pose((link.extension / 2, 0.0, link.half_height), (0.0, _PI / 2, 0.0))
        else:
            tube = pose((0.0, 0.0, link.extension / 2))
        pieces.append(Piece(None, tube, 'hebi_black', ('cylinder', (TUBE_RADIUS, length))))
    output = reproducible.compose(element.outputs[0], _OUTPUT_CAP_POSES[link.output])
    pieces.append(Piece(_OUTPUT_CAPS[link.output], output, 'hebi_black'))
    return pieces


# -- the parallel gripper ----------------------------------------------------------------
def _gripper_bodies() -> Dict[str, Tuple[str, np.ndarray]]:
    """HEBI's bodies from the mechanism (:mod:`hrdf_ros.kinematics.gripper`, the one
    place its joint origins are written), renamed to HEBI's link names."""
    hebi_name = {p.name: p.hebi_name for p in mechanism.PARTS}
    bodies = {'base': ('', np.eye(4))}
    for p in mechanism.PARTS:
        bodies[p.hebi_name] = (hebi_name.get(p.parent, 'base'), p.origin)
    return bodies


#: The gripper's bodies as HEBI names them (its links ``<end effector>/<body>``;
#: ``base`` is the end effector's own link, at its input frame): ``{body: (parent body,
#: (4, 4) pose in the parent at gripper position 0)}``, parents first.
GRIPPER_BODIES: Dict[str, Tuple[str, np.ndarray]] = _gripper_bodies()


def gripper_pieces() -> List[Piece]:
    """The parallel gripper's pieces, each in the frame of its :attr:`Piece.body`."""
    pieces = [Piece(None, pose((0.0, 0.0, 0.00375)), 'hebi_black',
                    ('cylinder', (0.0225, 0.0075)), 'base'),
              _mesh('PM-2357-02.stl', 'hebi_black', (-0.0225, 0.0225, 0.0), (_PI / 2, 0, 0),
                    'center_hub'),
              _mesh('PM-2291-01.stl', 'hebi_silver', (-0.0145, -0.008, 0.0038),
                    (_PI / 2, 0.0, _PI / 2), 'center_pinion')]
    for side in ('l', 'r'):
        pieces += [
            _mesh('PM-2221-01.stl', 'hebi_silver', (-0.006, -0.0055, -0.0045),
                  (_PI / 2, 0.0, _PI / 2), f'{side}_finger'),
            _mesh('PM-2358-02.stl', 'hebi_black', (-0.0115, 0.029, -0.004), (_PI / 2, 0, 0),
                  f'{side}_outer_linkage'),
            _mesh('PM-2360-02.stl', 'hebi_black', (-0.006, -0.0115, -0.0036),
                  (_PI / 2, 0.0, _PI / 2), f'{side}_gripper'),
            Piece(None, pose(rpy=(0.0, _PI / 2, 0.0)), 'hebi_silver',
                  ('cylinder', (0.002, 0.02)), f'{side}_gripper_bend'),
            _mesh('PM-2359-02.stl', 'hebi_black', (-0.0115, -0.004, -0.004),
                  body=f'{side}_inner_linkage')]
    return pieces


def gripper_body_poses() -> Dict[str, np.ndarray]:
    """(4, 4) pose of every gripper body in the gripper's input frame, position 0."""
    poses: Dict[str, np.ndarray] = {}
    for body, (parent, origin) in GRIPPER_BODIES.items():
        poses[body] = origin if not parent else reproducible.compose(poses[parent], origin)
    return poses


def end_effector_pieces(end_effector_type: str) -> List[Piece]:
    """A parallel gripper's pieces in its input frame at position 0; [] for Custom."""
    if not (end_effector_type or '').endswith('Parallel'):
        return []
    poses = gripper_body_poses()
    return [Piece(p.mesh, reproducible.compose(poses[p.body], p.pose), p.colour, p.primitive,
                  p.body) for p in gripper_pieces()]


def part_pieces(element: Element) -> List[Piece]:
    """The pieces HEBI draws an element with, in its input frame ([] when HEBI has no
    mesh for it: the caller draws primitives)."""
    if element.kind == 'actuator':
        return actuator_pieces(element.type or '')
    if element.kind == 'bracket':
        return bracket_pieces(element.type or '')
    if element.kind == 'link':
        return link_pieces(element)
    if element.kind == 'end-effector':
        return end_effector_pieces(element.type or '')
    return []


def mesh_files() -> List[str]:
    """Every hebi_description mesh file a part uses, sorted."""
    names = set(_ACTUATOR_MESHES.values()) | set(_INPUT_CAPS.values()) \
        | set(_OUTPUT_CAPS.values())
    for side in ('Left', 'Right'):
        for kind in ('X5Light', 'R8Light'):
            names.update(p.mesh for p in bracket_pieces(kind + side))
        for kind in ('X5Heavy', 'R8Heavy'):
            for mount in ('Inside', 'Outside'):
                names.update(p.mesh for p in bracket_pieces(kind + side + mount))
    names.update(p.mesh for p in gripper_pieces() if p.mesh)
    return sorted(names)
