"""Compiled kinematics kernels (numba; the optional extra ``hrdf_ros[fast]``).

In: a :class:`~.frame_set.FrameSet`'s constant structure as plain arrays
(:class:`KernelData`, built once per frame set), checked joint positions q (dof,) or
(N, dof) (rad, or m for prismatic joints) and the float64 C-contiguous result to fill:
frames (…, n, 4, 4) or geometric Jacobians (…, n, 6, dof), in the reference frame, with
the conventions of :mod:`hrdf_ros.kinematics` (the numpy path's results to 1e-12).
Out: that array, each element written once, in its final layout.

Per configuration the kernels chain the joint frames parent first, as the numpy path
does: ``J_i = J_parent F_i M_i(theta)`` with ``theta = q[dof_i] * motion_scale_i``; a
rotation mixes two columns of the top 3 rows (``col_i' = cos col_i + sin col_j``,
``col_j' = cos col_j - sin col_i``; :data:`~.frame_set.ROTATION_COLUMNS`), a translation
adds theta times its axis column to the origin. A frame is ``J_anchor K``; Jacobian
column k of frame f is ``[z_k x (p_f - o_k); z_k]`` (``[z_k; 0]`` for a translation) with
``z_k`` the joint's axis column times its motion scale, zero where joint k does not move
frame f. Explicit loops only: numba's linear algebra would need scipy.

The joint frames of one configuration live in a scratch (m, 3, 4) the caller owns (one
per thread, :class:`Scratch`), so a call allocates nothing but its result. Batches run
on one thread unless ``threads`` > 1: then the batch is cut into ``threads`` equal
blocks run by numba's ``prange``, each with its own scratch.

Kernels are compiled on first use and cached on disk (``NUMBA_CACHE_DIR`` when set, else
``<hrdf_ros cache>/numba``, :mod:`hrdf_ros.cache_dir`). Imported only through
:func:`.backend.kernels`.
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass

import numpy as np

from ..cache_dir import cache_dir

os.environ.setdefault('NUMBA_CACHE_DIR', os.path.join(cache_dir(), 'numba'))

import numba  # noqa: E402 - after NUMBA_CACHE_DIR, which numba reads when imported
from numba import njit, prange  # noqa: E402

from .frame_set import ROTATION_COLUMNS, FrameSet  # noqa: E402

#: Columns of :attr:`KernelData.joints`.
DOF, PARENT, PRISMATIC, COLUMN_A, COLUMN_B, AXIS = range(6)
#: Columns of :attr:`KernelData.frames`, and the kinds of offset K (the frames that hang
#: on a joint with no offset, an output on its actuator, are copies of its frame; a
#: translation needs a quarter of a general product).
ANCHOR, KIND = range(2)
IDENTITY, TRANSLATION, GENERAL = range(3)


@dataclass(frozen=True)
class KernelData:
    """A frame set's constant structure for the kernels (all C-contiguous).

    Attributes:
        joints: (m, 6) int64 per computed joint, parents first: dof index, parent (local
            index, -1 for the root), 1 for a translation, the columns a rotation mixes
            (or the translation's axis column twice), the axis column.
        fixed: (m, 4, 4) the constant transform F_i before each joint's motion.
        scale: (m,) motion scale (axis sign / gear ratio).
        frames: (n, 2) int64 per frame: the local joint it hangs on (-1 for none) and
            the kind of its offset (:data:`IDENTITY`, :data:`TRANSLATION`,
            :data:`GENERAL`).
        offsets: (n, 4, 4) constant transform K_f from the anchor's frame, m.
        column_joint: (n, dof) int64, the local joint of Jacobian column d of frame f,
            -1 where that column is zero.
    """

    joints: np.ndarray
    fixed: np.ndarray
    scale: np.ndarray
    frames: np.ndarray
    offsets: np.ndarray
    column_joint: np.ndarray

    @classmethod
    def of(cls, fs: FrameSet) -> 'KernelData':
        """The kernel arrays of ``fs``."""
        m = fs.m
        joints = np.zeros((m, 6), dtype=np.int64)
        for i, axis in enumerate(fs.axes):
            column = 'xyz'.index(axis[1])
            a, b = ROTATION_COLUMNS[axis] if axis[0] == 'r' else (column, column)
            joints[i] = (fs.joints[i], fs.parent[i], axis[0] == 't', a, b, column)
        column_joint = np.full((fs.count, fs.dof_count), -1, dtype=np.int64)
        for f in range(fs.count):
            for k in range(m):
                if fs.moved[f, k]:
                    column_joint[f, fs.joints[k]] = k
        frames = np.zeros((fs.count, 2), dtype=np.int64)
        for f, (anchor, offset) in enumerate(zip(fs.anchor_local, fs.offsets)):
            kind = GENERAL
            if np.array_equal(offset[:3, :3], np.eye(3)):
                kind = IDENTITY if not offset[:3, 3].any() else TRANSLATION
            frames[f] = (anchor, kind)
        return cls(joints, np.ascontiguousarray(fs.fixed, dtype=float),
                   np.ascontiguousarray(fs.scale, dtype=float), frames,
                   np.ascontiguousarray(fs.offsets, dtype=float), column_joint)


class Scratch(threading.local):
    """Joint-frame scratch of the calling thread, (rows, 3, 4), grown on demand (a
    kernel uses the first m rows), and per thread count (blocks, m, 3, 4)."""

    rows = np.zeros((0, 3, 4))

    def get(self, m: int) -> np.ndarray:
        if len(self.rows) < m:
            self.rows = np.zeros((max(m, 2 * len(self.rows)), 3, 4))
        return self.rows

    def blocks(self, m: int, blocks: int) -> np.ndarray:
        arrays = self.__dict__.setdefault('arrays', {})
        array = arrays.get((m, blocks))
        if array is None:
            array = arrays[(m, blocks)] = np.zeros((blocks, m, 3, 4))
        return array


@njit(cache=True, inline='always')
def _joint_frames(q, n, joints, fixed, scale, frames):
    """Joint frames (top 3 rows) of configuration q[n] into frames (m, 3, 4). Arrays are
    indexed in full, never sliced: a slice in a loop costs a reference count each."""
    for i in range(joints.shape[0]):
        theta = q[n, joints[i, DOF]] * scale[i]
        parent = joints[i, PARENT]
        if parent < 0:
            for r in range(3):
                for c in range(4):
                    frames[i, r, c] = fixed[i, r, c]
        else:
            for r in range(3):
                p0, p1, p2 = frames[parent, r, 0], frames[parent, r, 1], frames[parent, r, 2]
                for c in range(3):
                    frames[i, r, c] = p0 * fixed[i, 0, c] + p1 * fixed[i, 1, c] \
                        + p2 * fixed[i, 2, c]
                frames[i, r, 3] = p0 * fixed[i, 0, 3] + p1 * fixed[i, 1, 3] \
                    + p2 * fixed[i, 2, 3] + frames[parent, r, 3]
        a, b = joints[i, COLUMN_A], joints[i, COLUMN_B]
        if joints[i, PRISMATIC]:
            for r in range(3):
                frames[i, r, 3] += theta * frames[i, r, a]
        else:
            cos, sin = np.cos(theta), np.sin(theta)
            for r in range(3):
                x, y = frames[i, r, a], frames[i, r, b]
                frames[i, r, a] = cos * x + sin * y
                frames[i, r, b] = cos * y - sin * x


@njit(cache=True, inline='always')
def _frames(joint_frames, frames, offsets, out, n):
    """Frames J_anchor K (n_frames, 4, 4) into out[n] from the joint frames (m, 3, 4)."""
    for f in range(frames.shape[0]):
        a, kind = frames[f, ANCHOR], frames[f, KIND]
        if a < 0:
            for r in range(4):
                for c in range(4):
                    out[n, f, r, c] = offsets[f, r, c]
            continue
        for r in range(3):
            j0, j1, j2 = joint_frames[a, r, 0], joint_frames[a, r, 1], joint_frames[a, r, 2]
            if kind == IDENTITY:
                out[n, f, r, 0] = j0
                out[n, f, r, 1] = j1
                out[n, f, r, 2] = j2
                out[n, f, r, 3] = joint_frames[a, r, 3]
            elif kind == TRANSLATION:
                out[n, f, r, 0] = j0
                out[n, f, r, 1] = j1
                out[n, f, r, 2] = j2
                out[n, f, r, 3] = j0 * offsets[f, 0, 3] + j1 * offsets[f, 1, 3] \
                    + j2 * offsets[f, 2, 3] + joint_frames[a, r, 3]
            else:
                for c in range(3):
                    out[n, f, r, c] = j0 * offsets[f, 0, c] + j1 * offsets[f, 1, c] \
                        + j2 * offsets[f, 2, c]
                out[n, f, r, 3] = j0 * offsets[f, 0, 3] + j1 * offsets[f, 1, 3] \
                    + j2 * offsets[f, 2, 3] + joint_frames[a, r, 3]
        out[n, f, 3, 0] = 0.0
        out[n, f, 3, 1] = 0.0
        out[n, f, 3, 2] = 0.0
        out[n, f, 3, 3] = 1.0


@njit(cache=True, inline='always')
def _jacobians(joint_frames, joints, scale, frames, offsets, column_joint, out, n):
    """Jacobians (n_frames, 6, dof) into out[n] from the joint frames (m, 3, 4)."""
    for f in range(frames.shape[0]):
        a = frames[f, ANCHOR]
        if a < 0:
            px, py, pz = offsets[f, 0, 3], offsets[f, 1, 3], offsets[f, 2, 3]
        else:
            kx, ky, kz = offsets[f, 0, 3], offsets[f, 1, 3], offsets[f, 2, 3]
            px = joint_frames[a, 0, 0] * kx + joint_frames[a, 0, 1] * ky \
                + joint_frames[a, 0, 2] * kz + joint_frames[a, 0, 3]
            py = joint_frames[a, 1, 0] * kx + joint_frames[a, 1, 1] * ky \
                + joint_frames[a, 1, 2] * kz + joint_frames[a, 1, 3]
            pz = joint_frames[a, 2, 0] * kx + joint_frames[a, 2, 1] * ky \
                + joint_frames[a, 2, 2] * kz + joint_frames[a, 2, 3]
        for d in range(column_joint.shape[1]):
            j = column_joint[f, d]
            if j < 0:
                for r in range(6):
                    out[n, f, r, d] = 0.0
                continue
            axis, s = joints[j, AXIS], scale[j]
            zx = joint_frames[j, 0, axis] * s
            zy = joint_frames[j, 1, axis] * s
            zz = joint_frames[j, 2, axis] * s
            if joints[j, PRISMATIC]:
                out[n, f, 0, d] = zx
                out[n, f, 1, d] = zy
                out[n, f, 2, d] = zz
                out[n, f, 3, d] = 0.0
                out[n, f, 4, d] = 0.0
                out[n, f, 5, d] = 0.0
            else:
                dx = px - joint_frames[j, 0, 3]
                dy = py - joint_frames[j, 1, 3]
                dz = pz - joint_frames[j, 2, 3]
                out[n, f, 0, d] = zy * dz - zz * dy
                out[n, f, 1, d] = zz * dx - zx * dz
                out[n, f, 2, d] = zx * dy - zy * dx
                out[n, f, 3, d] = zx
                out[n, f, 4, d] = zy
                out[n, f, 5, d] = zz


@njit(cache=True)
def frames_batch(q, joints, fixed, scale, frames, offsets, scratch, out):
    """Frames (N, n, 4, 4) of q (N, dof), one thread."""
    for n in range(q.shape[0]):
        _joint_frames(q, n, joints, fixed, scale, scratch)
        _frames(scratch, frames, offsets, out, n)


@njit(cache=True)
def jacobians_batch(q, joints, fixed, scale, frames, offsets, column_joint, scratch, out):
    """Jacobians (N, n, 6, dof) of q (N, dof), one thread."""
    for n in range(q.shape[0]):
        _joint_frames(q, n, joints, fixed, scale, scratch)
        _jacobians(scratch, joints, scale, frames, offsets, column_joint, out, n)


@njit(cache=True)
def frames_one(q, joints, fixed, scale, frames, offsets, scratch, out):
    """Frames (n, 4, 4) of one configuration q (dof,)."""
    frames_batch(q.reshape((1, q.shape[0])), joints, fixed, scale, frames, offsets, scratch,
                 out.reshape((1,) + out.shape))


@njit(cache=True)
def jacobians_one(q, joints, fixed, scale, frames, offsets, column_joint, scratch, out):
    """Jacobians (n, 6, dof) of one configuration q (dof,)."""
    jacobians_batch(q.reshape((1, q.shape[0])), joints, fixed, scale, frames, offsets,
                    column_joint, scratch, out.reshape((1,) + out.shape))


@njit(cache=True, parallel=True)
def frames_blocks(q, joints, fixed, scale, frames, offsets, scratch, out):
    """Frames (N, n, 4, 4) of q (N, dof) in len(scratch) blocks, one per thread."""
    blocks, total = scratch.shape[0], q.shape[0]
    for b in prange(blocks):
        mine = scratch[b]
        for n in range(b * total // blocks, (b + 1) * total // blocks):
            _joint_frames(q, n, joints, fixed, scale, mine)
            _frames(mine, frames, offsets, out, n)


@njit(cache=True, parallel=True)
def jacobians_blocks(q, joints, fixed, scale, frames, offsets, column_joint, scratch, out):
    """Jacobians (N, n, 6, dof) of q (N, dof) in len(scratch) blocks, one per thread."""
    blocks, total = scratch.shape[0], q.shape[0]
    for b in prange(blocks):
        mine = scratch[b]
        for n in range(b * total // blocks, (b + 1) * total // blocks):
            _joint_frames(q, n, joints, fixed, scale, mine)
            _jacobians(mine, joints, scale, frames, offsets, column_joint, out, n)


_SCRATCH = Scratch()


def data(fs: FrameSet) -> KernelData:
    """The (cached) :class:`KernelData` of a frame set."""
    kd = fs.__dict__.get('_kernel_data')
    if kd is None:
        kd = fs.__dict__['_kernel_data'] = KernelData.of(fs)
    return kd


def transforms(fs: FrameSet, q: np.ndarray, out: np.ndarray, threads: int = 1) -> np.ndarray:
    """Fill ``out`` ((n, 4, 4) for q (dof,), (N, n, 4, 4) for q (N, dof)) with the frames
    of ``fs`` (reference frame, m); returns it. ``threads`` > 1 runs a batch on that many
    threads."""
    kd = data(fs)
    return _run(frames_one, frames_batch, frames_blocks, q, out, threads,
                kd.joints, kd.fixed, kd.scale, kd.frames, kd.offsets)


def jacobians(fs: FrameSet, q: np.ndarray, out: np.ndarray, threads: int = 1) -> np.ndarray:
    """Fill ``out`` ((n, 6, dof) for q (dof,), (N, n, 6, dof) for q (N, dof)) with the
    geometric Jacobians of the frames of ``fs`` (rows vx vy vz wx wy wz, reference
    frame); returns it. ``threads`` as for :func:`transforms`."""
    kd = data(fs)
    return _run(jacobians_one, jacobians_batch, jacobians_blocks, q, out, threads,
                kd.joints, kd.fixed, kd.scale, kd.frames, kd.offsets, kd.column_joint)


def _run(one, batch, blocks, q, out, threads, *structure):
    """The kernel for the request (one configuration, a batch on one thread, or in
    blocks on several) with ``structure`` (the KernelData arrays it reads), the joint
    frame scratch of this thread and ``out``."""
    m = structure[0].shape[0]
    if q.ndim == 1:
        one(q, *structure, _SCRATCH.get(m), out)
    elif threads > 1 and len(q) > 1:
        count = min(threads, len(q))
        numba.set_num_threads(min(count, numba.config.NUMBA_NUM_THREADS))
        blocks(q, *structure, _SCRATCH.blocks(m, count), out)
    else:
        batch(q, *structure, _SCRATCH.get(m), out)
    return out
