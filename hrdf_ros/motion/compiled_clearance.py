"""The cheap and the boxes' bounds of :mod:`.clearance` as compiled kernels (numba; the
optional extra ``hrdf_ros[fast]``), used when the planner's kinematics take the compiled
path.

In: the links' poses (N, L, 4, 4) (root link frame, m) and the clearance's constant
arrays. Out: the same lower bounds as the numpy code of :class:`~.clearance.Clearance`
(the spheres' gaps, the floors' lowest points, the separating axes' largest gap), by the
same formulas in explicit loops: numpy pays ~20 calls a batch whatever its size, these
~20 ns a row.

Compiled on first use and cached on disk as :mod:`hrdf_ros.kinematics.compiled`'s
kernels are. Imported only by :class:`~.clearance.Clearance` on the compiled path.
"""
from __future__ import annotations

import math

import numpy as np

from ..kinematics import compiled as _kernels  # noqa: F401 - sets NUMBA_CACHE_DIR first

from numba import njit  # noqa: E402

#: Floor rows' shape kinds (:attr:`~.clearance.Clearance` codes).
BOX, CYLINDER, SPHERE, MESH = 0, 1, 2, 3


@njit(cache=True)
def cheap(poses, owner, centre, radius, pairs, robot_count, object_centre, object_radius,
          floor_rows, floor_kind, floor_shape_size, floor_box, vertices, vertex_first,
          vertex_count, floor_height, slack, out):
    """Fill ``out`` (N, P) with the cheap bounds (module docstring; floor rows exact)."""
    n_states, n_rows = out.shape
    n_shapes = len(owner)
    c = np.empty((n_shapes, 3))
    for n in range(n_states):
        for s in range(n_shapes):
            link = owner[s]
            for i in range(3):
                c[s, i] = poses[n, link, i, 0] * centre[s, 0] + poses[n, link, i, 1] \
                    * centre[s, 1] + poses[n, link, i, 2] * centre[s, 2] + poses[n, link, i, 3]
        for p in range(n_rows):
            i, j = pairs[p, 0], pairs[p, 1]
            if j < robot_count:
                d0, d1, d2 = c[i, 0] - c[j, 0], c[i, 1] - c[j, 1], c[i, 2] - c[j, 2]
                out[n, p] = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2) - (radius[i] + radius[j])
            else:
                o = j - robot_count
                d0 = c[i, 0] - object_centre[o, 0]
                d1 = c[i, 1] - object_centre[o, 1]
                d2 = c[i, 2] - object_centre[o, 2]
                out[n, p] = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2) \
                    - (radius[i] + object_radius[o])
        for f in range(len(floor_rows)):
            p = floor_rows[f]
            s = pairs[p, 0]
            link = owner[s]
            kind = floor_kind[f]
            if kind == MESH:
                low = np.inf
                for v in range(vertex_first[f], vertex_first[f] + vertex_count[f]):
                    z = poses[n, link, 2, 0] * vertices[v, 0] + poses[n, link, 2, 1] \
                        * vertices[v, 1] + poses[n, link, 2, 2] * vertices[v, 2] \
                        + poses[n, link, 2, 3]
                    low = min(low, z)
            else:
                # row 2 of the shape's rotation in the world: link rotation times its own
                r0 = poses[n, link, 2, 0] * floor_box[f, 0, 0] + poses[n, link, 2, 1] \
                    * floor_box[f, 1, 0] + poses[n, link, 2, 2] * floor_box[f, 2, 0]
                r1 = poses[n, link, 2, 0] * floor_box[f, 0, 1] + poses[n, link, 2, 1] \
                    * floor_box[f, 1, 1] + poses[n, link, 2, 2] * floor_box[f, 2, 1]
                r2 = poses[n, link, 2, 0] * floor_box[f, 0, 2] + poses[n, link, 2, 1] \
                    * floor_box[f, 1, 2] + poses[n, link, 2, 2] * floor_box[f, 2, 2]
                z = c[s, 2]
                if kind == BOX:
                    low = z - (abs(r0) * floor_shape_size[f, 0] + abs(r1)
                               * floor_shape_size[f, 1] + abs(r2) * floor_shape_size[f, 2])
                elif kind == CYLINDER:
                    axis = abs(r2)
                    low = z - axis * floor_shape_size[f, 1] - floor_shape_size[f, 0] \
                        * math.sqrt(max(0.0, 1.0 - axis * axis))
                else:
                    low = z - radius[s]
            out[n, p] = low - floor_height[f] - slack


@njit(cache=True)
def box_gap(poses, n, p, owner, box, half, pairs, robot_count, object_pose, object_half,
            slack):
    """The largest separating-axis gap, less ``slack``, between the two boxes of row p at
    state n (module docstring; <= 0 where no axis separates them)."""
    a = np.empty((3, 4))
    b = np.empty((3, 4))
    rot = np.empty((3, 3))
    absr = np.empty((3, 3))
    t = np.empty(3)
    hb = np.empty(3)
    i, j = pairs[p, 0], pairs[p, 1]
    link = owner[i]
    for r in range(3):
        for k in range(4):
            a[r, k] = poses[n, link, r, 0] * box[i, 0, k] + poses[n, link, r, 1] \
                * box[i, 1, k] + poses[n, link, r, 2] * box[i, 2, k] \
                + (poses[n, link, r, 3] if k == 3 else 0.0)
    if j < robot_count:
        link = owner[j]
        for r in range(3):
            for k in range(4):
                b[r, k] = poses[n, link, r, 0] * box[j, 0, k] + poses[n, link, r, 1] \
                    * box[j, 1, k] + poses[n, link, r, 2] * box[j, 2, k] \
                    + (poses[n, link, r, 3] if k == 3 else 0.0)
        for k in range(3):
            hb[k] = half[j, k]
    else:
        o = j - robot_count
        for r in range(3):
            for k in range(4):
                b[r, k] = object_pose[o, r, k]
        for k in range(3):
            hb[k] = object_half[o, k]
    d0, d1, d2 = b[0, 3] - a[0, 3], b[1, 3] - a[1, 3], b[2, 3] - a[2, 3]
    for r in range(3):
        t[r] = a[0, r] * d0 + a[1, r] * d1 + a[2, r] * d2
        for k in range(3):
            rot[r, k] = a[0, r] * b[0, k] + a[1, r] * b[1, k] + a[2, r] * b[2, k]
            absr[r, k] = abs(rot[r, k])
    gap = -np.inf
    for r in range(3):
        g = abs(t[r]) - half[i, r] - (absr[r, 0] * hb[0] + absr[r, 1] * hb[1]
                                       + absr[r, 2] * hb[2])
        gap = max(gap, g)
    for k in range(3):
        tb = rot[0, k] * t[0] + rot[1, k] * t[1] + rot[2, k] * t[2]
        g = abs(tb) - hb[k] - (absr[0, k] * half[i, 0] + absr[1, k] * half[i, 1]
                               + absr[2, k] * half[i, 2])
        gap = max(gap, g)
    for r in range(3):
        r1, r2 = (r + 1) % 3, (r + 2) % 3
        for k in range(3):
            k1, k2 = (k + 1) % 3, (k + 2) % 3
            length = math.sqrt(max(0.0, 1.0 - rot[r, k] * rot[r, k]))
            if length > 1e-6:
                projected = abs(t[r2] * rot[r1, k] - t[r1] * rot[r2, k])
                reach = half[i, r1] * absr[r2, k] + half[i, r2] * absr[r1, k] \
                    + hb[k1] * absr[r, k2] + hb[k2] * absr[r, k1]
                gap = max(gap, (projected - reach) / length)
    return gap - slack


@njit(cache=True)
def boxes(poses, states, rows, owner, box, half, pairs, robot_count, object_pose,
          object_half, slack, out):
    """Fill ``out`` (E,) with :func:`box_gap` of each (state, row) entry."""
    for e in range(len(rows)):
        out[e] = box_gap(poses, states[e], rows[e], owner, box, half, pairs, robot_count,
                         object_pose, object_half, slack)
