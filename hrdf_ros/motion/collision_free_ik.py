"""Inverse kinematics whose answer is free of collision.

In: a :class:`~hrdf_ros.kinematics.Kinematics`, a :class:`~.scene.PlanningScene`, a target
pose (4, 4) (or (N, 4, 4)) of an end effector in the reference frame and
:meth:`~hrdf_ros.kinematics.Kinematics.solve_ik`'s options. Out: an
:class:`~hrdf_ros.kinematics.ik.IkResult` whose ``success`` means that the pose is
reached *and* the state is free of collision (MoveIt's ``/compute_ik`` with
``avoid_collisions``).

The search: ``solve_ik`` from the seed; while its answer misses the pose or collides,
``solve_ik`` again from the next starts of a fixed quasi-random sequence over the
joints' ranges (the k-th point of a Halton sequence, the j-th prime base for the chain's
j-th joint, as ``solve_ik``'s own restarts; the limits, or one turn around 0 for a free
revolute joint), until the time or the attempts run out. The answer is the first start's,
in that order, that reaches the pose free of collision. Starts after the seed are solved
:data:`BLOCK` at a time (one batch call, each with a share of the time left, then one
batch of collision checks), which costs less than one call each. The same request
gives the same answer with an iteration cap instead of a timeout. An end effector that
no joint moves has the seed's answer only.
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

#: Starts of one target when there is no timeout.
MAX_ATTEMPTS = 200
#: Starts solved in one batch after the seed's.
BLOCK = 4


def restart_ranges(lower: np.ndarray, upper: np.ndarray, prismatic: np.ndarray):
    """(low, high) (dof,) of the restarts: the limits where finite; one turn around 0 for
    a free revolute joint; +-1 m for a free prismatic one."""
    half = np.where(prismatic, 1.0, math.pi)
    low = np.where(np.isfinite(lower), lower, np.where(np.isfinite(upper), upper - 2 * half,
                                                         -half))
    high = np.where(np.isfinite(upper), upper, low + 2 * half)
    return low, high


class CollisionFreeIk:
    """Collision-free IK of one robot under one set of position limits (module
    docstring); what does not change between targets is computed once."""

    def __init__(self, kinematics: Kinematics, scene: PlanningScene, limits: np.ndarray,
                 prismatic: np.ndarray):
        """Args:
            limits: (dof, 2) position limits (inf: free).
            prismatic: (dof,) bool.
        """
        self._kinematics, self._scene = kinematics, scene
        self._limits = limits if np.isfinite(limits).any() else None   # None: faster
        self._low, self._high = restart_ranges(limits[:, 0], limits[:, 1], prismatic)
        self._chains = {}

    def _chain(self, index: int):
        """(the chain's joints, (MAX_ATTEMPTS + BLOCK, m) the Halton points in [0, 1),
        point k in row k) of end effector ``index``."""
        if index not in self._chains:
            chain = self._kinematics.end_effector_joints(index)
            bases = primes(len(chain))
            points = np.array([[halton(k, base) for base in bases]
                               for k in range(MAX_ATTEMPTS + BLOCK)]
                              ).reshape(MAX_ATTEMPTS + BLOCK, len(chain))
            self._chains[index] = (chain, bases, points)
        return self._chains[index]

    def _starts(self, index: int, start: np.ndarray, first: int, size: int) -> np.ndarray:
        """(size, dof) the restarts ``first`` .. ``first + size - 1``: ``start`` with the
        chain's joints at those Halton points of their ranges."""
        chain, bases, points = self._chain(index)
        if first + size <= len(points):
            unit = points[first:first + size]
        else:                            # past the table: a long timeout
            unit = np.array([[halton(k, base) for base in bases]
                             for k in range(first, first + size)])
        seeds = np.repeat(start[None], size, axis=0)
        low, high = self._low[chain], self._high[chain]
        seeds[:, chain] = low + (high - low) * unit
        return seeds

    def solve_all(self, target, seed, options: dict) -> IkResult:
        """:meth:`solve` for a (4, 4) target or each of (N, 4, 4), from ``seed`` (dof,) or
        (N, dof) or None; the result batched as the target is."""
        targets = np.asarray(target, dtype=float)
        single = targets.ndim == 2
        targets = targets.reshape(-1, 4, 4)
        seeds = None if seed is None else np.broadcast_to(
            np.asarray(seed, dtype=float), (len(targets), self._kinematics.dof_count))
        results = [self.solve(t, None if seeds is None else seeds[k], options)
                   for k, t in enumerate(targets)]
        if single:
            return results[0]
        return IkResult(*(np.array([getattr(r, field) for r in results]) for field in
                          ('positions', 'success', 'position_error', 'orientation_error',
                           'iterations', 'restarts')))

    def solve(self, target: np.ndarray, seed: Optional[np.ndarray], options: dict
              ) -> IkResult:
        """Collision-free IK of one target (module docstring).

        Args:
            target: (4, 4) pose of end effector ``options['index']``.
            seed: (dof,) first start, or None (zeros).
            options: :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik`'s keyword arguments
                (``timeout``: s for the whole search; None: :data:`MAX_ATTEMPTS` starts).
        """
        options = dict(options)
        timeout = options.pop('timeout', 0.005)
        index = options.get('index', 0)
        kinematics, scene = self._kinematics, self._scene
        start = np.zeros(kinematics.dof_count) if seed is None else \
            np.asarray(seed, dtype=float)
        deadline = None if timeout is None else time.perf_counter() + float(timeout)
        remaining = None if deadline is None else float(timeout)
        result = kinematics.solve_ik(target, start, joint_limits=self._limits,
                                     timeout=remaining, **options)
        iterations, restarts = result.iterations, result.restarts
        if result.success and not scene.in_collision(result.positions):
            return result
        best = (result.success, -result.position_error, result.positions,
                result.orientation_error)
        attempt = 1
        # no joint moves the end effector (on the body of a legged robot): no restart can
        # give another answer
        moved = len(self._chain(index)[0]) > 0
        while moved and (deadline is None or time.perf_counter() < deadline):
            if attempt >= MAX_ATTEMPTS and deadline is None:
                break
            size = BLOCK
            seeds = self._starts(index, start, attempt, size)
            remaining = None if deadline is None else \
                max(deadline - time.perf_counter(), 1e-6) / size
            result = kinematics.solve_ik(np.repeat(target[None], size, axis=0), seeds,
                                         joint_limits=self._limits, timeout=remaining,
                                         **options)
            solved = np.flatnonzero(result.success)
            free = scene.free(result.positions[solved]) if len(solved) else solved
            first = solved[free][0] if free.any() else size
            iterations += int(result.iterations[:first + 1].sum())
            restarts += int(result.restarts[:first + 1].sum()) + min(first + 1, size)
            if first < size:
                return IkResult(result.positions[first], True,
                                float(result.position_error[first]),
                                float(result.orientation_error[first]), iterations, restarts)
            for k in range(size):
                key = (bool(result.success[k]), -float(result.position_error[k]))
                if key > best[:2]:
                    best = key + (result.positions[k], float(result.orientation_error[k]))
            attempt += size
        return IkResult(best[2], False, -best[1], best[3], iterations, restarts)
