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

from .shape_distances import (BOX, CYLINDER, MESH, PARALLEL_SINE,  # noqa: E402,F401
                              SPHERE)


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
def point_gaps(poses, owner, box, robot_count, object_pose, rows, point, other, kind, size,
               radius, slack, out):
    """Fill the sphere rows ``rows`` of ``out`` (N, P) with their closed-form distances
    (:meth:`~.clearance.Clearance._point_gaps`: the centre in the other shape's frame)."""
    frame = np.empty((3, 4))
    for n in range(out.shape[0]):
        for f in range(len(rows)):
            e = point[f]
            if e < robot_count:
                link = owner[e]
                c0 = poses[n, link, 0, 0] * box[e, 0, 3] + poses[n, link, 0, 1] * box[e, 1, 3] \
                    + poses[n, link, 0, 2] * box[e, 2, 3] + poses[n, link, 0, 3]
                c1 = poses[n, link, 1, 0] * box[e, 0, 3] + poses[n, link, 1, 1] * box[e, 1, 3] \
                    + poses[n, link, 1, 2] * box[e, 2, 3] + poses[n, link, 1, 3]
                c2 = poses[n, link, 2, 0] * box[e, 0, 3] + poses[n, link, 2, 1] * box[e, 1, 3] \
                    + poses[n, link, 2, 2] * box[e, 2, 3] + poses[n, link, 2, 3]
            else:
                o = e - robot_count
                c0, c1, c2 = object_pose[o, 0, 3], object_pose[o, 1, 3], object_pose[o, 2, 3]
            e = other[f]
            if e < robot_count:
                link = owner[e]
                for r in range(3):
                    for k in range(4):
                        frame[r, k] = poses[n, link, r, 0] * box[e, 0, k] \
                            + poses[n, link, r, 1] * box[e, 1, k] \
                            + poses[n, link, r, 2] * box[e, 2, k] \
                            + (poses[n, link, r, 3] if k == 3 else 0.0)
            else:
                o = e - robot_count
                for r in range(3):
                    for k in range(4):
                        frame[r, k] = object_pose[o, r, k]
            d0, d1, d2 = c0 - frame[0, 3], c1 - frame[1, 3], c2 - frame[2, 3]
            x = frame[0, 0] * d0 + frame[1, 0] * d1 + frame[2, 0] * d2
            y = frame[0, 1] * d0 + frame[1, 1] * d1 + frame[2, 1] * d2
            z = frame[0, 2] * d0 + frame[1, 2] * d1 + frame[2, 2] * d2
            if kind[f] == BOX:
                ex = max(abs(x) - size[f, 0], 0.0)
                ey = max(abs(y) - size[f, 1], 0.0)
                ez = max(abs(z) - size[f, 2], 0.0)
                gap = math.sqrt(ex * ex + ey * ey + ez * ez)
            elif kind[f] == CYLINDER:
                radial = max(math.sqrt(x * x + y * y) - size[f, 0], 0.0)
                axial = max(abs(z) - size[f, 1], 0.0)
                gap = math.sqrt(radial * radial + axial * axial)
            else:
                gap = max(math.sqrt(x * x + y * y + z * z) - size[f, 0], 0.0)
            out[n, rows[f]] = gap - radius[f] - slack


@njit(cache=True)
def _segment_length(r, u1, u2, s, t):
    x0 = r[0] + s * u1[0] - t * u2[0]
    x1 = r[1] + s * u1[1] - t * u2[1]
    x2 = r[2] + s * u1[2] - t * u2[2]
    return math.sqrt(x0 * x0 + x1 * x1 + x2 * x2)


@njit(cache=True)
def capsule_gap(a, ha, b, hb, parallel_sine, slack):
    """:func:`~.clearance.capsule_gaps` of two cylinders, frames ``a``, ``b`` (3, 4) (axes
    z), half sizes ``ha``, ``hb`` (3,) (radius, radius, half length)."""
    u1 = np.empty(3)
    u2 = np.empty(3)
    r = np.empty(3)
    for k in range(3):
        u1[k], u2[k], r[k] = a[k, 2], b[k, 2], a[k, 3] - b[k, 3]
    h1, h2 = ha[2], hb[2]
    dot = u1[0] * u2[0] + u1[1] * u2[1] + u1[2] * u2[2]
    d = u1[0] * r[0] + u1[1] * r[1] + u1[2] * r[2]
    e = u2[0] * r[0] + u2[1] * r[1] + u2[2] * r[2]
    n0 = u1[1] * u2[2] - u1[2] * u2[1]
    n1 = u1[2] * u2[0] - u1[0] * u2[2]
    n2 = u1[0] * u2[1] - u1[1] * u2[0]
    sine = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
    if sine < parallel_sine:
        return -np.inf
    best = np.inf
    for sign in (-1.0, 1.0):
        s = sign * h1
        best = min(best, _segment_length(r, u1, u2, s, min(max(dot * s + e, -h2), h2)))
        t = sign * h2
        best = min(best, _segment_length(r, u1, u2, min(max(dot * t - d, -h1), h1), t))
    square = sine * sine
    s_line, t_line = (dot * e - d) / square, (e - dot * d) / square
    if abs(s_line) <= h1 + 1e-6 and abs(t_line) <= h2 + 1e-6:
        best = min(best, abs(r[0] * n0 + r[1] * n1 + r[2] * n2) / sine)
    return best - ha[0] - hb[0] - slack


@njit(cache=True)
def box_gap(poses, n, p, owner, box, half, pairs, robot_count, object_pose, object_half,
            capsule, slack):
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
    gap -= slack
    if capsule[p]:
        gap = max(gap, capsule_gap(a, half[i], b, hb, PARALLEL_SINE, slack))
    return gap


@njit(cache=True)
def boxes(poses, states, rows, owner, box, half, pairs, robot_count, object_pose,
          object_half, capsule, slack, out):
    """Fill ``out`` (E,) with :func:`box_gap` of each (state, row) entry."""
    for e in range(len(rows)):
        out[e] = box_gap(poses, states[e], rows[e], owner, box, half, pairs, robot_count,
                         object_pose, object_half, capsule, slack)
