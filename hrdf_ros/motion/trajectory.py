"""Joint trajectories, and how joint_trajectory_controller plays them.

In: points (times, positions, velocities, accelerations). Out: :class:`JointTrajectory`,
its playback between the points as joint_trajectory_controller interpolates them, and
what that playback asks of the joints (velocities and accelerations against limits).

joint_trajectory_controller (ros2_controllers, ``trajectory.cpp``: ``interpolate_between_points``)
joins two points that carry positions, velocities and accelerations with a quintic per
joint: the polynomial of degree 5 with those six values at the two ends. A trajectory
whose segments are polynomials of degree 5 or less with continuous position, velocity
and acceleration at its points (as every trajectory :mod:`.timing` makes) is played
exactly as planned.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence, Tuple

import numpy as np


@dataclass
class JointTrajectory:
    """A timed joint trajectory, as ``trajectory_msgs/JointTrajectory`` carries it.

    Attributes:
        joint_names: the joints, in the controller's order (the MoveIt package's
            controllers.yaml).
        time_from_start: (K,) s, strictly increasing from 0.
        positions: (K, n) joint values, rad (m for prismatic joints): URDF joint values
            (HEBI position / gear ratio).
        velocities: (K, n) rad/s (m/s); zero at the last point.
        accelerations: (K, n) rad/s^2 (m/s^2); zero at the last point.
    """

    joint_names: List[str]
    time_from_start: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray

    @property
    def duration(self) -> float:
        """s, the time of the last point (0 for an empty trajectory)."""
        return float(self.time_from_start[-1]) if len(self.time_from_start) else 0.0

    def scaled_in_time(self, factor: float) -> 'JointTrajectory':
        """The same path ``factor`` times slower: times x factor, velocities / factor,
        accelerations / factor^2 (the playback scales alike)."""
        return JointTrajectory(list(self.joint_names), self.time_from_start * factor,
                               self.positions.copy(), self.velocities / factor,
                               self.accelerations / (factor * factor))

    def to_dict(self) -> dict:
        """The trajectory as plain lists (``hrdf plan --json``)."""
        return {'joint_names': list(self.joint_names),
                'time_from_start': self.time_from_start.tolist(),
                'positions': self.positions.tolist(),
                'velocities': self.velocities.tolist(),
                'accelerations': self.accelerations.tolist()}


def quintic_coefficients(duration, start: Sequence[np.ndarray],
                         end: Sequence[np.ndarray]) -> np.ndarray:
    """(6, n) coefficients c0..c5 of p(t) = sum c_k t^k on [0, duration] with position,
    velocity and acceleration ``start`` = (p0, v0, a0) at 0 and ``end`` at ``duration``
    (each (n,)), as joint_trajectory_controller computes them; for (K,) durations and
    (K, n) ends, (6, K, n), one quintic per segment."""
    p0, v0, a0 = (np.asarray(x, dtype=float) for x in start)
    p1, v1, a1 = (np.asarray(x, dtype=float) for x in end)
    t = np.asarray(duration, dtype=float)
    if t.ndim:
        t = t[:, None]
    t2, t3, t4, t5 = t * t, t ** 3, t ** 4, t ** 5
    c3 = (20 * p1 - 20 * p0 - (8 * v1 + 12 * v0) * t - (3 * a0 - a1) * t2) / (2 * t3)
    c4 = (30 * p0 - 30 * p1 + (14 * v1 + 16 * v0) * t + (3 * a0 - 2 * a1) * t2) / (2 * t4)
    c5 = (12 * p1 - 12 * p0 - (6 * v1 + 6 * v0) * t - (a0 - a1) * t2) / (2 * t5)
    return np.stack(np.broadcast_arrays(p0, v0, a0 / 2, c3, c4, c5))


def playback(trajectory: JointTrajectory, rate: float = 1000.0
             ) -> Tuple[np.ndarray, np.ndarray]:
    """The trajectory as joint_trajectory_controller plays it, sampled at ``rate`` Hz:
    ((M,) times from 0 to the end, s; (M, n) positions)."""
    times = trajectory.time_from_start
    samples = np.arange(0.0, trajectory.duration, 1.0 / rate)
    samples = np.append(samples, trajectory.duration)
    if len(times) == 1:
        return samples, np.repeat(trajectory.positions[:1], len(samples), axis=0)
    segment = np.clip(np.searchsorted(times, samples, side='right') - 1, 0, len(times) - 2)
    p, v, a = trajectory.positions, trajectory.velocities, trajectory.accelerations
    c = quintic_coefficients(np.diff(times), (p[:-1], v[:-1], a[:-1]),
                             (p[1:], v[1:], a[1:]))[:, segment]
    t = (samples - times[segment])[:, None]
    return samples, c[0] + t * (c[1] + t * (c[2] + t * (c[3] + t * (c[4] + t * c[5]))))


def states_at(trajectory: JointTrajectory, times) -> Tuple[np.ndarray, np.ndarray,
                                                            np.ndarray]:
    """The trajectory as joint_trajectory_controller plays it, at ``times`` (M,) s in
    [0, duration]: ((M, n) positions, velocities, accelerations), the quintics between
    the points and their derivatives; at a point's own time, that point's values.

    Raises:
        ValueError: a time outside [0, duration] or not finite.
    """
    t = np.asarray(times, dtype=float).reshape(-1)
    knots = trajectory.time_from_start
    if not np.all(np.isfinite(t)) or (len(t) and (t.min() < 0.0 or
                                                   t.max() > trajectory.duration)):
        raise ValueError(f'times must be in [0, {trajectory.duration}] s')
    p, v, a = trajectory.positions, trajectory.velocities, trajectory.accelerations
    exact = np.searchsorted(knots, t)
    at_point = (exact < len(knots)) & (knots[np.minimum(exact, len(knots) - 1)] == t)
    if len(knots) == 1:
        index = np.zeros(len(t), dtype=int)
        return p[index], v[index], a[index]
    segment = np.clip(np.searchsorted(knots, t, side='right') - 1, 0, len(knots) - 2)
    c = quintic_coefficients(np.diff(knots), (p[:-1], v[:-1], a[:-1]),
                             (p[1:], v[1:], a[1:]))[:, segment]
    s = (t - knots[segment])[:, None]
    q = c[0] + s * (c[1] + s * (c[2] + s * (c[3] + s * (c[4] + s * c[5]))))
    dq = c[1] + s * (2 * c[2] + s * (3 * c[3] + s * (4 * c[4] + s * 5 * c[5])))
    ddq = 2 * c[2] + s * (6 * c[3] + s * (12 * c[4] + s * 20 * c[5]))
    point = exact[at_point]
    q[at_point], dq[at_point], ddq[at_point] = p[point], v[point], a[point]
    return q, dq, ddq


def demand(trajectory: JointTrajectory, velocity_limits: np.ndarray,
           acceleration_limits: np.ndarray, rate: float = 1000.0) -> float:
    """The largest ratio of a joint's velocity or acceleration, by finite differences of
    the playback at ``rate`` Hz (the central second difference), to its limit: <= 1 when
    the trajectory, as played, stays within (n,) ``velocity_limits`` and
    ``acceleration_limits`` (rad/s, rad/s^2)."""
    if len(trajectory.time_from_start) < 2:
        return 0.0
    times, positions = playback(trajectory, rate)
    dt = np.diff(times)[:, None]
    velocity = np.diff(positions, axis=0) / dt
    ratio = float(np.max(np.abs(velocity) / velocity_limits)) if len(velocity) else 0.0
    if len(positions) > 2:
        h = 1.0 / rate
        acceleration = (positions[2:] - 2 * positions[1:-1] + positions[:-2]) / (h * h)
        inner = np.abs(dt[1:, 0] - h) < 1e-12 * max(h, 1.0)   # the last sample is closer
        ratio = max(ratio, float(np.max(np.abs(acceleration[inner])
                                        / acceleration_limits, initial=0.0)))
    return ratio
