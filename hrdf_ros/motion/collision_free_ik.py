"""Inverse kinematics whose answer is free of collision.

In: a :class:`~hrdf_ros.kinematics.Kinematics`, a :class:`~.scene.PlanningScene`, a target
pose (4, 4) (or (N, 4, 4)) of an end effector in the reference frame and
:meth:`~hrdf_ros.kinematics.Kinematics.solve_ik`'s options. Out: an
:class:`~hrdf_ros.kinematics.ik.IkResult` whose ``success`` means that the pose is
reached *and* the state is free of collision (MoveIt's ``/compute_ik`` with
``avoid_collisions``).

The search: ``solve_ik`` from the seed; while its answer misses the pose or collides,
``solve_ik`` again from other starts until the time or the attempts run out. The answer
is the first start's, in that order, that reaches the pose free of collision. The
starts, in order:

1. the :data:`NEAREST` configurations nearest the target of a table of configurations
   free of collision (:class:`SeedTable`: the first :data:`TABLE_SIZE` points of a
   Halton sequence over the joints' ranges, those the scene finds free, with their end
   effector poses; nearest by the distance of their end effector's pose to the target
   in the request's objective, orientation weighed as the solver weighs it). A
   solution from a start in collision tends to stay in collision: on HEBI's
   double-shoulder arm, half of the sequence's points collide, and from them the first
   free solution took 1.8 starts on average and up to 39 (500 targets), from the nearest
   free ones 1.15 and at most 8;
2. then the Halton sequence itself, from where the table ends (the k-th point, the j-th
   prime base for the chain's j-th joint, as ``solve_ik``'s own restarts; the limits, or
   one turn around 0 for a free revolute joint).

Starts after the seed are solved in blocks (:data:`BLOCKS`: one batch call, each with a
share of the time left, then one batch of collision checks), which costs less than one
call each. The table is built on the first restart (or by :func:`~.warm_up.warm_up`),
about 10 ms, and again after the scene changes; that time is not counted against the
request's timeout (the first build in a process may load compiled kernels). The same
request gives the same answer with an iteration cap instead of a timeout. An end
effector that no joint moves has the seed's answer only.
"""
from __future__ import annotations

import math
import time
from typing import Dict, Optional, Tuple

import numpy as np

from ..kinematics import Kinematics
from ..kinematics.ik import IkResult, with_timeout
from ..kinematics.ik_request import check_seeds, check_targets, positive
from ..kinematics.ik_solver import FULL, NONE, halton_points, primes
from .scene import PlanningScene

#: Starts of one target when there is no timeout.
MAX_ATTEMPTS = 200
#: Sizes of the blocks of starts solved in one batch after the seed's: the first
#: restart from the nearest free configuration usually succeeds, so the first blocks
#: are small; then :data:`BLOCKS`[-1] at a time.
BLOCKS = (2, 4, 8)
#: Halton points the table of free configurations is drawn from.
TABLE_SIZE = 2048
#: Starts taken from the table, nearest first, before the Halton sequence.
NEAREST = 32


def restart_ranges(lower: np.ndarray, upper: np.ndarray, prismatic: np.ndarray):
    """(low, high) (dof,) of the restarts: the limits where finite; one turn around 0 for
    a free revolute joint; +-1 m for a free prismatic one."""
    half = np.where(prismatic, 1.0, math.pi)
    low = np.where(np.isfinite(lower), lower, np.where(np.isfinite(upper), upper - 2 * half,
                                                         -half))
    high = np.where(np.isfinite(upper), upper, low + 2 * half)
    return low, high


def _norms(d: np.ndarray) -> np.ndarray:
    """(K,) Euclidean norms of the rows of d (K, m), the squares summed column by column
    in order (as :mod:`.compiled_seeds` sums them: the same distances, the same ties)."""
    total = d[:, 0] * d[:, 0]
    for k in range(1, d.shape[1]):
        total = total + d[:, k] * d[:, k]
    return np.sqrt(total)


class SeedTable:
    """Configurations free of collision and their end effector poses, for one end
    effector (module docstring, step 1).

    Attributes:
        states: (K, dof) the free configurations (the chain's joints at Halton points,
            the others 0), in sequence order.
        poses: (K, 4, 4) their end effector poses, reference frame, m.
    """

    def __init__(self, states: np.ndarray, poses: np.ndarray, compiled: bool = False):
        """``compiled``: search with the numba kernel (:mod:`.compiled_seeds`)."""
        self.states, self.poses = states, poses
        self._positions = np.ascontiguousarray(poses[:, :3, 3])
        self._rotations = np.ascontiguousarray(poses[:, :3, :3].reshape(-1, 9))
        self._axes = np.ascontiguousarray(poses[:, :3, 2])
        self._kernel = None
        if compiled:
            from . import compiled_seeds  # noqa: PLC0415 - numba only on the compiled path
            self._kernel = compiled_seeds.nearest

    def nearest(self, target: np.ndarray, mode: int, orientation_length: float,
                count: int) -> np.ndarray:
        """(min(count, K),) rows of the ``count`` configurations nearest ``target``
        (4, 4), nearest first (ties: sequence order): position distance (m) plus
        ``orientation_length`` (m per rad) times the orientation's (the chord of the
        rotation over sqrt 2 for :data:`~hrdf_ros.kinematics.ik_solver.FULL`, of the z
        axes for TIP_AXIS, none for NONE)."""
        if self._kernel is not None:
            out = np.empty(max(min(count, len(self.states)), 0), dtype=np.int64)
            if len(out):
                target = np.ascontiguousarray(target, dtype=float)
                self._kernel(self._positions, self._rotations, self._axes, target[:3, 3],
                             target[:3, :3].reshape(9), target[:3, 2],
                             0 if mode == FULL else 2 if mode == NONE else 1,
                             float(orientation_length), len(out), out)
            return out
        distance = _norms(self._positions - target[:3, 3])
        if mode == FULL:
            distance += orientation_length / math.sqrt(2.0) * _norms(
                self._rotations - target[:3, :3].reshape(9))
        elif mode != NONE:
            distance += orientation_length * _norms(self._axes - target[:3, 2])
        return np.argsort(distance, kind='stable')[:max(count, 0)]


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
        self._problems: Dict[tuple, object] = {}
        self._tables: Dict[int, Tuple[int, SeedTable]] = {}

    def _chain(self, index: int):
        """(the chain's joints, their Halton bases) of end effector ``index``."""
        if index not in self._chains:
            chain = self._kinematics.end_effector_joints(index)
            self._chains[index] = (chain, primes(len(chain)))
        return self._chains[index]

    def _halton(self, index: int, start: np.ndarray, first: int, size: int) -> np.ndarray:
        """(size, dof) the Halton starts ``first`` .. ``first + size - 1``: ``start`` with
        the chain's joints at those points of their ranges."""
        chain, bases = self._chain(index)
        unit = halton_points(first, size, bases)
        seeds = np.repeat(start[None], size, axis=0)
        low, high = self._low[chain], self._high[chain]
        seeds[:, chain] = low + (high - low) * unit
        return seeds

    def table(self, index: int) -> SeedTable:
        """The :class:`SeedTable` of end effector ``index`` for the scene as it is now
        (built on first use and after the scene's objects change)."""
        version = self._scene.version
        held = self._tables.get(index)
        if held is None or held[0] != version:
            states = self._halton(index, np.zeros(self._kinematics.dof_count), 1, TABLE_SIZE)
            states = np.ascontiguousarray(states[self._scene.free(states)])
            poses = self._kinematics.end_effector(states, index).reshape(-1, 4, 4)
            held = self._tables[index] = (version, SeedTable(
                states, poses, self._kinematics.path == 'numba'))
        return held[1]

    def prepare(self) -> None:
        """Build every end effector's :meth:`table` for the scene as it is now, so that the
        first request after the objects change does not build it within its timeout (on a
        7-DoF kit 35-50 ms, most of ~/solve_ik's default 0.05 s)."""
        for index in range(self._kinematics.model.frame_count('end_effector')):
            self.table(index)

    def _problem(self, options: dict, timeout: Optional[float]):
        """The checked IK problem of ``options`` (cached; its timeout is set per
        call)."""
        if timeout is not None:
            positive('timeout', timeout)
        key = tuple(sorted(options.items()))
        problem = self._problems.get(key)
        if problem is None:
            problem = self._kinematics.ik_problem(joint_limits=self._limits, timeout=timeout,
                                                  **options)
            self._problems[key] = problem
        return problem

    def solve_all(self, target, seed, options: dict) -> IkResult:
        """:meth:`solve` for a (4, 4) target or each of (N, 4, 4), from ``seed`` (dof,) or
        (N, dof) or None; the result batched as the target is.

        Raises:
            ValueError, IndexError: as :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik`.
        """
        targets, single = check_targets(target)
        seeds = check_seeds(seed, len(targets), self._kinematics.dof_count)
        results = [self.solve(t, seeds[k], options) for k, t in enumerate(targets)]
        if single:
            return results[0]
        return IkResult(*(np.array([getattr(r, field) for r in results]) for field in
                          ('positions', 'success', 'position_error', 'orientation_error',
                           'iterations', 'restarts')))

    def solve(self, target: np.ndarray, seed: Optional[np.ndarray], options: dict
              ) -> IkResult:
        """Collision-free IK of one target (module docstring).

        Args:
            target: (4, 4) finite rigid transform, the pose of end effector
                ``options['index']``.
            seed: (dof,) finite first start, or None (zeros).
            options: :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik`'s keyword arguments
                but ``joint_limits`` (``timeout``: s for the whole search, default
                0.005, None: none; ``max_attempts``: starts, at most; by default
                :data:`MAX_ATTEMPTS` without a timeout and no bound with one).

        Raises:
            ValueError, IndexError: a wrong option, as ``solve_ik``.
        """
        options = dict(options)
        timeout = options.pop('timeout', 0.005)
        max_attempts = options.pop('max_attempts', None)
        if max_attempts is None:
            max_attempts = MAX_ATTEMPTS if timeout is None else math.inf
        elif not (isinstance(max_attempts, int) and max_attempts >= 1):
            raise ValueError(f'max_attempts must be an integer >= 1, got {max_attempts!r}')
        threads = options.pop('threads', 1)
        index = options.get('index', 0)
        kinematics, scene = self._kinematics, self._scene
        problem = self._problem(options, timeout)
        start = np.zeros(kinematics.dof_count) if seed is None else \
            np.asarray(seed, dtype=float)
        deadline = None if timeout is None else time.perf_counter() + float(timeout)
        targets = np.ascontiguousarray(target, dtype=float).reshape(1, 4, 4)

        def solve(seeds: np.ndarray) -> IkResult:
            remaining = math.inf if deadline is None else \
                max(deadline - time.perf_counter(), 1e-6) / len(seeds)
            return kinematics.solve_ik_problem(
                with_timeout(problem, remaining),
                np.repeat(targets, len(seeds), axis=0), np.ascontiguousarray(seeds), threads)

        result = solve(start[None])
        iterations, restarts = int(result.iterations[0]), int(result.restarts[0])
        if result.success[0] and not scene.in_collision(result.positions[0]):
            return IkResult(result.positions[0], True, float(result.position_error[0]),
                            float(result.orientation_error[0]), iterations, restarts)
        best = (bool(result.success[0]), -float(result.position_error[0]),
                result.positions[0], float(result.orientation_error[0]))
        # no joint moves the end effector (on the body of a legged robot): no restart can
        # give another answer
        if not len(self._chain(index)[0]) or max_attempts == 1:
            return IkResult(best[2], False, -best[1], best[3], iterations, restarts)
        began = time.perf_counter()
        table = self.table(index)
        if deadline is not None:       # building the table is not the search's time
            deadline += time.perf_counter() - began
        near = table.states[table.nearest(target, problem.mode, problem.orientation_length,
                                          NEAREST)]
        chain = self._chain(index)[0]
        attempt, taken, block, sequence = 1, 0, 0, TABLE_SIZE + 1
        while deadline is None or time.perf_counter() < deadline:
            if attempt >= max_attempts:
                break
            size = int(min(BLOCKS[min(block, len(BLOCKS) - 1)], max_attempts - attempt))
            block += 1
            if taken < len(near):
                seeds = np.repeat(start[None], min(size, len(near) - taken), axis=0)
                seeds[:, chain] = near[taken:taken + len(seeds)][:, chain]
                taken += len(seeds)
            else:
                seeds = self._halton(index, start, sequence, size)
                sequence += size
            result = solve(seeds)
            size = len(seeds)
            solved = np.flatnonzero(result.success)
            free = scene.free(result.positions[solved]) if len(solved) else solved
            first = int(solved[free][0]) if free.any() else size
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
