"""The node's hot path: joint values in, the filled /tf message of the moving joints out.

In: the running :class:`~hrdf_ros.ros.loaded_robot.LoadedRobot` once, then per message
the accepted joint values (URDF joint values, rad or m; (dof,)) and a stamp. Out: one
``tf2_msgs/TFMessage``, built once and refilled in place: one transform per degree of
freedom, parent -> child as in the URDF, with the stamp.

Per message the work is the kinematics of the moving transforms
(:class:`~hrdf_ros.kinematics.joint_poses.JointPoses`: a few numpy calls) and copying
the numbers that change into the message: the quaternion of a rotating joint, the
translation of a sliding one (the other half is constant and written once), and the
stamp, which every transform's header shares as one object, so it is two assignments.
No Python object is created per message beyond the rows of numbers.
"""
from __future__ import annotations

from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
from std_msgs.msg import Header
from tf2_msgs.msg import TFMessage

from ..kinematics.joint_poses import JointPoses
from .loaded_robot import LoadedRobot


class MovingTransforms:
    """The moving part of /tf for one robot model (see module docstring).

    The returned message is reused: publish it before the next :meth:`fill`.

    Args:
        robot: the loaded robot (its ``moving_pairs`` and ``gear_ratios``).
    """

    def __init__(self, robot: LoadedRobot):
        self.poses = JointPoses(robot.model, robot.gear_ratios)
        #: the one stamp object every transform's header refers to
        self.stamp = Time()
        transforms = [TransformStamped(header=Header(frame_id=parent, stamp=self.stamp),
                                       child_frame_id=child)
                      for parent, child in robot.moving_pairs]
        self.message = TFMessage(transforms=transforms)
        prismatic = self.poses.prismatic.tolist()
        self._rotating = [t.transform.rotation for t, p in zip(transforms, prismatic)
                          if not p]
        self._sliding = [t.transform.translation for t, p in zip(transforms, prismatic) if p]
        self._rotating_index = [k for k, p in enumerate(prismatic) if not p]
        self._sliding_index = [k for k, p in enumerate(prismatic) if p]
        self._all_rotating = not self._sliding
        # The constant halves: translations of rotating joints, rotations of sliding ones.
        for t, (qx, qy, qz, qw, x, y, z) in zip(transforms, self.poses.poses(
                [0.0] * len(transforms))):
            t.transform.translation.x, t.transform.translation.y = x, y
            t.transform.translation.z = z
            r = t.transform.rotation
            r.x, r.y, r.z, r.w = qx, qy, qz, qw

    def fill(self, values, sec: int, nanosec: int) -> TFMessage:
        """The message for joint values (dof,) (URDF joint values) stamped sec.nanosec."""
        stamp = self.stamp
        stamp.sec = sec
        stamp.nanosec = nanosec
        rows = self.poses.poses(values)
        if self._all_rotating:
            for r, (qx, qy, qz, qw, _, _, _) in zip(self._rotating, rows):
                r.x = qx
                r.y = qy
                r.z = qz
                r.w = qw
            return self.message
        for r, k in zip(self._rotating, self._rotating_index):
            r.x, r.y, r.z, r.w = rows[k][:4]
        for t, k in zip(self._sliding, self._sliding_index):
            t.x, t.y, t.z = rows[k][4:]
        return self.message
