"""The servo's status codes: MoveIt Servo's, by the same numbers, so that tools written
for its ``~/status`` topic (std_msgs/Int8) read ours alike.

In: nothing. Out: :class:`StatusCode` and :data:`MEANINGS`. The numbers are
``moveit_servo::StatusCode`` of moveit_servo's ``include/moveit_servo/utils/datatypes.hpp``
(MoveIt 2 Jazzy and Kilted; the ROS 1 and early ROS 2 servo numbered them otherwise).
"""
from __future__ import annotations

import enum


class StatusCode(enum.IntEnum):
    """What the servo did with the last command (moveit_servo's numbering)."""

    INVALID = -1
    NO_WARNING = 0
    DECELERATE_FOR_APPROACHING_SINGULARITY = 1
    HALT_FOR_SINGULARITY = 2
    DECELERATE_FOR_LEAVING_SINGULARITY = 3
    DECELERATE_FOR_COLLISION = 4
    HALT_FOR_COLLISION = 5
    JOINT_BOUND = 6


#: One line per code, for status messages and the view.
MEANINGS = {
    StatusCode.INVALID: 'invalid command',
    StatusCode.NO_WARNING: 'no warnings',
    StatusCode.DECELERATE_FOR_APPROACHING_SINGULARITY:
        'moving closer to a singularity, decelerating',
    StatusCode.HALT_FOR_SINGULARITY: 'very close to a singularity, emergency stop',
    StatusCode.DECELERATE_FOR_LEAVING_SINGULARITY: 'moving away from a singularity, decelerating',
    StatusCode.DECELERATE_FOR_COLLISION: 'close to a collision, decelerating',
    StatusCode.HALT_FOR_COLLISION: 'collision detected, emergency stop',
    StatusCode.JOINT_BOUND: 'close to a joint bound, only motion back inside',
}
