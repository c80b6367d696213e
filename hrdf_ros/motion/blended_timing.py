"""A rounded joint path (:class:`~.blend_path.BlendPath`) timed within velocity and
acceleration limits, as points joint_trajectory_controller plays.

In: the path, (n,) velocity and acceleration limits (rad/s, rad/s^2, already scaled).
Out: a :class:`~.trajectory.JointTrajectory` at rest at both ends and where on the path
each of its points is (s), or None where TOPP-RA finds no parameterization.

Each stretch between kinks (:meth:`~.blend_path.BlendPath.sections`) is timed from rest
to rest:

1. TOPP-RA (PyPI ``toppra``: Pham and Pham, "A New Approach to Time-Optimal Path
   Parameterization Based on Reachability Analysis", IEEE Transactions on Robotics
   34(3), 2018) under the joints' velocity and acceleration limits, on a grid with a
   point at every boundary between a straight part and an arc (where the path's
   curvature jumps) and :data:`LINE_INTERVALS` / :data:`ARC_INTERVALS` intervals per
   straight part / arc. Its answer s(t) is quadratic between grid points (s'' constant,
   toppra's ``ParametrizeConstAccel``), so its accelerations step, which a quintic
   between points cannot play.
2. s(t) averaged over a sliding window of :data:`RAMP_FRACTION` of the stretch's
   duration (a box filter): each step of s'' becomes a ramp of constant jerk, s'' and s'
   stay within the bounds of their values nearby, the stretch takes that window longer
   (0.5 %, as :func:`~.timing.line_trajectory`'s ramps), and it starts and ends at rest
   with zero acceleration. The averaged s(t) is cubic between its knots (the grid times
   +- half the window), computed in closed form.
3. A point at every knot where s'' changes: position q(s), velocity q'(s) s', and
   acceleration q'(s) s'' + q''(s) s'^2. On a straight part the controller's quintic
   between two points is then the cubic itself; on an arc it differs by the grid's
   resolution. The trajectory as played (1 kHz) is checked against the limits and,
   where it asks for more, slowed down as a whole (:func:`~.timing.within_limits`).
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

from .blend_path import BlendPath
from .requirements import require
from .timing import RAMP_FRACTION, within_limits
from .trajectory import JointTrajectory

#: Grid intervals of TOPP-RA per straight part and per arc of the path.
LINE_INTERVALS = 40
ARC_INTERVALS = 24
#: The shortest time between two points, s: knots of the averaged profile closer than
#: this merge.
KNOT_GAP = 1e-5


def _grid(path: BlendPath, s0: float, s1: float) -> np.ndarray:
    """Grid points over [s0, s1]: every piece boundary inside, and the pieces cut into
    their share of intervals."""
    points = [s0]
    for kind, a, b, _ in path.pieces:
        a, b = max(a, s0), min(b, s1)
        if b <= a:
            continue
        count = LINE_INTERVALS if kind == 'line' else ARC_INTERVALS
        points.extend(np.linspace(a, b, count + 1)[1:].tolist())
    grid = np.array(points)
    keep = np.concatenate([[True], np.diff(grid) > 1e-12 * max(1.0, s1)])
    grid = grid[keep]
    grid[-1] = s1
    return grid


def _profile(path: BlendPath, s0: float, s1: float, velocity: np.ndarray,
             acceleration: np.ndarray):
    """(grid times (N,), s (N,), s' (N,), s'' per interval (N - 1,)) of TOPP-RA's
    rest-to-rest profile over one stretch, or None."""
    toppra = require('toppra')
    from toppra.interpolator import AbstractGeometricPath  # noqa: PLC0415

    class Stretch(AbstractGeometricPath):
        def __call__(self, positions, order=0):
            values = path.evaluate(positions, order)
            return values[0] if np.ndim(positions) == 0 else values

        @property
        def dof(self):
            return len(velocity)

        @property
        def path_interval(self):
            return np.array([s0, s1])

    grid = _grid(path, s0, s1)
    constraints = [toppra.constraint.JointVelocityConstraint(
                       np.stack([-velocity, velocity], axis=1)),
                   toppra.constraint.JointAccelerationConstraint(
                       np.stack([-acceleration, acceleration], axis=1))]
    algorithm = toppra.algorithm.TOPPRA(constraints, Stretch(), gridpoints=grid,
                                        parametrizer='ParametrizeConstAccel')
    _, sd, _ = algorithm.compute_parameterization(0.0, 0.0)
    if sd is None or not np.all(np.isfinite(sd)):
        return None
    sd = np.maximum(np.asarray(sd, dtype=float), 0.0)
    sd[[0, -1]] = 0.0
    ds = np.diff(grid)
    if np.any(sd[:-1] + sd[1:] <= 0.0):
        return None
    # s'' from the speeds at both ends of each interval: the motion over it is then
    # exactly the constant-acceleration one (toppra's, to rounding)
    sdd = (sd[1:] ** 2 - sd[:-1] ** 2) / (2.0 * ds)
    times = np.concatenate([[0.0], np.cumsum(2.0 * ds / (sd[:-1] + sd[1:]))])
    return times, grid, sd, sdd


class _Smoothed:
    """s(t) of a piecewise constant s'' profile, averaged over a window of width w
    (module docstring, step 2): value, first and second derivatives, t in [0, T + w]."""

    def __init__(self, times, s, sd, sdd, width):
        self.t, self.s, self.sd, self.sdd, self.w = times, s, sd, sdd, width
        # the antiderivative of s at the grid times, for the window's integral
        h = np.diff(times)
        pieces = s[:-1] * h + sd[:-1] * h * h / 2.0 + sdd * h ** 3 / 6.0
        self.area = np.concatenate([[0.0], np.cumsum(pieces)])

    def _raw(self, t: np.ndarray, order: int) -> np.ndarray:
        """The unaveraged profile's antiderivative (order -1), value (0) or first
        derivative (1) at times t, at rest outside [0, T]."""
        end = self.t[-1]
        k = np.clip(np.searchsorted(self.t, t, side='right') - 1, 0, len(self.sdd) - 1)
        tau = np.clip(t, 0.0, end) - self.t[k]
        s, sd, sdd = self.s[k], self.sd[k], self.sdd[k]
        if order == 1:
            return np.where((t <= 0.0) | (t >= end), 0.0, sd + sdd * tau)
        value = s + sd * tau + sdd * tau * tau / 2.0
        if order == 0:
            return value
        integral = self.area[k] + s * tau + sd * tau * tau / 2.0 + sdd * tau ** 3 / 6.0
        return integral + np.where(t > end, self.s[-1] * (t - end), 0.0) \
            + np.where(t < 0.0, self.s[0] * t, 0.0)

    def __call__(self, t: np.ndarray, order: int = 0) -> np.ndarray:
        """The averaged s (order 0), s' (1) or s'' (2) at times t (from 0 to T + w)."""
        t = np.asarray(t, dtype=float) - self.w / 2.0
        a, b = t - self.w / 2.0, t + self.w / 2.0
        return (self._raw(b, order - 1) - self._raw(a, order - 1)) / self.w


def _stretch(path: BlendPath, profile, width: float):
    """(times, s, positions, velocities, accelerations) of one stretch from time 0: a
    point at each knot of the averaged profile where s'' changes."""
    times, grid, sd, sdd = profile
    smooth = _Smoothed(times, grid, sd, sdd, width)
    # knots: where the window's ends cross a grid time; s'' changes only where the
    # constant s'' of the interval entering or leaving the window differs
    steps = np.abs(np.diff(sdd)) > 1e-12 * np.abs(sdd).max(initial=1.0)
    edges = times[np.concatenate([[True], steps, [True]])]
    knots = np.unique(np.concatenate([edges, edges + width]))
    # knots closer than KNOT_GAP merge (the later one goes): a segment of a rounding
    # error's length loses the quintic's precision, and the cubic differs by nothing
    keep = np.concatenate([[True], np.diff(knots) >= KNOT_GAP])
    keep[-1] = True
    if len(knots) > 1 and knots[-1] - knots[keep][-2] < KNOT_GAP:
        keep[np.flatnonzero(keep)[-2]] = False
    knots = knots[keep]
    s, s1, s2 = smooth(knots), smooth(knots, 1), smooth(knots, 2)
    s1[[0, -1]] = 0.0
    s2[[0, -1]] = 0.0
    q, q1, q2 = (path.evaluate(s, k) for k in range(3))
    return (knots, s, q, q1 * s1[:, None], q1 * s2[:, None] + q2 * (s1 * s1)[:, None])


def blended_trajectory(joint_names: Sequence[str], path: BlendPath,
                       velocity_limits: np.ndarray, acceleration_limits: np.ndarray
                       ) -> Optional[Tuple[JointTrajectory, np.ndarray]]:
    """The rounded path timed (module docstring): (the trajectory, (K,) the path position
    s of each of its points), or None where TOPP-RA fails.

    Raises:
        ImportError: toppra missing (the motion extra).
    """
    times: List[np.ndarray] = []
    where: List[np.ndarray] = []
    positions, velocities, accelerations = [], [], []
    offset = 0.0
    for s0, s1 in path.sections():
        profile = _profile(path, s0, s1, velocity_limits, acceleration_limits)
        if profile is None:
            return None
        t, s, p, v, a = _stretch(path, profile, RAMP_FRACTION * profile[0][-1])
        start = 1 if times else 0                    # a kink: the stop is one point
        times.append(t[start:] + offset)
        where.append(s[start:])
        positions.append(p[start:])
        velocities.append(v[start:])
        accelerations.append(a[start:])
        offset = float(times[-1][-1])
    trajectory = JointTrajectory(list(joint_names), np.concatenate(times),
                                 np.concatenate(positions), np.concatenate(velocities),
                                 np.concatenate(accelerations))
    trajectory.positions[-1] = path.evaluate(path.length)[0]
    return within_limits(trajectory, velocity_limits, acceleration_limits), \
        np.concatenate(where)
