"""A polyline in joint space with its corners rounded by circular arcs.

In: the corners of a joint path (K, n) (URDF joint values, rad or m) and, per interior
corner, the most the rounded path may pass from it (its deviation, in the same units,
Euclidean over the joints). Out: :class:`BlendPath`, the path as a function of its arc
length s (m or rad): positions, first and second derivatives; which piece (a straight
part, or corner k's arc) each s lies on.

The construction is Kunz and Stilman's ("Time-Optimal Trajectory Generation for Path
Following with Bounded Acceleration and Velocity", RSS 2012, section IV; MoveIt's
time-optimal trajectory generation): at a corner w between unit directions a (in) and b
(out) that turn by the angle alpha, a circular arc tangent to both segments replaces the
corner. Its tangent points are l = min(|in| / 2, |out| / 2, delta sin(alpha / 2) /
(1 - cos(alpha / 2))) from w along each segment, so that arcs of neighbouring corners
never overlap and the arc passes at most delta from w; its radius is r = l / tan(alpha /
2). The path is C1 (its direction is continuous), its curvature 1 / r on an arc and 0 on
a straight part. A corner with a deviation of 0, or that turns back on itself (alpha
within 1e-6 of pi), is not rounded: the path has a kink there, where a trajectory must
stop (:attr:`BlendPath.stops`). A corner that does not turn (alpha below 1e-9) needs no
arc.
"""
from __future__ import annotations

import math
from typing import List, Tuple

import numpy as np

#: Corners turning less than this (rad) are straight: no arc.
STRAIGHT = 1e-9
#: Corners turning back within this of pi (rad) cannot be rounded.
REVERSAL = 1e-6


class BlendPath:
    """The rounded path (module docstring).

    Attributes:
        pieces: ``[(kind, s0, s1, data)]`` in path order, kind ``'line'`` (data: start
            point (n,), unit direction (n,)) or ``'arc'`` (data: centre (n,), unit x, unit
            y (n,) spanning the arc's plane, radius); a point at s in [s0, s1] is
            ``p + u (s - s0)`` or ``c + r (x cos t + y sin t)``, t = (s - s0) / r.
        corners: per piece, the interior corner (1 .. K - 2) an arc rounds, -1 for a
            straight part.
        stops: path positions s where the path has a kink (a corner not rounded,
            ascending), the ends excluded.
        deviations: (K,) how far each corner's arc passes from it (0 where none: the
            ends, corners not rounded or straight): the deviation asked for, or less
            where the segments are too short for it.
        length: the path's arc length.
    """

    def __init__(self, waypoints: np.ndarray, deviations: np.ndarray):
        """Args:
            waypoints: (K, n) corners, K >= 2, consecutive ones distinct.
            deviations: (K,) the deviation allowed at each corner (the ends' ignored); 0:
                not rounded.
        """
        w = np.asarray(waypoints, dtype=float)
        self.pieces: List[Tuple[str, float, float, tuple]] = []
        self.corners: List[int] = []
        self.stops: List[float] = []
        self.deviations = np.zeros(len(w))
        directions, lengths = [], []
        for a, b in zip(w[:-1], w[1:]):
            d = b - a
            length = float(np.linalg.norm(d))
            directions.append(d / length)
            lengths.append(length)
        angles = np.zeros(len(w))
        for k in range(1, len(w) - 1):
            angles[k] = math.acos(max(-1.0, min(1.0, float(directions[k - 1]
                                                           @ directions[k]))))
        rounded = (deviations > 0.0) & (angles >= STRAIGHT) & (angles <= math.pi - REVERSAL)
        rounded[[0, -1]] = False
        # what each segment lends the corner at its start and at its end: all of it to
        # its one rounded corner; between two, shares in proportion to tan(alpha / 2),
        # which gives both arcs the same radius
        need = np.where(rounded, np.tan(np.minimum(angles, math.pi - REVERSAL) / 2.0), 0.0)
        lend_end, lend_start = np.zeros(len(w)), np.zeros(len(w))   # by segment index
        for k in range(len(w) - 1):
            total = need[k] + need[k + 1]
            if total > 0.0:
                lend_start[k] = lengths[k] * need[k] / total
                lend_end[k] = lengths[k] * need[k + 1] / total
        # per interior corner: (tangent distance l, arc) or None
        blends = [None] * len(w)
        for k in range(1, len(w) - 1):
            a, b = directions[k - 1], directions[k]
            alpha = angles[k]
            if alpha < STRAIGHT:
                continue
            if not rounded[k]:
                blends[k] = (0.0, None)
                continue
            half = alpha / 2.0
            l = min(lend_end[k - 1], lend_start[k],
                    deviations[k] * math.sin(half) / (1.0 - math.cos(half)))
            self.deviations[k] = l * (1.0 - math.cos(half)) / math.sin(half)
            r = l / math.tan(half)
            bisector = (b - a) / np.linalg.norm(b - a)
            centre = w[k] + bisector * (r / math.cos(half))
            start = w[k] - l * a
            x = (start - centre) / r
            blends[k] = (l, (centre, x, a.copy(), r, alpha))
        s = 0.0
        for k in range(len(w) - 1):
            begin = blends[k][0] if blends[k] else 0.0
            end = blends[k + 1][0] if blends[k + 1] else 0.0
            straight = lengths[k] - begin - end
            if straight > 0.0:
                start = w[k] + begin * directions[k]
                self.pieces.append(('line', s, s + straight, (start, directions[k])))
                self.corners.append(-1)
                s += straight
            blend = blends[k + 1]
            if blend is None:
                continue
            if blend[1] is None:
                if k + 1 < len(w) - 1:
                    self.stops.append(s)
                continue
            centre, x, y, r, alpha = blend[1]
            self.pieces.append(('arc', s, s + r * alpha, (centre, x, y, r)))
            self.corners.append(k + 1)
            s += r * alpha
        self.length = s
        self._starts = np.array([p[1] for p in self.pieces])

    def piece_of(self, s: np.ndarray) -> np.ndarray:
        """(M,) the index of the piece each path position (M,) lies on."""
        return np.clip(np.searchsorted(self._starts, np.asarray(s, dtype=float),
                                       side='right') - 1, 0, len(self.pieces) - 1)

    def evaluate(self, s, order: int = 0) -> np.ndarray:
        """(M, n) the path's positions (order 0), first (1) or second (2) derivatives
        with respect to s at the path positions s (M,) (clipped into [0, length])."""
        s = np.clip(np.atleast_1d(np.asarray(s, dtype=float)), 0.0, self.length)
        index = self.piece_of(s)
        n = len(self.pieces[0][3][0])
        out = np.empty((len(s), n))
        for k in np.unique(index):
            kind, s0, _, data = self.pieces[k]
            mask = index == k
            local = (s[mask] - s0)[:, None]
            if kind == 'line':
                p, u = data
                out[mask] = (p + u * local) if order == 0 else \
                    (np.broadcast_to(u, (len(local), n)) if order == 1 else 0.0)
            else:
                centre, x, y, r = data
                t = local / r
                c, sn = np.cos(t), np.sin(t)
                if order == 0:
                    out[mask] = centre + r * (x * c + y * sn)
                elif order == 1:
                    out[mask] = -x * sn + y * c
                else:
                    out[mask] = -(x * c + y * sn) / r
        return out

    def sections(self) -> List[Tuple[float, float]]:
        """[(s0, s1)] the stretches between kinks (the ends and :attr:`stops`), each
        followed from rest to rest."""
        bounds = [0.0] + list(self.stops) + [self.length]
        return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
