"""HEBI's parallel gripper (``X5Parallel``, ``R8Parallel``) as a mechanism: its parts, the
one finger joint that drives them, and where each part is for a gripper position.

In: a gripper position g (rad, the left finger's angle; 0 open .. :data:`GRIPPER_UPPER`
closed), one value or a batch (N,). Out: (4, 4) poses of the gripper's parts in the
gripper's *base frame* (the end-effector element's input frame, where HEBI's library puts
the gripper and its ``EndEffector`` output), and, for the node, each moving part's
transform as the linear form of :mod:`.joint_poses`.

HRDF has no finger degree of freedom (FORMAT.md names only the types); the mechanism is
HEBI's own model, ``hebi_description`` ``urdf/components/end_effector.xacro`` (branch
ros2/jazzy, commit 49ee000): the parts, their joint origins, axes (URDF's default +x:
HEBI writes no ``<axis>``) and mimic rules are HEBI's, with HEBI's names in
:attr:`GripperPart.hebi_name`:

* ``l_finger`` turns about +x by g (HEBI's actuated ``input_l_finger``); ``r_finger``
  mirrors it (multiplier 1); each finger carries a fixed ``outer_linkage``, on which the
  ``jaw`` (HEBI's ``l_gripper``) turns by -g, so the jaws stay parallel; a pin (HEBI's
  ``gripper_bend``) is fixed to each jaw;
* the ``hub`` is fixed to the base; the ``inner_linkage`` s turn on it by g;
* the ``pinion`` is fixed to the hub. HEBI makes it a prismatic mimic joint with
  multiplier 1e-5 m/rad ("don't actually want the pinion to move (only needed for
  gazebo)"); here it does not move (at most 1.2e-5 m from HEBI's at the closed end).

Every moving part follows the finger joint: its angle is ``multiplier * g + offset``, as
robot_state_publisher computes URDF mimic joints. Angles are about +x of the part's
joint frame (the frame after its origin). pi here is Python's (xacro's), not HEBI's
single-precision value: these constants come from the xacro, not from an HRDF.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from .. import reproducible
from ..model import Element
from .joint_poses import rotation_form
from .rotations import rotation_to_quaternion, rpy_to_rotation

#: End-effector types that are HEBI's parallel gripper (FORMAT.md 1.0.0-1.6.0).
PARALLEL_GRIPPER_TYPES = ('X5Parallel', 'R8Parallel')
#: Finger joint range, rad: open .. closed (end_effector.xacro ``input_l_finger`` limit,
#: ``0 .. 0.37*pi``). hebi_hardware reports its spool fraction times 0.365 pi.
GRIPPER_LOWER = 0.0
GRIPPER_UPPER = 0.37 * math.pi
#: The part the finger joint moves directly.
ACTUATED_PART = 'l_finger'
#: Rotation axis of every moving part, in its joint frame (URDF's default axis).
AXIS = (1.0, 0.0, 0.0)


def _origin(xyz, rpy=(0.0, 0.0, 0.0)) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = rpy_to_rotation(*rpy)
    out[:3, 3] = xyz
    return out


@dataclass(frozen=True)
class GripperPart:
    """One rigid part of the gripper (a URDF link) and the joint that carries it.

    Attributes:
        name: part name (``hub``, ``l_finger``, ...), used in link and joint names.
        parent: the part it hangs from; ``''`` for the gripper base.
        origin: (4, 4) joint frame in the parent part's frame (m).
        multiplier: angle per unit gripper position for a moving part (rad/rad), or
            ``None`` for a part fixed to its parent.
        offset: angle at gripper position 0, rad (0 for every part of HEBI's gripper).
        hebi_name: the link name in HEBI's end_effector.xacro.
    """

    name: str
    parent: str
    origin: np.ndarray
    multiplier: Optional[float]
    offset: float
    hebi_name: str

    @property
    def moving(self) -> bool:
        """True when the gripper position moves the part relative to its parent."""
        return self.multiplier is not None

    @property
    def actuated(self) -> bool:
        """True for the part the finger joint drives (the others mimic it)."""
        return self.name == ACTUATED_PART

    def angle(self, position):
        """Joint angle(s), rad, for gripper position(s) (rad); 0 for a fixed part."""
        if not self.moving:
            return 0.0 * np.asarray(position, dtype=float)
        return self.multiplier * np.asarray(position, dtype=float) + self.offset


def _side(side: str) -> Tuple[GripperPart, ...]:
    sign = 1.0 if side == 'l' else -1.0
    yaw = 0.0 if side == 'l' else math.pi
    return (
        GripperPart(f'{side}_finger', '', _origin((0.0, sign * 0.01265, 0.0115), (0, 0, yaw)),
                    1.0, 0.0, f'{side}_finger'),
        GripperPart(f'{side}_outer_linkage', f'{side}_finger', _origin((0.0, 0.015, 0.0)),
                    None, 0.0, f'{side}_outer_linkage'),
        GripperPart(f'{side}_jaw', f'{side}_outer_linkage', _origin((0.0, 0.025, 0.018)),
                    -1.0, 0.0, f'{side}_gripper'),
        GripperPart(f'{side}_jaw_pin', f'{side}_jaw', _origin((0.0, -0.0075, 0.0165)),
                    None, 0.0, f'{side}_gripper_bend'),
    )


#: The parts in tree order (every parent before its children), as end_effector.xacro.
PARTS: Tuple[GripperPart, ...] = (
    GripperPart('hub', '', _origin((0.0, 0.0, 0.0045)), None, 0.0, 'center_hub'),
    GripperPart('pinion', 'hub', np.eye(4), None, 0.0, 'center_pinion'),
    *_side('l'), *_side('r'),
    GripperPart('l_inner_linkage', 'hub',
                _origin((0.0, 0.005, 0.023), (-0.36 * math.pi, 0.0, 0.0)), 1.0, 0.0,
                'l_inner_linkage'),
    GripperPart('r_inner_linkage', 'hub',
                _origin((0.0, -0.005, 0.023), (-0.36 * math.pi, 0.0, math.pi)), 1.0, 0.0,
                'r_inner_linkage'),
)
PART_NAMES = tuple(p.name for p in PARTS)
_BY_NAME: Dict[str, GripperPart] = {p.name: p for p in PARTS}


def part(name: str) -> GripperPart:
    """The :class:`GripperPart` named ``name``.

    Raises:
        KeyError: for an unknown part.
    """
    return _BY_NAME[name]


def is_parallel_gripper(element: Element) -> bool:
    """True for an ``end-effector`` element of type X5Parallel or R8Parallel."""
    return element.is_end_effector and element.type in PARALLEL_GRIPPER_TYPES


def rotation_x(angles) -> np.ndarray:
    """(..., 4, 4) rotations about +x by ``angles`` (rad)."""
    angles = np.asarray(angles, dtype=float)
    out = np.zeros(angles.shape + (4, 4))
    c, s = reproducible.cos(angles), reproducible.sin(angles)
    out[..., 0, 0] = out[..., 3, 3] = 1.0
    out[..., 1, 1], out[..., 1, 2] = c, -s
    out[..., 2, 1], out[..., 2, 2] = s, c
    return out


def part_poses(positions: Sequence[float],
               names: Sequence[str] = PART_NAMES) -> np.ndarray:
    """(N, len(names), 4, 4) poses of parts in the gripper base frame (m) for (N,)
    gripper positions (rad)."""
    positions = np.atleast_1d(np.asarray(positions, dtype=float))
    poses: Dict[str, np.ndarray] = {'': np.broadcast_to(np.eye(4), positions.shape + (4, 4))}
    for p in PARTS:
        local = reproducible.compose(p.origin, rotation_x(p.angle(positions))) \
            if p.moving else p.origin
        poses[p.name] = reproducible.compose(poses[p.parent], local)
    return np.stack([poses[n] for n in names], axis=1)


def zero_poses() -> Dict[str, np.ndarray]:
    """{part: (4, 4) pose in the gripper base frame} at gripper position 0 (open)."""
    poses = part_poses([0.0])[0]
    return {name: poses[k] for k, name in enumerate(PART_NAMES)}


def moving_forms() -> Tuple[Tuple[GripperPart, float, Tuple[float, ...], Tuple[float, ...],
                                  Tuple[float, ...]], ...]:
    """Per moving part ``(part, h, a, b, t)``: its transform from the parent part is the
    quaternion ``sin(g h) a + cos(g h) b`` (x, y, z, w) and the constant translation t (m)
    for gripper position g (:func:`~.joint_poses.rotation_form`; ``h`` = multiplier / 2,
    the offset folded into the constant part)."""
    out = []
    for p in PARTS:
        if p.moving:
            a, b = rotation_form(reproducible.compose(p.origin, rotation_x(p.offset)), AXIS)
            out.append((p, 0.5 * p.multiplier, a, b, tuple(p.origin[:3, 3].tolist())))
    return tuple(out)


def fixed_quaternion(p: GripperPart) -> Tuple[float, ...]:
    """(x, y, z, w) of a fixed part's origin rotation."""
    return tuple(rotation_to_quaternion(p.origin[:3, :3]).tolist())
