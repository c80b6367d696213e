"""A parallel gripper in the MoveIt config package: its group, named states, end
effector and controllers.

In: the frame tree's grippers (:mod:`hrdf_ros.export.gripper`), the URDF read back and
the planning groups. Out: one :class:`GripperGroup` per gripper, and the controller
entries the YAML files add for it.

* SRDF: a group named after the gripper (``gripper``) holding every joint of the
  gripper (finger, mimic and fixed joints, so all its links); named states ``open``
  (finger joint at its lower limit) and ``close`` (upper limit); an ``<end_effector>``
  with that group on the arm's tip (the ``end_effector`` link, hebi-py's end-effector
  frame) and the planning group ending there as ``parent_group``.
* ``ros2_controllers.yaml``: ``parallel_gripper_action_controller/GripperActionController``
  on the finger joint (ros2_controllers' ``parallel_gripper_controller`` package, in
  Jazzy 4.x and Kilted 5.x; Jazzy's ``position_controllers/GripperActionController``
  is gone from Kilted), action ``<controller>/gripper_cmd``
  (control_msgs/ParallelGripperCommand), ``allow_stalling: true`` (a grasp stops the
  fingers short of the goal).
* ``moveit_controllers.yaml``: MoveIt's simple controller manager's gripper handler for
  that action, type ``ParallelGripperCommand`` (Jazzy and Kilted; its ``GripperCommand``
  type talks control_msgs/GripperCommand, which Kilted's controller no longer serves).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from ..frame_tree import FrameTree
from ..urdf_structure import UrdfStructure
from .groups import PlanningGroup

#: ros2_controllers' parallel gripper action controller (Jazzy, Kilted).
GRIPPER_CONTROLLER_TYPE = 'parallel_gripper_action_controller/GripperActionController'
#: Its package (exec_depend of the MoveIt config package).
GRIPPER_CONTROLLER_PACKAGE = 'parallel_gripper_controller'
#: Its action server, relative to the controller.
GRIPPER_ACTION = 'gripper_cmd'
#: MoveIt simple controller manager's handler for that action.
MOVEIT_GRIPPER_TYPE = 'ParallelGripperCommand'


@dataclass(frozen=True)
class GripperGroup:
    """One gripper as MoveIt sees it.

    Attributes:
        name: group and end-effector name (the gripper's stem, ``gripper``).
        joint: the finger joint (the group's one active joint).
        joints: every joint of the gripper (finger, mimic, fixed).
        parent_link: the link the end effector hangs on (the arm's tip).
        parent_group: the planning group ending at ``parent_link``, or ``None``.
        lower, upper: finger joint limits, rad: the ``open`` and ``close`` states.
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
        """``{state: {finger joint: value}}``: ``open`` and ``close``."""
        return {'open': {self.joint: self.lower}, 'close': {self.joint: self.upper}}


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


def moveit_controller_entries(grippers: Sequence[GripperGroup]) -> Dict[str, dict]:
    """``{controller: moveit_simple_controller_manager entry}`` of the grippers."""
    return {g.controller: {'type': MOVEIT_GRIPPER_TYPE, 'joints': [g.joint],
                           'action_ns': GRIPPER_ACTION, 'default': True} for g in grippers}


def ros2_controller_entries(grippers: Sequence[GripperGroup]) -> Dict[str, dict]:
    """``{controller: (type, ros__parameters)}`` of the grippers for ros2_controllers.yaml."""
    return {g.controller: (GRIPPER_CONTROLLER_TYPE, {'joint': g.joint,
                                                     'allow_stalling': True})
            for g in grippers}
