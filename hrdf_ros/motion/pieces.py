"""Motions as polynomial pieces in joint space, in Bernstein form: what the certified
checks of :mod:`.certified` prove free.

In: polylines (K, dof) of states, or a trajectory's points (times, positions, velocities,
accelerations: URDF joint values of some joints of a state). Out: (K, n + 1, dof)
Bernstein coefficients over a parameter u in [0, 1] (HEBI positions, model order): a
straight segment is degree 1; the quintic joint_trajectory_controller plays between two
points (``trajectory.cpp``'s ``interpolate_between_points``) degree 5; their states at any
u, their cuts (de Casteljau), and a bound on each joint's total variation over a piece
(its control polygon's, which is never below the polynomial's: the variation
diminishing property of the Bernstein form).
"""
from __future__ import annotations

from math import comb
from typing import Sequence, Tuple

import numpy as np


def line_pieces(states: np.ndarray) -> np.ndarray:
    """(K - 1, 2, dof) the straight segments of a polyline through (K, dof) states."""
    states = np.asarray(states, dtype=float)
    return np.stack([states[:-1], states[1:]], axis=1)


def power_to_bernstein(coefficients: np.ndarray, durations: np.ndarray) -> np.ndarray:
    """(K, n + 1, m) Bernstein coefficients over u = t / T in [0, 1] of polynomials
    sum_k c_k t^k on [0, T]: ``coefficients`` (n + 1, K, m), ``durations`` (K,) s."""
    c = np.asarray(coefficients, dtype=float)
    degree = c.shape[0] - 1
    t = np.asarray(durations, dtype=float)[None, :, None] ** np.arange(degree + 1)[:, None, None]
    a = c * t                                           # coefficients in u
    out = np.zeros((c.shape[1], degree + 1, c.shape[2]))
    for i in range(degree + 1):
        for k in range(i + 1):
            out[:, i] += comb(i, k) / comb(degree, k) * a[k]
    return out


def trajectory_pieces(times: np.ndarray, positions: np.ndarray, velocities: np.ndarray,
                      accelerations: np.ndarray, full: np.ndarray, columns: Sequence[int],
                      ratios: np.ndarray) -> np.ndarray:
    """(K - 1, 6, dof) the quintics joint_trajectory_controller plays between the K points
    of a trajectory (URDF joint values of the ``columns`` of a state; the other joints of
    ``full`` (dof,) as they are), as Bernstein pieces in HEBI positions (value times the
    gear ``ratios``)."""
    from .trajectory import quintic_coefficients  # noqa: PLC0415 - trajectory is above
    p, v, a = (np.asarray(x, dtype=float) for x in (positions, velocities, accelerations))
    durations = np.diff(np.asarray(times, dtype=float))
    c = quintic_coefficients(durations, (p[:-1], v[:-1], a[:-1]), (p[1:], v[1:], a[1:]))
    c = c.reshape(6, len(durations), -1)
    pieces = np.repeat(np.asarray(full, dtype=float)[None, None], len(durations), axis=0)
    pieces = np.repeat(pieces, 6, axis=1)
    columns = np.asarray(columns, dtype=int)
    pieces[:, :, columns] = power_to_bernstein(c, durations) * np.asarray(ratios)[columns]
    return pieces


def evaluate(coefficients: np.ndarray, u: np.ndarray) -> np.ndarray:
    """(K, U, dof) the states of (K, n + 1, dof) pieces at parameters u (U,) in [0, 1]."""
    degree = coefficients.shape[1] - 1
    u = np.asarray(u, dtype=float)[:, None]
    basis = np.concatenate([comb(degree, i) * u ** i * (1.0 - u) ** (degree - i)
                            for i in range(degree + 1)], axis=1)          # (U, n + 1)
    return np.einsum('ui,kid->kud', basis, coefficients)


def split_at(coefficients: np.ndarray, t: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """((I, n + 1, dof), (I, n + 1, dof)) the Bernstein coefficients of the parts u in
    [0, t] and [t, 1] of (I, n + 1, dof) pieces, t (I,) (de Casteljau)."""
    work = np.array(coefficients, dtype=float)
    t = np.asarray(t, dtype=float)[:, None, None]
    left, right = [work[:, 0]], [work[:, -1]]
    for _ in range(work.shape[1] - 1):
        work = work[:, :-1] + t * (work[:, 1:] - work[:, :-1])
        left.append(work[:, 0])
        right.append(work[:, -1])
    return np.stack(left, axis=1), np.stack(right[::-1], axis=1)


def subdivide(coefficients: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """(sum(counts), n + 1, dof) (I, n + 1, dof) pieces each cut into ``counts`` (I,)
    equal parts in u, the parts of each piece in order, piece after piece."""
    counts = np.asarray(counts, dtype=int)
    out = np.empty((int(counts.sum()),) + coefficients.shape[1:])
    first = np.cumsum(counts) - counts
    rest = np.array(coefficients, dtype=float)
    for j in range(int(counts.max(initial=0))):
        cut = np.flatnonzero(counts > j)
        last = counts[cut] == j + 1
        part, remainder = split_at(rest[cut], 1.0 / (counts[cut] - j))
        part[last] = rest[cut][last]
        out[first[cut] + j] = part
        rest[cut] = remainder
    return out


def variation(coefficients: np.ndarray) -> np.ndarray:
    """(I, dof) bounds on each joint's total variation over (I, n + 1, dof) pieces: their
    control polygons' (module docstring)."""
    return np.abs(np.diff(coefficients, axis=1)).sum(axis=1)


def elevated(coefficients: np.ndarray, degree: int) -> np.ndarray:
    """(K, degree + 1, dof) the same pieces as (K, n + 1, dof) ones, n <= degree, written in
    degree ``degree`` (Bernstein degree elevation: the same polynomial)."""
    out = np.asarray(coefficients, dtype=float)
    while out.shape[1] - 1 < degree:
        n = out.shape[1] - 1
        i = np.arange(1, n + 1)[None, :, None] / (n + 1)
        middle = i * out[:, :-1] + (1 - i) * out[:, 1:]
        out = np.concatenate([out[:, :1], middle, out[:, -1:]], axis=1)
    return out


def controller_pieces(times, positions, velocities, accelerations, full: np.ndarray,
                      columns: Sequence[int], ratios: np.ndarray) -> np.ndarray:
    """(K, 6, dof) the motion joint_trajectory_controller plays for a trajectory's points,
    from the state ``full`` (dof,) at rest: from it to the first point over that point's
    time (when > 0), then between each two points, as it interpolates
    (``trajectory.cpp``): a quintic where both points carry accelerations, a cubic where
    they carry velocities, else a straight line. ``positions`` (K, n) URDF joint values of
    the ``columns`` of a state; ``velocities``, ``accelerations`` (K, n) or None; the
    other joints at their values in ``full``; HEBI positions are values times ``ratios``.
    """
    from .trajectory import quintic_coefficients  # noqa: PLC0415 - trajectory is above
    times = np.asarray(times, dtype=float)
    p = np.asarray(positions, dtype=float)
    columns = np.asarray(columns, dtype=int)
    ratios = np.asarray(ratios, dtype=float)
    start = np.asarray(full, dtype=float)[columns] / ratios[columns]
    order = 5 if accelerations is not None else 3 if velocities is not None else 1
    v = np.zeros_like(p) if velocities is None else np.asarray(velocities, dtype=float)
    a = np.zeros_like(p) if accelerations is None else np.asarray(accelerations, dtype=float)
    if times[0] > 0.0:                 # from where the robot is, at rest
        times = np.concatenate([[0.0], times])
        p, v, a = (np.vstack([start, p]), np.vstack([np.zeros_like(start), v]),
                   np.vstack([np.zeros_like(start), a]))
    durations = np.diff(times)
    if order == 5:
        c = quintic_coefficients(durations, (p[:-1], v[:-1], a[:-1]), (p[1:], v[1:], a[1:]))
        local = power_to_bernstein(c.reshape(6, len(durations), -1), durations)
    elif order == 3:                   # Hermite: p, v at both ends
        t = durations[:, None]
        c0, c1 = p[:-1], v[:-1]
        c2 = (3 * (p[1:] - p[:-1]) - (2 * v[:-1] + v[1:]) * t) / t ** 2
        c3 = (2 * (p[:-1] - p[1:]) + (v[:-1] + v[1:]) * t) / t ** 3
        local = elevated(power_to_bernstein(np.stack([c0, c1, c2, c3]), durations), 5)
    else:
        local = elevated(np.stack([p[:-1], p[1:]], axis=1), 5)
    pieces = np.repeat(np.asarray(full, dtype=float)[None, None], len(durations), axis=0)
    pieces = np.repeat(pieces, 6, axis=1)
    pieces[:, :, columns] = local * ratios[columns]
    return pieces


def on_segments(pieces: np.ndarray, path: np.ndarray, tolerance: float = 1e-9) -> bool:
    """True when every one of (K, n + 1, dof) pieces lies on one segment of the polyline
    ``path`` (S, dof): all its Bernstein coefficients within ``tolerance`` (HEBI units,
    per joint) of the segment and between its ends. A piece lies in the convex hull of
    its coefficients, so it then moves only along that segment, off it by at most
    ``tolerance`` per joint: where the segments are proven free, so are the pieces (the
    proofs' distance bounds keep 2 um of slack, :data:`~.clearance.SLACK`; 1e-9 of a joint
    moves no point of a link of HEBI's arms 0.01 um)."""
    path = np.asarray(path, dtype=float)
    for piece in np.asarray(pieces, dtype=float):
        placed = False
        for a, b in zip(path[:-1], path[1:]):
            d = b - a
            length2 = float(d @ d)
            if length2 == 0.0:
                continue
            u = (piece - a) @ d / length2
            if u.min() < -1e-12 or u.max() > 1.0 + 1e-12:
                continue
            if np.abs(piece - (a + u[:, None] * d)).max() <= tolerance:
                placed = True
                break
        if not placed:
            return False
    return True
