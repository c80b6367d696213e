"""The node's hot path: joint values in, the filled /tf message of the moving joints out.

In: the running :class:`~hrdf_ros.ros.loaded_robot.LoadedRobot` once, then per message
the accepted joint values (URDF joint values, rad or m: the degrees of freedom, then each
parallel gripper's finger joint) and a stamp. Out: one ``tf2_msgs/TFMessage``, built
once and refilled in place: one transform per degree of freedom, then one per moving
gripper part (the finger joint and its mimic joints, each at multiplier * finger +
offset, as robot_state_publisher computes mimic joints), parent -> child as in the URDF,
with the stamp.

Per message the work is the kinematics of the moving transforms, evaluated straight
into the message: the quaternion of a rotating joint is linear in the sine and cosine
of its half angle, the translation of a sliding one linear in its position
(:class:`~hrdf_ros.kinematics.joint_poses.JointPoses` gives the coefficients; the other
half of each transform is constant and written once); and the stamp, which every
transform's header shares as one object, so it is two assignments. Plain Python and
:mod:`math`: measured in the running node, the first numpy calls of a message cost more
than the whole evaluation (18 joints: 36 us with numpy, 16 us without). No Python
object is created per message.
"""
from __future__ import annotations

from math import cos, sin

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
        pairs = list(robot.moving_pairs) + [m[:2] for m in robot.gripper_moving]
        transforms = [TransformStamped(header=Header(frame_id=parent, stamp=self.stamp),
                                       child_frame_id=child)
                      for parent, child in pairs]
        self.message = TFMessage(transforms=transforms)
        # The constant halves: translations of rotating joints, rotations of sliding ones.
        dof = len(robot.moving_pairs)
        for t, (qx, qy, qz, qw, x, y, z) in zip(transforms, self.poses.poses([0.0] * dof)):
            t.transform.translation.x, t.transform.translation.y = x, y
            t.transform.translation.z = z
            r = t.transform.rotation
            r.x, r.y, r.z, r.w = qx, qy, qz, qw
        # Per joint: the message field that changes, then the numbers of its linear form.
        self._rotating = [(transforms[k].transform.rotation, k, h) + a + b
                          for k, h, a, b in self.poses.rotating()]
        # A gripper's moving parts: rotations about +x driven by its finger joint value.
        for t, (_, _, value, h, a, b, (x, y, z)) in zip(transforms[dof:], robot.gripper_moving):
            t.transform.translation.x, t.transform.translation.y = x, y
            t.transform.translation.z = z
            self._rotating.append((t.transform.rotation, value, h) + a + b)
        self._sliding = [(transforms[k].transform.translation, k, g) + e + t
                         for k, g, e, t in self.poses.sliding()]

    def fill(self, values, sec: int, nanosec: int) -> TFMessage:
        """The message for joint values (URDF joint values, a list or array of floats:
        the degrees of freedom, then the grippers' finger joints) stamped sec.nanosec.
        Plain Python and :mod:`math`, no numpy call."""
        stamp = self.stamp
        stamp.sec = sec
        stamp.nanosec = nanosec
        for r, k, h, ax, ay, az, aw, bx, by, bz, bw in self._rotating:
            angle = values[k] * h
            s, c = sin(angle), cos(angle)
            r.x = s * ax + c * bx
            r.y = s * ay + c * by
            r.z = s * az + c * bz
            r.w = s * aw + c * bw
        for t, k, g, ex, ey, ez, tx, ty, tz in self._sliding:
            d = values[k] * g
            t.x = tx + d * ex
            t.y = ty + d * ey
            t.z = tz + d * ez
        return self.message
