"""The rounds of :class:`~.certified.Certifier` on the compiled path: the states, bounds
and levels in arrays that grow, each round's work in the kernels of
:mod:`.compiled_certified` (numba), the exact distances asked of hpp-fcl in between.

In: a certifier, pieces (K, d + 1, dof), margins (P,). Out: its
:class:`~.certified.Certificate`, the same as the numpy rounds give (tested).
"""
from __future__ import annotations

import numpy as np

from .certified import EXACT_BELOW, EXACT_RATIO, MAX_PARTS, Certificate
from .clearance import SLACK


def certify_compiled(self, pieces: np.ndarray, stop_at_first: bool, margin: np.ndarray,
                     result: Certificate) -> Certificate:
    """:meth:`~.certified.Certifier.certify`'s rounds in the compiled kernels (``self``:
    the certifier)."""
    kernels, clearance = self._kernels, self._clearance
    count, rows_count = len(pieces), len(clearance.pairs)
    dof, free = self._dof, result.free
    run = _CompiledStates(self, 2 * count + 64)
    run.add(np.concatenate([pieces[:, 0], pieces[:, -1]]))
    refusal = np.array([-1.0, -1.0, 0.0, -1.0, 0.0])
    if self._collided(run.q[:2 * count], run.poses[:2 * count], np.tile(np.arange(count), 2),
                      0, free, refusal) \
            and stop_at_first:
        return self._finish(result, refusal, run, stop_at_first)
    coefficients = np.ascontiguousarray(pieces)
    left = np.arange(count, dtype=np.int64)
    right = np.arange(count, 2 * count, dtype=np.int64)
    piece = np.arange(count, dtype=np.int64)
    interval = np.repeat(np.arange(count, dtype=np.int64), rows_count)
    row = np.tile(np.arange(rows_count, dtype=np.int64), count)
    constants = (clearance._owner, clearance._box, clearance._half, clearance.pairs,
                 clearance._count, clearance._object_pose, clearance._object_half,
                 clearance.capsule_rows)
    first_round = True
    while len(interval):
        travel = np.empty((len(left), dof))
        kernels.variation(coefficients, travel)
        reach = np.empty((len(left), len(self._slide_dofs)))
        kernels.reaches(coefficients, self._slide_dofs, reach)
        status = np.empty(len(interval), dtype=np.int8)
        motion = np.empty(len(interval))
        asked_state = np.empty(2 * len(interval), dtype=np.int64)
        asked_row = np.empty(2 * len(interval), dtype=np.int64)
        entries = np.arange(len(interval), dtype=np.int64)
        for ask in (True, False):
            asked = kernels.prove(
                entries, len(entries), interval, row, travel, reach, left, right,
                self._weights, self._slide_weights, margin, run.bound, run.level,
                run.poses, *constants, SLACK, clearance.boxes_decide, EXACT_RATIO,
                EXACT_BELOW, status, motion, asked_state, asked_row, ask)
            if not asked:
                break
            # with the exact distances in, every entry still open is tried again
            run.exact(asked_state[:asked], asked_row[:asked])
            entries = np.flatnonzero(status != kernels.PROVEN).astype(np.int64)
        open_ = status == kernels.OPEN
        if first_round:
            result.proven_at_once = count - len(np.unique(piece[interval[open_]]))
            first_round = False
        opened = int(open_.sum())
        if not opened:
            break
        cuts = len(np.unique(interval[open_])) * (MAX_PARTS - 1)
        run.reserve(run.count + cuts)
        size = len(left) * MAX_PARTS
        next_coefficients = np.empty((size,) + coefficients.shape[1:])
        next_left, next_right, next_piece = (np.empty(size, dtype=np.int64)
                                             for _ in range(3))
        next_interval = np.empty(opened * MAX_PARTS, dtype=np.int64)
        next_row = np.empty(opened * MAX_PARTS, dtype=np.int64)
        before = run.count
        made, entries_made, run.count = kernels.cut(
            len(interval), interval, row, status, motion, coefficients, left, right,
            piece, run.bound, run.level, margin, self._min, MAX_PARTS, stop_at_first,
            free, refusal, run.q, run.count, next_coefficients, next_left, next_right,
            next_piece, next_interval, next_row)
        if refusal[4] and stop_at_first:
            break
        run.fill(before)
        result.parts += made
        if run.count > before:
            # the new states are the parts' starts: state next_left[j] starts part j
            starting = np.flatnonzero(next_left[:made] >= before)
            placed = np.empty(run.count - before, dtype=np.int64)
            placed[next_left[starting] - before] = next_piece[starting]
            if self._collided(run.q[before:run.count], run.poses[before:run.count], placed,
                              before, free, refusal) \
                    and stop_at_first:
                break
        coefficients = next_coefficients[:made]
        left, right, piece = next_left[:made], next_right[:made], next_piece[:made]
        interval, row = next_interval[:entries_made], next_row[:entries_made]
    return self._finish(result, refusal, run, stop_at_first)


class _CompiledStates:
    """The states of a compiled certification: positions, links' poses, bounds and their
    levels in arrays that grow (the kernels write into them)."""

    def __init__(self, certifier, capacity: int):
        self._certifier = certifier
        clearance = certifier._clearance
        rows, dof = len(clearance.pairs), certifier._dof
        links = int(clearance._owner.max(initial=-1)) + 1
        self.q = np.empty((capacity, dof))
        self.poses = None
        self.bound = np.empty((capacity, rows))
        self.level = np.empty((capacity, rows), dtype=np.int8)
        self.count, self.exact_count, self._links = 0, 0, links

    def reserve(self, capacity: int) -> None:
        """Room for ``capacity`` states."""
        if capacity <= len(self.q):
            return
        size = max(capacity, 2 * len(self.q))
        for name in ('q', 'bound', 'level', 'poses'):
            old = getattr(self, name)
            if old is None:
                continue
            grown = np.empty((size,) + old.shape[1:], dtype=old.dtype)
            grown[:self.count] = old[:self.count]
            setattr(self, name, grown)

    def add(self, states: np.ndarray) -> None:
        """Append (N, dof) states and compute their cheap bounds."""
        self.reserve(self.count + len(states))
        self.q[self.count:self.count + len(states)] = states
        before, self.count = self.count, self.count + len(states)
        self.fill(before)

    def fill(self, first: int) -> None:
        """Poses and cheap bounds of the states from ``first`` to :attr:`count`."""
        certifier = self._certifier
        poses = certifier._link_poses(self.q[first:self.count])
        if self.poses is None or len(self.poses) < len(self.q):
            grown = np.empty((len(self.q),) + poses.shape[1:])
            if self.poses is not None:
                grown[:first] = self.poses[:first]
            self.poses = grown
        self.poses[first:self.count] = poses
        self.bound[first:self.count] = certifier._clearance.cheap(poses)
        self.level[first:self.count] = certifier._initial

    def exact(self, states: np.ndarray, rows: np.ndarray) -> None:
        """The exact bounds of (state, row) entries (their level set to 2)."""
        clearance = self._certifier._clearance
        order = np.argsort(states, kind='stable')
        states, rows = states[order], rows[order]
        starts = np.flatnonzero(np.concatenate([[True], states[1:] != states[:-1]]))
        for begin, end in zip(starts, np.append(starts[1:], len(states))):
            s, wanted = states[begin], rows[begin:end]
            values = clearance.exact(self.q[s], wanted)
            self.bound[s, wanted] = np.maximum(self.bound[s, wanted], values)
            self.level[s, wanted] = 2
            self.exact_count += len(wanted)

