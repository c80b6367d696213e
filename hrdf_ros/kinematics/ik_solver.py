"""The inverse kinematics method, and its numpy path (one target at a time).

In: an :class:`IkProblem` (one end effector's joints, their bounds and the request's
settings, built by :mod:`.ik`), a checked target (4, 4) in the reference frame and a
checked seed (dof,) (rad, or m for prismatic joints). Out: the joint positions (dof,),
whether they reach the target within the tolerances, their position error (m) and
orientation error (rad), the iterations and the restarts (:func:`solve_one`).
:mod:`.compiled_ik` runs the same method as one compiled kernel; the scalar helpers here
(:func:`rotation_vector`, :func:`tip_axis_rotation`, :func:`nearest_equivalent`) are
compiled from this source, and the constants are read from this module.

Method: Levenberg-Marquardt with joint limits and random restarts.

* Residual ``e(q)``, stacked: the position error ``p_t - p`` (m); for ``'full'`` the
  rotation vector of ``R_t R^T`` (rad, in the reference frame), for ``'tip_axis'`` the
  rotation vector of the shortest rotation taking the end effector's z axis onto the
  target's (its Jacobian rows are the angular rows projected off z), for ``'none'``
  nothing. The orientation rows are scaled by a length (:data:`ORIENTATION_WEIGHT`
  times the reach of the chain, m) so that both errors count in metres; the tolerances
  are checked unscaled.
* Cost ``E = |e|^2 / 2``; step ``(J^T J + lambda I) dq = J^T e`` with the damping
  ``lambda = f (DAMPING_SCALE E + DAMPING_FLOOR)``, Sugihara's choice (large far from a
  solution, a gradient step; small near one, a Gauss-Newton step) times Marquardt's
  factor f: a step that does not lower the cost is taken back and f multiplied by
  :data:`DAMPING_INCREASE`, an accepted one multiplies it by :data:`DAMPING_DECREASE`
  (not below 1). A joint at a limit that the step would push beyond it is held there
  and the step solved again without it (the others take its part: an active set), then
  each joint is clipped into its limits (a projected step).
* An attempt starts from the seed, clipped into the limits. It is *stalled* when after
  :data:`STALL_ITERATIONS` steps an accepted step lowers the cost by less than
  1 - STALL_RATIO (10 %), when f passes :data:`MAX_DAMPING_FACTOR`, or after
  :data:`ATTEMPT_ITERATIONS` steps; then the next attempt starts from a uniform sample
  of the joints' ranges (the limits; one turn for a free revolute joint; twice the
  chain's reach for a free prismatic one), as TRAC-IK restarts KDL's solver.
  Restart k draws joint j at the k-th point of a Halton sequence (the radical inverse of
  k in the j-th prime base): a fixed sequence, so a request always has the same answer,
  and a quasi-random one, whose points spread over the ranges more evenly than
  pseudo-random draws: a target whose solutions few starts reach needs fewer restarts
  (measured on HEBI's 6-DoF kits, 10 000 targets each: targets needing over 140
  evaluations 0.13-0.19 % with splitmix64 draws, 0.03-0.06 % with Halton points).
* It ends when the position error is within the position tolerance (Euclidean norm, m)
  and the orientation error within the orientation tolerance (the angle, rad), or at
  the iteration cap or the timeout; then the best configuration found (least cost) is
  returned, marked unsuccessful. A free revolute joint's result is the 2 pi equivalent
  (2 pi / |motion scale| in joint position) nearest the seed.

References: K. Levenberg (1944) and D. Marquardt (1963); T. Sugihara, "Solvability-
unconcerned inverse kinematics by the Levenberg-Marquardt method", IEEE Transactions on
Robotics 27(5), 2011; P. Beeson and B. Ames, "TRAC-IK: an open-source library for
improved solving of generic inverse kinematics", IEEE-RAS Humanoids 2015 (restarts).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .frame_set import FrameSet

#: Orientation objectives, as :data:`~hrdf_ros.kinematics.ik.ORIENTATIONS` names them.
FULL, TIP_AXIS, NONE = range(3)
#: lambda = DAMPING_SCALE * E + DAMPING_FLOOR (E in m^2). Sugihara (2011) uses E + w,
#: w ~ 1e-3; a tenth of E and a floor of 1e-6 take fewer steps on HEBI's kits (tuned on
#: the 26 kits, 10 000 targets each, the method above).
DAMPING_SCALE = 0.1
DAMPING_FLOOR = 1e-6
#: A step that raises the cost is taken back and the damping multiplied by
#: DAMPING_INCREASE; an accepted one divides the factor again (down to 1).
DAMPING_INCREASE = 10.0
DAMPING_DECREASE = 0.3
#: An attempt is stalled when, after this many steps, an accepted step lowers the cost by
#: less than 1 - STALL_RATIO ...
STALL_ITERATIONS = 5
STALL_RATIO = 0.9
#: ... or when the damping factor passes this (steps keep raising the cost), or after
#: this many steps.
MAX_DAMPING_FACTOR = 1e4
ATTEMPT_ITERATIONS = 50
#: The orientation rows weigh this times the chain's reach (m per rad), at least
#: :data:`MIN_ORIENTATION_LENGTH`: 0.25 to 0.5 need the fewest restarts on HEBI's 6- and
#: 7-DoF kits.
ORIENTATION_WEIGHT = 0.4
MIN_ORIENTATION_LENGTH = 0.1
#: Rows of :attr:`IkProblem.bounds`.
LOWER, UPPER, RESTART_LOW, RESTART_HIGH, PERIOD = range(5)


@dataclass(frozen=True, slots=True)
class IkProblem:
    """One request's constants (built by :mod:`.ik`).

    Attributes:
        frame_set: the one-frame set of the end effector (its joints are the chain).
        chain: (m,) int, the dof index of each joint that moves the end effector
            (``frame_set.joints``).
        bounds: (5, m) per joint of the chain: rows :data:`LOWER`, :data:`UPPER` the
            position bounds (rad or m; -inf/inf: free); :data:`RESTART_LOW`,
            :data:`RESTART_HIGH` the range restarts draw it from; :data:`PERIOD`
            2 pi / |motion scale| for a free revolute joint (its result is moved to the
            equivalent nearest the seed), 0 for the others.
        bases: (m,) int64, the prime base of each joint's Halton dimension.
        mode: :data:`FULL`, :data:`TIP_AXIS` or :data:`NONE`.
        position_tolerance: m; orientation_tolerance: rad.
        orientation_length: the scale of the orientation rows, m per rad.
        timeout: s (inf: none); max_iterations: the cap on steps.
    """

    frame_set: FrameSet
    chain: np.ndarray
    bounds: np.ndarray
    bases: np.ndarray
    mode: int
    position_tolerance: float
    orientation_tolerance: float
    orientation_length: float
    timeout: float
    max_iterations: int


def rotation_vector(e00, e01, e02, e10, e11, e12, e20, e21, e22):
    """The rotation vector of the rotation matrix E (its angle times its unit axis) and
    the angle, rad in [0, pi]: ``(wx, wy, wz, angle)``; E's quaternion (Shepperd's
    method, the largest of w, x, y, z first) gives both, exact near pi too."""
    trace = e00 + e11 + e22
    if trace >= e00 and trace >= e11 and trace >= e22:
        qw = 0.5 * math.sqrt(max(1.0 + trace, 0.0))
        f = 0.25 / qw
        qx, qy, qz = (e21 - e12) * f, (e02 - e20) * f, (e10 - e01) * f
    elif e00 >= e11 and e00 >= e22:
        qx = 0.5 * math.sqrt(max(1.0 + e00 - e11 - e22, 0.0))
        f = 0.25 / qx
        qw, qy, qz = (e21 - e12) * f, (e01 + e10) * f, (e02 + e20) * f
    elif e11 >= e22:
        qy = 0.5 * math.sqrt(max(1.0 + e11 - e00 - e22, 0.0))
        f = 0.25 / qy
        qw, qx, qz = (e02 - e20) * f, (e01 + e10) * f, (e12 + e21) * f
    else:
        qz = 0.5 * math.sqrt(max(1.0 + e22 - e00 - e11, 0.0))
        f = 0.25 / qz
        qw, qx, qy = (e10 - e01) * f, (e02 + e20) * f, (e12 + e21) * f
    if qw < 0.0:
        qw, qx, qy, qz = -qw, -qx, -qy, -qz
    s = math.sqrt(qx * qx + qy * qy + qz * qz)
    angle = 2.0 * math.atan2(s, qw)
    f = angle / s if s > 1e-12 else 2.0 / qw        # sin(a/2) ~ a/2 near 0
    return qx * f, qy * f, qz * f, angle


def tip_axis_rotation(zx, zy, zz, tx, ty, tz):
    """The rotation vector of the shortest rotation taking the unit axis z onto the unit
    axis t, and its angle (rad, [0, pi]): ``(wx, wy, wz, angle)``; w is perpendicular
    to z (for opposite axes, about an axis perpendicular to z)."""
    cx, cy, cz = zy * tz - zz * ty, zz * tx - zx * tz, zx * ty - zy * tx
    sine = math.sqrt(cx * cx + cy * cy + cz * cz)
    angle = math.atan2(sine, zx * tx + zy * ty + zz * tz)
    if sine > 1e-12:
        f = angle / sine
        return cx * f, cy * f, cz * f, angle
    if angle < 1.0:                                   # aligned
        return 0.0, 0.0, 0.0, angle
    # opposite: about z x (the principal axis least along z)
    if abs(zx) <= abs(zy) and abs(zx) <= abs(zz):
        cx, cy, cz = 0.0, zz, -zy
    elif abs(zy) <= abs(zz):
        cx, cy, cz = -zz, 0.0, zx
    else:
        cx, cy, cz = zy, -zx, 0.0
    f = angle / math.sqrt(cx * cx + cy * cy + cz * cz)
    return cx * f, cy * f, cz * f, angle


def nearest_equivalent(x, seed, period):
    """x moved by whole periods to the value nearest ``seed`` (x when period is 0)."""
    if period <= 0.0:
        return x
    return x - period * math.floor((x - seed) / period + 0.5)


def halton(index, base):
    """The radical inverse of ``index`` (>= 1) in ``base`` (a prime): the index-th point
    of the Halton sequence's dimension of that base, in (0, 1)."""
    fraction, point = 1.0, 0.0
    while index > 0:
        fraction /= base
        point += fraction * (index % base)
        index //= base
    return point


def halton_points(first: int, count: int, bases) -> np.ndarray:
    """(count, len(bases)) the Halton points ``first`` .. ``first + count - 1`` (>= 1),
    one column per base: :func:`halton`'s arithmetic on arrays, the same bits."""
    out = np.zeros((count, len(bases)))
    for column, base in enumerate(bases):
        index = np.arange(first, first + count, dtype=np.int64)
        fraction, point = np.ones(count), np.zeros(count)
        while (index > 0).any():
            fraction = np.where(index > 0, fraction / base, fraction)
            point = np.where(index > 0, point + fraction * (index % base), point)
            index //= base
        out[:, column] = point
    return out


def primes(count: int) -> np.ndarray:
    """(count,) int64, the first ``count`` primes (the Halton bases of a chain's joints)."""
    found = []
    candidate = 2
    while len(found) < count:
        if all(candidate % p for p in found if p * p <= candidate):
            found.append(candidate)
        candidate += 1
    return np.array(found, dtype=np.int64)


def _residual(problem: IkProblem, pose: np.ndarray, jacobian, target: np.ndarray,
              position: list, axis: list):
    """(e, J, position error, orientation error) at ``pose``: the weighted residual and
    Jacobian rows of the problem's objective (``jacobian`` is changed in place; None for
    a chain without joints); ``position`` and ``axis`` are the target's origin and z
    axis as lists."""
    (_, _, zx, x), (_, _, zy, y), (_, _, zz, z) = pose[:3].tolist()
    dx, dy, dz = position[0] - x, position[1] - y, position[2] - z
    position_error = math.sqrt(dx * dx + dy * dy + dz * dz)
    if problem.mode == NONE:
        return np.array((dx, dy, dz)), None if jacobian is None else jacobian[:3], \
            position_error, 0.0
    length = problem.orientation_length
    if problem.mode == FULL:
        wx, wy, wz, angle = rotation_vector(*target[:3, :3].dot(pose[:3, :3].T).ravel().tolist())
    else:
        wx, wy, wz, angle = tip_axis_rotation(zx, zy, zz, *axis)
        if jacobian is not None:        # rotations about z do not move the tip axis
            z = pose[:3, 2]
            jacobian[3:] -= np.outer(z, z.dot(jacobian[3:]))
    if jacobian is not None:
        jacobian[3:] *= length
    return np.array((dx, dy, dz, wx * length, wy * length, wz * length)), jacobian, \
        position_error, angle


def _damped_step(jacobian: np.ndarray, e: np.ndarray, damping: float) -> np.ndarray:
    """(J^T J + damping I)^-1 J^T e."""
    normal = jacobian.T.dot(jacobian)
    normal.flat[::len(normal) + 1] += damping
    return np.linalg.solve(normal, jacobian.T.dot(e))


def solve_one(problem: IkProblem, target: np.ndarray, seed: np.ndarray):
    """One target on the numpy path (the method of the module docstring).

    Args:
        problem: the request's constants.
        target: (4, 4) checked target pose in the reference frame (m).
        seed: (dof,) checked seed (rad or m).

    Returns:
        (positions (dof,), success, position error m, orientation error rad, iterations,
        restarts).
    """
    fs, chain = problem.frame_set, problem.chain
    lower, upper, restart_low, restart_high, period = problem.bounds
    q = seed.copy()
    x = np.minimum(np.maximum(q[chain], lower), upper)
    q[chain] = x
    bounded = bool(np.isfinite(lower).any() or np.isfinite(upper).any())
    position, axis = target[:3, 3].tolist(), target[:3, 2].tolist()
    deadline = time.perf_counter() + problem.timeout
    best = (math.inf, x, 0.0, 0.0)
    # the attempt's accepted configuration, its residual, Jacobian and cost
    accepted = (x, None, None, math.inf)
    iterations = restarts = attempt = 0
    factor, success = 1.0, False
    while True:
        if len(chain):
            pose, jacobian = fs.pose_and_jacobian(q)
        else:
            pose, jacobian = fs.transform(q), None
        e, jacobian, position_error, orientation_error = _residual(
            problem, pose, jacobian, target, position, axis)
        if (position_error <= problem.position_tolerance
                and orientation_error <= problem.orientation_tolerance):
            success = True
            break
        cost = 0.5 * e.dot(e)
        if cost < best[0]:
            best = (cost, x, position_error, orientation_error)
        if (jacobian is None or iterations >= problem.max_iterations
                or time.perf_counter() >= deadline):
            _, x, position_error, orientation_error = best
            break
        if cost < accepted[3]:
            stalled = attempt >= STALL_ITERATIONS and cost > STALL_RATIO * accepted[3]
            accepted = (x, e, jacobian, cost)
            factor = max(factor * DAMPING_DECREASE, 1.0)
        else:                                    # rejected: back, with more damping
            factor *= DAMPING_INCREASE
            stalled = factor > MAX_DAMPING_FACTOR
        if stalled or attempt >= ATTEMPT_ITERATIONS:
            restarts, attempt = restarts + 1, 0
            x = np.empty(len(chain))
            for k in range(len(chain)):
                u = halton(restarts, problem.bases[k])
                x[k] = restart_low[k] + (restart_high[k] - restart_low[k]) * u
            q[chain] = x
            accepted, factor = (x, None, None, math.inf), 1.0
            continue
        x, e, jacobian, cost = accepted
        damping = factor * (DAMPING_SCALE * cost + DAMPING_FLOOR)
        step = _damped_step(jacobian, e, damping)
        if bounded:
            held = ((x <= lower) & (step < 0.0)) | ((x >= upper) & (step > 0.0))
            if held.any():                       # the others do the held joints' part
                jacobian = jacobian.copy()
                jacobian[:, held] = 0.0
                step = _damped_step(jacobian, e, damping)
            x = np.minimum(np.maximum(x + step, lower), upper)
        else:
            x = x + step
        q[chain] = x
        iterations, attempt = iterations + 1, attempt + 1
    seed_chain = seed[chain]
    for k in range(len(chain)):
        q[chain[k]] = nearest_equivalent(x[k], seed_chain[k], period[k])
    return q, success, position_error, orientation_error, iterations, restarts
