"""The robot's kinematic tree as its URDF states it: links, joints, types, limits, mimic
rules and which links have collision geometry.

In: a :class:`~.frame_tree.FrameTree`, the :class:`~.joints.JointSpec` of each degree of
freedom and the grippers' :class:`~.gripper.GripperJointSpec` (all in
:class:`~.robot.RobotDescription`). Out: a :class:`LinkTree`, what the semantics
(planning groups, named states, the collision matrix) and the MoveIt files are computed
from. :func:`hrdf_ros.export.urdf_structure.parse_urdf` reads the same structure from a
URDF document; for this package's URDF both agree exactly (limits are rounded where they
are decided, :mod:`.joints`, and the other values here are the numbers as written,
:mod:`hrdf_ros.numbers`). Units: rad (m for prismatic joints), rad/s (m/s).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..kinematics.rotations import rotation_to_rpy, rpy_to_rotation
from ..numbers import ANGLE, LENGTH, POSITION, RATIO, rounded
from .frame_tree import FrameTree
from .gripper import GripperJointSpec
from .joints import JointSpec

#: URDF joint types MoveIt plans for with one position each.
MOVABLE_TYPES = ('revolute', 'continuous', 'prismatic')


@dataclass(frozen=True)
class TreeJoint:
    """A joint as URDF and MoveIt see it.

    Attributes:
        name, type, parent, child: as in the URDF (type: revolute, continuous,
            prismatic or fixed).
        lower, upper: ``<limit>`` position bounds (rad or m), or ``None``.
        velocity: ``<limit velocity>`` (rad/s or m/s), or ``None``.
        mimic: ``(joint, multiplier, offset)`` of a ``<mimic>`` joint, else ``None``.
    """

    name: str
    type: str
    parent: str
    child: str
    lower: Optional[float] = None
    upper: Optional[float] = None
    velocity: Optional[float] = None
    mimic: Optional[Tuple[str, float, float]] = None

    @property
    def is_movable(self) -> bool:
        """True for revolute, continuous and prismatic joints."""
        return self.type in MOVABLE_TYPES

    @property
    def is_active(self) -> bool:
        """A movable joint with a value of its own (not a ``<mimic>`` joint): what
        MoveIt plans for and ros2_control commands."""
        return self.is_movable and self.mimic is None


@dataclass(frozen=True)
class LinkTree:
    """The kinematic tree of a robot as its URDF states it.

    Attributes:
        name: the robot's name (URDF ``<robot name>``).
        links: link names in URDF document order.
        joints: joints in URDF document order.
        root: the one link that is no joint's child.
        collision_links: links with at least one ``<collision>``.
    """

    name: str
    links: List[str]
    joints: List[TreeJoint]
    root: str
    collision_links: frozenset

    def parent_joint(self) -> Dict[str, TreeJoint]:
        """child link -> the joint that carries it."""
        return {j.child: j for j in self.joints}


def written_pose(transform) -> np.ndarray:
    """A (4, 4) pose as a URDF states it: the translation and the fixed-axis roll, pitch,
    yaw as written (:mod:`hrdf_ros.numbers`), the rotation rebuilt from those angles (what
    MoveIt and every URDF reader compute with)."""
    transform = np.asarray(transform, dtype=float)
    pose = np.eye(4)   # + 0.0: a URDF writes -0.0 as 0
    pose[:3, :3] = rpy_to_rotation(*[rounded(a, ANGLE) + 0.0
                                     for a in rotation_to_rpy(transform[:3, :3])])
    pose[:3, 3] = [rounded(v, LENGTH) + 0.0 for v in transform[:3, 3]]
    return pose


def _float(value) -> Optional[float]:
    return None if value is None else float(value)


def _bounded(kind: str) -> bool:
    return kind in ('revolute', 'prismatic')


def link_tree(name: str, tree: FrameTree, joint_specs: Mapping[str, JointSpec],
              gripper_specs: Sequence[GripperJointSpec],
              collision_links: Iterable[str]) -> LinkTree:
    """The :class:`LinkTree` of a described robot, in the URDF writer's order: the frame
    tree's links then the grippers' part links; its joints then the grippers' joints.

    Args:
        name: the robot's name.
        tree: its frame tree.
        joint_specs: ``{joint: spec}`` of every degree of freedom (fixed joints have
            none).
        gripper_specs: every gripper joint (finger, mimic and fixed ones).
        collision_links: links with at least one collision shape.
    """
    links = list(tree.links) + [n for g in tree.grippers for n in g.links.values()]
    joints: List[TreeJoint] = []
    for joint in tree.joints:
        spec = joint_specs.get(joint.name)
        if spec is None:
            joints.append(TreeJoint(joint.name, 'fixed', joint.parent, joint.child))
            continue
        limit = spec.limit_values() or {}
        bounded = _bounded(spec.kind)
        joints.append(TreeJoint(joint.name, spec.kind, joint.parent, joint.child,
                                _float(limit.get('lower')) if bounded else None,
                                _float(limit.get('upper')) if bounded else None,
                                _float(limit.get('velocity'))))
    for spec in gripper_specs:
        if spec.kind == 'fixed':
            joints.append(TreeJoint(spec.name, 'fixed', spec.parent, spec.child))
            continue
        mimic = None
        if spec.mimic is not None:
            mimic = (spec.mimic[0], rounded(spec.mimic[1], RATIO),
                     rounded(spec.mimic[2], POSITION))
        bounded = _bounded(spec.kind)
        joints.append(TreeJoint(spec.name, spec.kind, spec.parent, spec.child,
                                _float(spec.lower) if bounded else None,
                                _float(spec.upper) if bounded else None,
                                _float(spec.velocity), mimic))
    return LinkTree(name, links, joints, tree.links[0], frozenset(collision_links))


__all__ = ['MOVABLE_TYPES', 'LinkTree', 'TreeJoint', 'link_tree', 'written_pose']
