"""Distances between collision shapes computed without hpp-fcl, for the tests of
``hrdf_ros.motion.clearance`` and ``hrdf_ros.motion.certified``.

* :func:`sampled_distance`: the smallest distance between points sampled on the two
  shapes' surfaces, 3 mm apart, then 0.05 mm apart around the closest pair found. Every
  sampled point is on its shape, so this is never below the true distance (and within
  about the fine spacing of it): a lower bound above it is wrong.
* :func:`box_box_distance`: the exact distance between two boxes, from their features:
  0 when an edge of one meets the other or one holds a corner of the other, else the
  least of every corner's distance to the other box and every edge pair's distance (for
  convex polyhedra apart, the closest points lie on a vertex-face or an edge-edge pair).

Shapes are ``(kind, size, pose)``: ``box`` (half sizes), ``cylinder`` (radius, half
length; axis z), ``sphere`` (radius,), ``mesh`` ((T, 3, 3) triangles in the pose's
frame), ``floor`` (none; the half-space below the pose's z); poses (4, 4), m.
"""
import itertools
import math

import numpy as np
from scipy.spatial import cKDTree

COARSE, FINE = 3e-3, 5e-5


def _patches(kind, size):
    """[(function (U, 2) in [0, 1]^2 -> (U, 3) points in the shape frame, extent m)]."""
    out = []
    if kind == 'box':
        half = np.asarray(size, dtype=float)
        for axis in range(3):
            i, j = (axis + 1) % 3, (axis + 2) % 3
            for sign in (-1.0, 1.0):
                def face(uv, axis=axis, i=i, j=j, sign=sign):
                    p = np.empty((len(uv), 3))
                    p[:, axis] = sign * half[axis]
                    p[:, i] = (2 * uv[:, 0] - 1) * half[i]
                    p[:, j] = (2 * uv[:, 1] - 1) * half[j]
                    return p
                out.append((face, 2 * max(half[i], half[j])))
    elif kind == 'cylinder':
        radius, half = size

        def side(uv):
            angle = 2 * math.pi * uv[:, 0]
            return np.stack([radius * np.cos(angle), radius * np.sin(angle),
                             (2 * uv[:, 1] - 1) * half], axis=1)
        out.append((side, max(2 * math.pi * radius, 2 * half)))
        for sign in (-1.0, 1.0):
            def cap(uv, sign=sign):
                # a square grid over the disk, its points outside pulled onto the rim
                xy = (2 * uv - 1) * radius
                r = np.linalg.norm(xy, axis=1)
                xy = xy * np.minimum(1.0, radius / np.maximum(r, 1e-300))[:, None]
                return np.concatenate([xy, np.full((len(uv), 1), sign * half)], axis=1)
            out.append((cap, 2 * radius))
    elif kind == 'sphere':
        radius = size[0]

        def ball(uv):
            theta, phi = math.pi * uv[:, 0], 2 * math.pi * uv[:, 1]
            return radius * np.stack([np.sin(theta) * np.cos(phi),
                                      np.sin(theta) * np.sin(phi), np.cos(theta)], axis=1)
        out.append((ball, 2 * math.pi * radius))
    elif kind == 'mesh':
        for a, b, c in np.asarray(size, dtype=float):
            def triangle(uv, a=a, b=b, c=c):
                u, v = uv[:, 0].copy(), uv[:, 1].copy()
                folded = u + v > 1
                u[folded], v[folded] = 1 - u[folded], 1 - v[folded]
                return a + u[:, None] * (b - a) + v[:, None] * (c - a)
            out.append((triangle, max(np.linalg.norm(b - a), np.linalg.norm(c - a))))
    else:
        raise ValueError(kind)
    return out


def _grid(low, high, count):
    axes = [np.linspace(lo, hi, count) for lo, hi in zip(low, high)]
    return np.stack(np.meshgrid(*axes, indexing='ij'), axis=-1).reshape(-1, 2)


def _placed(points, pose):
    return points @ pose[:3, :3].T + pose[:3, 3]


def _sample(shape, spacing, window=None):
    """(points (N, 3) in the world, (N,) patch index, (N, 2) parameters)."""
    kind, size, pose = shape
    points, owners, params = [], [], []
    for k, (function, extent) in enumerate(_patches(kind, size)):
        if window is not None and window[0] != k:
            continue
        count = max(2, int(math.ceil(extent / spacing)) + 1)
        if window is None:
            uv = _grid((0, 0), (1, 1), count)
        else:
            centre, width = window[1], window[2]
            low, high = np.clip(centre - width, 0, 1), np.clip(centre + width, 0, 1)
            uv = _grid(low, high, max(2, int(math.ceil(count * (high - low).max())) + 1))
        local, keep = np.unique(function(uv), axis=0, return_index=True)   # no repeats
        points.append(_placed(local, pose))
        owners.append(np.full(len(keep), k))
        params.append(uv[keep])
    return np.concatenate(points), np.concatenate(owners), np.concatenate(params)


def sampled_distance(a, b) -> float:
    """m, the least distance between surface samples of shapes a and b (module
    docstring); against a floor, the lowest sample's height above it."""
    if b[0] == 'floor':
        points, owner, uv = _sample(a, COARSE)
        k = int(np.argmin(points[:, 2]))
        fine = _sample(a, FINE, (owner[k], uv[k], 2 * COARSE / _extent(a, owner[k])))[0]
        return float(min(points[:, 2].min(), fine[:, 2].min()) - b[2][2, 3])
    pa, oa, ua = _sample(a, COARSE)
    pb, ob, ub = _sample(b, COARSE)
    distance, index = cKDTree(pb).query(pa)
    i = int(np.argmin(distance))
    j = int(index[i])
    best = float(distance[i])
    fa = _sample(a, FINE, (oa[i], ua[i], 2 * COARSE / _extent(a, oa[i])))[0]
    fb = _sample(b, FINE, (ob[j], ub[j], 2 * COARSE / _extent(b, ob[j])))[0]
    # alternate: the fine B point nearest the A point, the fine A point nearest that, ...
    # (alternating projections between the two patches, down to the closest sampled pair)
    point = pa[i]
    for _ in range(50):
        near_b = fb[int(np.argmin(((fb - point) ** 2).sum(axis=1)))]
        near_a = fa[int(np.argmin(((fa - near_b) ** 2).sum(axis=1)))]
        if np.array_equal(near_a, point):
            break
        point = near_a
        best = min(best, float(np.linalg.norm(near_a - near_b)))
    return best


def _extent(shape, patch):
    return _patches(shape[0], shape[1])[patch][1]


def _corners(pose, half):
    signs = np.array(list(itertools.product((-1, 1), repeat=3)), dtype=float)
    return _placed(signs * half, pose)


def _edges(pose, half):
    corners = _corners(pose, half)
    signs = np.array(list(itertools.product((-1, 1), repeat=3)))
    return [(corners[i], corners[j]) for i in range(8) for j in range(i + 1, 8)
            if np.abs(signs[i] - signs[j]).sum() == 2]


def _point_box(point, pose, half):
    local = pose[:3, :3].T @ (point - pose[:3, 3])
    return float(np.linalg.norm(local - np.clip(local, -half, half)))


def _segment_hits_box(p, q, pose, half):
    """Whether segment p-q meets the box (slab clipping in the box frame)."""
    a = pose[:3, :3].T @ (p - pose[:3, 3])
    d = pose[:3, :3].T @ (q - p)
    low, high = 0.0, 1.0
    for k in range(3):
        if abs(d[k]) < 1e-15:
            if abs(a[k]) > half[k]:
                return False
            continue
        t1, t2 = (-half[k] - a[k]) / d[k], (half[k] - a[k]) / d[k]
        low, high = max(low, min(t1, t2)), min(high, max(t1, t2))
        if low > high:
            return False
    return True


def _segment_segment(p1, q1, p2, q2):
    """The distance between two segments (Ericson, Real-Time Collision Detection 5.1.9)."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a, e, f = d1 @ d1, d2 @ d2, d2 @ r
    c, b = d1 @ r, d1 @ d2
    denominator = a * e - b * b
    s = np.clip((b * f - c * e) / denominator, 0, 1) if denominator > 1e-18 else 0.0
    t = (b * s + f) / e
    if t < 0:
        t, s = 0.0, np.clip(-c / a, 0, 1)
    elif t > 1:
        t, s = 1.0, np.clip((b - c) / a, 0, 1)
    return float(np.linalg.norm(p1 + d1 * s - (p2 + d2 * t)))


def box_box_distance(pose_a, half_a, pose_b, half_b) -> float:
    """m, the exact distance between two boxes (module docstring)."""
    for (pa, ha), (pb, hb) in (((pose_a, half_a), (pose_b, half_b)),
                               ((pose_b, half_b), (pose_a, half_a))):
        if any(_segment_hits_box(p, q, pb, hb) for p, q in _edges(pa, ha)):
            return 0.0
    best = min(min(_point_box(c, pose_b, half_b) for c in _corners(pose_a, half_a)),
               min(_point_box(c, pose_a, half_a) for c in _corners(pose_b, half_b)))
    for p1, q1 in _edges(pose_a, half_a):
        for p2, q2 in _edges(pose_b, half_b):
            best = min(best, _segment_segment(p1, q1, p2, q2))
    return best
