"""Batches of configurations: the frames and Jacobians of a :class:`~.frame_set.FrameSet`.

In: a FrameSet and checked joint positions q (N, dof), rad or m. Out: (N, n, 4, 4)
frames or (N, n, 6, dof) Jacobians in the reference frame (conventions of
:mod:`hrdf_ros.kinematics`).

Layout: inside a chunk of c configurations, every matrix entry of a frame is one
contiguous row of c values (a frame's top rows are a (3, 4, c) array), so a joint
motion is element-wise arithmetic on whole rows (two columns mixed by cos and sin, or
one column added to the translation) and a constant factor F is one small product
``F^T @ x`` per row. Each joint frame is computed once, from its parent's; every
requested frame is one product from its joint's frame. A chunk's results are then
written to the (N, ...) output in one transposing copy, whose cost is that of writing
the output at all (measured: within 1.5x of filling a fresh array of that size).
"""
from __future__ import annotations

from typing import List

import numpy as np

from .frame_set import ROTATION_COLUMNS, FrameSet

#: Doubles of chunk scratch (8 MB): longer chunks pay less Python per configuration,
#: shorter ones stay in cache; measured on the 7-DoF kits, 2**19 - 2**21 are best.
CACHE_DOUBLES = 2 ** 20
#: Bounds of the chunk length (configurations): short chunks pay Python per call.
MIN_CHUNK, MAX_CHUNK = 256, 8192
#: Rows of scratch are this many doubles longer than the chunk: with a power-of-two row
#: length every row would fall into the same cache sets, and the transposing write
#: (which reads one value from every row in turn) would run 3-4x slower.
ROW_PAD = 8


def scratch(*shape: int, zero: bool = False) -> np.ndarray:
    """Scratch of ``shape`` (last axis: the chunk) with padded rows (:data:`ROW_PAD`)."""
    full = (np.zeros if zero else np.empty)(shape[:-1] + (shape[-1] + ROW_PAD,))
    return full[..., :shape[-1]]


def chunk_length(rows: int) -> int:
    """Configurations per chunk for ``rows`` doubles of scratch per configuration: a
    power of two between :data:`MIN_CHUNK` and :data:`MAX_CHUNK`."""
    c = MAX_CHUNK
    while c > MIN_CHUNK and c * rows > CACHE_DOUBLES:
        c //= 2
    return c


def apply_motion(x: np.ndarray, axis: str, theta: np.ndarray, cos: np.ndarray,
                 sin: np.ndarray, tmp1: np.ndarray, tmp2: np.ndarray) -> None:
    """Right-multiply frames in row layout by a joint motion, in place.

    Args:
        x: (3, 4, c) top rows of c frames, entry (r, k) one contiguous row.
        axis: ``rx ry rz tx ty tz``.
        theta, cos, sin: (c,) motion values (rad or m) and their cosine and sine.
        tmp1, tmp2: (3, c) scratch.
    """
    if axis[0] == 't':
        np.multiply(x[:, 'xyz'.index(axis[1])], theta, out=tmp1)
        x[:, 3] += tmp1
        return
    i, j = ROTATION_COLUMNS[axis]
    xi, xj = x[:, i], x[:, j]
    np.multiply(xi, sin, out=tmp1)
    np.multiply(xj, sin, out=tmp2)
    xi *= cos
    xi += tmp2                                  # c x_i + s x_j
    xj *= cos
    xj -= tmp1                                  # c x_j - s x_i


class _Sweep:
    """Joint frames of a chunk: scratch for every joint, and the sweep that fills it."""

    def __init__(self, fs: FrameSet, c: int, joint_rows: List[np.ndarray]):
        self.fs = fs
        self.theta = scratch(fs.m, c)
        self.cos, self.sin = scratch(fs.m, c), scratch(fs.m, c)
        self.tmp1, self.tmp2 = scratch(3, c), scratch(3, c)
        self.rows = joint_rows                           # per joint, (3, 4, c)
        self.fixed_t = [np.ascontiguousarray(f.T) for f in fs.fixed]
        self.identity = [np.array_equal(f, np.eye(4)) for f in fs.fixed]

    def run(self, q: np.ndarray) -> List[np.ndarray]:
        """Joint frames (3, 4, n) for a chunk q (n, dof), n <= c; returns views."""
        fs, n = self.fs, q.shape[0]
        theta, cos, sin = self.theta[:, :n], self.cos[:, :n], self.sin[:, :n]
        np.copyto(theta, (q if fs.all_dofs else q[:, fs.joints]).T)
        if not fs.unit_scale:
            theta *= fs.scale[:, None]
        np.cos(theta, out=cos)
        np.sin(theta, out=sin)
        rows = [r[..., :n] for r in self.rows]
        tmp1, tmp2 = self.tmp1[:, :n], self.tmp2[:, :n]
        for i, parent in enumerate(fs.parent):
            x = rows[i]
            if parent < 0:
                x[...] = fs.fixed[i][:3, :, None]
            elif self.identity[i]:
                x[...] = rows[parent]
            else:
                np.matmul(self.fixed_t[i], rows[parent], out=x)
            apply_motion(x, fs.axes[i], theta[i], cos[i], sin[i], tmp1, tmp2)
        return rows


def transforms(fs: FrameSet, q: np.ndarray) -> np.ndarray:
    """(N, n, 4, 4) frames for configurations q (N, dof)."""
    total, n, m = q.shape[0], fs.count, fs.m
    out = np.empty((total, n, 4, 4))
    if not total:
        return out
    if not m:
        out[...] = fs.offsets
        return out
    c = min(chunk_length(16 * n + 12 * m + 12), total)
    block = scratch(n, 4, 4, c)
    block[:, 3] = np.array([0.0, 0.0, 0.0, 1.0])[:, None]
    # A joint frame that is itself a requested frame (K = I) is computed in place.
    direct = {}
    for f, (a, k) in enumerate(zip(fs.anchor_local, fs.offsets)):
        if a >= 0 and a not in direct and np.array_equal(k, np.eye(4)):
            direct[a] = f
    joint_rows = [block[direct[i], :3] if i in direct else scratch(3, 4, c)
                  for i in range(m)]
    sweep = _Sweep(fs, c, joint_rows)
    offsets_t = [np.ascontiguousarray(k.T) for k in fs.offsets]
    for f, a in enumerate(fs.anchor_local):
        if a < 0:
            block[f, :3] = fs.offsets[f][:3, :, None]
    flat = block.reshape(n * 16, c)
    for start in range(0, total, c):
        stop = min(start + c, total)
        rows = sweep.run(q[start:stop])
        for f, a in enumerate(fs.anchor_local):
            if a >= 0 and direct.get(a) != f:
                np.matmul(offsets_t[f], rows[a], out=block[f, :3, :, :stop - start])
        out[start:stop].reshape(stop - start, n * 16)[...] = flat[:, :stop - start].T
    return out


def jacobians(fs: FrameSet, q: np.ndarray) -> np.ndarray:
    """(N, n, 6, dof) geometric Jacobians for configurations q (N, dof)."""
    total, n, m, dof = q.shape[0], fs.count, fs.m, fs.dof_count
    if not (total and m):
        return np.zeros((total, n, 6, dof))
    c = min(chunk_length(6 * n * m + 6 * n + 12 * m + 12), total)
    block = scratch(n, 6, m, c, zero=True)       # entries of unmoved pairs stay zero
    points = scratch(3, n, c)
    lever, tmp = scratch(3, n, c), scratch(n, c)
    sweep = _Sweep(fs, c, [scratch(3, 4, c) for _ in range(m)])
    origins = [k[:, 3].copy() for k in fs.offsets]
    moved = [np.flatnonzero(fs.moved[:, i]) for i in range(m)]
    # frames moved by joint i as a slice when contiguous (depth-first frame order)
    moved = [slice(f[0], f[-1] + 1) if len(f) and f[-1] - f[0] + 1 == len(f) else f
             for f in moved]
    scaled = scratch(3, c)
    out = (np.empty if fs.all_dofs else np.zeros)((total, n, 6, dof))
    for start in range(0, total, c):
        stop = min(start + c, total)
        k = stop - start
        rows = sweep.run(q[start:stop])
        p = points[..., :k]
        for f, a in enumerate(fs.anchor_local):
            if a >= 0:
                np.matmul(origins[f], rows[a], out=p[:, f])
        for i, frames in enumerate(moved):
            x, b = rows[i], block[..., :k]
            z = x[:, fs.axis_columns[i]]
            if fs.scale[i] != 1.0:
                z = np.multiply(z, fs.scale[i], out=scaled[:, :k])
            if fs.prismatic[i]:
                b[frames, :3, i] = z
                continue
            d = np.subtract(p[:, frames], x[:, 3][:, None], out=lever[:, :n, :k][:, frames])
            t = tmp[frames, :k] if isinstance(frames, slice) else tmp[:len(frames), :k]
            for r, (u, v) in enumerate(((1, 2), (2, 0), (0, 1))):
                lin = b[frames, r, i]
                np.multiply(d[v], z[u], out=lin)
                np.multiply(d[u], z[v], out=t)
                lin -= t
                if not isinstance(frames, slice):
                    b[frames, r, i] = lin
            b[frames, 3:, i] = z
        if fs.all_dofs:
            out[start:stop].reshape(k, n * 6 * m)[...] = block.reshape(-1, c)[:, :k].T
        else:
            out[start:stop][..., fs.joints] = block[..., :k].transpose(3, 0, 1, 2)
    return out
