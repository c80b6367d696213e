"""A parallel gripper's semantics: its planning group, named states and end effector.

In: the frame tree's grippers (:mod:`.gripper`), the link tree and the planning groups.
Out: one :class:`GripperGroup` per gripper (the MoveIt package's SRDF and controllers
and the MJCF model's named states read it; its controller entries are the MoveIt
package's, :mod:`hrdf_ros.export.moveit.config_files`).

* A group named after the gripper (``gripper``) holding every joint of the gripper
  (finger, mimic and fixed joints, so all its links); named states ``open`` (finger
  joint 0) and ``close`` (:data:`~.gripper.HEBI_HARDWARE_CLOSED`, 0.365 pi rad: the
  position hebi_hardware reports for a fully closed gripper, inside the joint's
  0 .. 0.37 pi range); an end effector with that group on the arm's tip (the
  ``end_effector`` link, hebi-py's end-effector frame) and the planning group ending
  there as ``parent_group``; its action controller ``<gripper>_controller``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from .frame_tree import FrameTree
from .gripper import HEBI_HARDWARE_CLOSED
from .groups import PlanningGroup
from .structure import LinkTree


@dataclass(frozen=True)
class GripperGroup:
    """One gripper as MoveIt sees it.

    Attributes:
        name: group and end-effector name (the gripper's stem, ``gripper``).
        joint: the finger joint (the group's one active joint).
        joints: every joint of the gripper (finger, mimic, fixed).
        parent_link: the link the end effector hangs on (the arm's tip).
        parent_group: the planning group ending at ``parent_link``, or ``None``.
        lower, upper: finger joint limits, rad.
    """

    name: str
    joint: str
    joints: List[str]
    parent_link: str
    parent_group: Optional[str]
    lower: float
    upper: float

    @property
    def controller(self) -> str:
        """Name of the gripper's action controller."""
        return f'{self.name}_controller'

    @property
    def states(self) -> Dict[str, Dict[str, float]]:
        """``{state: {finger joint: value (rad)}}``: ``open`` (0, or the lower limit when
        0 is outside the range) and ``close`` (:data:`HEBI_HARDWARE_CLOSED`, or the upper
        limit when that is outside the range)."""
        return {'open': {self.joint: min(max(0.0, self.lower), self.upper)},
                'close': {self.joint: min(max(HEBI_HARDWARE_CLOSED, self.lower),
                                          self.upper)}}


def gripper_groups(tree: FrameTree, urdf: LinkTree,
                   groups: Sequence[PlanningGroup]) -> List[GripperGroup]:
    """One :class:`GripperGroup` per gripper of ``tree`` (see the module docstring)."""
    joints = {j.name: j for j in urdf.joints}
    out = []
    for gripper in tree.grippers:
        tip = next(j.child for j in tree.joints if j.element == gripper.element)
        parent = next((g.name for g in groups if g.tip == tip), None)
        finger = joints[gripper.joint]
        out.append(GripperGroup(gripper.stem, gripper.joint, list(gripper.joints.values()),
                                tip, parent, finger.lower, finger.upper))
    return out
