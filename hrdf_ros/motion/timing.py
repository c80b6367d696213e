"""Time parameterization: joint paths to trajectories within velocity and acceleration
limits, which joint_trajectory_controller plays as planned.

In: a joint path (K, n) (URDF joint values) and per-joint limits (n,) (rad/s, rad/s^2,
already scaled). Out: a :class:`~.trajectory.JointTrajectory` that starts and ends at
rest.

* **A straight line** in joint space, q = a + s (b - a): the time-optimal profile of s
  under s' <= min_j v_j / |b_j - a_j| and |s''| <= min_j a_j / |b_j - a_j| is a trapezoid
  (a triangle when the top speed is never reached). Its acceleration jumps, which a
  quintic between points cannot play; so each jump is a ramp of constant jerk lasting
  :data:`RAMP_FRACTION` of the trapezoid's duration, which lengthens it by that
  fraction (0.5 %). The profile is then a cubic between its knots, with continuous
  position, velocity and acceleration: with a point at each knot, the controller's
  quintics are those cubics, and every played sample is within the limits.
* **A polyline** (a sampling-based plan after shortcutting): each segment such a line,
  stopping at the corners. Its corners are where the path was checked for collisions,
  so the motion never leaves it.
* **A smooth path** (a Cartesian path: many close states): TOPP-RA (PyPI ``toppra``,
  Pham and Pham, "A New Approach to Time-Optimal Path Parameterization Based on
  Reachability Analysis", IEEE Transactions on Robotics 34(3), 2018) on a cubic spline
  through the states, over the states as its grid; the points are the states themselves,
  timed by its path velocity. TOPP-RA keeps the limits at its grid points, not between
  them; so the trajectory as played (:func:`~.trajectory.demand`, 1 kHz) is checked and,
  where it asks for more, slowed down as a whole until it does not.
"""
from __future__ import annotations

import math
from typing import List, Sequence, Tuple

import numpy as np

from .requirements import require
from .trajectory import JointTrajectory, demand

#: A jerk ramp's share of a straight line's time-optimal duration.
RAMP_FRACTION = 0.005
#: Segments of a profile shorter than this share of it are left out (a triangle's cruise
#: of a rounding error would otherwise give two points a few ulps apart, a segment
#: joint_trajectory_controller cannot play).
NEGLIGIBLE = 1e-9
#: Slowing down a played trajectory that asks for more than the limits: by its ratio
#: (velocity) or the square root of it (acceleration), and this margin more.
SLOWDOWN_MARGIN = 1.002


def _profile(distance: float, velocity: float, acceleration: float
             ) -> Tuple[List[float], List[float]]:
    """(knot times, jerk on each segment) of the S-curve over ``distance`` (> 0) from
    rest to rest under ``velocity``, ``acceleration`` (module docstring)."""
    if velocity * velocity / acceleration >= distance:    # a triangle: never at top speed
        trapezoid = 2.0 * math.sqrt(distance / acceleration)
    else:
        trapezoid = distance / velocity + velocity / acceleration
    ramp = RAMP_FRACTION * trapezoid
    jerk = acceleration / ramp
    peak = velocity                           # the top speed, reached after ramp + flat
    flat = peak / acceleration - ramp
    if flat < 0.0 or peak * (peak / acceleration + ramp) > distance:
        # the top speed is not reached: accelerate only as long as the distance allows
        peak = acceleration * (-ramp + math.sqrt(ramp * ramp + 4.0 * distance
                                                 / acceleration)) / 2.0
        flat = peak / acceleration - ramp
        if flat < 0.0:                        # not even the full acceleration
            ramp, flat = (distance / (2.0 * jerk)) ** (1.0 / 3.0), 0.0
            peak = jerk * ramp * ramp
    accelerating = 2.0 * ramp + flat
    cruise = max(distance / peak - accelerating, 0.0)
    durations = [ramp, flat, ramp, cruise, ramp, flat, ramp]
    jerks = [jerk, 0.0, -jerk, 0.0, -jerk, 0.0, jerk]
    times, kept = [0.0], []
    for duration, j in zip(durations, jerks):
        if duration > NEGLIGIBLE * trapezoid:
            times.append(times[-1] + duration)
            kept.append(j)
    return times, kept


def _integrate(times: Sequence[float], jerks: Sequence[float]) -> np.ndarray:
    """(K, 3) s, s', s'' at the knots of a piecewise constant jerk from rest at s = 0."""
    out = np.zeros((len(times), 3))
    for k, j in enumerate(jerks):
        h = times[k + 1] - times[k]
        s, v, a = out[k]
        out[k + 1] = (s + v * h + a * h * h / 2 + j * h ** 3 / 6,
                      v + a * h + j * h * h / 2, a + j * h)
    return out


def line_trajectory(start: np.ndarray, goal: np.ndarray, velocity_limits: np.ndarray,
                    acceleration_limits: np.ndarray) -> Tuple[np.ndarray, np.ndarray,
                                                              np.ndarray, np.ndarray]:
    """The straight line from ``start`` to ``goal`` ((n,) joint values), time-optimal but
    for the jerk ramps (module docstring): (times (K,), positions, velocities,
    accelerations (K, n)), at rest at both ends."""
    delta = np.asarray(goal, dtype=float) - np.asarray(start, dtype=float)
    moving = np.abs(delta) > 0.0
    if not moving.any():
        return (np.zeros(1), np.asarray(start, dtype=float)[None, :].copy(),
                np.zeros((1, len(delta))), np.zeros((1, len(delta))))
    velocity = float(np.min(velocity_limits[moving] / np.abs(delta[moving])))
    acceleration = float(np.min(acceleration_limits[moving] / np.abs(delta[moving])))
    times, jerks = _profile(1.0, velocity, acceleration)
    s = _integrate(times, jerks)
    s[-1] = (1.0, 0.0, 0.0)                # the goal exactly, at rest
    positions = start + s[:, :1] * delta
    return np.array(times), positions, s[:, 1:2] * delta, s[:, 2:3] * delta


def polyline_trajectory(joint_names: Sequence[str], waypoints: np.ndarray,
                        velocity_limits: np.ndarray, acceleration_limits: np.ndarray
                        ) -> JointTrajectory:
    """Each segment of a (K, n) polyline as :func:`line_trajectory`, stopping at its
    corners."""
    times, positions, velocities, accelerations = [np.zeros(1)], [waypoints[:1]], \
        [np.zeros((1, waypoints.shape[1]))], [np.zeros((1, waypoints.shape[1]))]
    offset = 0.0
    for a, b in zip(waypoints[:-1], waypoints[1:]):
        if np.array_equal(a, b):
            continue
        t, p, v, acc = line_trajectory(a, b, velocity_limits, acceleration_limits)
        times.append(t[1:] + offset)
        positions.append(p[1:])
        velocities.append(v[1:])
        accelerations.append(acc[1:])
        offset += float(t[-1])
    return JointTrajectory(list(joint_names), np.concatenate(times),
                           np.concatenate(positions), np.concatenate(velocities),
                           np.concatenate(accelerations))


def within_limits(trajectory: JointTrajectory, velocity_limits: np.ndarray,
                  acceleration_limits: np.ndarray) -> JointTrajectory:
    """``trajectory`` slowed down as a whole until, played at 1 kHz, it asks no joint for
    more than its limits (module docstring)."""
    for _ in range(20):
        ratio = demand(trajectory, velocity_limits, acceleration_limits)
        if ratio <= 1.0:
            return trajectory
        trajectory = trajectory.scaled_in_time(max(math.sqrt(ratio), 1.0) * SLOWDOWN_MARGIN)
    return trajectory


def smooth_path_trajectory(joint_names: Sequence[str], states: np.ndarray,
                           velocity_limits: np.ndarray, acceleration_limits: np.ndarray
                           ) -> JointTrajectory:
    """A (K, n) path of close states through TOPP-RA (module docstring); the points are
    the states.

    Raises:
        ImportError: toppra missing (the motion extra).
    """
    toppra = require('toppra')
    from scipy.interpolate import CubicSpline  # noqa: PLC0415 - toppra requires scipy
    states = np.asarray(states, dtype=float)
    if len(states) < 3:
        return polyline_trajectory(joint_names, states, velocity_limits, acceleration_limits)
    steps = np.linalg.norm(np.diff(states, axis=0), axis=1)
    keep = np.concatenate([[True], steps > 1e-12])
    states = states[keep]
    grid = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(states, axis=0), axis=1))])
    grid /= grid[-1]
    spline = CubicSpline(grid, states, bc_type='clamped')
    path = toppra.SplineInterpolator(grid, states, bc_type='clamped')
    constraints = [toppra.constraint.JointVelocityConstraint(
                       np.stack([-velocity_limits, velocity_limits], axis=1)),
                   toppra.constraint.JointAccelerationConstraint(
                       np.stack([-acceleration_limits, acceleration_limits], axis=1))]
    algorithm = toppra.algorithm.TOPPRA(constraints, path, gridpoints=grid,
                                        parametrizer='ParametrizeConstAccel')
    sdd, sd, _ = algorithm.compute_parameterization(0.0, 0.0)
    if sd is None or not np.all(np.isfinite(sd)):
        return polyline_trajectory(joint_names, states, velocity_limits, acceleration_limits)
    sd = np.maximum(np.asarray(sd, dtype=float), 0.0)
    ds = np.diff(grid)
    mean = (sd[:-1] + sd[1:]) / 2.0
    dt = np.where(mean > 0.0, ds / np.maximum(mean, 1e-12), 0.0)
    times = np.concatenate([[0.0], np.cumsum(dt)])
    sdd_points = np.append(np.asarray(sdd, dtype=float), 0.0)
    first, second = spline(grid, 1), spline(grid, 2)
    velocities = first * sd[:, None]
    accelerations = second * (sd * sd)[:, None] + first * sdd_points[:, None]
    velocities[[0, -1]] = 0.0
    accelerations[[0, -1]] = 0.0
    trajectory = JointTrajectory(list(joint_names), times, states.copy(), velocities,
                                 accelerations)
    return within_limits(trajectory, velocity_limits, acceleration_limits)
