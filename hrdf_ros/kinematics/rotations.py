"""Rotation representations used by the exporters: URDF roll-pitch-yaw and quaternions."""
from __future__ import annotations

import math
from typing import Tuple

import numpy as np


def rotation_to_rpy(rotation: np.ndarray) -> Tuple[float, float, float]:
    """URDF roll, pitch, yaw (rad) of a rotation matrix.

    URDF composes fixed-axis rotations: R = Rz(yaw) @ Ry(pitch) @ Rx(roll). At the
    pitch = +-pi/2 singularity yaw is set to 0 and the whole rotation about the common
    axis goes into roll.

    Args:
        rotation: (3, 3) rotation matrix.

    Returns:
        (roll, pitch, yaw), each in (-pi, pi], pitch in [-pi/2, pi/2].
    """
    r = np.asarray(rotation, dtype=float)
    cos_pitch = math.hypot(r[0, 0], r[1, 0])
    pitch = math.atan2(-r[2, 0], cos_pitch)
    if cos_pitch > 1e-12:
        roll = math.atan2(r[2, 1], r[2, 2])
        yaw = math.atan2(r[1, 0], r[0, 0])
    elif r[2, 0] < 0.0:  # pitch = +pi/2: R = [[0, s, c], [0, c, -s], [-1, 0, 0]] (yaw 0)
        roll, yaw = math.atan2(r[0, 1], r[1, 1]), 0.0
    else:  # pitch = -pi/2: R = [[0, -s, -c], [0, c, -s], [1, 0, 0]] (yaw 0)
        roll, yaw = math.atan2(-r[0, 1], r[1, 1]), 0.0
    return roll, pitch, yaw


def rpy_to_rotation(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """(3, 3) rotation matrix Rz(yaw) @ Ry(pitch) @ Rx(roll) (URDF convention)."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def rotation_to_quaternion(rotations: np.ndarray) -> np.ndarray:
    """Unit quaternions (x, y, z, w) of rotation matrices, w >= 0.

    Args:
        rotations: (..., 3, 3) rotation matrices.

    Returns:
        (..., 4) quaternions in ROS order (x, y, z, w).
    """
    r = np.asarray(rotations, dtype=float)
    m00, m11, m22 = r[..., 0, 0], r[..., 1, 1], r[..., 2, 2]
    # Four candidate magnitudes; pick the largest per matrix for numerical stability.
    t = np.stack([1 + m00 - m11 - m22, 1 - m00 + m11 - m22, 1 - m00 - m11 + m22,
                  1 + m00 + m11 + m22], axis=-1)
    k = np.argmax(t, axis=-1)
    s = np.sqrt(np.maximum(np.take_along_axis(t, k[..., None], -1)[..., 0], 1e-300)) * 2
    q = np.empty(r.shape[:-2] + (4,))
    d21, d02, d10 = r[..., 2, 1] - r[..., 1, 2], r[..., 0, 2] - r[..., 2, 0], \
        r[..., 1, 0] - r[..., 0, 1]
    s01, s02, s12 = r[..., 0, 1] + r[..., 1, 0], r[..., 0, 2] + r[..., 2, 0], \
        r[..., 1, 2] + r[..., 2, 1]
    cases = [
        np.stack([s / 4, s01 / s, s02 / s, d21 / s], -1),
        np.stack([s01 / s, s / 4, s12 / s, d02 / s], -1),
        np.stack([s02 / s, s12 / s, s / 4, d10 / s], -1),
        np.stack([d21 / s, d02 / s, d10 / s, s / 4], -1),
    ]
    for case in range(4):
        mask = k == case
        q[mask] = cases[case][mask]
    q *= np.where(q[..., 3:4] < 0, -1.0, 1.0)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def quaternion_to_rotation(quaternion) -> np.ndarray:
    """(3, 3) rotation matrix of a quaternion (x, y, z, w); normalises the input."""
    x, y, z, w = np.asarray(quaternion, dtype=float) / np.linalg.norm(quaternion)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def frame_with_z(z: np.ndarray) -> np.ndarray:
    """(3, 3) a rotation whose z column is the unit vector ``z`` (3,); its x column is
    perpendicular to z and to the principal axis least along z (a tip-axis target's
    frame: the roll about z is free, this one is only a choice)."""
    helper = np.eye(3)[int(np.argmin(np.abs(z)))]
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])
