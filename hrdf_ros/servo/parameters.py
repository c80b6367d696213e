"""The servo's settings, checked when made.

In: numbers (a node's ROS parameters, a caller's keywords). Out:
:class:`ServoParameters`; those MoveIt Servo has carry its names, meanings and defaults.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields


@dataclass
class ServoParameters:
    """The servo's settings; those that MoveIt Servo has carry its names, meanings and
    defaults (moveit_servo's ``servo_parameters.yaml``, Jazzy).

    Attributes:
        publish_period: s between steps (1 kHz).
        incoming_command_timeout: s after which a command no longer counts (a stop).
        lower_singularity_threshold: condition number from which motion slows.
        hard_stop_singularity_threshold: condition number at which it halts.
        leaving_singularity_threshold_multiplier: both thresholds times this when the
            command moves away from the singularity.
        self_collision_proximity_threshold: m, the robot's links halt this far apart.
        scene_collision_proximity_threshold: m, from collision objects and the floor.
        collision_slowdown_distance: m: a pair closer than this to its halt distance
            slows (ours; MoveIt Servo decays exponentially instead) ...
        collision_slowdown_time: s: ... so as to close no faster than its distance to
            the halt distance per this time.
        check_collisions: False skips step 2's collision slow-down and step 4's proof.
        max_linear_speed, max_angular_speed: m/s and rad/s of pose tracking.
        pose_gain: 1/s, the pose error closed per second (pose tracking).
        pose_linear_tolerance, pose_angular_tolerance: m and rad a pose target is
            reached within.
    """

    publish_period: float = 0.001
    incoming_command_timeout: float = 0.1
    lower_singularity_threshold: float = 17.0
    hard_stop_singularity_threshold: float = 30.0
    leaving_singularity_threshold_multiplier: float = 2.0
    self_collision_proximity_threshold: float = 0.01
    scene_collision_proximity_threshold: float = 0.02
    collision_slowdown_distance: float = 0.05
    collision_slowdown_time: float = 0.2
    check_collisions: bool = True
    max_linear_speed: float = 0.25
    max_angular_speed: float = 1.0
    pose_gain: float = 4.0
    pose_linear_tolerance: float = 0.001
    pose_angular_tolerance: float = 0.01

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == 'check_collisions':
                if not isinstance(value, bool):
                    raise ValueError(f'check_collisions must be true or false, got {value!r}')
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not math.isfinite(value) or value <= 0:
                raise ValueError(f'{f.name} must be a number > 0, got {value!r}')
        if self.hard_stop_singularity_threshold <= self.lower_singularity_threshold:
            raise ValueError('hard_stop_singularity_threshold must be above '
                             'lower_singularity_threshold')
        if self.leaving_singularity_threshold_multiplier < 1:
            raise ValueError('leaving_singularity_threshold_multiplier must be >= 1')
