"""Inverse kinematics as one compiled kernel (numba; the optional extra ``hrdf_ros[fast]``).

In: an :class:`~.ik_solver.IkProblem`, checked targets (N, 4, 4) in the reference frame
and seeds (N, dof) (rad, or m for prismatic joints), and ``threads``. Out: per target
the joint positions (N, dof), the position and orientation errors (m, rad), success,
iterations and restarts (:func:`solve`).

The method is :mod:`.ik_solver`'s, step for step: the same residual, damping, stall
rule, restart sequence and constants (read from that module), and the scalar helpers
(Halton points among them) compiled from its source; the joint frames come from
:mod:`.compiled`'s inlined chain. The whole loop of a target (evaluate, check, restart
or step) runs in the kernel, with no Python between steps; the 6 x m Jacobian is built
from the joint frames, and the damped normal equations are solved by Cholesky. The
timeout is read from the monotonic clock (``clock_gettime(CLOCK_MONOTONIC)`` called
from the kernel) once per step; in a batch each target has its own. ``threads`` > 1 cuts
a batch into that many equal blocks run by numba's ``prange``. The kernels release the
GIL: other Python threads (a node's executor) run while they solve.

Cached on disk as :mod:`.compiled` is (imports it first, which sets the cache folder).
Imported by :mod:`.ik` only on the compiled path.
"""
from __future__ import annotations

import math

import numpy as np

from . import compiled
from .compiled import AXIS, DOF, PRISMATIC, _joint_frames

import numba  # noqa: E402 - compiled (imported above) set NUMBA_CACHE_DIR first
from llvmlite import ir  # noqa: E402
from numba import njit, prange, types  # noqa: E402
from numba.extending import intrinsic  # noqa: E402

from . import ik_solver as method  # noqa: E402

_rotation_vector = njit(cache=True)(method.rotation_vector)
_tip_axis_rotation = njit(cache=True)(method.tip_axis_rotation)
_nearest_equivalent = njit(cache=True)(method.nearest_equivalent)
_halton = njit(cache=True)(method.halton)

FULL, TIP_AXIS, NONE = method.FULL, method.TIP_AXIS, method.NONE
DAMPING_SCALE, DAMPING_FLOOR = method.DAMPING_SCALE, method.DAMPING_FLOOR
STALL_ITERATIONS, STALL_RATIO = method.STALL_ITERATIONS, method.STALL_RATIO
DAMPING_INCREASE, DAMPING_DECREASE = method.DAMPING_INCREASE, method.DAMPING_DECREASE
MAX_DAMPING_FACTOR = method.MAX_DAMPING_FACTOR
ATTEMPT_ITERATIONS = method.ATTEMPT_ITERATIONS
LOWER, UPPER, RESTART_LOW, RESTART_HIGH, PERIOD = (method.LOWER, method.UPPER,
                                                   method.RESTART_LOW, method.RESTART_HIGH,
                                                   method.PERIOD)
#: Columns of the float settings: tolerances (m, rad), orientation length (m), timeout
#: (s, inf for none).
POSITION_TOLERANCE, ORIENTATION_TOLERANCE, ORIENTATION_LENGTH, TIMEOUT = range(4)
#: Columns of the integer settings.
MODE, MAX_ITERATIONS = range(2)
#: Columns of the per-target results: errors (float) and counts (int).
POSITION_ERROR, ORIENTATION_ERROR = range(2)
SUCCESS, ITERATIONS, RESTARTS = range(3)
_CLOCK_MONOTONIC = 1


@intrinsic
def _monotonic_ns(typingctx):
    """Nanoseconds of CLOCK_MONOTONIC (libc's clock_gettime, called from the kernel)."""
    def codegen(context, builder, signature, args):
        i32, i64 = ir.IntType(32), ir.IntType(64)
        timespec = ir.LiteralStructType([i64, i64])
        function = builder.module.globals.get('clock_gettime')
        if function is None:
            function = ir.Function(builder.module,
                                   ir.FunctionType(i32, [i32, timespec.as_pointer()]),
                                   name='clock_gettime')
        value = builder.alloca(timespec)
        builder.call(function, [ir.Constant(i32, _CLOCK_MONOTONIC), value])
        zero = ir.Constant(i32, 0)
        seconds = builder.load(builder.gep(value, [zero, zero]))
        nanoseconds = builder.load(builder.gep(value, [zero, ir.Constant(i32, 1)]))
        return builder.add(builder.mul(seconds, ir.Constant(i64, 1_000_000_000)),
                           nanoseconds)
    return types.int64(), codegen


@njit(cache=True)
def monotonic() -> float:
    """Seconds of the kernels' clock (CLOCK_MONOTONIC, as ``time.monotonic``)."""
    return _monotonic_ns() * 1e-9


@njit(cache=True)
def _pose_and_jacobian(q, n, joints, fixed, scale, anchor, offset, frames, pose, jacobian):
    """The end effector (top 3 rows of ``pose``) and its 6 x m Jacobian at q[n]."""
    _joint_frames(q, n, joints, fixed, scale, frames)
    for r in range(3):
        if anchor < 0:
            for c in range(4):
                pose[r, c] = offset[r, c]
            continue
        j0, j1, j2 = frames[anchor, r, 0], frames[anchor, r, 1], frames[anchor, r, 2]
        for c in range(3):
            pose[r, c] = j0 * offset[0, c] + j1 * offset[1, c] + j2 * offset[2, c]
        pose[r, 3] = j0 * offset[0, 3] + j1 * offset[1, 3] + j2 * offset[2, 3] \
            + frames[anchor, r, 3]
    for k in range(joints.shape[0]):
        axis, s = joints[k, AXIS], scale[k]
        zx, zy, zz = frames[k, 0, axis] * s, frames[k, 1, axis] * s, frames[k, 2, axis] * s
        if joints[k, PRISMATIC]:
            jacobian[0, k], jacobian[1, k], jacobian[2, k] = zx, zy, zz
            jacobian[3, k], jacobian[4, k], jacobian[5, k] = 0.0, 0.0, 0.0
        else:
            dx = pose[0, 3] - frames[k, 0, 3]
            dy = pose[1, 3] - frames[k, 1, 3]
            dz = pose[2, 3] - frames[k, 2, 3]
            jacobian[0, k] = zy * dz - zz * dy
            jacobian[1, k] = zz * dx - zx * dz
            jacobian[2, k] = zx * dy - zy * dx
            jacobian[3, k], jacobian[4, k], jacobian[5, k] = zx, zy, zz


@njit(cache=True)
def _residual(mode, length, target, t, pose, jacobian, e):
    """The weighted residual into e and Jacobian rows in place (as
    :func:`.ik_solver._residual`); returns (rows, position error, orientation error)."""
    m = jacobian.shape[1]
    dx, dy, dz = target[t, 0, 3] - pose[0, 3], target[t, 1, 3] - pose[1, 3], \
        target[t, 2, 3] - pose[2, 3]
    e[0], e[1], e[2] = dx, dy, dz
    position_error = math.sqrt(dx * dx + dy * dy + dz * dz)
    if mode == NONE:
        return 3, position_error, 0.0
    if mode == FULL:
        r = np.empty(9)
        for i in range(3):
            for j in range(3):
                r[3 * i + j] = target[t, i, 0] * pose[j, 0] + target[t, i, 1] * pose[j, 1] \
                    + target[t, i, 2] * pose[j, 2]
        wx, wy, wz, angle = _rotation_vector(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
                                             r[8])
    else:
        zx, zy, zz = pose[0, 2], pose[1, 2], pose[2, 2]
        wx, wy, wz, angle = _tip_axis_rotation(zx, zy, zz, target[t, 0, 2], target[t, 1, 2],
                                               target[t, 2, 2])
        for k in range(m):
            along = zx * jacobian[3, k] + zy * jacobian[4, k] + zz * jacobian[5, k]
            jacobian[3, k] -= zx * along
            jacobian[4, k] -= zy * along
            jacobian[5, k] -= zz * along
    e[3], e[4], e[5] = wx * length, wy * length, wz * length
    for r in range(3, 6):
        for k in range(m):
            jacobian[r, k] *= length
    return 6, position_error, angle


@njit(cache=True)
def _step(jacobian, e, rows, damping, a, g, step):
    """step = (J^T J + damping I)^-1 J^T e over the first ``rows`` rows (Cholesky)."""
    m = jacobian.shape[1]
    for i in range(m):
        s = 0.0
        for r in range(rows):
            s += jacobian[r, i] * e[r]
        g[i] = s
        for j in range(i + 1):
            s = 0.0
            for r in range(rows):
                s += jacobian[r, i] * jacobian[r, j]
            a[i, j] = s
        a[i, i] += damping
    for i in range(m):                     # a = L L^T, L in the lower triangle
        s = a[i, i]
        for k in range(i):
            s -= a[i, k] * a[i, k]
        a[i, i] = math.sqrt(s)
        for j in range(i + 1, m):
            s = a[j, i]
            for k in range(i):
                s -= a[j, k] * a[i, k]
            a[j, i] = s / a[i, i]
    for i in range(m):                     # L y = g
        s = g[i]
        for k in range(i):
            s -= a[i, k] * step[k]
        step[i] = s / a[i, i]
    for i in range(m - 1, -1, -1):         # L^T step = y
        s = step[i]
        for k in range(i + 1, m):
            s -= a[k, i] * step[k]
        step[i] = s / a[i, i]


@njit(cache=True)
def _solve_target(t, targets, seeds, positions, errors, counts, joints, fixed, scale, anchor,
                  offset, bounds, bases, real, integer, frames, pose, jacobian, e, a, g, step,
                  best, accepted, accepted_e, accepted_jacobian):
    """One target t: positions[t] starts as seeds[t] and ends as the answer."""
    m, dof = joints.shape[0], seeds.shape[1]
    mode, max_iterations = integer[MODE], integer[MAX_ITERATIONS]
    position_tolerance, orientation_tolerance = real[POSITION_TOLERANCE], \
        real[ORIENTATION_TOLERANCE]
    length, timeout = real[ORIENTATION_LENGTH], real[TIMEOUT]
    deadline = monotonic() + timeout
    for d in range(dof):
        positions[t, d] = seeds[t, d]
    for k in range(m):
        d = joints[k, DOF]
        positions[t, d] = min(max(positions[t, d], bounds[LOWER, k]), bounds[UPPER, k])
        best[k] = positions[t, d]
    best_cost, best_position, best_orientation = math.inf, 0.0, 0.0
    accepted_cost, factor = math.inf, 1.0
    iterations, restarts, attempt, success = 0, 0, 0, False
    while True:
        _pose_and_jacobian(positions, t, joints, fixed, scale, anchor, offset, frames, pose,
                           jacobian)
        rows, position_error, orientation_error = _residual(mode, length, targets, t, pose,
                                                            jacobian, e)
        if position_error <= position_tolerance and orientation_error <= orientation_tolerance:
            success = True
            break
        cost = 0.0
        for r in range(rows):
            cost += e[r] * e[r]
        cost *= 0.5
        if cost < best_cost:
            best_cost, best_position, best_orientation = cost, position_error, \
                orientation_error
            for k in range(m):
                best[k] = positions[t, joints[k, DOF]]
        if m == 0 or iterations >= max_iterations or monotonic() >= deadline:
            position_error, orientation_error = best_position, best_orientation
            for k in range(m):
                positions[t, joints[k, DOF]] = best[k]
            break
        if cost < accepted_cost:
            stalled = attempt >= STALL_ITERATIONS and cost > STALL_RATIO * accepted_cost
            accepted_cost = cost
            factor = max(factor * DAMPING_DECREASE, 1.0)
            for r in range(rows):
                accepted_e[r] = e[r]
                for k in range(m):
                    accepted_jacobian[r, k] = jacobian[r, k]
            for k in range(m):
                accepted[k] = positions[t, joints[k, DOF]]
        else:                                   # rejected: back, with more damping
            factor *= DAMPING_INCREASE
            stalled = factor > MAX_DAMPING_FACTOR
        if stalled or attempt >= ATTEMPT_ITERATIONS:
            restarts += 1
            attempt = 0
            for k in range(m):
                u = _halton(restarts, bases[k])
                low, high = bounds[RESTART_LOW, k], bounds[RESTART_HIGH, k]
                positions[t, joints[k, DOF]] = low + (high - low) * u
            accepted_cost, factor = math.inf, 1.0
            continue
        damping = factor * (DAMPING_SCALE * accepted_cost + DAMPING_FLOOR)
        _step(accepted_jacobian, accepted_e, rows, damping, a, g, step)
        held = 0
        for k in range(m):
            if (accepted[k] <= bounds[LOWER, k] and step[k] < 0.0) \
                    or (accepted[k] >= bounds[UPPER, k] and step[k] > 0.0):
                held += 1
        if held:                              # the others do the held joints' part
            for k in range(m):
                hold = (accepted[k] <= bounds[LOWER, k] and step[k] < 0.0) \
                    or (accepted[k] >= bounds[UPPER, k] and step[k] > 0.0)
                for r in range(rows):
                    jacobian[r, k] = 0.0 if hold else accepted_jacobian[r, k]
            _step(jacobian, accepted_e, rows, damping, a, g, step)
        for k in range(m):
            positions[t, joints[k, DOF]] = min(max(accepted[k] + step[k], bounds[LOWER, k]),
                                               bounds[UPPER, k])
        iterations += 1
        attempt += 1
    for k in range(m):
        d = joints[k, DOF]
        positions[t, d] = _nearest_equivalent(positions[t, d], seeds[t, d],
                                               bounds[PERIOD, k])
    errors[t, POSITION_ERROR], errors[t, ORIENTATION_ERROR] = position_error, orientation_error
    counts[t, SUCCESS], counts[t, ITERATIONS], counts[t, RESTARTS] = success, iterations, \
        restarts


@njit(cache=True)
def _solve_range(start, stop, targets, seeds, positions, errors, counts, joints, fixed, scale,
                 anchor, offset, bounds, bases, real, integer):
    """Targets start..stop-1, with scratch of their own."""
    m = joints.shape[0]
    frames, pose = np.empty((max(m, 1), 3, 4)), np.empty((3, 4))
    jacobian, e = np.empty((6, m)), np.empty(6)
    a, g, step, best = np.empty((m, m)), np.empty(m), np.empty(m), np.empty(m)
    accepted, accepted_e, accepted_jacobian = np.empty(m), np.empty(6), np.empty((6, m))
    for t in range(start, stop):
        _solve_target(t, targets, seeds, positions, errors, counts, joints, fixed, scale,
                      anchor, offset, bounds, bases, real, integer, frames, pose, jacobian,
                      e, a, g, step, best, accepted, accepted_e, accepted_jacobian)


@njit(cache=True, nogil=True)
def solve_batch(targets, seeds, positions, errors, counts, joints, fixed, scale, anchor,
                offset, bounds, bases, real, integer):
    """Every target in turn, one thread."""
    _solve_range(0, targets.shape[0], targets, seeds, positions, errors, counts, joints,
                 fixed, scale, anchor, offset, bounds, bases, real, integer)


@njit(cache=True, parallel=True, nogil=True)
def solve_blocks(blocks, targets, seeds, positions, errors, counts, joints, fixed, scale,
                 anchor, offset, bounds, bases, real, integer):
    """The targets in ``blocks`` equal blocks, one per thread."""
    total = targets.shape[0]
    for b in prange(blocks):
        _solve_range(b * total // blocks, (b + 1) * total // blocks, targets, seeds,
                     positions, errors, counts, joints, fixed, scale, anchor, offset,
                     bounds, bases, real, integer)


def solve(problem: method.IkProblem, targets: np.ndarray, seeds: np.ndarray,
          threads: int = 1):
    """Solve checked targets (N, 4, 4) from checked seeds (N, dof).

    Returns:
        (positions (N, dof), errors (N, 2): position m and orientation rad, counts (N, 3)
        int64: success 0/1, iterations, restarts).
    """
    kd = compiled.data(problem.frame_set)
    # a read-only array (a broadcast seed) is a signature of its own: compiled again, for
    # seconds, inside a request's time on a cold cache
    targets = targets if targets.flags.writeable else targets.copy()
    seeds = seeds if seeds.flags.writeable else seeds.copy()
    n, dof = seeds.shape
    positions, errors = np.empty((n, dof)), np.empty((n, 2))
    counts = np.empty((n, 3), dtype=np.int64)
    anchor = int(kd.frames[0, 0])
    real = np.array([problem.position_tolerance, problem.orientation_tolerance,
                     problem.orientation_length, problem.timeout])
    integer = np.array([problem.mode, problem.max_iterations], dtype=np.int64)
    arguments = (targets, seeds, positions, errors, counts, kd.joints, kd.fixed, kd.scale,
                 anchor, kd.offsets[0], problem.bounds, problem.bases, real, integer)
    if threads > 1 and n > 1:
        count = min(threads, n, numba.config.NUMBA_NUM_THREADS)
        numba.set_num_threads(count)
        solve_blocks(count, *arguments)
    else:
        solve_batch(*arguments)
    return positions, errors, counts
