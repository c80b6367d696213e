"""Inverse kinematics whose answer is free of collision.

In: a :class:`~hrdf_ros.kinematics.Kinematics`, a :class:`~.scene.PlanningScene`, a target
pose (4, 4) (or (N, 4, 4)) of an end effector in the reference frame and
:meth:`~hrdf_ros.kinematics.Kinematics.solve_ik`'s options. Out: an
:class:`~hrdf_ros.kinematics.ik.IkResult` whose ``success`` means that the pose is
reached *and* the state is free of collision (MoveIt's ``/compute_ik`` with
``avoid_collisions``).

The search: ``solve_ik`` from the seed; while its answer misses the pose or collides,
``solve_ik`` again from the next start of a fixed quasi-random sequence over the
joints' ranges (the k-th point of a Halton sequence, the j-th prime base for the chain's
j-th joint, as ``solve_ik``'s own restarts; the limits, or one turn around 0 for a free
revolute joint), until the time or the attempts run out. The same request gives the
same answer with an iteration cap instead of a timeout.
"""
from __future__ import annotations

import math
import time
from typing import Optional

import numpy as np

from ..kinematics import Kinematics
from ..kinematics.ik import IkResult
from ..kinematics.ik_solver import halton, primes
from .scene import PlanningScene

#: Attempts (solve_ik calls) of one target when there is no timeout.
MAX_ATTEMPTS = 200


def restart_ranges(lower: np.ndarray, upper: np.ndarray, prismatic: np.ndarray):
    """(low, high) (dof,) of the restarts: the limits where finite; one turn around 0 for
    a free revolute joint; +-1 m for a free prismatic one."""
    half = np.where(prismatic, 1.0, math.pi)
    low = np.where(np.isfinite(lower), lower, np.where(np.isfinite(upper), upper - 2 * half,
                                                         -half))
    high = np.where(np.isfinite(upper), upper, low + 2 * half)
    return low, high


def solve(kinematics: Kinematics, scene: PlanningScene, target: np.ndarray,
          seed: Optional[np.ndarray], limits: np.ndarray, prismatic: np.ndarray,
          options: dict) -> IkResult:
    """Collision-free IK of one target (module docstring).

    Args:
        target: (4, 4) pose of end effector ``options['index']``.
        seed: (dof,) first start, or None (zeros).
        limits: (dof, 2) position limits (inf: free).
        prismatic: (dof,) bool.
        options: :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik`'s keyword arguments
            (``timeout``: s for the whole search, None: :data:`MAX_ATTEMPTS` attempts).
    """
    options = dict(options)
    timeout = options.pop('timeout', 0.005)
    index = options.get('index', 0)
    chain = kinematics.end_effector_joints(index)
    dof = kinematics.dof_count
    start = np.zeros(dof) if seed is None else np.asarray(seed, dtype=float)
    low, high = restart_ranges(limits[:, 0], limits[:, 1], prismatic)
    bases = primes(len(chain))
    deadline = None if timeout is None else time.perf_counter() + float(timeout)
    best: Optional[IkResult] = None
    iterations = restarts = 0
    for attempt in range(10 ** 9 if deadline is not None else MAX_ATTEMPTS):
        seed_k = start.copy()
        if attempt:
            for j, joint in enumerate(chain):
                seed_k[joint] = low[joint] + (high[joint] - low[joint]) * halton(attempt,
                                                                                 bases[j])
        remaining = None if deadline is None else max(deadline - time.perf_counter(), 1e-6)
        result = kinematics.solve_ik(target, seed_k, joint_limits=limits, timeout=remaining,
                                     **options)
        iterations += result.iterations
        restarts += result.restarts + (attempt > 0)
        free = result.success and not scene.in_collision(result.positions)
        if free:
            return IkResult(result.positions, True, result.position_error,
                            result.orientation_error, iterations, restarts)
        if best is None or (result.success and not best.success) or \
                (result.success == best.success
                 and result.position_error < best.position_error):
            best = result
        if deadline is not None and time.perf_counter() >= deadline:
            break
    return IkResult(best.positions, False, best.position_error, best.orientation_error,
                    iterations, restarts)
