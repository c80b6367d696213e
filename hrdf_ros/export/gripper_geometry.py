"""What each link of the parallel gripper looks like: its visual and collision shapes.

In: a gripper part name (``base`` or one of :data:`hrdf_ros.kinematics.gripper.PART_NAMES`).
Out: (visual, collision) :class:`~hrdf_ros.export.geometry.Shape` lists in that part's
link frame (m), which is the frame of HEBI's link of the same part in
``hebi_description`` ``urdf/components/end_effector.xacro`` (so HEBI's ``<visual>
<origin>`` of a part's mesh is its pose here).

:func:`gripper_part_shapes` is the one place the exporters ask; it draws primitives:
boxes around each part's mesh in HEBI's description (bounding boxes of the STL files,
placed by HEBI's visual origins, rounded to 0.1 mm), HEBI's own cylinders for the base
disc and the jaw pins. Collision shapes: the base disc, the fingers and the jaws (HEBI
gives its finger and jaw meshes collision geometry, and its pinion, which hrdf_ros leaves
out). The hub, pinion, linkages and pins are drawn only: their boxes overlap the fingers
at rest, which a simulator that checks a robot's own links against each other (Drake,
MuJoCo) would take for contact and jam the gripper; the three kept never touch one
another over the gripper's range, except each finger and the base disc it is jointed to,
a pair simulators and MoveIt leave out.

Meshes plug in here: a mesh source that places HEBI's part meshes returns, for a part,
``Shape('mesh', (0.001,), pose, uri)`` with ``pose`` = HEBI's visual origin of that part
(or, from a pose in the gripper base frame at position 0, ``inv(zero_poses()[part]) @
pose``, :func:`hrdf_ros.kinematics.gripper.zero_poses`).
"""
from __future__ import annotations

import math
from typing import Dict, List, Tuple

import numpy as np

from ..kinematics.rotations import rpy_to_rotation
from .geometry import Shape


def _pose(xyz, rpy=(0.0, 0.0, 0.0)) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = rpy_to_rotation(*rpy)
    out[:3, 3] = xyz
    return out


def _box(size, centre) -> Shape:
    return Shape('box', tuple(size), _pose(centre))


#: Primitive per part: (shape, has collision). Boxes: size and centre (m) of the bounding
#: box of HEBI's mesh in the link frame; cylinders: HEBI's visual cylinders.
_PRIMITIVES: Dict[str, Tuple[Shape, bool]] = {
    'base': (Shape('cylinder', (0.0225, 0.0075), _pose((0.0, 0.0, 0.00375))), True),
    'hub': (_box((0.045, 0.0431, 0.028), (0.0, 0.0002, 0.014)), False),      # PM-2357-02
    'pinion': (_box((0.029, 0.016, 0.012), (0.0, 0.0, 0.0098)), False),     # PM-2291-01
    'finger': (_box((0.012, 0.0355, 0.0099), (0.0, 0.0122, 0.0004)), True),  # PM-2221-01
    'outer_linkage': (_box((0.023, 0.033, 0.026), (0.0, 0.0125, 0.009)), False),  # PM-2358-02
    'jaw': (_box((0.012, 0.0155, 0.054), (0.0, -0.0038, 0.0234)), True),     # PM-2360-02
    'jaw_pin': (Shape('cylinder', (0.002, 0.02), _pose((0, 0, 0), (0, math.pi / 2, 0))),
                False),
    'inner_linkage': (_box((0.023, 0.008, 0.0519), (0.0, 0.0, 0.0219)), False),  # PM-2359-02
}


def gripper_part_shapes(part: str) -> Tuple[List[Shape], List[Shape]]:
    """(visual, collision) shapes of one gripper part in its link frame.

    Args:
        part: ``base`` or a part name (``l_finger``, ``r_jaw``, ``hub``...).

    Raises:
        KeyError: for an unknown part.
    """
    kind = part if part in _PRIMITIVES else part.split('_', 1)[1]
    shape, collides = _PRIMITIVES[kind]
    return [shape], ([shape] if collides else [])
