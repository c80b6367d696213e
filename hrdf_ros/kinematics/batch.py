"""Batches of configurations: the joint frames of a chunk (:class:`Sweep`, shared with
:mod:`.batch_jacobians`) and the frames of a :class:`~.frame_set.FrameSet`.

In: a FrameSet, checked joint positions q (N, dof), rad or m, and the (N, n, 4, 4)
float64 C-contiguous array to fill (see :mod:`.buffers`). Out: that array, filled with
the frames in the reference frame (conventions of :mod:`hrdf_ros.kinematics`).

Layout: the batch is cut into chunks of c configurations (about equal, so that no chunk
is nearly empty). Inside a chunk every matrix entry is one contiguous row of c values:
a joint frame is kept by columns, (4, 3, c), so a joint motion is element-wise
arithmetic on two contiguous (3, c) blocks and a constant factor F one product
``F^T @ columns``; a requested frame is kept by rows, (4, 4, c), in the order of the
result. Each joint frame is computed once, from its parent's; the frames hung on one
joint are one product from its frame (a joint frame itself is copied).
cos and sin of a joint angle come from t = tan(theta / 2) (``cos = 2 / (1 + t^2) - 1``,
``sin = t 2 / (1 + t^2)``): numpy evaluates tan in SIMD, cos and sin one value at a
time (measured: 1.3 vs 2 x 8.7 ns per value). A chunk's frames are written to the
(N, ...) result in one transposing copy, the only pass over the result's memory.

Every numpy call of a chunk is prepared once per batch as ``(function, arguments,
output)`` on views of fixed scratch arrays (the last, shorter chunk runs on the full
scratch too, with stale finite values in its tail), so the Python cost of a chunk is a
loop over that list.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from .buffers import new_array
from .frame_set import ROTATION_COLUMNS, FrameSet

#: Doubles of chunk scratch (4 MB): longer chunks pay less Python per configuration,
#: shorter ones stay in cache; measured on the 7-DoF kits (2**15 - 2**21), 2**19 - 2**20
#: are best for frames, 2**17 - 2**19 for Jacobians.
CACHE_DOUBLES = 2 ** 19
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


def chunk_length(total: int, rows: int) -> int:
    """Configurations per chunk for a batch of ``total`` with ``rows`` doubles of
    scratch per configuration: about :data:`CACHE_DOUBLES` of scratch, between
    :data:`MIN_CHUNK` and :data:`MAX_CHUNK`, and the batch cut into equal chunks."""
    c = min(MAX_CHUNK, max(MIN_CHUNK, CACHE_DOUBLES // max(rows, 1)))
    chunks = -(-total // c)
    return -(-total // chunks) if chunks else 0


def runs(mask: np.ndarray) -> List[slice]:
    """The runs of consecutive True entries of a 1-D bool mask, as slices."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.astype(np.int8), [0]))))
    return [slice(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2])]


Step = Tuple[object, tuple, np.ndarray]


def copy(src: np.ndarray, out: np.ndarray) -> None:
    """``np.copyto(out, src)`` in the argument order of the other steps."""
    np.copyto(out, src)


class Sweep:
    """Joint frames of a chunk, by columns: joint i's frame is ``columns[i]`` (4, 3, c),
    entry (k, r) the row of c values of J_i[r, k]; ``columns[i][k]`` is column k of
    the top rows (a contiguous (3, c) block), so a rotation mixes two contiguous blocks
    and a constant factor is one product ``F^T @ columns`` of (4, 4) by (4, 3 c)."""

    def __init__(self, fs: FrameSet, c: int):
        self.fs, m = fs, fs.m
        self.theta = scratch(m, c, zero=True)   # positions; stale tails stay finite
        h, t, u = scratch(m, c), scratch(m, c), scratch(m, c)
        cos, sin = scratch(m, c), scratch(m, c)
        self.columns = np.empty((m, 4, 3, c))
        flat = self.columns.reshape(m, 4, 3 * c)
        tmp = np.empty((2, 3, c))
        # revolute: half the motion angle; prismatic: the motion (m)
        factor = np.where(fs.prismatic, fs.scale, 0.5 * fs.scale)[:, None]
        self.steps: List[Step] = [
            (np.multiply, (self.theta, factor), h), (np.tan, (h,), t),
            (np.multiply, (t, t), u), (np.add, (u, 1.0), u), (np.divide, (2.0, u), u),
            (np.multiply, (t, u), sin), (np.subtract, (u, 1.0), cos)]
        for i, parent in enumerate(fs.parent):
            fixed = fs.fixed[i]
            if parent < 0:
                self.steps.append((copy, (fixed[:3].T[:, :, None],), self.columns[i]))
            elif np.array_equal(fixed, np.eye(4)):
                self.steps.append((copy, (flat[parent],), flat[i]))
            else:                                    # J_i = J_p F_i: columns F^T @ columns
                self.steps.append((np.matmul, (np.ascontiguousarray(fixed.T), flat[parent]),
                                   flat[i]))
            self.steps += self._motion(self.columns[i], fs.axes[i], h[i], cos[i], sin[i], tmp)

    @staticmethod
    def _motion(x, axis, d, cos, sin, tmp) -> List[Step]:
        """Steps that right-multiply frames x (4, 3, c) (by columns) by a joint motion,
        in place: a translation d along ``axis`` adds d times that column to column 3; a
        rotation mixes two columns, ``x_i' = cos x_i + sin x_j``, ``x_j' = cos x_j -
        sin x_i``."""
        if axis[0] == 't':
            return [(np.multiply, (x['xyz'.index(axis[1])], d), tmp[0]),
                    (np.add, (x[3], tmp[0]), x[3])]
        i, j = ROTATION_COLUMNS[axis]
        lo, hi = min(i, j), max(i, j)
        pair = x[lo:hi + 1:hi - lo]                       # columns lo and hi, a view
        a, b = (0, 1) if i == lo else (1, 0)             # i and j within the pair
        return [(np.multiply, (pair, sin), tmp), (np.multiply, (pair, cos), pair),
                (np.add, (pair[a], tmp[b]), pair[a]),
                (np.subtract, (pair[b], tmp[a]), pair[b])]

    def load(self, q: np.ndarray) -> None:
        """Take a chunk q (k, dof), k <= c, into the first k columns."""
        fs, k = self.fs, q.shape[0]
        np.copyto(self.theta[:, :k], (q if fs.all_dofs else q[:, fs.joints]).T)


def prepare(steps: List[Step]) -> List[Tuple[object, tuple]]:
    """Steps as ``(function, arguments + (output,))``: numpy takes ``out`` as the last
    positional argument, cheaper than a keyword in a loop of short calls."""
    return [(function, args + (out,)) for function, args, out in steps]


def run(steps: List[Tuple[object, tuple]]) -> None:
    """Run prepared steps in order."""
    for function, args in steps:
        function(*args)


def fill(sweep: 'Sweep', steps: List[Tuple[object, tuple]], q: np.ndarray,
         rows: np.ndarray, out: np.ndarray) -> None:
    """A batch chunk by chunk: each chunk of q (N, dof) loaded into the sweep, the
    prepared steps run, and the chunk's result, ``rows`` (R, c: R values of each of
    c configurations), written into ``out`` (N, R) by one transposing copy."""
    c = rows.shape[1]
    for start in range(0, len(q), c):
        stop = min(start + c, len(q))
        sweep.load(q[start:stop])
        run(steps)
        out[start:stop] = rows[:, :stop - start].T


def transforms(fs: FrameSet, q: np.ndarray, out: Optional[np.ndarray] = None
               ) -> np.ndarray:
    """Fill ``out`` (N, n, 4, 4; a new array when None) with the frames for
    configurations q (N, dof); returns it."""
    total, n, m = q.shape[0], fs.count, fs.m
    out = new_array((total, n, 4, 4)) if out is None else out
    if not total:
        return out
    if not m:
        out[...] = fs.offsets
        return out
    c = chunk_length(total, 16 * n + 12 * m + 20 * m + 12)
    block = scratch(n, 4, 4, c)
    block[:, 3] = np.array([0.0, 0.0, 0.0, 1.0])[:, None]
    sweep = Sweep(fs, c)
    steps = list(sweep.steps)
    identity = [bool(np.array_equal(k, np.eye(4))) for k in fs.offsets]
    f = 0
    while f < n:                   # frames on one joint, consecutive: one product
        a, stop = fs.anchor_local[f], f + 1
        while (stop < n and fs.anchor_local[stop] == a and not identity[f]
               and not identity[stop]):
            stop += 1
        rows_a = sweep.columns[a].transpose(1, 0, 2)    # (3, 4, c): J_a by rows
        if a < 0:
            block[f:stop, :3] = fs.offsets[f:stop, :3, :, None]
        elif identity[f]:          # the joint frame itself
            steps.append((copy, (rows_a,), block[f, :3]))
        else:                      # row r of J_a K_f is K_f^T @ (row r of J_a)
            offsets_t = np.ascontiguousarray(fs.offsets[f:stop].transpose(0, 2, 1))
            steps.append((np.matmul, (offsets_t[:, None], rows_a), block[f:stop, :3]))
        f = stop
    fill(sweep, prepare(steps), q, block.reshape(n * 16, c), out.reshape(total, n * 16))
    return out
