"""The IK batches of a reach map and its neighbour passes (:mod:`.build`, steps 2 and 3).

In: the map's :class:`~hrdf_ros.kinematics.Kinematics`, end effector, search limits,
threads, the full search's step cap, a progress callback and (for a map free of
collision) the planning scene; targets (positions, tool rotations) and seeds. Out: IK
solutions and which succeeded (free of collision with a scene), filled into the map's
grid of solves by the neighbour passes.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from ..kinematics import Kinematics

#: Steps per IK target of the first tries and the neighbour passes (:mod:`.build`): of
#: the tip-axis solves that succeed on a 7-DoF arm (R-series double shoulder with a
#: gripper, 8 cm, 20 directions: 94 339), 0.06 % take more than 30 steps, none more than
#: 50; a pair out of reach takes all of them.
SHORT_ITERATIONS = 30
#: Tolerances of every solve: the defaults of ``solve_ik`` (m, rad).
TOLERANCE = 1e-5


class Passes:
    """The state of one map's construction (see the module docstring)."""

    def __init__(self, kinematics: Kinematics, index: int, limits: np.ndarray, threads: int,
                 max_iterations: int, progress: Optional[Callable[[int, int], None]],
                 scene=None):
        self.kin, self.index, self.limits, self.scene = kinematics, index, limits, scene
        self.threads, self.max_iterations, self.progress = threads, max_iterations, progress
        self.short_iterations = min(SHORT_ITERATIONS, max_iterations)
        self.done = 0
        self.total = 0

    def solve(self, positions: np.ndarray, rotations: Optional[np.ndarray],
              seeds: np.ndarray, full: bool = False):
        """Batch IK to ``positions`` (n, 3) (``rotations`` (n, 3, 3) with the tip-axis
        objective, None for position only) from ``seeds`` (n, dof), capped at
        ``max_iterations`` steps with ``full``, else at the short cap; a solution in
        collision (with a scene) is not a success."""
        n = len(positions)
        if n == 0:
            return np.empty((0, self.kin.dof_count)), np.zeros(0, bool)
        targets = np.zeros((n, 4, 4))
        targets[:, 3, 3] = 1.0
        targets[:, :3, 3] = positions
        targets[:, :3, :3] = np.eye(3) if rotations is None else rotations
        result = self.kin.solve_ik(
            targets, seeds, index=self.index,
            orientation='none' if rotations is None else 'tip_axis',
            joint_limits=self.limits, position_tolerance=TOLERANCE,
            orientation_tolerance=TOLERANCE, timeout=None,
            max_iterations=self.max_iterations if full else self.short_iterations,
            threads=self.threads)
        success = np.array(result.success, dtype=bool)
        if self.scene is not None and success.any():
            rows = np.nonzero(success)[0]
            success[rows] = self.scene.free(result.positions[rows])
        self.done += n
        if self.progress is not None:
            self.progress(self.done, max(self.total, self.done))
        return result.positions, success

    def spread(self, neighbours: np.ndarray, solutions: np.ndarray, success: np.ndarray,
               targets: Callable[[np.ndarray], tuple]) -> None:
        """Neighbour passes over a (M, ...) grid of solves, in place: a cell not solved
        with a face neighbour solved in the last pass is solved again from that
        neighbour's solution (short cap), until a pass solves nothing new; then each cell
        not solved with a solved face neighbour, and not searched so before, is searched
        with the full cap from that neighbour's solution, and the passes go on from what
        it finds. ``solutions`` (M, K, dof) and ``success`` (M, K) hold K solves per cell
        (K directions, or 1); ``targets(rows, columns)`` gives the positions and
        rotations of those solves."""
        fresh = success.copy()
        searched = np.zeros_like(success)          # tried with the full cap
        while True:
            while fresh is not None and fresh.any():
                fresh = self._pass(neighbours, solutions, success, targets, fresh, False)
            edge = ~searched
            fresh = self._pass(neighbours, solutions, success, targets, success, True, edge)
            if fresh is None:
                return
            searched |= edge

    def _pass(self, neighbours, solutions, success, targets, solved, full, allowed=None):
        """One pass: every cell not solved (and ``allowed``) with a face neighbour in
        ``solved`` is solved from that neighbour's solution (the first face in
        :data:`~.lattice.FACE_STEPS` order); returns the cells it solved, or None when
        there was none to try."""
        seed_from = np.full(success.shape, -1, dtype=np.int64)
        open_cells = ~success if allowed is None else ~success & allowed
        for face in range(neighbours.shape[1]):
            other = neighbours[:, face]
            has = other >= 0
            ok = np.zeros(success.shape, bool)
            ok[has] = solved[other[has]]
            take = ok & open_cells & (seed_from < 0)
            seed_from[take] = np.broadcast_to(other[:, None], success.shape)[take]
        rows, columns = np.nonzero(seed_from >= 0)
        if not len(rows):
            return None
        if allowed is not None:
            allowed[:] = seed_from >= 0              # the cells this pass searched
        positions, rotations = targets(rows, columns)
        found, ok = self.solve(positions, rotations,
                               solutions[seed_from[rows, columns], columns], full)
        fresh = np.zeros_like(success)
        fresh[rows[ok], columns[ok]] = True
        success[rows[ok], columns[ok]] = True
        solutions[rows[ok], columns[ok]] = found[ok]
        return fresh
