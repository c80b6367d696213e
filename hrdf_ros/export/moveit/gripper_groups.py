"""A parallel gripper in the MoveIt config package: its group, named states, end
effector and controllers.

In: the frame tree's grippers (:mod:`hrdf_ros.export.gripper`), the URDF read back and
the planning groups. Out: one :class:`GripperGroup` per gripper, and the controller
entries the YAML files add for it.

* SRDF: a group named after the gripper (``gripper``) holding every joint of the
  gripper (finger, mimic and fixed joints, so all its links); named states ``open``
  (finger joint 0) and ``close`` (:data:`~hrdf_ros.export.gripper.HEBI_HARDWARE_CLOSED`,
  0.365 pi rad: the position hebi_hardware reports for a fully closed gripper, inside the
  joint's 0 .. 0.37 pi range); an ``<end_effector>`` with that group on the arm's tip
  (the ``end_effector`` link, hebi-py's end-effector frame) and the planning group
  ending there as ``parent_group``.
* The action controller depends on the ROS distribution (:data:`hrdf_ros.export.ros2_control.GRIPPER_CONTROLLERS`):
  Jazzy: ``position_controllers/GripperActionController`` (ros2_controllers'
  ``gripper_controllers``; control_msgs/GripperCommand), as HEBI documents for its arms
  (hebi_ros2_examples' README), with MoveIt's ``GripperCommand`` handler; Kilted, where
  ``gripper_controllers`` is gone: ``parallel_gripper_action_controller/
  GripperActionController`` (``parallel_gripper_controller``;
  control_msgs/ParallelGripperCommand) with MoveIt's ``ParallelGripperCommand``
  handler. Both on the finger joint, action ``<controller>/gripper_cmd``,
  ``allow_stalling: true`` (a grasp stops the fingers short of the goal).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from ..frame_tree import FrameTree
from ..gripper import HEBI_HARDWARE_CLOSED
from ..ros2_control import DEFAULT_ROS_DISTRO, GRIPPER_CONTROLLERS
from ..urdf_structure import UrdfStructure
from .groups import PlanningGroup

#: The gripper controller's action server, relative to the controller.
GRIPPER_ACTION = 'gripper_cmd'


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


def gripper_groups(tree: FrameTree, urdf: UrdfStructure,
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


def moveit_controller_entries(grippers: Sequence[GripperGroup],
                              distro: str = DEFAULT_ROS_DISTRO) -> Dict[str, dict]:
    """``{controller: moveit_simple_controller_manager entry}`` of the grippers."""
    kind = GRIPPER_CONTROLLERS[distro][2]
    return {g.controller: {'type': kind, 'joints': [g.joint], 'action_ns': GRIPPER_ACTION,
                           'default': True} for g in grippers}


def ros2_controller_entries(grippers: Sequence[GripperGroup],
                            distro: str = DEFAULT_ROS_DISTRO) -> Dict[str, tuple]:
    """``{controller: (type, ros__parameters)}`` of the grippers for ros2_controllers.yaml."""
    kind = GRIPPER_CONTROLLERS[distro][0]
    return {g.controller: (kind, {'joint': g.joint, 'allow_stalling': True})
            for g in grippers}
