"""The rounds of :class:`~.certified.Certifier` as compiled kernels (numba; the optional
extra ``hrdf_ros[fast]``), used when the planner's kinematics take the compiled path.

In: the arrays of one certification (:class:`~.certified.Certifier`'s compiled run: the
states checked, their links' poses, each row's best bound and its level; the intervals
of the pieces still unproven and their (interval, row) entries) and the clearance's
constants. Out: the same decisions as the numpy rounds of :mod:`.certified`, by the same
rules, entry by entry in explicit loops:

* :func:`prove`: each entry's motion bound, and whether the bounds at its two ends prove
  it, the boxes' bounds computed where the cheap ones do not, the exact distances asked
  (a list for the caller, who asks hpp-fcl) where the rule of
  :data:`~.certified.EXACT_RATIO` says they may prove it;
* :func:`cut`: the refusals among the entries still open, then each interval with open
  entries cut into parts (de Casteljau), the new states at the cuts and the next round's
  entries.

numpy pays ~40 calls a round whatever its size; these ~50 ns an entry.
"""
from __future__ import annotations

import math

import numpy as np

from ..kinematics import compiled as _kernels  # noqa: F401 - sets NUMBA_CACHE_DIR first

from numba import njit  # noqa: E402

from .compiled_clearance import box_gap  # noqa: E402

#: Entry states after :func:`prove`.
PROVEN, OPEN, WAITING = 0, 1, 2
#: A level set while an exact distance is asked for (the caller sets 2 with the value).
ASKED = -1


@njit(cache=True)
def variation(coefficients, out):
    """Fill ``out`` (I, dof) with the control polygons' total variation of (I, n, dof)
    pieces."""
    for i in range(coefficients.shape[0]):
        for k in range(coefficients.shape[2]):
            total = 0.0
            for j in range(coefficients.shape[1] - 1):
                total += abs(coefficients[i, j + 1, k] - coefficients[i, j, k])
            out[i, k] = total


@njit(cache=True)
def reaches(coefficients, slide_dofs, out):
    """Fill ``out`` (I, S) with each piece's largest |q_m| of the prismatic joints m."""
    for i in range(coefficients.shape[0]):
        for s in range(len(slide_dofs)):
            largest = 0.0
            for j in range(coefficients.shape[1]):
                largest = max(largest, abs(coefficients[i, j, slide_dofs[s]]))
            out[i, s] = largest


@njit(cache=True)
def prove(entries, count, interval, row, travel, reach, left, right, weights, slide_weights,
          margin, bound, level, poses, owner, box, half, pairs, robot_count, object_pose,
          object_half, capsule, slack, decide, exact_ratio, exact_below, status, motion,
          asked_state, asked_row, ask):
    """Decide entries ``entries[:count]`` (indices into ``interval``/``row``): ``status``
    PROVEN, OPEN or WAITING (an exact distance asked at one of its ends), ``motion`` their
    bounds; the boxes' bounds filled in on the way. Returns how many exact distances
    were asked (``asked_state``, ``asked_row``; their level set to :data:`ASKED`); none
    unless ``ask`` (the pass after the exact distances came in)."""
    asked = 0
    dof = weights.shape[1]
    for n in range(count):
        e = entries[n]
        i, p = interval[e], row[e]
        m = 0.0
        for k in range(dof):
            w = weights[p, k]
            for s in range(slide_weights.shape[0]):
                w += slide_weights[s, p, k] * reach[i, s]
            m += w * travel[i, k]
        motion[e] = m
        a, b = left[i], right[i]
        twice = 2.0 * margin[p]
        if bound[a, p] + bound[b, p] - twice > m:
            status[e] = PROVEN
            continue
        for end in (a, b):
            if level[end, p] == 0:
                value = box_gap(poses, end, p, owner, box, half, pairs, robot_count,
                                object_pose, object_half, capsule, slack)
                if value > bound[end, p]:
                    bound[end, p] = value
                level[end, p] = 2 if decide[p] else 1
        total = bound[a, p] + bound[b, p] - twice
        if total > m:
            status[e] = PROVEN
            continue
        status[e] = OPEN
        if decide[p] or not ask:
            continue
        weakest = min(bound[a, p], bound[b, p]) - margin[p]
        if total * exact_ratio > m or weakest <= 0.0 or m < exact_below:
            for end in (a, b):
                if level[end, p] == 1:
                    level[end, p] = ASKED
                    asked_state[asked] = end
                    asked_row[asked] = p
                    asked += 1
                if level[end, p] == ASKED:
                    status[e] = WAITING
    return asked


@njit(cache=True)
def cut(count, interval, row, status, motion, coefficients, left, right, piece, bound,
        level, margin, min_motion, max_parts, stop_at_first, free, refusal, q, state_count,
        next_coefficients, next_left, next_right, next_piece, next_interval, next_row):
    """The refusals among the OPEN entries of ``[:count]``, then the next round: each
    interval with open entries cut into parts, as many as its worst entry needs were its
    bounds to stay as at its ends (at least 2, at most ``max_parts``); new states at the
    cuts appended to ``q`` from ``state_count``. ``refusal`` (5,) float: first refused
    piece (or -1), its row, touching (1.0 or 0.0), the state index nearest to touching,
    and whether anything was refused this round. Returns (intervals, entries, states) of
    the next round (its arrays filled from 0; the states' new count)."""
    n_intervals = len(left)
    parts = np.zeros(n_intervals, dtype=np.int64)
    refused_now = False
    for e in range(count):
        if status[e] != OPEN:
            continue
        i, p = interval[e], row[e]
        a, b = left[i], right[i]
        decided = level[a, p] == 2 and level[b, p] == 2
        touching = decided and (bound[a, p] <= margin[p] or bound[b, p] <= margin[p])
        if touching or (decided and motion[e] < min_motion):
            k = piece[i]
            free[k] = False
            refused_now = True
            if refusal[0] < 0 or k < refusal[0]:
                refusal[0] = k
                refusal[1] = p
                refusal[2] = 1.0 if touching else 0.0
                refusal[3] = a if bound[a, p] <= bound[b, p] else b
            continue
        total = bound[a, p] + bound[b, p] - 2.0 * margin[p]
        need = motion[e] / max(total, 1e-12)
        wanted = int(min(math.floor(need), max_parts - 1)) + 1
        parts[i] = max(parts[i], max(wanted, 2))
    refusal[4] = 1.0 if refused_now else 0.0
    if refused_now and stop_at_first:
        return 0, 0, state_count
    for i in range(n_intervals):
        if parts[i] and not free[piece[i]]:
            parts[i] = 0
    # the parts of every cut interval, in order; first part index of each interval
    first = np.full(n_intervals, -1, dtype=np.int64)
    made = 0
    degree = coefficients.shape[1] - 1
    dof = coefficients.shape[2]
    rest = np.empty((degree + 1, dof))
    work = np.empty((degree + 1, dof))
    for i in range(n_intervals):
        k = parts[i]
        if not k:
            continue
        first[i] = made
        for j in range(degree + 1):
            for d in range(dof):
                rest[j, d] = coefficients[i, j, d]
        for part in range(k):
            target = made + part
            if part == k - 1:
                for j in range(degree + 1):
                    for d in range(dof):
                        next_coefficients[target, j, d] = rest[j, d]
            else:
                t = 1.0 / (k - part)
                for j in range(degree + 1):
                    for d in range(dof):
                        work[j, d] = rest[j, d]
                for d in range(dof):
                    next_coefficients[target, 0, d] = work[0, d]
                for level_ in range(1, degree + 1):
                    for j in range(degree + 1 - level_):
                        for d in range(dof):
                            work[j, d] = work[j, d] + t * (work[j + 1, d] - work[j, d])
                    for d in range(dof):
                        next_coefficients[target, level_, d] = work[0, d]
                # the remainder [t, 1]: the last coefficient of each level, reversed
                for j in range(degree + 1):
                    for d in range(dof):
                        work[j, d] = rest[j, d]
                for d in range(dof):
                    rest[degree, d] = work[degree, d]
                for level_ in range(1, degree + 1):
                    for j in range(degree + 1 - level_):
                        for d in range(dof):
                            work[j, d] = work[j, d] + t * (work[j + 1, d] - work[j, d])
                    for d in range(dof):
                        rest[degree - level_, d] = work[degree - level_, d]
            next_piece[target] = piece[i]
            if part == 0:
                next_left[target] = left[i]
            else:
                for d in range(dof):
                    q[state_count, d] = next_coefficients[target, 0, d]
                next_left[target] = state_count
                next_right[target - 1] = state_count
                state_count += 1
            if part == k - 1:
                next_right[target] = right[i]
        made += k
    entries = 0
    for e in range(count):
        if status[e] != OPEN:
            continue
        i = interval[e]
        if first[i] < 0:
            continue
        for part in range(parts[i]):
            next_interval[entries] = first[i] + part
            next_row[entries] = row[e]
            entries += 1
    return made, entries, state_count
