"""A fixed list of frames compiled for fast evaluation: one configuration here, batches in
:mod:`.batch`.

In: a :class:`~.structure.KinematicStructure` and the frames wanted, as anchors and
constant offsets (``frame = J_anchor K``, see :mod:`.structure`). Out: a
:class:`FrameSet` whose :meth:`~FrameSet.transforms` gives (n, 4, 4) frames and
:meth:`~FrameSet.jacobians` (n, 6, dof) geometric Jacobians for one configuration (dof,)
of checked positions (rad or m), in the reference frame.

Only the joints that move one of the frames are computed, each once, along the tree
(shared prefixes are shared). For one configuration:

* every joint factor ``F_k M_k(theta)`` is ``a P_k + b Q_k + R_k`` with constant (4, 4)
  matrices and ``(a, b) = (cos, sin)`` of the motion (``(d, 0)`` for a translation), so
  all factors are one batched product of (a, b, 1) rows with a (m, 3, 16) basis;
* joint frames are one ``ndarray.dot`` each, parent first, into a per-thread workspace;
* all frames are one product of a constant block matrix with the stacked joint frames
  (or, for many frames and joints, one gather and one batched product ``J[anchor] @ K``);
* the frames' homogeneous origins are one product of a constant selection matrix with
  the stacked joint frames, and all Jacobians one (n, 4) @ (4, 6 m) product of them with
  a matrix built from the joint axes z_k and origins o_k in two more products:
  column k of frame f is ``[z_k x (p_f - o_k); z_k]`` (``[z_k; 0]`` for a translation)
  times the motion scale, zero where joint k does not move frame f.
"""
from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import List, Optional

import numpy as np

from .structure import KinematicStructure

# (column mixed into, column mixed from) of a rotation about each axis: right-multiplying
# by R_axis(theta) gives col_i' = c col_i + s col_j and col_j' = c col_j - s col_i.
ROTATION_COLUMNS = {'rx': (1, 2), 'ry': (2, 0), 'rz': (0, 1)}


def motion_basis(axis: str):
    """(E, S, G) with M(theta) = a E + b S + G; (a, b) = (cos, sin) or (d, 0)."""
    if axis[0] == 't':
        e = np.zeros((4, 4))
        e['xyz'.index(axis[1]), 3] = 1.0
        return e, np.zeros((4, 4)), np.eye(4)
    i, j = ROTATION_COLUMNS[axis]
    e, s, g = np.zeros((4, 4)), np.zeros((4, 4)), np.eye(4)
    e[i, i] = e[j, j] = 1.0
    g[i, i] = g[j, j] = 0.0
    s[i, j], s[j, i] = -1.0, 1.0
    return e, s, g


def factor_basis(fixed: np.ndarray, axis: str) -> np.ndarray:
    """(3, 16) rows P, Q, R (flattened 4 x 4) with F M(theta) = a P + b Q + R."""
    return np.stack([(fixed @ b).ravel() for b in motion_basis(axis)])


def _jacobian_basis() -> np.ndarray:
    """(7, 6, 3) E with ``G[b, r, k] = sum_a E[b, r, a] z[a, k]``: rows b < 3 give
    ``sum_b p_b G[b, :3, k] = z_k x p``, row 3 (r >= 3) gives z_k (the angular part,
    reached through the homogeneous 1 of p), rows 4-6 are -(rows 0-2), used for o x z."""
    e = np.zeros((7, 6, 3))
    for i, a, b, sign in ((0, 1, 2, 1), (1, 2, 0, 1), (2, 0, 1, 1),
                          (0, 2, 1, -1), (1, 0, 2, -1), (2, 1, 0, -1)):
        e[b, i, a] = sign          # (z x p)_i = sum eps_iab z_a p_b
    e[3, 3:, :] = np.eye(3)
    e[4:] = -e[:3]
    return e


JACOBIAN_BASIS = _jacobian_basis()
JACOBIAN_BASIS_2D = JACOBIAN_BASIS.reshape(42, 3)
#: Up to this many joints, factors come from one block-diagonal product (see FrameSet).
BLOCK_BASIS_MAX_JOINTS = 10
#: Up to this many entries, frames come from one block product (see FrameSet).
FRAME_BLOCK_MAX_ENTRIES = 6144


class FrameSet:
    """n frames ``J_anchor K`` of one robot, compiled (see module docstring).

    Args:
        structure: the robot's compiled structure.
        anchors: (n,) joint each frame hangs on, -1 for none.
        offsets: (n, 4, 4) constant transform from the anchor's frame.

    Attributes:
        count: n. joints: the m joints computed (dof indices, parents first).
        moved: (n, m) bool, joint i moves frame f.
    """

    def __init__(self, structure: KinematicStructure, anchors, offsets):
        s = structure
        self.dof_count = s.dof_count
        anchors = [int(a) for a in anchors]
        self.count = n = len(anchors)
        joints = sorted({j for a in anchors if a >= 0 for j in s.joint_ancestors[a]})
        local = {k: i for i, k in enumerate(joints)}
        self.joints = np.array(joints, dtype=int)
        self.m = m = len(joints)
        self.all_dofs = joints == list(range(s.dof_count))
        self.parent = [local.get(s.joint_parent[k], -1) for k in joints]
        self.axes = [s.joint_axis[k] for k in joints]
        self.scale = s.motion_scale[joints].copy()
        self.unit_scale = bool(np.all(self.scale == 1.0))
        self.fixed = s.joint_fixed[joints].copy()
        self.prismatic = np.array([a[0] == 't' for a in self.axes], dtype=bool)
        self.any_prismatic = bool(self.prismatic.any())
        self.axis_columns = np.array(['xyz'.index(a[1]) for a in self.axes], dtype=int)
        columns = set(self.axis_columns.tolist())
        self.axis_column: Optional[int] = columns.pop() if len(columns) == 1 else None
        #: index of each frame's anchor in the workspace's joint frames (0: identity)
        self.anchor = np.array([local[a] + 1 if a >= 0 else 0 for a in anchors], dtype=int)
        self.anchor_local = [local[a] if a >= 0 else -1 for a in anchors]
        self.offsets = np.array(offsets, dtype=float).reshape(n, 4, 4)
        self.moved = s.moved_mask(np.array(anchors, dtype=int))[:, self.joints]  # (n, m)
        self.all_moved = bool(self.moved.all())
        mask6 = np.repeat(self.moved[:, None, :], 6, axis=1).astype(float)
        mask6[:, 3:, self.prismatic] = 0.0
        self.mask6 = mask6                                                 # (n, 6, m)
        basis = np.array([factor_basis(f, a) for f, a in zip(self.fixed, self.axes)]
                         ).reshape(m, 3, 4, 4)
        #: (m, 3, 16) the factor bases transposed: (F_k M_k)^T = a P^T + b Q^T + R^T
        self.basis_t = np.ascontiguousarray(basis.transpose(0, 1, 3, 2)).reshape(m, 3, 16)
        # Few joints: all factors as one vector-matrix product with the bases on the
        # diagonal of a (3 m, 16 m) matrix (cheaper than a batched product up to m ~ 10).
        self.basis_block = None
        if m <= BLOCK_BASIS_MAX_JOINTS:
            self.basis_block = np.zeros((3 * m, 16 * m))
            for k in range(m):
                self.basis_block[3 * k:3 * k + 3, 16 * k:16 * k + 16] = self.basis_t[k]
        # Few frames and joints: all frames transposed, T_f^T = K_f^T J_anchor^T, as one
        # product of a (4 n, 4 (m + 1)) block matrix with the stacked joint frames
        # (cheaper than a gather and a batched product up to ~6000 entries).
        self.frame_block = None
        if 16 * n * (m + 1) <= FRAME_BLOCK_MAX_ENTRIES:
            self.frame_block = np.zeros((4 * n, 4 * (m + 1)))
            for f, a in enumerate(self.anchor):
                self.frame_block[4 * f:4 * f + 4, 4 * a:4 * a + 4] = self.offsets[f].T
        #: (n, 4 (m + 1)) frame origins from the stacked transposed joint frames:
        #: ``p_f = selection[f] @ stack``, p_f = J_anchor K_f[:, 3] (homogeneous)
        self.selection = np.zeros((n, 4 * (m + 1)))
        for f, a in enumerate(self.anchor):
            self.selection[f, 4 * a:4 * a + 4] = self.offsets[f, :, 3]
        self._local = threading.local()

    def __getstate__(self):
        state = self.__dict__.copy()
        del state['_local']                 # per-thread scratch is rebuilt on use
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._local = threading.local()

    # -- one configuration --------------------------------------------------------------

    def _workspace(self) -> SimpleNamespace:
        """Scratch arrays and their views, one set per thread (built on first use).

        Joint frames are kept transposed, ``w.joints[i + 1] = J_i^T`` (``w.joints[0]``
        the identity), so that their stack ``(4 (m + 1), 4)`` is a plain view."""
        w = getattr(self._local, 'w', None)
        if w is not None:
            return w
        m = self.m
        w = SimpleNamespace()
        w.coefficients = np.ones((m, 1, 3))
        w.cos, w.sin = w.coefficients[:, 0, 0], w.coefficients[:, 0, 1]
        w.factors = np.empty((m, 1, 16))
        w.coefficient_row, w.factor_row = w.coefficients.reshape(3 * m), w.factors.reshape(16 * m)
        w.joints = np.empty((m + 1, 4, 4))
        w.joints[0] = np.eye(4)
        w.stack = w.joints.reshape(4 * (m + 1), 4)
        factors = w.factors.reshape(m, 4, 4)
        w.steps = [(factors[i].dot, w.joints[p + 1], w.joints[i + 1])
                   for i, p in enumerate(self.parent)]
        w.gathered = np.empty((self.count, 4, 4))
        w.g = np.empty((7, 6, m))
        w.g42 = w.g.reshape(42, m)
        w.g4 = w.g[:4].reshape(4, 6 * m)
        w.o_term_in = w.g[4:7, :3, :].transpose(2, 1, 0)                   # (m, i, b)
        w.o_term_out = w.g[3, :3, :].T[:, :, None]                          # (m, 3, 1)
        w.origins = w.joints[1:, 3, :3][:, :, None]                         # (m, 3, 1)
        w.jacobians = np.empty((self.count, 6 * m))
        if self.axis_column is not None:
            w.axes = w.joints[1:, self.axis_column, :3].T                   # (3, m)
        self._local.w = w
        return w

    def _joint_frames(self, q: np.ndarray) -> SimpleNamespace:
        """Every joint frame of one configuration into the workspace (``w.joints``)."""
        try:
            w = self._local.w
        except AttributeError:
            w = self._workspace()
        theta = q if self.all_dofs else q[self.joints]
        if not self.unit_scale:
            theta = theta * self.scale
        np.cos(theta, w.cos)                            # out positional: cheaper
        np.sin(theta, w.sin)
        if self.any_prismatic:
            w.cos[self.prismatic] = theta[self.prismatic]
            w.sin[self.prismatic] = 0.0
        if self.basis_block is not None:
            w.coefficient_row.dot(self.basis_block, w.factor_row)
        else:
            np.matmul(w.coefficients, self.basis_t, out=w.factors)
        for dot, parent, out in w.steps:
            dot(parent, out)                            # J_i^T = (F_i M_i)^T J_p^T
        return w

    def transforms(self, q: np.ndarray) -> np.ndarray:
        """(n, 4, 4) frames for one checked configuration q (dof,)."""
        if not self.m:
            return self.offsets.copy()
        w = self._joint_frames(q)
        if self.frame_block is not None:                 # stacked T_f^T in one product
            stacked = self.frame_block.dot(w.stack).reshape(self.count, 4, 4)
            return stacked.transpose(0, 2, 1).copy()
        return np.matmul(w.joints.take(self.anchor, axis=0, out=w.gathered).transpose(0, 2, 1),
                         self.offsets)

    def transform(self, q: np.ndarray) -> np.ndarray:
        """(4, 4) first frame for one checked configuration q (dof,): the one-frame
        fast path."""
        if not self.m:
            return self.offsets[0].copy()
        return self._joint_frames(q).joints[self.anchor[0]].T.dot(self.offsets[0])

    def _jacobian_basis(self, w: SimpleNamespace) -> np.ndarray:
        """From the joint frames in ``w``: G into ``w.g4`` (4, 6 m) and the frames'
        homogeneous origins (n, 4), returned; the Jacobians are ``points @ G``."""
        m = self.m
        points = self.selection.dot(w.stack)                               # (n, 4)
        axes = w.axes if self.axis_column is not None else \
            w.joints[np.arange(1, m + 1), self.axis_columns, :3].T           # (3, m)
        if not self.unit_scale:
            axes = axes * self.scale
        g = w.g
        JACOBIAN_BASIS_2D.dot(axes, w.g42)
        np.matmul(w.o_term_in, w.origins, w.o_term_out)                     # o_k x z_k
        if self.any_prismatic:
            g[:3, :, self.prismatic] = 0.0
            g[3, :3][:, self.prismatic] = axes[:, self.prismatic]
            g[3, 3:, self.prismatic] = 0.0
        return points

    def jacobians(self, q: np.ndarray) -> np.ndarray:
        """(n, 6, dof) geometric Jacobians for one checked configuration q (dof,)."""
        n, m = self.count, self.m
        if not m:
            return np.zeros((n, 6, self.dof_count))
        w = self._joint_frames(q)
        points = self._jacobian_basis(w)
        if self.all_dofs:
            if not self.all_moved:
                points.dot(w.g4, w.jacobians)
                return np.multiply(w.jacobians.reshape(n, 6, m), self.mask6)
            out = np.empty((n, 6, m))
            points.dot(w.g4, out.reshape(n, 6 * m))
            return out
        part = points.dot(w.g4).reshape(n, 6, m)
        if not self.all_moved:
            part *= self.mask6
        out = np.zeros((n, 6, self.dof_count))
        out[:, :, self.joints] = part
        return out

    def pose_and_jacobian(self, q: np.ndarray):
        """The first frame and its Jacobian over the computed joints, for one checked
        configuration q (dof,) of a set with joints (``m`` > 0), from one evaluation of
        the joint frames (the numpy path of :mod:`.ik_solver`).

        Returns:
            ((4, 4) frame in the reference frame, (6, m) Jacobian: column i belongs to
            joint ``joints[i]``, rows vx vy vz wx wy wz as in :meth:`jacobians`).
        """
        w = self._joint_frames(q)
        pose = w.joints[self.anchor[0]].T.dot(self.offsets[0])
        points = self._jacobian_basis(w)
        jacobian = points[0].dot(w.g4).reshape(6, self.m)
        if not self.all_moved:
            jacobian *= self.mask6[0]
        return pose, jacobian


def frame_set(structure: KinematicStructure, frame_type: str,
              indices: Optional[List[int]] = None) -> FrameSet:
    """The :class:`FrameSet` of all frames of a type, or of some of them (``indices``)."""
    anchors, offsets = structure.anchors[frame_type], structure.offsets[frame_type]
    if indices is not None:
        anchors, offsets = anchors[indices], offsets[indices]
    return FrameSet(structure, anchors, offsets)
