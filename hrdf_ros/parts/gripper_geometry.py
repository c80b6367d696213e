"""What each link of the parallel gripper looks like: its visual and collision shapes.

In: a gripper part name (``base`` or one of :data:`hrdf_ros.kinematics.gripper.PART_NAMES`)
and where HEBI's meshes come from (:class:`~hrdf_ros.parts.mesh_sources.MeshSource`).
Out: (visual, collision) :class:`~hrdf_ros.parts.geometry.Shape` lists in that part's
link frame (m), which is the frame of HEBI's link of the same part in
``hebi_description`` ``urdf/components/end_effector.xacro``.

Visuals: the part's pieces in :mod:`.hebi_parts` (HEBI's meshes, placed by HEBI's visual
origins, in HEBI's colours; HEBI's own cylinders for the base disc and the jaw pins),
drawn by the mesh source's rule (the mesh, or the boxes fitted to it when the source has
no meshes), so a gripper link looks the same as the rigid gripper's body at position 0.

Collision: the base disc, the fingers and the jaws only, each one box around its part's
mesh in HEBI's description (bounding boxes of the STL files, placed by HEBI's visual
origins, rounded to 0.1 mm), HEBI's own cylinder for the base disc. HEBI gives its finger
and jaw meshes collision geometry (and its pinion, which hrdf_ros leaves out). The hub,
pinion, linkages and pins have none: shapes around them overlap the fingers at rest,
which a simulator that checks a robot's own links against each other (Drake, MuJoCo)
takes for contact, jamming the gripper (measured in Drake); the three kept never touch
one another over the gripper's range, except each finger and the base disc it is
jointed to, a pair simulators and MoveIt leave out. (The rigid gripper of
``gripper_joints=False`` is one link with every body's fitted shapes, :mod:`.geometry`.)
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from ..kinematics import gripper as mechanism
from .geometry import Shape, piece_visuals
from .hebi_parts import gripper_pieces, pose
from .mesh_sources import MeshSource


def _box(size, centre) -> Shape:
    return Shape('box', tuple(size), pose(centre))


#: Collision shape per colliding part kind: boxes with the size and centre (m) of the
#: bounding box of HEBI's mesh in the link frame; the base: HEBI's visual cylinder.
_COLLISION: Dict[str, Shape] = {
    'base': Shape('cylinder', (0.0225, 0.0075), pose((0.0, 0.0, 0.00375))),
    'finger': _box((0.012, 0.0355, 0.0099), (0.0, 0.0122, 0.0004)),       # PM-2221-01
    'jaw': _box((0.012, 0.0155, 0.054), (0.0, -0.0038, 0.0234)),          # PM-2360-02
}


def gripper_part_shapes(part: str, source: MeshSource) -> Tuple[List[Shape], List[Shape]]:
    """(visual, collision) shapes of one gripper part in its link frame.

    Args:
        part: ``base`` or a part name (``l_finger``, ``r_jaw``, ``hub``...).
        source: where HEBI's meshes come from (primitives: the fitted boxes are drawn).

    Raises:
        KeyError: for an unknown part.
    """
    body = 'base' if part == 'base' else mechanism.part(part).hebi_name
    visual = [shape for piece in gripper_pieces() if piece.body == body
              for shape in piece_visuals(piece, source)]
    kind = part[2:] if part.startswith(('l_', 'r_')) else part
    collision = [_COLLISION[kind]] if kind in _COLLISION else []
    return visual, collision
