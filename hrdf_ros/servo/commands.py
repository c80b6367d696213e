"""What a person asks the servo for: a twist, a joint jog or a pose to track.

In: numbers from a caller (the node's messages, the view's keys). Out: validated
commands for :class:`~.core.ServoCore`. Frames: ``base`` is the robot's root frame (the
reference frame of :class:`~hrdf_ros.kinematics.Kinematics`), ``end_effector`` the end
effector's own frame (its axes at the current state). Units: m, m/s, rad, rad/s, s; joint
values in HEBI's units (rad; m for a prismatic joint), in the model's joint order.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

#: The frames a twist may be given in.
FRAMES = ('base', 'end_effector')


def _vector(value, length: int, what: str) -> np.ndarray:
    array = np.asarray(value, dtype=float)
    if array.shape != (length,):
        raise ValueError(f'{what}: expected {length} numbers, got shape {array.shape}')
    if not np.all(np.isfinite(array)):
        raise ValueError(f'{what}: every number must be finite')
    return array


@dataclass(frozen=True)
class Twist:
    """A velocity of the end effector: ``linear`` (3,) m/s of its origin and ``angular``
    (3,) rad/s, both expressed in ``frame`` (``base`` or ``end_effector``).

    Raises:
        ValueError: not 3 finite numbers each, or another frame.
    """

    linear: np.ndarray
    angular: np.ndarray
    frame: str = 'base'

    def __post_init__(self):
        object.__setattr__(self, 'linear', _vector(self.linear, 3, 'twist linear'))
        object.__setattr__(self, 'angular', _vector(self.angular, 3, 'twist angular'))
        if self.frame not in FRAMES:
            raise ValueError(f'twist frame must be one of {FRAMES}, got {self.frame!r}')


@dataclass(frozen=True)
class JointJog:
    """Joint velocities (dof,) rad/s (m/s), or with ``duration`` (s, > 0) displacements
    (dof,) to make over that time (control_msgs/JointJog's two forms); joints not jogged
    are 0.

    Raises:
        ValueError: not finite, or a duration <= 0.
    """

    values: np.ndarray
    duration: Optional[float] = None

    def __post_init__(self):
        values = np.asarray(self.values, dtype=float)
        if values.ndim != 1 or not np.all(np.isfinite(values)):
            raise ValueError('joint jog: expected one finite number per joint')
        object.__setattr__(self, 'values', values)
        if self.duration is not None and not (math.isfinite(self.duration)
                                              and self.duration > 0):
            raise ValueError(f'joint jog duration must be > 0 s, got {self.duration!r}')

    @property
    def velocities(self) -> np.ndarray:
        """(dof,) rad/s (m/s)."""
        return self.values if self.duration is None else self.values / self.duration


@dataclass(frozen=True)
class PoseTarget:
    """A pose of the end effector to reach and hold: (4, 4) in the base frame, m.

    Raises:
        ValueError: not a rigid transform (rotation orthonormal to 1e-6, det +1).
    """

    pose: np.ndarray

    def __post_init__(self):
        pose = np.asarray(self.pose, dtype=float)
        if pose.shape != (4, 4) or not np.all(np.isfinite(pose)):
            raise ValueError('pose target: expected a finite (4, 4) transform')
        rotation = pose[:3, :3]
        if (np.abs(rotation.T @ rotation - np.eye(3)).max() > 1e-6
                or np.linalg.det(rotation) < 0 or np.abs(pose[3] - [0, 0, 0, 1]).max() > 0):
            raise ValueError('pose target: not a rigid transform')
        object.__setattr__(self, 'pose', pose)
