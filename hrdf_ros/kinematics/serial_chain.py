"""Fast kinematics of one frame: the serial chain from the reference frame to it.

Any frame of a HEBI robot (an input, output, COM or end-effector frame, in a chain or a
tree) is reached from the reference frame through one path of elements. Along that path
the transform is a product of constant transforms and joint motions::

    T(q) = F_0 M_0(q) F_1 M_1(q) ... M_{m-1}(q) F_m

where ``F_0`` includes the robot's base frame, consecutive constant factors are
multiplied once at construction, and ``M_k`` is a rotation about (or translation along)
a principal axis by ``q[dof_k] * scale_k`` (scale = axis sign / gear ratio,
:attr:`~hrdf_ros.model.Element.motion_scale`). Degrees of freedom off the path do not
appear; their Jacobian columns are zero.

Two evaluation strategies, chosen by batch size:

* one configuration: each factor ``F_k M_k`` is written as ``a P_k + b Q_k + R_k`` with
  constant (4, 4) matrices and ``(a, b) = (cos, sin)`` of the joint angle (``(d, 0)``
  for a prismatic joint), so all factors are built by a few vectorised numpy calls and
  then multiplied;
* a batch: the top 3 x 4 block of the transform is kept as a (3, 4, N) array, one
  contiguous row of N values per entry. A joint motion mixes two columns (rotation) or
  adds one column to the translation (prismatic) with element-wise arithmetic, and a
  constant factor is one small matrix product per row. Batches are processed in chunks
  so that scratch arrays are allocated once per call.

Units and conventions are those of :mod:`hrdf_ros.kinematics`: rad or m, transforms in
the reference frame, Jacobian rows [vx vy vz wx wy wz] in the reference frame.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import List, Optional, Sequence, Tuple

import numpy as np

#: Configurations per chunk in batch evaluation. Each chunk costs ~15 numpy calls per
#: joint, so small chunks pay Python overhead; measured on the 6- and 7-DoF kits,
#: 8192-32768 are equally fast and 1024 is ~30 % slower. Scratch memory per call is
#: about (12 m + 30) * CHUNK doubles (m joints), ~9 MB for m = 7.
CHUNK = 8192

# (column mixed into, column mixed from) of a rotation about each axis: right-multiplying
# by R_axis(theta) gives col_i' = c col_i + s col_j and col_j' = c col_j - s col_i.
ROTATION_COLUMNS = {'rx': (1, 2), 'ry': (2, 0), 'rz': (0, 1)}


def motion_basis(axis: str) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
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


def factor_basis(fixed: np.ndarray, axis: Optional[str]) -> np.ndarray:
    """(3, 16) rows P, Q, R (flattened 4 x 4) with F M(theta) = a P + b Q + R.

    ``(a, b)`` is ``(cos theta, sin theta)`` for a rotation and ``(d, 0)`` for a
    translation; ``axis=None`` is a constant factor (P = Q = 0, R = F).
    """
    if axis is None:
        return np.stack([np.zeros(16), np.zeros(16), np.asarray(fixed, float).ravel()])
    return np.stack([(fixed @ b).ravel() for b in motion_basis(axis)])


def motion_factors(theta: np.ndarray, prismatic: Optional[np.ndarray],
                   coefficients: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """(k, 4, 4) factors ``a P + b Q + R`` for one configuration, in one batched product.

    Args:
        theta: (m,) joint motions (rad or m), m <= k; rows past m are constant factors.
        prismatic: (m,) bool mask of translations, or None when there are none.
        coefficients: (k, 1, 3) scratch whose last column is 1 (overwritten).
        basis: (k, 3, 16) from :func:`factor_basis`.
    """
    m = len(theta)
    np.cos(theta, out=coefficients[:m, 0, 0])
    np.sin(theta, out=coefficients[:m, 0, 1])
    if prismatic is not None:
        coefficients[:m][prismatic, 0, 0] = theta[prismatic]
        coefficients[:m][prismatic, 0, 1] = 0.0
    return np.matmul(coefficients, basis).reshape(-1, 4, 4)


def apply_motion(x: np.ndarray, axis: str, theta: np.ndarray, cos: np.ndarray,
                 sin: np.ndarray, tmp1: Optional[np.ndarray] = None,
                 tmp2: Optional[np.ndarray] = None) -> None:
    """Right-multiply frames in row layout by a joint motion, in place.

    Args:
        x: (3, 4, n) top rows of n frames, entry (r, c) one contiguous row.
        axis: ``rx ry rz tx ty tz``.
        theta, cos, sin: (n,) motion values (rad or m) and, for rotations, their cosine
            and sine.
        tmp1, tmp2: optional (3, n) scratch arrays (allocated when None).
    """
    if tmp1 is None:
        tmp1, tmp2 = np.empty(x.shape[:1] + x.shape[2:]), np.empty(x.shape[:1] + x.shape[2:])
    if axis[0] == 't':
        np.multiply(x[:, 'xyz'.index(axis[1])], theta, out=tmp1)
        x[:, 3] += tmp1
        return
    i, j = ROTATION_COLUMNS[axis]
    xi, xj = x[:, i], x[:, j]
    np.multiply(xi, cos, out=tmp1)
    np.multiply(xj, sin, out=tmp2)
    tmp1 += tmp2
    np.multiply(xi, sin, out=tmp2)
    xj *= cos
    xj -= tmp2
    xi[...] = tmp1


class SerialChain:
    """Forward kinematics and Jacobian of one frame, single or batched.

    Args:
        fixed: m + 1 constant (4, 4) transforms ``F_0 ... F_m`` (``F_0`` includes the
            base frame).
        motions: m tuples ``(axis, dof, scale)``: axis in ``rx ry rz tx ty tz``, dof the
            index into the joint-position vector, scale the motion per unit position.
        dof_count: length of the joint-position vector.

    Positions passed to the methods must already be validated (finite, right shape);
    :class:`~hrdf_ros.kinematics.Kinematics` does that.
    """

    def __init__(self, fixed: Sequence[np.ndarray], motions: Sequence[Tuple[str, int, float]],
                 dof_count: int):
        if len(fixed) != len(motions) + 1:
            raise ValueError('a serial chain needs one more constant factor than motions')
        self.dof_count = dof_count
        self.fixed = [np.array(f, dtype=float) for f in fixed]
        self.motions = list(motions)
        m = len(self.motions)
        self._dofs = np.array([d for _, d, _ in self.motions], dtype=int)
        self._scale = np.array([g for _, _, g in self.motions], dtype=float)
        self._prismatic = np.array([a[0] == 't' for a, _, _ in self.motions], dtype=bool)
        self._any_prismatic = bool(self._prismatic.any())
        self._axis_columns = np.array(['xyz'.index(a[1]) for a, _, _ in self.motions],
                                      dtype=int)
        self._motion_index = np.arange(m)
        # Common case (every joint about/along the same local axis, e.g. all actuators):
        # the joint axes are one strided slice instead of a gather.
        columns = set(self._axis_columns.tolist())
        self._axis_column = columns.pop() if len(columns) == 1 else None
        self._all_dofs_in_order = self._dofs.tolist() == list(range(dof_count))
        self._geared = bool(np.any(self._scale != 1.0))
        # One configuration: F_k M_k = a P_k + b Q_k + R_k, stored as (m, 3, 16) so that
        # all factors are one batched product of (a, b, 1) with it.
        self._basis = np.empty((m, 3, 16))
        for k, (axis, _, _) in enumerate(self.motions):
            self._basis[k] = factor_basis(self.fixed[k], axis)
        # For the Jacobian, one more (constant) factor: the tail F_m.
        self._basis_jacobian = np.concatenate(
            (self._basis, factor_basis(self.fixed[m], None)[None]))
        self._coefficients = np.ones((m + 1, 1, 3))
        # For FK alone, the last constant factor is folded into the last motion factor.
        self._basis_fk = self._basis.copy()
        if m:
            tail = self.fixed[m]
            self._basis_fk[-1] = [(b.reshape(4, 4) @ tail).ravel() for b in self._basis[-1]]
        # Batch: right-multiplying rows by F is F^T @ (4, n) per row; constant factors
        # after a motion that are the identity are skipped.
        self._fixed_transposed = [np.ascontiguousarray(f.T) for f in self.fixed]
        self._fixed_is_identity = [np.array_equal(f, np.eye(4)) for f in self.fixed]

    # -- one configuration --------------------------------------------------------------

    def _factors(self, q: np.ndarray, basis: np.ndarray) -> np.ndarray:
        """(len(basis), 4, 4) factors F_k M_k(q) for one configuration; rows of
        ``basis`` past the m motions are constant factors."""
        theta = q if self._all_dofs_in_order else q[self._dofs]
        if self._geared:
            theta = theta * self._scale
        return motion_factors(theta, self._prismatic if self._any_prismatic else None,
                              self._coefficients[:len(basis)].copy(), basis)

    def transform(self, q: np.ndarray) -> np.ndarray:
        """(4, 4) transform of the frame for one configuration q, shape (dof,)."""
        if not self.motions:
            return self.fixed[0].copy()
        factors = self._factors(q, self._basis_fk)
        out = factors[0]
        for factor in factors[1:]:
            out = out.dot(factor)  # ndarray.dot: a third of the call cost of `@` at 4x4
        return out

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        """(6, dof) geometric Jacobian of the frame for one configuration q, shape (dof,)."""
        m = len(self.motions)
        if not m:
            return np.zeros((6, self.dof_count))
        # Prefix products W_k = F_0 M_0 ... F_k M_k (frame of joint k), and one more
        # factor, the constant tail, so that the last product is the frame itself.
        factors = self._factors(q, self._basis_jacobian)
        frames = np.empty_like(factors)
        frame = frames[0] = factors[0]
        for k in range(1, m + 1):
            frame = frame.dot(factors[k], out=frames[k])
        if self._axis_column is not None:
            axes = frames[:m, :3, self._axis_column]
        else:
            axes = frames[self._motion_index, :3, self._axis_columns]
        if self._geared:
            axes = axes * self._scale[:, None]
        columns = np.empty((m, 6))
        _cross(axes, frame[:3, 3] - frames[:m, :3, 3], out=columns[:, :3])
        columns[:, 3:] = axes
        if self._any_prismatic:
            columns[self._prismatic, :3] = axes[self._prismatic]
            columns[self._prismatic, 3:] = 0.0
        if self._all_dofs_in_order:
            return columns.T
        jac = np.zeros((6, self.dof_count))
        jac[:, self._dofs] = columns.T
        return jac

    # -- batches ------------------------------------------------------------------------

    def _sweep(self, q: np.ndarray, work: '_Workspace', jacobian: bool) -> np.ndarray:
        """Top rows (3, 4, n) of the frames for a chunk q (n, dof); with ``jacobian``,
        also the Jacobian columns of the chain's m motions into ``work.columns``
        (6, m, n), in motion order.

        Layout: entry (r, c) of every frame is one contiguous row of n values, so a
        joint motion is element-wise arithmetic on whole rows and a constant factor F is
        ``F^T @ x[r]`` per row r (right-multiplying row vectors). Every temporary lives
        in ``work``: no allocation per chunk.
        """
        n = q.shape[0]
        w = work.view(n)
        theta = w.theta
        np.multiply((q if self._all_dofs_in_order else q[:, self._dofs]).T,
                    self._scale[:, None], out=theta)
        np.cos(theta, out=w.cos)
        np.sin(theta, out=w.sin)
        x, spare = w.x, w.spare
        x[...] = self.fixed[0][:3, :, None]
        for k, (axis, _, _) in enumerate(self.motions):
            apply_motion(x, axis, theta[k], w.cos[k], w.sin[k], w.tmp1, w.tmp2)
            if jacobian:
                w.columns[3:, k] = x[:, self._axis_columns[k]]
                w.lever[:, k] = x[:, 3]
            if not self._fixed_is_identity[k + 1]:
                np.matmul(self._fixed_transposed[k + 1], x, out=spare)
                x, spare = spare, x
        if jacobian:
            # Linear columns: axis x (frame origin - joint origin), all motions at once.
            columns, lever = w.columns, w.lever
            axes = columns[3:]                                      # (3, m, n)
            if self._geared:
                axes *= self._scale[:, None]
            np.subtract(x[:, 3][:, None], lever, out=lever)          # (3, m, n)
            for row, (u, v) in enumerate(((1, 2), (2, 0), (0, 1))):
                np.multiply(axes[u], lever[v], out=columns[row])
                np.multiply(axes[v], lever[u], out=w.tmp_m)
                columns[row] -= w.tmp_m
            if self._any_prismatic:
                columns[:3, self._prismatic] = axes[:, self._prismatic]
                columns[3:, self._prismatic] = 0.0
        return x

    def transforms(self, q: np.ndarray) -> np.ndarray:
        """(N, 4, 4) transforms of the frame for configurations q, shape (N, dof)."""
        n = q.shape[0]
        out = np.empty((n, 4, 4))
        out[:, 3] = (0.0, 0.0, 0.0, 1.0)
        work = _Workspace(len(self.motions), min(n, CHUNK), jacobian=False)
        for start in range(0, n, CHUNK):
            stop = min(start + CHUNK, n)
            x = self._sweep(q[start:stop], work, jacobian=False)
            chunk = out[start:stop]
            # One strided copy per matrix entry: about 3x faster than one transposing
            # copy of the whole block, whose inner loop would be only 4 long.
            for r in range(3):
                for c in range(4):
                    chunk[:, r, c] = x[r, c]
        return out

    def jacobians(self, q: np.ndarray) -> np.ndarray:
        """(N, 6, dof) geometric Jacobians of the frame for configurations q, (N, dof)."""
        n, m = q.shape[0], len(self.motions)
        # Every entry is written when the chain moves with every degree of freedom.
        out = (np.empty if self._all_dofs_in_order else np.zeros)((n, 6, self.dof_count))
        if not m:
            return out
        dofs = self._dofs.tolist()
        work = _Workspace(m, min(n, CHUNK), jacobian=True)
        for start in range(0, n, CHUNK):
            stop = min(start + CHUNK, n)
            self._sweep(q[start:stop], work, jacobian=True)
            columns = work.view(stop - start).columns
            chunk = out[start:stop]
            for r in range(6):
                for k, d in enumerate(dofs):
                    chunk[:, r, d] = columns[r, k]
        return out


class _Workspace:
    """Scratch arrays of one batch evaluation, sized for a full chunk of n columns."""

    def __init__(self, m: int, n: int, jacobian: bool):
        self.n = n
        self.arrays = {
            'theta': np.empty((m, n)), 'cos': np.empty((m, n)), 'sin': np.empty((m, n)),
            'x': np.empty((3, 4, n)), 'spare': np.empty((3, 4, n)),
            'tmp1': np.empty((3, n)), 'tmp2': np.empty((3, n)),
        }
        if jacobian:
            self.arrays.update(columns=np.empty((6, m, n)), lever=np.empty((3, m, n)),
                               tmp_m=np.empty((m, n)))

    def view(self, n: int) -> SimpleNamespace:
        """The arrays cut to the first n columns (the last chunk may be shorter)."""
        return SimpleNamespace(**{k: v[..., :n] for k, v in self.arrays.items()})


# Levi-Civita symbol as a (9, 3) matrix: (a outer b).ravel() @ _LEVI_CIVITA = a x b.
_LEVI_CIVITA = np.zeros((3, 3, 3))
_LEVI_CIVITA[0, 1, 2] = _LEVI_CIVITA[1, 2, 0] = _LEVI_CIVITA[2, 0, 1] = 1.0
_LEVI_CIVITA[0, 2, 1] = _LEVI_CIVITA[2, 1, 0] = _LEVI_CIVITA[1, 0, 2] = -1.0
_LEVI_CIVITA = _LEVI_CIVITA.transpose(1, 2, 0).reshape(9, 3)


def _cross(a: np.ndarray, b: np.ndarray, out=None) -> np.ndarray:
    """Row-wise cross product of (m, 3) arrays in three numpy calls (np.cross costs more
    than the whole Jacobian for small m)."""
    return np.matmul((a[:, :, None] * b[:, None, :]).reshape(-1, 9), _LEVI_CIVITA, out=out)


def chain_to(model, element: int, frame: str, output: int = 0) -> SerialChain:
    """The serial chain from the reference frame to one frame of an element.

    Args:
        model: a :class:`~hrdf_ros.model.RobotModel`.
        element: element index.
        frame: ``'input'``, ``'com'`` or ``'output'`` (an end-effector frame is the
            output of an ``end-effector`` element).
        output: output index for ``'output'``.

    Returns:
        the :class:`SerialChain` of that frame.
    """
    path: List[int] = []
    e = element
    while e >= 0:
        path.append(e)
        e = model.elements[e].parent
    path.reverse()
    dof_of = {e: k for k, e in enumerate(model.dof_elements)}
    items: List = []  # (4, 4) constants and (axis, dof, scale) motions, in order
    for a, child in zip(path, path[1:]):
        items.append(model.elements[a].outputs[model.elements[child].parent_output])
        if model.elements[a].is_dof:
            items.append((model.elements[a].motion, dof_of[a], model.elements[a].motion_scale))
    last = model.elements[element]
    if frame == 'com':
        items.append(last.com)
    elif frame == 'output':
        items.append(last.outputs[output])
        if last.is_dof:
            items.append((last.motion, dof_of[element], last.motion_scale))
    elif frame != 'input':
        raise ValueError(f"frame must be 'input', 'com' or 'output', got '{frame}'")
    fixed: List[np.ndarray] = [np.array(model.base_frame, dtype=float)]
    motions = []
    for item in items:
        if isinstance(item, tuple):
            motions.append(item)
            fixed.append(np.eye(4))
        else:
            fixed[-1] = fixed[-1] @ np.asarray(item, dtype=float)
    return SerialChain(fixed, motions, model.dof_count)
