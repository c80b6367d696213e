"""The servo: live commands in, the arm's next joint positions and velocities out, one
fixed step at a time, without ROS (MoveIt Servo's core/node split: the node and the view
feed it).

In: a :class:`~hrdf_ros.motion.planner_setup.PlannerSetup` (the robot, its limits and its
planning scene), :class:`ServoParameters`, the commands of :mod:`.commands` and the time.
Out: :class:`ServoOutput` per step: (dof,) positions (rad, or m) and velocities in HEBI's
units and the model's joint order, a :class:`~.status.StatusCode` and a message.

Each :meth:`ServoCore.step` (``publish_period``, 1 ms by default):

1. The command becomes joint velocities u (dof,): a joint jog as given; a twist (the
   end effector's frame turned into the base frame) by :func:`.task.solve`, what an arm
   of fewer than 6 joints cannot do dropped and said; a pose target as the twist that
   closes its error (``pose_gain`` per second, at most ``max_linear_speed`` and
   ``max_angular_speed``), held once within half of ``pose_linear_tolerance`` and
   ``pose_angular_tolerance``. A command older than ``incoming_command_timeout`` is a
   stop.
2. u is scaled by one factor s in [0, 1], the least of:
   the velocity limits; the joint bounds (a joint moving toward its bound brakes so as
   to stop on it: JOINT_BOUND; moving back inside is free); the singularity (twist and
   pose only: MoveIt Servo's linear slow-down between ``lower_singularity_threshold``
   and ``hard_stop_singularity_threshold`` of :func:`.task.condition`, both times
   ``leaving_singularity_threshold_multiplier`` when the command lowers the condition
   number); and collisions (:mod:`.guard`: every checked pair of the planning scene,
   robot with itself, with the collision objects and the floor, checked every step; a
   pair the command brings closer slows within ``collision_slowdown_distance`` of its
   halt distance, ``self_collision_proximity_threshold`` for the robot itself and
   ``scene_collision_proximity_threshold`` for objects and the floor, and brakes so as
   to stop before it). A factor of 1 % or less is a halt.
3. The joint velocities move toward s u by at most each joint's acceleration limit in
   the step, all joints by one fraction (the direction of motion is kept), and the
   positions follow by the trapezoid rule. The positions are a virtual target: they
   are the servo's own, not read back from the arm, so that a held jog does not drift
   with the arm's tracking error (:meth:`ServoCore.reset` takes the arm's state).
4. The step's straight motion is proven free of collision with every pair kept apart by
   its halt distance or half its present distance, whichever is less
   (:meth:`~hrdf_ros.motion.scene_proofs.SceneProofs.segment_free`); a step that is not
   proven is not taken (HALT_FOR_COLLISION), so no state the servo commands collides,
   not even between two steps.

The braking: with every joint's velocity s u_i changed at most by a_i per second, s can
fall at alpha = min_i a_i / |u_i| per second, and a motion at s covers s^2 / (2 alpha)
in units of u before it stops. A joint stops on its bound when s <= sqrt(2 alpha d_i /
|u_i|) (d_i its distance to the bound), a pair before its halt distance when s <=
sqrt(2 alpha (d_p - h_p) / c_p), c_p being how fast the command closes the pair at
s = 1 (:mod:`.guard`: as seen 10 ms ahead along it, times 1.5); one step of alpha dt is
taken off for the discrete steps. Step 4's proof covers what the look-ahead misses.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from . import task
from .commands import JointJog, PoseTarget, Twist
from .guard import HALT_SCALE, LOOK_AHEAD, CollisionGuard
from .parameters import ServoParameters
from .status import MEANINGS, StatusCode

Command = Union[Twist, JointJog, PoseTarget]
#: Random states whose Jacobians give an arm's task space (:func:`.task.structural_ranks`).
RANK_STATES = 16
#: Which status a step reports when several apply: the last one listed.
PRECEDENCE = [StatusCode.NO_WARNING, StatusCode.DECELERATE_FOR_LEAVING_SINGULARITY,
              StatusCode.DECELERATE_FOR_APPROACHING_SINGULARITY,
              StatusCode.DECELERATE_FOR_COLLISION, StatusCode.JOINT_BOUND,
              StatusCode.HALT_FOR_SINGULARITY, StatusCode.HALT_FOR_COLLISION]


@dataclass
class ServoOutput:
    """One step's result: ``positions`` and ``velocities`` (dof,) in HEBI's units and
    the model's order, the ``status`` and a ``message`` (the status's meaning, and what
    was dropped or why the arm stopped)."""

    positions: np.ndarray
    velocities: np.ndarray
    status: StatusCode
    message: str


def rotation_error(target: np.ndarray, current: np.ndarray) -> np.ndarray:
    """(3,) rad: the rotation vector (axis times angle, base frame) that turns the (3, 3)
    ``current`` rotation into ``target``."""
    relative = target @ current.T
    cosine = max(-1.0, min(1.0, (np.trace(relative) - 1.0) / 2.0))
    angle = math.acos(cosine)
    axis = np.array([relative[2, 1] - relative[1, 2], relative[0, 2] - relative[2, 0],
                     relative[1, 0] - relative[0, 1]])
    if angle < 1e-9:
        return axis / 2.0
    if math.pi - angle < 1e-6:   # near a half turn: the axis from the symmetric part
        symmetric = (relative + np.eye(3)) / 2.0
        axis = np.sqrt(np.clip(np.diag(symmetric), 0.0, None))
        k = int(np.argmax(axis))
        axis = symmetric[k] / max(axis[k], 1e-300)
        return angle * axis / np.linalg.norm(axis)
    return angle * axis / (2.0 * math.sin(angle))


class ServoCore:
    """Steps an arm toward its live commands (module docstring).

    Args:
        setup: the robot, its limits and its planning scene (a
            :class:`~hrdf_ros.MotionPlanner` is one).
        parameters: :class:`~hrdf_ros.servo.ServoParameters` (the defaults when None).
        positions: (dof,) the arm's state to start from (HEBI units; zeros when None).
        end_effector: index of the end effector that twists and poses move.

    Raises:
        ValueError: positions of the wrong length, not finite or outside the limits;
            a robot without joints or without that end effector.
    """

    def __init__(self, setup, parameters: Optional[ServoParameters] = None,
                 positions=None, end_effector: int = 0):
        self.setup = setup
        self.parameters = parameters or ServoParameters()
        self.dof = setup.model.dof_count
        if self.dof < 1:
            raise ValueError('the robot has no joints to servo')
        if not 0 <= end_effector < setup.model.frame_count('end_effector'):
            raise ValueError(f'the robot has no end effector {end_effector}')
        self.end_effector = end_effector
        self._lower = setup.position_limits[:, 0].copy()
        self._upper = setup.position_limits[:, 1].copy()
        self._velocity = np.asarray(setup.velocity_limits, dtype=float)
        self._acceleration = np.asarray(setup.acceleration_limits, dtype=float)
        self.guard = CollisionGuard(setup.scene, self.parameters, self._lower, self._upper)
        rng = np.random.default_rng(0)
        low = np.where(np.isfinite(self._lower), self._lower, -math.pi)
        high = np.where(np.isfinite(self._upper), self._upper, math.pi)
        samples = rng.uniform(low, high, (RANK_STATES, self.dof))
        self._ranks = task.structural_ranks(np.array(
            [setup.kinematics.end_effector_jacobian(q, end_effector) for q in samples]))
        self.time = 0.0
        self._command: Optional[Command] = None
        self._command_time = -math.inf
        self.paused = False
        self.reset(np.zeros(self.dof) if positions is None else positions)

    # -- state and commands ------------------------------------------------------------
    def reset(self, positions) -> None:
        """Start again from the arm's (dof,) state, at rest, with no command.

        Raises:
            ValueError: the wrong length, not finite, or outside the position limits.
        """
        q = np.asarray(positions, dtype=float)
        if q.shape != (self.dof,) or not np.all(np.isfinite(q)):
            raise ValueError(f'expected {self.dof} finite joint positions, got {q!r:.200}')
        if np.any(q < self._lower - 1e-9) or np.any(q > self._upper + 1e-9):
            raise ValueError('joint positions outside the position limits')
        self.positions = np.clip(q, self._lower, self._upper)
        self.velocities = np.zeros(self.dof)
        if self.parameters.check_collisions:
            self.guard.start_at(self.positions)
        self._command = None
        self.status = StatusCode.NO_WARNING

    def command(self, command: Command, now: Optional[float] = None) -> None:
        """Take a command, received at ``now`` (s; the servo's clock when None); it counts
        for ``incoming_command_timeout``, or a joint jog with a duration for that
        duration.

        Raises:
            ValueError: a joint jog of another length; TypeError: not a command.
        """
        if not isinstance(command, (Twist, JointJog, PoseTarget)):
            raise TypeError(f'not a servo command: {type(command).__name__}')
        if isinstance(command, JointJog) and command.values.shape != (self.dof,):
            raise ValueError(f'joint jog: expected {self.dof} values, got {command.values.shape}')
        self._command = command
        self._command_time = self.time if now is None else float(now)

    def stop(self) -> None:
        """Drop the command: the arm comes to rest within its acceleration limits."""
        self._command = None

    @property
    def at_rest(self) -> bool:
        """No joint moves and no command counts (none, timed out, or paused)."""
        return not np.any(self.velocities) and self._active() is None

    def clip(self, positions) -> np.ndarray:
        """(dof,) ``positions`` clipped into the position limits (a driver may report a
        hair beyond them)."""
        return np.clip(np.asarray(positions, dtype=float), self._lower, self._upper)

    # -- one step ----------------------------------------------------------------------
    def step(self) -> ServoOutput:
        """Advance one ``publish_period`` (module docstring)."""
        p = self.parameters
        dt = p.publish_period
        self.time += dt
        notes = []
        wanted, singular_scale, singular_status = self._wanted(notes)
        limits = [(singular_scale, singular_status)]
        if np.any(wanted):
            alpha = self._deceleration(wanted)
            limits += [self._velocity_scale(wanted), self._bound_scale(wanted, alpha)]
            if p.check_collisions:
                limits.append(self.guard.scale(self.positions, wanted, alpha))
        scale = min(limit for limit, _ in limits)
        codes = [code for limit, code in limits if code != StatusCode.NO_WARNING]
        status = max(codes, key=PRECEDENCE.index) if codes else StatusCode.NO_WARNING
        target = wanted * scale
        change = target - self.velocities
        fraction = 1.0
        moving = np.abs(change) > 0
        if moving.any():
            fraction = min(1.0, float(np.min(self._acceleration[moving] * dt
                                              / np.abs(change[moving]))))
        velocities = self.velocities + fraction * change
        positions = self.positions + 0.5 * (self.velocities + velocities) * dt
        clipped = np.clip(positions, self._lower, self._upper)
        if np.any(clipped != positions):           # on a bound: no motion beyond it
            velocities = np.where(clipped != positions, 0.0, velocities)
            positions = clipped
        if p.check_collisions and np.any(positions != self.positions) and \
                not self.guard.step_proven(self.positions, positions):
            positions, velocities = self.positions.copy(), np.zeros(self.dof)
            status = StatusCode.HALT_FOR_COLLISION
            notes.append('the next step was not proven free of collision')
        self.positions, self.velocities, self.status = positions, velocities, status
        message = MEANINGS[status] + ''.join(f'; {n}' for n in notes)
        return ServoOutput(positions.copy(), velocities.copy(), status, message)

    def run(self, steps: int):
        """``steps`` calls of ``step``: a list of their outputs."""
        return [self.step() for _ in range(int(steps))]

    # -- the parts of a step -------------------------------------------------------------
    def _active(self) -> Optional[Command]:
        command = self._command
        if command is None or self.paused:
            return None
        age = self.time - self._command_time
        if isinstance(command, JointJog) and command.duration is not None:
            return command if age <= command.duration else None
        if isinstance(command, PoseTarget):
            return command                      # a target holds until replaced or stopped
        return command if age <= self.parameters.incoming_command_timeout else None

    def _wanted(self, notes):
        """(joint velocities u, the singularity's scale, its status)."""
        command = self._active()
        if command is None:
            return np.zeros(self.dof), 1.0, StatusCode.NO_WARNING
        if isinstance(command, JointJog):
            return command.velocities.copy(), 1.0, StatusCode.NO_WARNING
        kinematics = self.setup.kinematics
        pose = kinematics.end_effector(self.positions, self.end_effector)
        if isinstance(command, Twist):
            twist = np.concatenate([command.linear, command.angular])
            if command.frame == 'end_effector':
                rotation = pose[:3, :3]
                twist = np.concatenate([rotation @ command.linear, rotation @ command.angular])
        else:
            twist = self._pose_twist(command, pose, notes)
            if twist is None:
                return np.zeros(self.dof), 1.0, StatusCode.NO_WARNING
        jacobian = kinematics.end_effector_jacobian(self.positions, self.end_effector)
        velocities, made, condition = task.solve(jacobian, twist, *self._ranks)
        dropped = twist - made
        size = float(np.linalg.norm(twist))
        if size > 0 and np.linalg.norm(dropped) > 1e-6 * size + 1e-12 and \
                isinstance(command, Twist):
            notes.append(f'dropped what {self.dof} joints cannot do here: linear '
                         f'{np.linalg.norm(dropped[:3]):.3g} m/s, angular '
                         f'{np.linalg.norm(dropped[3:]):.3g} rad/s')
        scale, status = self._singularity_scale(velocities, condition)
        return velocities, scale, status

    def _pose_twist(self, command: PoseTarget, pose: np.ndarray, notes) -> Optional[np.ndarray]:
        p = self.parameters
        linear = command.pose[:3, 3] - pose[:3, 3]
        angular = rotation_error(command.pose[:3, :3], pose[:3, :3])
        distance, angle = float(np.linalg.norm(linear)), float(np.linalg.norm(angular))
        if distance <= p.pose_linear_tolerance / 2 and angle <= p.pose_angular_tolerance / 2:
            notes.append(f'at the pose target ({distance * 1000:.2g} mm, {angle:.2g} rad)')
            return None
        speed = min(p.max_linear_speed, p.pose_gain * distance)
        turn = min(p.max_angular_speed, p.pose_gain * angle)
        twist = np.concatenate([linear * (speed / distance) if distance > 0 else linear,
                                angular * (turn / angle) if angle > 0 else angular])
        notes.append(f'{distance * 1000:.3g} mm and {angle:.3g} rad from the pose target')
        return twist

    def _singularity_scale(self, velocities: np.ndarray, condition: float):
        p = self.parameters
        lower, hard = p.lower_singularity_threshold, p.hard_stop_singularity_threshold
        if condition <= lower:
            return 1.0, StatusCode.NO_WARNING
        ahead = np.clip(self.positions + velocities * LOOK_AHEAD, self._lower, self._upper)
        kinematics = self.setup.kinematics
        leaving = task.condition(kinematics.end_effector_jacobian(ahead, self.end_effector),
                                 *self._ranks) < condition
        if leaving:
            lower *= p.leaving_singularity_threshold_multiplier
            hard *= p.leaving_singularity_threshold_multiplier
            code = StatusCode.DECELERATE_FOR_LEAVING_SINGULARITY
        else:
            code = StatusCode.DECELERATE_FOR_APPROACHING_SINGULARITY
        if condition <= lower:
            return 1.0, StatusCode.NO_WARNING
        scale = 1.0 - (condition - lower) / (hard - lower)
        if scale <= HALT_SCALE:
            return 0.0, StatusCode.HALT_FOR_SINGULARITY
        return scale, code

    def _velocity_scale(self, wanted: np.ndarray):
        moving = np.abs(wanted) > 0
        return min(1.0, float(np.min(self._velocity[moving] / np.abs(wanted[moving])))), \
            StatusCode.NO_WARNING

    def _deceleration(self, wanted: np.ndarray) -> float:
        """alpha: how fast the common factor s may fall, per second."""
        moving = np.abs(wanted) > 0
        return float(np.min(self._acceleration[moving] / np.abs(wanted[moving])))

    def _bound_scale(self, wanted: np.ndarray, alpha: float):
        dt = self.parameters.publish_period
        room = np.where(wanted > 0, self._upper - self.positions,
                        np.where(wanted < 0, self.positions - self._lower, np.inf))
        toward = np.isfinite(room)
        if not toward.any():
            return 1.0, StatusCode.NO_WARNING
        limit = np.sqrt(2.0 * alpha * np.clip(room[toward], 0.0, None)
                        / np.abs(wanted[toward])) - alpha * dt
        scale = float(np.clip(limit.min(), 0.0, 1.0))
        return scale, (StatusCode.JOINT_BOUND if scale < 1.0 else StatusCode.NO_WARNING)
