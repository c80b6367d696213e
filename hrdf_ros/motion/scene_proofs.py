"""The planning scene's proofs about motions and its distances (the base class of
:class:`~.scene.PlanningScene`).

In: (K, d + 1, dof) Bernstein pieces (:mod:`.pieces`; HEBI positions, model order) or a
straight segment's two states, margins (m, scalar or per checked pair), states. Out: the
:class:`~.certified.Certificate` of :mod:`.certified`, whether a segment is proven free,
lower bounds on every checked pair's distance (:mod:`.clearance`), the margins a motion
between states keeps, the pair of a row; and the counts of the pairs found blocking
(for PLANNING_FAILED's message).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Dict, Optional, Tuple

import numpy as np

from .certified import Certificate
from .pieces import line_pieces

Pair = Tuple[str, str]


class SceneProofs:
    """Certified checks of motions (module docstring); the scene sets ``_certifier``,
    ``clearance``, ``_pairs``, ``_dof``, ``_blocks`` and ``_state``."""

    @contextmanager
    def counting_blocks(self):
        """Within the block, every state found in collision counts the pair found
        colliding (the first one checked); :meth:`most_blocking` reads the counts."""
        self._blocks = np.zeros(len(self._pairs), dtype=np.int64)
        try:
            yield
        finally:
            self.block_counts, self._blocks = self._blocks, None

    def most_blocking(self) -> Optional[Tuple[Pair, int, int]]:
        """(the pair of links (or link and object) that the last
        :meth:`counting_blocks` found in collision most often, how often, of how many
        states in collision), or None when it found none."""
        counts = getattr(self, 'block_counts', None)
        if counts is None or not counts.sum():
            return None
        by_pair: Dict[Pair, int] = {}
        for pair, count in zip(self._pairs, counts.tolist()):
            by_pair[pair] = by_pair.get(pair, 0) + count
        pair = max(by_pair, key=lambda p: (by_pair[p], -self._pairs.index(p)))
        return pair, by_pair[pair], int(counts.sum())

    def certify(self, pieces, stop_at_first: bool = True, margins=0.0) -> Certificate:
        """Prove motions free of collision (:mod:`.certified`): (K, d + 1, dof) Bernstein
        pieces (HEBI positions, model order); a piece is free when no state on it
        collides, proven, not sampled; with ``margins`` (m, scalar or per row of
        :meth:`row_pair`), when every checked pair stays farther apart than its margin.

        Raises:
            ValueError: pieces not finite, or of another width.
        """
        pieces = np.asarray(pieces, dtype=float)
        if pieces.ndim != 3 or pieces.shape[2] != self._dof or pieces.shape[1] < 2:
            raise ValueError(f'pieces: expected (K, d + 1, {self._dof}), got {pieces.shape}')
        if not np.all(np.isfinite(pieces)):
            raise ValueError('joint positions must be finite')
        return self._certifier.certify(pieces, stop_at_first, margins)

    def prepare_proofs(self) -> None:
        """Load (compile, on a cold cache) the proofs' kernels now, not inside a request's
        time (:meth:`~.certified.Certifier.prepare`)."""
        self._certifier.prepare()

    @property
    def proof_counts(self) -> Dict[str, float]:
        """The certifier's counts since the scene's last change (``calls``, ``pieces``,
        ``at_once``: proven without a cut, ``refused``, ``seconds``; for benchmarks)."""
        return dict(self._certifier.stats)

    def segment_free(self, start, goal, margins=0.0) -> bool:
        """True when the straight joint-space motion from (dof,) ``start`` to ``goal`` is
        proven free of collision at every state on it, every pair farther apart than its
        margin (:meth:`certify`)."""
        return bool(self.certify(line_pieces(np.stack([self._state(start),
                                                       self._state(goal)])), True, margins)
                    .free.all())

    def distances(self, positions) -> np.ndarray:
        """(P,) lower bounds on the distance of every checked pair (:meth:`row_pair`) at a
        (dof,) state, m (hpp-fcl's, :meth:`~.clearance.Clearance.exact`; <= 0 where a pair
        touches).

        Raises:
            ValueError: as :meth:`~.scene.PlanningScene.in_collision`.
        """
        return self.clearance.exact(self._state(positions), range(len(self._pairs)))

    def near_distances(self, positions, within: float) -> np.ndarray:
        """(P,) lower bounds on every checked pair's distance at a (dof,) state, m: the
        cheap bound (:meth:`~.clearance.Clearance.cheap`) where that is ``within`` m or
        more, else hpp-fcl's (:meth:`distances`). Each is a true lower bound; those below
        ``within`` are the exact ones.

        Raises:
            ValueError: as :meth:`~.scene.PlanningScene.in_collision`.
        """
        state = self._state(positions)
        bounds = self.clearance.cheap(self.link_poses(state[None]))[0]
        close = np.flatnonzero(bounds < within)
        if len(close):
            bounds[close] = self.clearance.exact(state, close)
        return bounds

    def row_distances(self, positions, rows) -> np.ndarray:
        """(R,) hpp-fcl's lower bounds (:meth:`distances`) on the distance of the checked
        ``rows`` only, at a (dof,) state, m."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if not len(rows):
            return np.zeros(0)
        return self.clearance.exact(self._state(positions), rows)

    def margins(self, clearance: float, states) -> np.ndarray:
        """(P,) per checked pair the margin a motion between ``states`` (S, dof) keeps:
        ``clearance`` (m), or half the pair's distance at the nearest of the states where
        that is less (a motion can then leave a state whose links are closer than the
        clearance), never below 0."""
        states = np.asarray(states, dtype=float).reshape(-1, self._dof)
        clearance = float(clearance)
        nearest = self.clearance.cheap(self.link_poses(states)).min(axis=0)
        close = np.flatnonzero(nearest < 2.0 * clearance)     # only these can be less
        if len(close):
            nearest[close] = np.min([self.clearance.exact(self._state(q), close)
                                     for q in states], axis=0)
        return np.clip(np.minimum(clearance, nearest / 2.0), 0.0, None)

    def _colliding_row(self, positions: np.ndarray) -> int:
        """The first checked row found colliding at a (dof,) state, or -1."""
        self._collides(positions, False)
        return self._first_row

    def row_pair(self, row: int) -> Pair:
        """The pair (link, link or object name) of a checked row."""
        return self._pairs[row]

