"""Conversions between numpy transforms and ROS ``geometry_msgs`` / ``tf2_msgs`` messages."""
from __future__ import annotations

from typing import Iterable, Tuple

import numpy as np
from geometry_msgs.msg import TransformStamped
from std_msgs.msg import Header
from tf2_msgs.msg import TFMessage

from ..kinematics.rotations import quaternion_to_rotation, rotation_to_quaternion


class TransformMessages:
    """A TFMessage for a fixed list of (parent, child) pairs, built once and refilled.

    Building TransformStamped objects dominates a publish at high rates; refilling the
    numbers of existing objects costs a fraction of that. The returned message is
    reused: publish it before the next :meth:`fill`.

    Args:
        pairs: (parent frame id, child frame id) per transform, prefixes applied.
    """

    def __init__(self, pairs: Iterable[Tuple[str, str]]):
        self.message = TFMessage(transforms=[
            TransformStamped(header=Header(frame_id=parent), child_frame_id=child)
            for parent, child in pairs])
        self._items = [(t.header, t.transform.translation, t.transform.rotation)
                       for t in self.message.transforms]

    def fill(self, transforms: np.ndarray, stamp) -> TFMessage:
        """Set every transform, (k, 4, 4) parent -> child in m, and the stamp."""
        translations = transforms[:, :3, 3].tolist()
        quaternions = rotation_to_quaternion(transforms[:, :3, :3]).tolist()
        for (header, t, r), (x, y, z), (qx, qy, qz, qw) in zip(self._items, translations,
                                                                quaternions):
            header.stamp = stamp
            t.x, t.y, t.z = x, y, z
            r.x, r.y, r.z, r.w = qx, qy, qz, qw
        return self.message


def from_transform_msg(msg: TransformStamped) -> np.ndarray:
    """(4, 4) transform of a TransformStamped (parent -> child)."""
    out = np.eye(4)
    r = msg.transform.rotation
    t = msg.transform.translation
    out[:3, :3] = quaternion_to_rotation((r.x, r.y, r.z, r.w))
    out[:3, 3] = (t.x, t.y, t.z)
    return out
