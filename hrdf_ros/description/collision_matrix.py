"""The self-collision matrix: link pairs MoveIt need not check, computed like MoveIt Setup
Assistant's (``moveit_setup_srdf_plugins/src/compute_default_collisions.cpp``, kilted).

In: the link tree (:class:`~.structure.LinkTree`, as the URDF states it), its
collision geometry (:mod:`.collision_shapes`) and link poses (:class:`.LinkPoser`). Out:
``{(link1, link2): reason}`` for every disabled pair of links with collision geometry:

1. ``Adjacent``: joined by a joint, or joined through links without collision geometry
   (Setup Assistant's connection graph, where a geometry-less link connects all its
   neighbours to each other).
2. ``Default``: in collision in the default state (every joint at 0, or mid-range when 0
   is outside its limits).
3. ``Always``: in collision in more than 95 % of 200 random states (rounds of 200 until a
   round finds no new pair).
4. ``Never``: never in collision in ``samples`` random states (default 10 000), and
   never closer than :data:`NEVER_MARGIN` (1 cm) in them: Setup Assistant asks only for
   no collision, which also disables pairs that do collide in rare states it happened not
   to draw (measured: a 7-DoF kit's bracket and wrist mount collide in 0.04 % of states
   and came out ``Never``); the margin keeps such near-miss pairs checked.

Random states are uniform within the joint limits ([-pi, pi] for continuous joints), from
``numpy.random.default_rng(seed)``, so the result is reproducible. Collisions are FCL's
(python-fcl) on the URDF's collision shapes. Each pair is first tested with bounding
boxes that contain its shapes (numpy, all samples at once: root-frame axis-aligned boxes,
then the separating axes of oriented ones); FCL runs only where the boxes overlap, and a
pair stops being tested once it is seen in collision.
Pairs with an *opaque* link (geometry that cannot be read) are only ever ``Adjacent``.
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np

from .. import reproducible
from .structure import LinkTree
from .collision_shapes import CollisionShapes, require_fcl
from .link_poses import LinkPoser

#: Random states of the ``Never`` test (MoveIt Setup Assistant's default sampling density).
DEFAULT_SAMPLES = 10000
#: Seed of the random states.
DEFAULT_SEED = 0
#: ``Never`` pairs stay at least this far apart in every sampled state, m.
NEVER_MARGIN = 0.01
#: ``Always``: seen in collision in more than this fraction of a round (Setup Assistant).
ALWAYS_FRACTION = 0.95
#: States per ``Always`` round (Setup Assistant's SMALL_TRIAL_COUNT).
ALWAYS_ROUND = 200
#: Bounding-box tests done at once (states x shape pairs; bounds temporary memory).
_BATCH = 100000
#: States whose link and shape poses are computed at once.
_POSE_BLOCK = 2000
#: Slack added to bounding boxes so that touching boxes still go to FCL, m.
_SLACK = 1e-6
#: (p + 1) % 3 and (p + 2) % 3 for p = 0, 1, 2 (the separating axis test's edge axes).
_NEXT, _NEXT_NEXT = np.array([1, 2, 0]), np.array([2, 0, 1])

Pair = Tuple[str, str]


def boxes_overlap(a: np.ndarray, half_a: np.ndarray, b: np.ndarray, half_b: np.ndarray
                  ) -> np.ndarray:
    """Indices of the oriented boxes that overlap (the separating axis test: the 6 face
    axes, then the 9 edge axes on what they left; Gottschalk, Lin and Manocha 1996, with
    1e-9 added to the rotation's magnitudes for near-parallel edges).

    Args:
        a, b: (M, 4, 4) poses of the boxes' centres (their axes the rotation's columns).
        half_a, half_b: (M, 3) half sizes along those axes, m.

    Returns:
        (K,) indices into the M pairs, ascending.
    """
    a_t = a[:, :3, :3].transpose(0, 2, 1)
    rot = np.matmul(a_t, b[:, :3, :3])                           # B's axes in A's frame
    t = np.matmul(a_t, (b[:, :3, 3] - a[:, :3, 3])[:, :, None])[:, :, 0]   # B's centre
    absr = np.abs(rot) + 1e-9
    separated = np.any(np.abs(t) > half_a + np.matmul(absr, half_b[:, :, None])[:, :, 0],
                       axis=1)
    tb = np.matmul(rot.transpose(0, 2, 1), t[:, :, None])[:, :, 0]
    separated |= np.any(np.abs(tb) > half_b + np.matmul(absr.transpose(0, 2, 1),
                                                         half_a[:, :, None])[:, :, 0], axis=1)
    left = np.flatnonzero(~separated)
    t, rot, absr, ha, hb = t[left], rot[left], absr[left], half_a[left], half_b[left]
    # edge axes A_p x B_q for every (p, q) at once: p1, p2 (q1, q2) are the other two
    # axes of p (q), in cyclic order
    p1, p2 = _NEXT, _NEXT_NEXT
    dist = np.abs(t[:, p2, None] * rot[:, p1, :] - t[:, p1, None] * rot[:, p2, :])
    limit = (ha[:, p1, None] * absr[:, p2, :] + ha[:, p2, None] * absr[:, p1, :]
             + hb[:, None, p1] * absr[:, :, p2] + hb[:, None, p2] * absr[:, :, p1])
    return left[~np.any(dist > limit, axis=(1, 2))]


def adjacent_pairs(urdf: LinkTree, geometry_links: Sequence[str]) -> List[Pair]:
    """Pairs of links with geometry that are adjacent in Setup Assistant's sense.

    Args:
        urdf: the kinematic tree.
        geometry_links: the links with collision geometry.

    Returns:
        Sorted pairs, each ordered alphabetically (as Setup Assistant orders them).
    """
    graph: Dict[str, set] = {name: set() for name in urdf.links}
    for joint in urdf.joints:
        graph[joint.parent].add(joint.child)
        graph[joint.child].add(joint.parent)
    with_geometry = set(geometry_links)
    changed = True
    while changed:
        changed = False
        for link, neighbours in graph.items():
            if link in with_geometry:
                continue
            for a in list(neighbours):
                for b in neighbours:
                    if a != b and b not in graph[a]:
                        graph[a].add(b)
                        changed = True
    pairs = set()
    for link, neighbours in graph.items():
        for other in neighbours:
            if link in with_geometry and other in with_geometry:
                pairs.add(tuple(sorted((link, other))))
    return sorted(pairs)


class CollisionChecker:
    """Which link pairs collide (or, with ``margin`` > 0, come closer than ``margin``, m),
    for batches of URDF joint values (python-fcl).

    Raises ImportError (on construction) when python-fcl is missing.
    """

    def __init__(self, shapes: CollisionShapes, poser: LinkPoser, margin: float = 0.0):
        self._fcl = require_fcl()
        self._margin = float(margin)
        self._poser = poser
        self._links = shapes.links
        self._shapes = shapes.shapes
        self._objects = [self._fcl.CollisionObject(s.geometry, self._fcl.Transform())
                         for s in shapes.shapes]
        self._request = self._fcl.CollisionRequest()
        self._obb = np.array([s.obb_pose for s in shapes.shapes]).reshape(-1, 4, 4)
        self._local = np.array([s.shape_pose for s in shapes.shapes]).reshape(-1, 4, 4)
        self._half = np.array([s.half_extents for s in shapes.shapes]).reshape(-1, 3) \
            + _SLACK + self._margin / 2
        self._shape_link = np.array([s.link for s in shapes.shapes], dtype=int)
        self._link_index = {name: k for k, name in enumerate(shapes.links)}
        self._moving = None     # indices of the shapes of moving links, on first use

    def shape_pairs(self, pairs: Sequence[Pair]) -> Tuple[np.ndarray, np.ndarray]:
        """(K, 2) shape index pairs of the link pairs and (K,) the link pair of each."""
        by_link: Dict[int, List[int]] = {}
        for k, link in enumerate(self._shape_link):
            by_link.setdefault(int(link), []).append(k)
        rows, owner = [], []
        for p, (a, b) in enumerate(pairs):
            for i in by_link.get(self._link_index[a], []):
                for j in by_link.get(self._link_index[b], []):
                    rows.append((i, j))
                    owner.append(p)
        return (np.array(rows, dtype=int).reshape(-1, 2), np.array(owner, dtype=int))

    def link_poses(self, values: np.ndarray) -> np.ndarray:
        """(N, links with geometry, 4, 4)."""
        return self._poser.poses(self._links, values)

    def box_poses(self, link_poses: np.ndarray) -> np.ndarray:
        """(N, shapes, 4, 4) poses of the shapes' bounding boxes for (N, links with
        geometry, 4, 4) link poses (BLAS: see :meth:`overlaps`)."""
        out = np.empty((len(link_poses), len(self._shape_link), 4, 4))
        return np.matmul(link_poses[:, self._shape_link], self._obb, out=out)  # C order

    def overlaps(self, obb: np.ndarray, links: np.ndarray, shape_pairs: np.ndarray,
                 first: np.ndarray, count: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """(states, shape pairs) index arrays of the entries whose bounding boxes overlap,
        in row-major order: first the root-frame axis-aligned boxes of the two links
        (each containing its shapes' boxes), then those of the two shapes, then the
        oriented boxes' 6 face axes, then their 9 edge axes (each stage on what the one
        before kept).

        Args:
            obb: (N, shapes, 4, 4) box poses (:meth:`box_poses`).
            links: (P, 2) the link pairs to test (indices among the links with geometry).
            shape_pairs: (K, 2) shape index pairs.
            first, count: (P,) link pair p's shape pairs are rows ``first[p]`` to
                ``first[p] + count[p]`` of ``shape_pairs``.

        Computed with BLAS, whose last bits differ between machines: that cannot change
        a verdict, since the boxes carry :data:`_SLACK` (1e-6 m, ten orders above those
        bits) and only send pairs to FCL, which decides on the shapes' reproducible poses
        (:meth:`colliding`): a pair the boxes keep out is apart by more than FCL
        could ever call a collision (or, with a margin, closer than it)."""
        states, shapes = obb.shape[:2]
        flat_obb = obb.reshape(-1, 4, 4)
        flat = np.ascontiguousarray(flat_obb[:, :3, 3])                 # (N S, 3) centres
        extents = np.einsum('mab,mb->ma', np.abs(flat_obb[:, :3, :3]),
                            np.tile(self._half, (states, 1)))
        low, high = flat - extents, flat + extents                         # (N S, 3)
        # the links' boxes (the union of their shapes'), per axis: (3, N, L)
        link_low = np.full((3, states, len(self._links)), np.inf)
        link_high = np.full((3, states, len(self._links)), -np.inf)
        shape_low, shape_high = low.reshape(states, shapes, 3), high.reshape(states, shapes, 3)
        for link in np.unique(links):
            mine = self._shape_link == link
            link_low[:, :, link] = shape_low[:, mine].min(axis=1).T
            link_high[:, :, link] = shape_high[:, mine].max(axis=1).T
        a, b = links[:, 0], links[:, 1]
        inside = np.ones((states, len(links)), dtype=bool)
        for lo, hi in zip(link_low, link_high):                            # x, y, z
            inside &= (lo[:, a] <= hi[:, b]) & (lo[:, b] <= hi[:, a])      # (N, P)
        n, p = np.nonzero(inside)
        # every shape pair of those link pairs, then the shapes' boxes
        counts = count[p]
        n = np.repeat(n, counts)
        k = np.repeat(first[p] - np.cumsum(counts) + counts, counts) + np.arange(len(n))
        rows_a, rows_b = n * shapes + shape_pairs[k, 0], n * shapes + shape_pairs[k, 1]
        keep = np.all((np.take(low, rows_a, axis=0) <= np.take(high, rows_b, axis=0))
                      & (np.take(low, rows_b, axis=0) <= np.take(high, rows_a, axis=0)), axis=1)
        n, k, rows_a, rows_b = n[keep], k[keep], rows_a[keep], rows_b[keep]
        if not len(n):
            return n, k
        i, j = shape_pairs[k, 0], shape_pairs[k, 1]
        keep = boxes_overlap(np.take(flat_obb, rows_a, axis=0), self._half[i],
                             np.take(flat_obb, rows_b, axis=0), self._half[j])
        return n[keep], k[keep]

    def collide(self, i: int, pose_i: np.ndarray, j: int, pose_j: np.ndarray) -> bool:
        """FCL's verdict on shapes ``i`` and ``j`` at (4, 4) poses in the root link frame:
        in collision, or with a margin, closer than it."""
        for k, pose in ((i, pose_i), (j, pose_j)):
            self._objects[k].setTranslation(pose[:3, 3])
            self._objects[k].setRotation(pose[:3, :3])
        if self._margin:
            return self._fcl.distance(self._objects[i], self._objects[j],
                                      self._fcl.DistanceRequest(),
                                      self._fcl.DistanceResult()) < self._margin
        return self._fcl.collide(self._objects[i], self._objects[j], self._request) > 0

    def lowest(self, values: np.ndarray, moving_only: bool = False) -> np.ndarray:
        """(N,) the lowest point (z in the root link's frame, m) of the bounding boxes of
        the collision shapes (``moving_only``: of links that move with a joint), per
        state; ``inf`` when there are none. A box contains its shape, so the shapes are
        at least that high."""
        if self._moving is None:    # links whose pose changes when the joints do
            base = self._poser.default_values()
            poses = self.link_poses(np.stack([base, base + 0.5, base - 0.5]))
            moved = np.any(np.abs(poses - poses[:1]) > 1e-12, axis=(0, 2, 3))
            self._moving = np.flatnonzero(moved[self._shape_link])
        shapes = self._moving if moving_only else np.arange(len(self._shapes))
        values = np.atleast_2d(values)
        if not len(shapes):
            return np.full(len(values), np.inf)
        links = self._shape_link[shapes]
        obb = reproducible.compose(self.link_poses(values)[:, links],
                                   self._obb[shapes])                # (N, S, 4, 4)
        half = self._half[shapes] - _SLACK - self._margin / 2
        depth = reproducible.dot(np.abs(obb[:, :, 2, :3]), half)
        return (obb[:, :, 2, 3] - depth).min(axis=1)

    def colliding(self, values: np.ndarray, pairs: Sequence[Pair],
                  stop_after_first: bool) -> np.ndarray:
        """(N, P) bool: link pair p collides in state n. With ``stop_after_first``, a
        pair is tested only until its first collision (later states read False)."""
        result = np.zeros((len(values), len(pairs)), dtype=bool)
        shape_pairs, owner = self.shape_pairs(pairs)      # grouped by owner, in order
        if not len(shape_pairs):
            return result
        links = np.array([[self._link_index[a], self._link_index[b]] for a, b in pairs],
                         dtype=int).reshape(-1, 2)
        count = np.bincount(owner, minlength=len(pairs))
        first = np.cumsum(count) - count
        done = count == 0
        step = max(1, min(len(values), _BATCH // len(pairs)))
        for block in range(0, len(values), max(step, _POSE_BLOCK)):
            if done.all():
                break
            poses = self.link_poses(values[block:block + max(step, _POSE_BLOCK)])
            obb = self.box_poses(poses)
            for start in range(0, len(poses), step):
                active = np.flatnonzero(~done)
                if not len(active):
                    break
                n, k = self.overlaps(obb[start:start + step], links[active], shape_pairs,
                                     first[active], count[active])
                if not len(n):
                    continue
                states = start + n
                i, j = shape_pairs[k, 0], shape_pairs[k, 1]
                # FCL's input: the shapes' poses, reproducible (the same on every machine)
                pose_i = reproducible.compose(poses[states, self._shape_link[i]], self._local[i])
                pose_j = reproducible.compose(poses[states, self._shape_link[j]], self._local[j])
                for c, row in enumerate(k):
                    p, state = owner[row], block + states[c]
                    if done[p] or result[state, p]:
                        continue
                    if self.collide(i[c], pose_i[c], j[c], pose_j[c]):
                        result[state, p] = True
                        done[p] = stop_after_first
        return result


def collision_matrix(urdf: LinkTree, shapes: CollisionShapes, poser: LinkPoser,
                     samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED,
                     margin: float = NEVER_MARGIN, never: bool = True) -> Dict[Pair, str]:
    """Disabled collision pairs and their reasons (see the module docstring).

    Args:
        urdf: the kinematic tree.
        shapes: its collision geometry (:func:`.collision_shapes.collision_shapes`).
        poser: link poses for joint values (:class:`.LinkPoser`).
        samples: random states of the ``Never`` test; 0 disables only ``Adjacent`` pairs
            (no sampling, no FCL needed).
        seed: seed of ``numpy.random.default_rng``.
        margin: ``Never`` needs the pair to stay this far apart, m (0: Setup
            Assistant's plain "never in collision").
        never: False skips the ``Never`` test (those pairs stay checked: a stricter
            matrix, for many robots checked once each, as ``hrdf design`` does).

    Returns:
        ``{(link1, link2): 'Adjacent' | 'Default' | 'Always' | 'Never'}``, pairs ordered
        alphabetically.

    Raises:
        ImportError: python-fcl missing while ``samples`` > 0.
        ValueError: ``samples`` or ``margin`` < 0.
    """
    if samples < 0 or margin < 0:
        raise ValueError(f'samples and margin must be >= 0, got {samples}, {margin}')
    reasons: Dict[Pair, str] = {p: 'Adjacent' for p in adjacent_pairs(urdf, shapes.links)}
    if samples == 0:
        return reasons
    checker = CollisionChecker(shapes, poser)
    links = sorted(set(shapes.links) - set(shapes.opaque))
    open_pairs = [(a, b) for i, a in enumerate(links) for b in links[i + 1:]
                  if (a, b) not in reasons]
    default = poser.default_values()[None, :]
    hits = checker.colliding(default, open_pairs, stop_after_first=False)[0]
    reasons.update((p, 'Default') for p, hit in zip(open_pairs, hits) if hit)
    open_pairs = [p for p in open_pairs if p not in reasons]
    rng = np.random.default_rng(seed)
    seen = set()
    limit = int(ALWAYS_ROUND * ALWAYS_FRACTION)
    while open_pairs:
        values = poser.random_values(rng, ALWAYS_ROUND)
        counts = checker.colliding(values, open_pairs, stop_after_first=False).sum(axis=0)
        seen.update(p for p, c in zip(open_pairs, counts) if c)
        always = [p for p, c in zip(open_pairs, counts) if c > limit]
        if not always:
            break
        reasons.update((p, 'Always') for p in always)
        open_pairs = [p for p in open_pairs if p not in reasons]
    unseen = [p for p in open_pairs if p not in seen] if never else []
    if unseen:
        values = poser.random_values(rng, samples)
        near = CollisionChecker(shapes, poser, margin) if margin else checker
        ever = near.colliding(values, unseen, stop_after_first=True).any(axis=0)
        reasons.update((p, 'Never') for p, hit in zip(unseen, ever) if not hit)
    return dict(sorted(reasons.items()))
