"""A HEBI arm config in the exported robot: joint names, the gripper's joint, velocity
and effort limits, and what hebi_hardware is told.

In: a :class:`~hrdf_ros.model.RobotModel` and its
:class:`~hrdf_ros.hrdf.arm_config.ArmConfig`. Out: :class:`HebiArm`, which the URDF, TF,
the node and the MoveIt package all take their names and limits from, so they agree.

* **Joint names**: the config's ``names`` (sanitised), one per degree of freedom in
  HEBI's joint order, the order hebi_hardware matches modules to joints in.
* **The gripper's finger joint** (X5Parallel/R8Parallel): HEBI's name,
  :data:`~hrdf_ros.description.gripper.HEBI_GRIPPER_JOINT` (``end_effector_1/input_l_finger``),
  the joint hebi_description's kit URDFs, hebi_ros2_examples' arm node (its
  joint_states) and its documented gripper controller use: joint states from HEBI's own
  nodes then move this robot's TF and MoveIt's state without remapping. hebi_hardware is
  told the same name (``gripper_joint_name``). Without a config the joint stays
  ``gripper_joint``.
* **Limits**: each arm joint's velocity and effort limit is the smaller of the module's
  rated value (:mod:`hrdf_ros.hrdf.catalogue`) and the bound of the config's gains
  (:mod:`hrdf_ros.hrdf.gains`: the firmware clamps the velocity and effort targets
  there, so a faster plan would not be followed), e.g. X8-9 3.4 rad/s instead of
  4.08, X8-16 1.8 instead of 2.09, X8-9 effort 23 N m (rated) under the gains' 25.
  A config without usable gains keeps the rated values.
* **hebi_hardware**: ``config_pkg`` and ``config_file`` from the config's package
  (:func:`hrdf_ros.export.ros2_control.hebi_arm_options` writes them).
  hebi_hardware requires exactly the config's modules plus one joint with a gripper
  (its on_activate check), so a config that says ``has_gripper: false`` for a robot
  with a finger joint is refused (export it with ``gripper_joints=False``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Tuple

from ..hrdf.arm_config import ArmConfig
from ..kinematics import gripper as mechanism
from ..model import RobotModel
from .frame_tree import FrameTree, build_frame_tree
from .gripper import HEBI_GRIPPER_JOINT
from .limits import JointLimit, overlay_limits, rated_limits


@dataclass(frozen=True)
class HebiArm:
    """A model's names and limits under a HEBI arm config.

    Attributes:
        config: the config.
        joint_names: joint name per degree of freedom (the config's names).
        finger_joints: the finger joint name per parallel gripper (HEBI's name for the
            first; at most one with a config), or ``()``.
        limits: ``{joint: JointLimit(velocity=rad/s, effort=N m)}`` of the arm joints.
        sources: ``{joint: where its velocity and effort limits come from}``.
        notes: what a user should know (a gripper the config and the HRDF disagree on).
        gripper_joints: whether parallel grippers get their finger joint.
    """

    config: ArmConfig
    joint_names: Tuple[str, ...]
    finger_joints: Tuple[str, ...]
    limits: Dict[str, JointLimit]
    sources: Dict[str, str]
    notes: List[str] = field(default_factory=list)
    gripper_joints: bool = True

    def frame_tree(self, model: RobotModel) -> FrameTree:
        """The model's frame tree with the config's joint and finger joint names.

        Raises:
            ValueError: as :func:`~hrdf_ros.description.frame_tree.build_frame_tree`.
        """
        return build_frame_tree(model, self.joint_names, gripper_joints=self.gripper_joints,
                                finger_joint_names=self.finger_joints)

    def limits_under(self, user: Optional[Mapping[str, JointLimit]] = None
                     ) -> Tuple[Dict[str, JointLimit], Dict[str, str]]:
        """The config's bounds with the user's limits (normalised) over them, and where
        each joint's values come from (joints the user sets are left out: ``user``)."""
        user = dict(user or {})
        sources = {n: s for n, s in self.sources.items() if n not in user}
        return overlay_limits(self.limits, user), sources

    @property
    def gripper_joint(self) -> str:
        """The joint hebi_hardware drives as the gripper, or ``''``."""
        return self.finger_joints[0] if self.finger_joints else ''


def hebi_arm(model: RobotModel, config: ArmConfig, gripper_joints: bool = True) -> HebiArm:
    """Apply a HEBI arm config to a model (see the module docstring).

    Args:
        model: the robot (the config's HRDF, or another with as many joints).
        config: the config.
        gripper_joints: whether the export gives parallel grippers their finger joint.

    Raises:
        ValueError: the config names a different number of modules than the model's
            degrees of freedom, or says ``has_gripper: false`` for a robot whose gripper
            has a finger joint.
    """
    names = config.names
    if len(names) != model.dof_count:
        raise ValueError(f'{config.path}: {len(names)} names ({", ".join(names)}) for '
                         f'{model.dof_count} degrees of freedom of {model.path}')
    grippers = [e for e in model.elements if mechanism.is_parallel_gripper(e)] \
        if gripper_joints else []
    notes = []
    if grippers and config.has_gripper is False:
        raise ValueError(f'{config.path}: has_gripper is false, but {model.path} has a '
                         'parallel gripper whose finger joint hebi_hardware would not '
                         'drive (export with gripper joints off: --no-gripper-joints)')
    if config.has_gripper and not grippers:
        notes.append(f'{os.path.basename(config.path)} says has_gripper: true, but the '
                     'robot has no gripper joint (no X5Parallel/R8Parallel end effector, '
                     'or gripper joints off): hebi_hardware will not drive the gripper')
    finger = (HEBI_GRIPPER_JOINT,) if grippers else ()
    limits, sources = {}, {}
    gains = config.gains
    usable = gains is not None and len(gains.velocity) == len(names) == len(gains.effort)
    if gains is not None and not usable:
        notes.append(f'{os.path.basename(gains.path)} has {len(gains.velocity)} velocity '
                     f'and {len(gains.effort)} effort bounds for {len(names)} modules: the '
                     'rated limits are used')
    for k, (name, index) in enumerate(zip(names, model.dof_elements)):
        velocity, effort, source = rated_limits(model.elements[index])
        if usable:
            capped = (min(velocity, gains.velocity[k]), min(effort, gains.effort[k]))
            if capped != (velocity, effort):
                source = (f'{os.path.basename(gains.path)} target bounds (velocity '
                          f'{gains.velocity[k]:g}, effort {gains.effort[k]:g}) under '
                          f'{source} ({velocity:.4g} rad/s, {effort:.4g} N m)')
            velocity, effort = capped
        limits[name] = JointLimit(velocity=velocity, effort=effort)
        sources[name] = source
    return HebiArm(config, names, finger, limits, sources, notes, gripper_joints)


__all__ = ['HebiArm', 'hebi_arm']
