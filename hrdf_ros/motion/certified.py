"""Certified collision checks of continuous motions: proofs that no state between two
checked states collides, not samples.

In: motions as pieces, each a polynomial path in joint space given by its Bernstein
coefficients ((K, d + 1, dof), HEBI joint positions, model order, over a parameter u in
[0, 1]: :mod:`.pieces`); the scene's :class:`~.clearance.Clearance`, the weights of
:func:`~.resolution.pair_weights`, margins (m, per checked row) and the scene's
collision check of states. Out: :class:`Certificate`: per piece, proven free or
refused, and why.

The proof (Schwarzer, Saha and Latombe, "Adaptive dynamic collision checking for single
and multiple articulated robots in complex environments", IEEE Transactions on Robotics
21(3), 2005; hpp-core's continuous validation does the same):

* Along any motion of the joints, the distance between the two shapes of a checked row
  p changes by at most M_p = sum_k W[p, k] V_k, V_k being joint k's total variation
  over it (:func:`~.resolution.pair_weights`: lever arms from the joints that move one
  shape and not the other). A polynomial's total variation is at most its Bernstein
  control polygon's (:func:`~.pieces.variation`), which is |b - a| on a straight segment.
* With lower bounds d(a), d(b) on the row's distance at the two ends
  (:mod:`.clearance`), d(t) >= max(d(a) - m(a, t), d(b) - (M_p - m(a, t))) for every t
  between, m(a, t) the motion bound up to t: the row stays farther apart than its margin
  d_min everywhere on the piece when d(a) + d(b) - 2 d_min > M_p.
* A row for which that fails is tried with better bounds (the boxes' separating axes,
  then hpp-fcl's distance where that may prove it, :data:`EXACT_RATIO`), then the piece
  is cut into as many equal parts as the worst row needs were its bounds to stay as at
  the ends (2 to :data:`MAX_PARTS`, de Casteljau) and each part tried with only the rows
  still unproven, breadth first over all pieces. A single piece is first checked at
  :data:`PROBES` states spread along it (for collision, and for the rows whose cheap
  bound is their distance, against their margins), and every state a cut makes is
  checked for collision too (the scene's own check): a motion through a collision is
  refused there, without waiting for exact distances.
* A piece is refused when a checked state is in collision, when a row's decided bound
  (exact, or two boxes' separating axes) at a checked state is at or below its margin,
  or when a part whose M_p is below :data:`MIN_MOTION` is still unproven: a motion is
  refused only where it comes within MIN_MOTION / 2 (plus the bounds' slack) of its
  margin, never accepted unproven.
"""
from __future__ import annotations

import time
import numpy as np

from .certificate import Certificate  # noqa: F401 - its result, named here too
from .pieces import evaluate, subdivide, variation

#: m: a half whose motion bound is below this and that is still unproven refuses its
#: piece (the motion comes within half of it of touching).
MIN_MOTION = 2e-4
#: Exact distances are asked where the boxes' bounds at the two ends add up to at least
#: 1 / EXACT_RATIO of the motion bound (the exact ones may then prove it: on HEBI's arms
#: the boxes' bound is a median 0.99 of the exact distance between two boxes, 0.87
#: between a box and a cylinder, rarely below 0.6), where a box bound says nothing (<= 0),
#: or where the motion bound is below :data:`EXACT_BELOW` m; elsewhere the piece is
#: halved first.
EXACT_RATIO = 1.1
EXACT_BELOW = 2e-3
#: The most parts a piece is cut into in one round.
MAX_PARTS = 16
#: States spread along a single piece that are checked for collision first (most motions
#: that collide are refused there, before any bound is computed).
PROBES = 8


class _States:
    """The states checked so far, their links' poses, and the best bound of each row found
    so far with its level: 0 cheap, 1 boxes, 2 decided (exact, or boxes that decide:
    :mod:`.clearance`)."""

    def __init__(self, clearance, link_poses, dof: int):
        self._clearance, self._link_poses = clearance, link_poses
        self._initial = np.where(clearance.cheap_is_exact, 2, 0).astype(np.int8)
        self.q = np.zeros((0, dof))
        self.poses = np.zeros((0, 0, 4, 4))
        self.bound = np.zeros((0, len(clearance.pairs)))
        self.level = np.zeros((0, len(clearance.pairs)), dtype=np.int8)
        self.exact_count = 0

    @property
    def count(self) -> int:
        """States checked."""
        return len(self.q)

    def add(self, states: np.ndarray) -> np.ndarray:
        """Indices of (N, dof) new states, their cheap bounds computed."""
        first = len(self.q)
        states = np.asarray(states, dtype=float).reshape(-1, self.q.shape[1])
        poses = self._link_poses(states)
        bound = self._clearance.cheap(poses)
        self.q = np.concatenate([self.q, states])
        self.poses = poses if not first else np.concatenate([self.poses, poses])
        self.bound = np.concatenate([self.bound, bound])
        self.level = np.concatenate([self.level, np.repeat(self._initial[None], len(states),
                                                           axis=0)])
        return np.arange(first, first + len(states))

    def refine(self, states: np.ndarray, rows: np.ndarray, level: int) -> None:
        """Bring the bounds of (state, row) entries to ``level`` (1 boxes, 2 decided)."""
        todo = self.level[states, rows] < level
        if not todo.any():
            return
        key = np.unique(states[todo] * len(self._initial) + rows[todo])
        s, r = key // len(self._initial), key % len(self._initial)
        if level == 1:
            values = self._clearance.boxes(self.poses, s, r)
            self.bound[s, r] = np.maximum(self.bound[s, r], values)
            self.level[s, r] = np.where(self._clearance.boxes_decide[r], 2, 1)
            return
        for state in np.unique(s):
            wanted = r[s == state]
            values = self._clearance.exact(self.q[state], wanted)
            self.bound[state, wanted] = np.maximum(self.bound[state, wanted], values)
            self.level[state, wanted] = 2
            self.exact_count += len(wanted)


#: Whether this process has run the compiled kernels once (:meth:`Certifier.prepare`).
_PREPARED = []


class Certifier:
    """Proves motions free of collision (module docstring)."""

    def __init__(self, clearance, weights: np.ndarray, slides, link_poses, dof: int,
                 min_motion: float = MIN_MOTION, compiled: bool = False,
                 free_states=None, colliding_row=None):
        """Args:
            clearance: the scene's :class:`~.clearance.Clearance`.
            weights, slides: :func:`~.resolution.pair_weights` of its rows.
            link_poses: (N, dof) states -> (N, L, 4, 4) the links' poses, in the order
                the clearance's shapes name them.
            dof: the state's width.
            min_motion: m, :data:`MIN_MOTION`.
            compiled: run the rounds in the compiled kernels (:mod:`.compiled_certified`;
                numba): the same decisions, without numpy's cost per call.
            free_states: ((N, dof) states, (N, L, 4, 4) their links' poses) -> (N,)
                bool, the scene's collision check of states (stopping at the first in
                collision): every state checked is checked there too, so that a motion
                through a collision is refused at once, without waiting for exact
                distances.
            colliding_row: (dof,) state in collision -> the row found colliding.
        """
        self._clearance, self._weights, self._slides = clearance, weights, slides
        self._link_poses, self._dof, self._min = link_poses, dof, float(min_motion)
        self._free_states, self._colliding_row = free_states, colliding_row
        #: rows whose cheap bound is their distance (floors, spheres: :mod:`.clearance`)
        self._exact_rows = np.flatnonzero(clearance.cheap_is_exact)
        #: counts since the certifier was built: ``calls``, ``pieces``, ``at_once``
        #: (pieces proven without a cut), ``refused`` (pieces), ``seconds`` in :meth:`certify`
        self.stats = {'calls': 0, 'pieces': 0, 'at_once': 0, 'refused': 0, 'seconds': 0.0}
        self._kernels = None
        if compiled:
            from . import compiled_certified  # noqa: PLC0415 - numba only when compiled
            self._kernels = compiled_certified
            rows = len(clearance.pairs)
            self._slide_dofs = np.array([m for m, _ in slides], dtype=np.int64)
            self._slide_weights = np.array([w for _, w in slides], dtype=float).reshape(
                len(slides), rows, dof)
            self._initial = np.where(clearance.cheap_is_exact, 2, 0).astype(np.int8)

    def _motion(self, coefficients: np.ndarray, interval: np.ndarray,
                rows: np.ndarray) -> np.ndarray:
        """(E,) the motion bound M of each (interval, row) entry."""
        travel = variation(coefficients)[interval]                     # (E, dof)
        weights = self._weights[rows]
        for m, w in self._slides:
            reach = np.abs(coefficients[:, :, m]).max(axis=1)[interval]
            weights = weights + w[rows] * reach[:, None]
        return (weights * travel).sum(axis=1)

    def prepare(self) -> None:
        """Load (on a cold cache: compile) the compiled kernels, once per process, before a
        timed request: a proof of two short motions from the zero state, cut at least
        once. Nothing on the numpy path."""
        if self._kernels is None or _PREPARED:
            return
        step = np.full(self._dof, 0.3)
        pieces = np.stack([np.stack([np.zeros(self._dof), step]),
                           np.stack([step, np.zeros(self._dof)])])
        self._certify(pieces, stop_at_first=False)
        _PREPARED.append(True)

    def certify(self, pieces: np.ndarray, stop_at_first: bool = True,
                margins=0.0) -> Certificate:
        """Prove each of (K, d + 1, dof) pieces free, or refuse it (module docstring).

        Args:
            stop_at_first: stop at the first refusal: how a motion is checked.
            margins: m, scalar or (P,) per row: prove each row's distance above its
                margin, not only above 0 (refused where a checked state's exact bound is
                at or below it).
        """
        began = time.perf_counter()
        result = self._certify(pieces, stop_at_first, margins)
        stats = self.stats
        stats['calls'] += 1
        stats['pieces'] += len(result.free)
        stats['at_once'] += result.proven_at_once
        stats['refused'] += int((~result.free).sum())
        stats['seconds'] += time.perf_counter() - began
        return result

    def _certify(self, pieces: np.ndarray, stop_at_first: bool = True,
                 margins=0.0) -> Certificate:
        """:meth:`certify` without its counts."""
        margin = np.broadcast_to(np.asarray(margins, dtype=float),
                                 (len(self._clearance.pairs),))
        pieces = np.asarray(pieces, dtype=float)
        count, rows_count = len(pieces), len(self._clearance.pairs)
        free = np.ones(count, dtype=bool)
        result = Certificate(free)
        if not count or not rows_count:
            return result
        if count == 1 and self._free_states is not None:
            probes = evaluate(pieces, np.arange(1, PROBES + 1) / (PROBES + 1))[0]
            poses = self._link_poses(probes)
            hit = np.flatnonzero(~self._free_states(probes, poses))
            if len(hit):
                free[:] = False
                result.refused, result.touching = 0, True
                result.state = probes[hit[0]].copy()
                result.colliding_row = self._colliding_row
                result.states = PROBES
                return result
            exact = self._exact_rows      # a closed-form distance at or below its margin
            if len(exact):
                near = self._clearance.cheap(poses)[:, exact] <= margin[exact]
                hit = np.flatnonzero(near.any(axis=1))
                if len(hit):
                    free[:] = False
                    result.refused, result.touching = 0, True
                    result.found_row = int(exact[np.argmax(near[hit[0]])])
                    result.state = probes[hit[0]].copy()
                    result.states = PROBES
                    return result
        if self._kernels is not None:
            from .certified_compiled import certify_compiled  # noqa: PLC0415
            # a fresh array every call: a read-only view (margins given per row come through
            # broadcast_to as one) is another numba type, compiled (or loaded) at first use
            return certify_compiled(self, pieces, stop_at_first, np.array(margin), result)
        states = _States(self._clearance, self._link_poses, self._dof)
        ends = states.add(np.concatenate([pieces[:, 0], pieces[:, -1]]))
        refusal = np.array([-1.0, -1.0, 0.0, -1.0, 0.0])
        if self._collided(states.q, states.poses, np.tile(np.arange(count), 2), 0, free,
                          refusal) \
                and stop_at_first:
            return self._finish(result, refusal, states, stop_at_first)
        coefficients = pieces
        left, right, piece_of = ends[:count], ends[count:], np.arange(count)
        entry_interval = np.repeat(np.arange(count), rows_count)
        entry_row = np.tile(np.arange(rows_count), count)
        decide = self._clearance.boxes_decide
        first_round = True
        while len(entry_interval):
            alive = free[piece_of[entry_interval]]
            entry_interval, entry_row = entry_interval[alive], entry_row[alive]
            if not len(entry_interval):
                break
            motion = self._motion(coefficients, entry_interval, entry_row)
            a, b = left[entry_interval], right[entry_interval]
            twice = 2.0 * margin[entry_row]
            total = states.bound[a, entry_row] + states.bound[b, entry_row] - twice
            open_ = total <= motion
            for level in (1, 2):
                if not open_.any():
                    break
                if level == 2:      # exact where it may prove it, or where little is left
                    weakest = np.minimum(states.bound[a, entry_row],
                                         states.bound[b, entry_row]) - margin[entry_row]
                    open_ &= ~decide[entry_row] & (
                        (total * EXACT_RATIO > motion) | (weakest <= 0.0) |
                        (motion < EXACT_BELOW))
                pick = np.flatnonzero(open_)
                states.refine(np.concatenate([a[pick], b[pick]]),
                              np.tile(entry_row[pick], 2), level)
                total = states.bound[a, entry_row] + states.bound[b, entry_row] - twice
                open_ = total <= motion
            open_ = np.flatnonzero(open_)
            if first_round:
                result.proven_at_once = count - len(np.unique(piece_of[entry_interval[open_]]))
                first_round = False
            if not len(open_):
                break
            e_row, e_a, e_b = entry_row[open_], a[open_], b[open_]
            bound_a, bound_b = states.bound[e_a, e_row], states.bound[e_b, e_row]
            decided = (states.level[e_a, e_row] == 2) & (states.level[e_b, e_row] == 2)
            touching = decided & ((bound_a <= margin[e_row]) | (bound_b <= margin[e_row]))
            failed = touching | (decided & (motion[open_] < self._min))
            if failed.any():
                bad = np.flatnonzero(failed)
                refused = piece_of[entry_interval[open_[bad]]]
                free[np.unique(refused)] = False
                worst = bad[int(np.argmin(refused))]
                if refusal[0] < 0 or refused.min() < refusal[0]:
                    end = e_a[worst] if bound_a[worst] <= bound_b[worst] else e_b[worst]
                    refusal[:4] = (refused.min(), e_row[worst], float(touching[worst]), end)
                if stop_at_first:
                    break
                still = free[piece_of[entry_interval[open_]]]
                open_, total_open = open_[still], total[open_][still]
            else:
                total_open = total[open_]
            if not len(open_):
                break
            # cut each interval with unproven rows into as many parts as the worst of them
            # needs if its bound stayed as it is at the ends, at least 2, at most MAX_PARTS
            need = motion[open_] / np.maximum(total_open, 1e-12)
            intervals, inverse = np.unique(entry_interval[open_], return_inverse=True)
            parts = np.full(len(intervals), 2)
            np.maximum.at(parts, inverse, np.minimum(np.floor(need), MAX_PARTS - 1).astype(int) + 1)
            cut = subdivide(coefficients[intervals], parts)
            first = np.cumsum(parts) - parts
            starts = np.ones(len(cut), dtype=bool)
            starts[first] = False
            middle = states.add(cut[starts][:, 0])       # each part's start, but the first
            if self._collided(states.q[middle], states.poses[middle], piece_of[intervals][
                    np.repeat(np.arange(len(intervals)), parts)][starts], int(middle[0])
                    if len(middle) else 0, free, refusal) and stop_at_first:
                break
            point = np.empty(len(cut), dtype=int)
            point[starts] = middle
            point[first] = left[intervals]
            ends_of = np.empty(len(cut), dtype=int)
            ends_of[:-1] = point[1:]
            ends_of[first[1:] - 1] = right[intervals[:-1]]
            ends_of[-1] = right[intervals[-1]]
            result.parts += len(cut)
            owner = np.repeat(np.arange(len(intervals)), parts)
            coefficients, left, right = cut, point, ends_of
            piece_of = piece_of[intervals][owner]
            # every unproven row of an interval goes to each of its parts
            rows = entry_row[open_]
            part_counts = parts[inverse]
            entry_row = np.repeat(rows, part_counts)
            entry_interval = np.repeat(first[inverse], part_counts) + \
                (np.arange(len(entry_row)) - np.repeat(np.cumsum(part_counts) - part_counts,
                                                       part_counts))
        return self._finish(result, refusal, states, stop_at_first)

    def _collided(self, states: np.ndarray, poses: np.ndarray, pieces: np.ndarray,
                  first: int, free: np.ndarray, refusal: np.ndarray) -> bool:
        """Check new states (N, dof) (indices from ``first``, each on piece ``pieces``
        (N,)) in the scene; refuse the pieces of those in collision (``refusal`` as
        :func:`~.compiled_certified.cut` fills it, its row -1 until :meth:`_finish`).
        True when one was."""
        if self._free_states is None or not len(states):
            return False
        hit = np.flatnonzero(~self._free_states(states, poses))
        if not len(hit):
            return False
        free[pieces[hit]] = False
        worst = hit[int(np.argmin(pieces[hit]))]
        if refusal[0] < 0 or pieces[worst] < refusal[0]:
            refusal[:4] = (pieces[worst], -1.0, 1.0, first + worst)
        return True

    def _finish(self, result: Certificate, refusal: np.ndarray, run,
                stop_at_first: bool) -> Certificate:
        if refusal[0] >= 0:
            result.refused, result.found_row = int(refusal[0]), int(refusal[1])
            result.touching = bool(refusal[2])
            result.state = run.q[int(refusal[3])].copy()
            result.colliding_row = self._colliding_row
            if stop_at_first:
                result.free[result.refused:] = False
        result.exact, result.states = run.exact_count, run.count
        return result

