"""The servo's messages: MoveIt Servo's command messages in, the arm controller's
command out.

In: geometry_msgs/TwistStamped, control_msgs/JointJog and geometry_msgs/PoseStamped (URDF
joint values, frames by name), the running robot and its state. Out: the servo core's
commands (:mod:`hrdf_ros.servo.commands`: HEBI units, the base frame) and, from a step's
positions and velocities, a std_msgs/Float64MultiArray for a forward position controller
or a trajectory_msgs/JointTrajectory for joint_trajectory_controller. A message that
cannot be followed raises :class:`CommandError` with the reason.

Frames: an empty ``frame_id`` is the robot's reference frame (its base link); a link of
the robot is taken where the arm is now; the end effector's own link makes a twist an end
effector twist (its axes turn with it); any other frame is looked up in TF (the latest
transforms, :class:`~.tf_buffer.TfBuffer`), which must connect it with the base link. A
twist given in a frame is turned into the base frame's axes (the end effector's velocity,
as MoveIt Servo applies it); a pose is moved into the base frame.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from ..servo import JointJog, PoseTarget, Twist
from .ik_service import IkError, pose_matrix
from .motion_service import duration_of
from .tf_buffer import TfBuffer


class CommandError(ValueError):
    """A command the servo cannot follow (the message says why)."""


class Frames:
    """Poses of named frames in the robot's base frame, at joint positions q.

    Args:
        ik: the running robot's :class:`~.ik_service.IkQueries` (its links and end
            effectors by name).
        tf: the latest TF transforms, for frames that are not the robot's; None: none.
    """

    def __init__(self, ik, tf: Optional[TfBuffer] = None):
        self.ik, self.tf = ik, tf
        self.base = ik.robot.base_frame_id

    def end_effector_link(self, index: int) -> Optional[str]:
        """The link name of end effector ``index``, or None."""
        return next((name for name, k in self.ik.end_effectors.items() if k == index), None)

    def pose(self, frame_id: str, q: np.ndarray) -> np.ndarray:
        """(4, 4) pose of ``frame_id`` in the base frame at HEBI positions q (m).

        Raises:
            CommandError: a frame neither the robot's nor connected to it in TF.
        """
        pose = self.ik.frame_pose(frame_id, q)
        if pose is not None:
            return pose
        if self.tf is not None:
            try:
                root, in_root = self.tf.root_pose(frame_id)
                base_root, base_in_root = self.tf.root_pose(self.base)
            except KeyError as exc:
                raise CommandError(f'frame_id {frame_id!r}: {exc.args[0]}') from None
            if root == base_root:
                return np.linalg.inv(base_in_root) @ in_root
        raise CommandError(f'frame_id {frame_id!r} is neither a link of the robot nor '
                           f'connected to {self.base} in TF')


def _finite(values: Sequence[float], what: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)):
        raise CommandError(f'{what}: every number must be finite')
    return array


def twist_command(message, frames: Frames, q: np.ndarray, end_effector: int) -> Twist:
    """The :class:`~hrdf_ros.servo.Twist` of a TwistStamped at HEBI positions q.

    Raises:
        CommandError: a number not finite, an unknown frame.
    """
    t = message.twist
    linear = _finite([t.linear.x, t.linear.y, t.linear.z], 'twist linear')
    angular = _finite([t.angular.x, t.angular.y, t.angular.z], 'twist angular')
    frame_id = message.header.frame_id
    if frame_id and frame_id == frames.end_effector_link(end_effector):
        return Twist(linear, angular, 'end_effector')
    rotation = frames.pose(frame_id, q)[:3, :3]
    return Twist(rotation @ linear, rotation @ angular, 'base')


def jog_command(message, joint_names: Sequence[str], gear_ratios: np.ndarray) -> JointJog:
    """The :class:`~hrdf_ros.servo.JointJog` of a control_msgs/JointJog: its
    ``velocities`` (rad/s, m/s), or else its ``displacements`` over its ``duration`` (s);
    joints it does not name stay (0). URDF values become HEBI ones (x gear ratio).

    Raises:
        CommandError: an unknown or repeated joint, lengths that differ from
            ``joint_names``, displacements without a duration > 0, numbers not finite.
    """
    names = list(message.joint_names)
    index = {n: k for k, n in enumerate(joint_names)}
    unknown = [n for n in names if n not in index]
    if unknown:
        raise CommandError('joint jog: not joints of the arm: ' + ', '.join(unknown)
                           + ' (the arm has ' + ', '.join(joint_names) + ')')
    if len(set(names)) != len(names):
        raise CommandError('joint jog: a joint is named twice')
    if len(message.velocities):
        given, duration = message.velocities, None
        what = 'velocities'
    elif len(message.displacements):
        given, duration, what = message.displacements, float(message.duration), \
            'displacements'
        if not (math.isfinite(duration) and duration > 0):
            raise CommandError('joint jog: displacements need a duration > 0 s')
    else:
        raise CommandError('joint jog: give velocities, or displacements and a duration')
    if len(given) != len(names):
        raise CommandError(f'joint jog: {len(names)} joint names but {len(given)} {what}')
    values = np.zeros(len(joint_names))
    for name, value in zip(names, _finite(given, f'joint jog {what}')):
        values[index[name]] = value
    return JointJog(values * gear_ratios, duration)


def pose_command(message, frames: Frames, q: np.ndarray) -> PoseTarget:
    """The :class:`~hrdf_ros.servo.PoseTarget` of a PoseStamped (the end effector's pose
    to reach), in the base frame at HEBI positions q.

    Raises:
        CommandError: numbers not finite, a zero quaternion, an unknown frame.
    """
    try:
        pose = pose_matrix(message.pose, 'pose target')
    except IkError as exc:
        raise CommandError(str(exc)) from None
    return PoseTarget(frames.pose(message.header.frame_id, q) @ pose)


def position_message(positions: np.ndarray, gear_ratios: np.ndarray) -> Float64MultiArray:
    """A forward position controller's command: URDF joint positions in the arm's joint
    order (HEBI positions / gear ratio)."""
    return Float64MultiArray(data=(positions / gear_ratios).tolist())


def trajectory_message(positions: np.ndarray, velocities: np.ndarray,
                       joint_names: Sequence[str], gear_ratios: np.ndarray,
                       period: float) -> JointTrajectory:
    """joint_trajectory_controller's command: one point, ``period`` s ahead (URDF positions
    and velocities), stamped zero (start on arrival), as MoveIt Servo sends it."""
    point = JointTrajectoryPoint(positions=(positions / gear_ratios).tolist(),
                                 velocities=(velocities / gear_ratios).tolist(),
                                 time_from_start=duration_of(period))
    return JointTrajectory(joint_names=list(joint_names), points=[point])
