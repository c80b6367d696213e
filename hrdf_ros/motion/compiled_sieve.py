"""The sieve of :mod:`.sieve` as one compiled kernel (numba; the optional extra
``hrdf_ros[fast]``), used when the planner's kinematics take the compiled path.

In: the links' poses (N, L, 4, 4) of a batch (root link frame, m) and the sieve's
constant arrays (:class:`~.sieve.Sieve`). Out: the (state, pair) entries whose bounding
volumes meet, sorted by state, then pair: the same entries as the numpy stages, decided
by the same tests (the two links' spheres, the two shapes' spheres, the separating axis
test of their oriented boxes; a shape against a floor by its box's lowest corner), state
by state in explicit loops. The numpy stages pay ~20 numpy calls a batch whatever its
size (~180 us for 8 states of a 7-DoF kit); this kernel pays ~1 us a state.

Compiled on first use and cached on disk as :mod:`hrdf_ros.kinematics.compiled`'s
kernels are (it sets ``NUMBA_CACHE_DIR``). Imported only by :class:`~.sieve.Sieve`, when
the compiled path is used.
"""
from __future__ import annotations

import numpy as np

from ..kinematics import compiled as _kernels  # noqa: F401 - sets NUMBA_CACHE_DIR first

from numba import njit  # noqa: E402

#: Added to the rotation's magnitudes for near-parallel edges (as
#: :func:`~hrdf_ros.description.collision_matrix.boxes_overlap`).
_PARALLEL = 1e-9


@njit(cache=True, inline='always')
def _boxes_overlap(a, ia, ha, b, ib, hb, rot, absr, t):
    """Whether oriented boxes a[ia], b[ib] ((3, 4) centre poses; arrays and indices, not
    slices: a slice costs a reference count) with half sizes ha[ia], hb[ib] (3,) overlap:
    the 6 face axes, then the 9 edge axes (Gottschalk, Lin and Manocha 1996). rot, absr
    (3, 3) and t (3,) are scratch."""
    d0 = b[ib, 0, 3] - a[ia, 0, 3]
    d1 = b[ib, 1, 3] - a[ia, 1, 3]
    d2 = b[ib, 2, 3] - a[ia, 2, 3]
    for i in range(3):
        t[i] = a[ia, 0, i] * d0 + a[ia, 1, i] * d1 + a[ia, 2, i] * d2
        for j in range(3):
            rot[i, j] = a[ia, 0, i] * b[ib, 0, j] + a[ia, 1, i] * b[ib, 1, j] \
                + a[ia, 2, i] * b[ib, 2, j]
            absr[i, j] = abs(rot[i, j]) + _PARALLEL
    for i in range(3):
        if abs(t[i]) > ha[ia, i] + hb[ib, 0] * absr[i, 0] + hb[ib, 1] * absr[i, 1] \
                + hb[ib, 2] * absr[i, 2]:
            return False
    for j in range(3):
        tb = t[0] * rot[0, j] + t[1] * rot[1, j] + t[2] * rot[2, j]
        if abs(tb) > hb[ib, j] + ha[ia, 0] * absr[0, j] + ha[ia, 1] * absr[1, j] \
                + ha[ia, 2] * absr[2, j]:
            return False
    for p in range(3):
        p1, p2 = (p + 1) % 3, (p + 2) % 3
        for q in range(3):
            q1, q2 = (q + 1) % 3, (q + 2) % 3
            dist = abs(t[p2] * rot[p1, q] - t[p1] * rot[p2, q])
            limit = (ha[ia, p1] * absr[p2, q] + ha[ia, p2] * absr[p1, q]
                     + hb[ib, q1] * absr[p, q2] + hb[ib, q2] * absr[p, q1])
            if dist > limit:
                return False
    return True


@njit(cache=True)
def candidates(poses, owner, box, half, radius, link_centre, link_radius, link_pairs,
               group_first, group_count, robot_rows, pairs, world, robot_count,
               object_pose, object_half, object_radius, floor, slack, out_state, out_row):
    """Fill out_state, out_row (capacity N x P) with the entries (module docstring);
    returns how many. Shapes: poses (N, L, 4, 4); owner (S,) link of each shape; box
    (S, 4, 4) shape box in its link; half, radius (S, 3), (S,) with the slack;
    link_centre (L, 4), link_radius (L,); link_pairs (G, 2) with their rows of ``pairs``
    robot_rows[group_first[g]:group_first[g] + group_count[g]]; pairs (P, 2); world (W,)
    rows against objects; object_pose (O, 4, 4), object_half (O, 3) with the slack,
    object_radius (O,), floor (O,) bool."""
    shapes = owner.shape[0]
    links = link_centre.shape[0]
    placed = np.empty((shapes, 3, 4))
    spheres = np.empty((links, 3))
    rot, absr, t = np.empty((3, 3)), np.empty((3, 3)), np.empty(3)
    count = 0
    for n in range(poses.shape[0]):
        for s in range(shapes):
            link = owner[s]
            for r in range(3):
                for c in range(4):
                    value = poses[n, link, r, 0] * box[s, 0, c] \
                        + poses[n, link, r, 1] * box[s, 1, c] \
                        + poses[n, link, r, 2] * box[s, 2, c]
                    if c == 3:
                        value += poses[n, link, r, 3]
                    placed[s, r, c] = value
        for k in range(links):
            for r in range(3):
                spheres[k, r] = poses[n, k, r, 0] * link_centre[k, 0] \
                    + poses[n, k, r, 1] * link_centre[k, 1] \
                    + poses[n, k, r, 2] * link_centre[k, 2] + poses[n, k, r, 3]
        first = count
        for g in range(link_pairs.shape[0]):
            a, b = link_pairs[g, 0], link_pairs[g, 1]
            dx = spheres[a, 0] - spheres[b, 0]
            dy = spheres[a, 1] - spheres[b, 1]
            dz = spheres[a, 2] - spheres[b, 2]
            reach = link_radius[a] + link_radius[b]
            if dx * dx + dy * dy + dz * dz > reach * reach:
                continue
            for m in range(group_first[g], group_first[g] + group_count[g]):
                row = robot_rows[m]
                i, j = pairs[row, 0], pairs[row, 1]
                dx = placed[i, 0, 3] - placed[j, 0, 3]
                dy = placed[i, 1, 3] - placed[j, 1, 3]
                dz = placed[i, 2, 3] - placed[j, 2, 3]
                reach = radius[i] + radius[j]
                if dx * dx + dy * dy + dz * dz > reach * reach:
                    continue
                if _boxes_overlap(placed, i, half, placed, j, half, rot, absr, t):
                    out_state[count] = n
                    out_row[count] = row
                    count += 1
        for m in range(world.shape[0]):
            row = world[m]
            s, o = pairs[row, 0], pairs[row, 1] - robot_count
            if floor[o]:
                depth = abs(placed[s, 2, 0]) * half[s, 0] + abs(placed[s, 2, 1]) * half[s, 1] \
                    + abs(placed[s, 2, 2]) * half[s, 2]
                near = placed[s, 2, 3] - depth <= object_pose[o, 2, 3] + slack
            else:
                dx = placed[s, 0, 3] - object_pose[o, 0, 3]
                dy = placed[s, 1, 3] - object_pose[o, 1, 3]
                dz = placed[s, 2, 3] - object_pose[o, 2, 3]
                reach = radius[s] + object_radius[o]
                near = dx * dx + dy * dy + dz * dz <= reach * reach and \
                    _boxes_overlap(placed, s, half, object_pose, o, object_half,
                                   rot, absr, t)
            if near:
                out_state[count] = n
                out_row[count] = row
                count += 1
        out_row[first:count].sort()
    return count
