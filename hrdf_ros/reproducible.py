"""Arithmetic whose results are the same bits on every machine.

In: float64 arrays (stacks of small matrices, angles). Out: what numpy's ``@``,
``np.linalg.inv``, ``np.sin``, ``np.linalg.eigvalsh`` or ``np.linalg.svd`` would give,
to rounding, computed so that the result does not depend on the machine:

* numpy's ``@`` and ``np.dot`` call BLAS, and OpenBLAS picks its kernel by CPU
  (``OPENBLAS_CORETYPE``): a kernel with fused multiply-add rounds differently from one
  without, so the last bits of a product change with the machine. LAPACK
  (``np.linalg``) the same.
* numpy dispatches some functions by CPU feature: on a CPU with AVX-512 its
  ``arctan2``, ``arcsin`` and ``exp`` come from SVML and differ from the C library's in
  the last bit (measured on numpy 1.26: about a quarter of random arguments).

Here every result is built from elementwise IEEE 754 operations (``+ - * /`` and
``sqrt``, each correctly rounded in every numpy loop, SIMD or not, and never fused),
applied in a fixed order; trigonometric functions come from Python's :mod:`math` (the C
library's). The description and the writers use these wherever a computed number is
written to a file or decides what is written (``hrdf urdf`` must write the same bytes on
every machine); the kinematics hot paths keep BLAS, whose speed they need.

Imports nothing of the package (the lowest layer, beside :mod:`hrdf_ros.model`).
"""
from __future__ import annotations

import math

import numpy as np

#: Sweeps of the Jacobi methods; each sweep visits every pair once. Jacobi converges
#: quadratically: 6 sweeps reach rounding for the sizes used here (n <= 8); the loops
#: stop early once every rotation is exactly the identity.
JACOBI_SWEEPS = 12


def matmul(a, b) -> np.ndarray:
    """``a @ b`` for (stacks of) small matrices: (..., n, k) times (..., k, m) ->
    (..., n, m), leading dimensions broadcast.

    Each element is ``a[i, 0] b[0, j] + a[i, 1] b[1, j] + ...``, summed left to right.

    Raises:
        ValueError: when the inner dimensions differ or a side is not at least 2-D.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.ndim < 2 or b.ndim < 2 or a.shape[-1] != b.shape[-2]:
        raise ValueError(f'matmul: shapes {a.shape} and {b.shape} do not chain')
    out = a[..., :, 0, None] * b[..., None, 0, :]
    term = np.empty_like(out)
    for k in range(1, a.shape[-1]):
        np.multiply(a[..., :, k, None], b[..., None, k, :], out=term)
        out += term
    return out


def apply(matrices, vectors) -> np.ndarray:
    """``matrices @ vectors[..., None]`` without the trailing axis: (..., n, k) and
    (..., k) -> (..., n), summed as :func:`matmul` does."""
    return matmul(matrices, np.asarray(vectors, dtype=float)[..., None])[..., 0]


def dot(a, b) -> np.ndarray:
    """Sum of ``a * b`` over the last axis, left to right: (..., k), (..., k) -> (...)."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    out = a[..., 0] * b[..., 0]
    for k in range(1, a.shape[-1]):
        out = out + a[..., k] * b[..., k]
    return out


def cross(a, b) -> np.ndarray:
    """Cross products of (..., 3) vectors, (..., 3)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def norm(vectors) -> np.ndarray:
    """Euclidean norms of (..., k) vectors, (...)."""
    return np.sqrt(dot(vectors, vectors))


def compose(a, b) -> np.ndarray:
    """Products ``a @ b`` of (..., 4, 4) rigid transforms (leading dimensions broadcast):
    rotation ``Ra Rb``, translation ``Ra tb + ta``; the bottom row is (0, 0, 0, 1)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    rotation = matmul(a[..., :3, :3], b[..., :3, :3])
    out = np.zeros(rotation.shape[:-2] + (4, 4))
    out[..., :3, :3] = rotation
    out[..., :3, 3] = apply(a[..., :3, :3], b[..., :3, 3]) + a[..., :3, 3]
    out[..., 3, 3] = 1.0
    return out


def rigid_inverse(transforms) -> np.ndarray:
    """Inverses of (..., 4, 4) rigid transforms (rotation R, translation t): R^T and
    -R^T t. The bottom row is taken as (0, 0, 0, 1)."""
    t = np.asarray(transforms, dtype=float)
    out = np.zeros(t.shape)
    rotation_t = np.swapaxes(t[..., :3, :3], -1, -2)
    out[..., :3, :3] = rotation_t
    out[..., :3, 3] = -apply(rotation_t, t[..., :3, 3])
    out[..., 3, 3] = 1.0
    return out


def sin(angles) -> np.ndarray:
    """Elementwise sine (rad), from the C library (:func:`math.sin`)."""
    angles = np.asarray(angles, dtype=float)
    return np.fromiter(map(math.sin, angles.ravel()), float, angles.size).reshape(angles.shape)


def cos(angles) -> np.ndarray:
    """Elementwise cosine (rad), from the C library (:func:`math.cos`)."""
    angles = np.asarray(angles, dtype=float)
    return np.fromiter(map(math.cos, angles.ravel()), float, angles.size).reshape(angles.shape)


def _rotation(numerator, denominator):
    """(c, s) of the Jacobi rotation that zeroes an off-diagonal entry: with
    zeta = numerator / denominator, t = sign(zeta) / (|zeta| + sqrt(zeta^2 + 1))
    (the smaller root, Rutishauser's choice); the identity where ``denominator`` is 0.
    """
    active = denominator != 0.0
    with np.errstate(over='ignore'):     # zeta or zeta^2 overflows to inf: t is then 0
        zeta = np.divide(numerator, denominator, out=np.zeros_like(numerator), where=active)
        sign = np.where(zeta < 0.0, -1.0, 1.0)
        t = np.where(active, sign / (np.abs(zeta) + np.sqrt(zeta * zeta + 1.0)), 0.0)
    c = 1.0 / np.sqrt(t * t + 1.0)
    return c, t * c, active


#: The eigenvalues of the last matrices asked (a command asks for the same links'
#: inertias several times): key (shape, bytes) -> result; cleared when full.
_EIGENVALUES: dict = {}
_EIGENVALUES_KEPT = 256


def symmetric_eigenvalues(matrices) -> np.ndarray:
    """Eigenvalues of (..., n, n) symmetric matrices, ascending, (..., n): the cyclic
    Jacobi method (Golub and Van Loan, Matrix Computations, 4th ed., 8.5.2), accurate
    to rounding relative to the matrix's norm, as ``np.linalg.eigvalsh``. Only the upper
    triangle is read. The same matrices give the same bits (a copy of a kept result)."""
    a = np.array(matrices, dtype=float)
    key = (a.shape, a.tobytes())
    result = _EIGENVALUES.get(key)     # one lookup: another thread may clear the dict
    if result is None:
        result = _jacobi_eigenvalues(a)
        if len(_EIGENVALUES) >= _EIGENVALUES_KEPT:
            _EIGENVALUES.clear()
        _EIGENVALUES[key] = result
    return result.copy()


def _jacobi_eigenvalues(a: np.ndarray) -> np.ndarray:
    """:func:`symmetric_eigenvalues` of a float array (modified in place)."""
    n = a.shape[-1]
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    a = np.where(upper, a, np.swapaxes(a, -1, -2)) if n else a
    for _ in range(JACOBI_SWEEPS):
        rotated = False
        for p in range(n - 1):
            for q in range(p + 1, n):
                c, s, active = _rotation(a[..., q, q] - a[..., p, p], 2.0 * a[..., p, q])
                if not active.any():
                    continue
                rotated = True
                c, s = c[..., None], s[..., None]
                column_p, column_q = a[..., :, p].copy(), a[..., :, q].copy()
                a[..., :, p] = c * column_p - s * column_q
                a[..., :, q] = s * column_p + c * column_q
                row_p, row_q = a[..., p, :].copy(), a[..., q, :].copy()
                a[..., p, :] = c * row_p - s * row_q
                a[..., q, :] = s * row_p + c * row_q
                a[..., p, q] = a[..., q, p] = 0.0
        if not rotated:
            break
    return np.sort(np.diagonal(a, axis1=-2, axis2=-1), axis=-1)


def singular_values(matrices) -> np.ndarray:
    """Singular values of (..., r, c) matrices, descending, (..., min(r, c)): one-sided
    Jacobi (Hestenes; Demmel and Veselic 1992), which makes the columns orthogonal by
    plane rotations; the singular values are then the columns' norms. As accurate as
    ``np.linalg.svd(..., compute_uv=False)`` for small ones too (no Gram matrix)."""
    u = np.array(matrices, dtype=float)
    rows, columns = u.shape[-2:]
    for _ in range(JACOBI_SWEEPS):
        rotated = False
        for p in range(columns - 1):
            for q in range(p + 1, columns):
                up, uq = u[..., :, p].copy(), u[..., :, q].copy()
                alpha, beta, gamma = dot(up, up), dot(uq, uq), dot(up, uq)
                # skip columns already orthogonal to rounding (the rotation would be
                # the identity to rounding, and may not converge to exactly that)
                small = np.abs(gamma) <= 1e-15 * np.sqrt(alpha * beta)
                c, s, active = _rotation(beta - alpha, np.where(small, 0.0, 2.0 * gamma))
                if not active.any():
                    continue
                rotated = True
                c, s = c[..., None], s[..., None]
                u[..., :, p] = c * up - s * uq
                u[..., :, q] = s * up + c * uq
        if not rotated:
            break
    values = -np.sort(-norm(np.swapaxes(u, -1, -2)), axis=-1)
    return values[..., :min(rows, columns)]


def gram_root_determinant(matrices) -> np.ndarray:
    """sqrt(det(A)) of symmetric positive semi-definite (..., n, n) matrices, (...): the
    product of the Cholesky factor's diagonal, each pivot from the elementwise operations
    above in a fixed order (LAPACK's determinant rounds with the machine's BLAS kernel). A
    pivot at or below 0 (a singular matrix, to rounding) makes the result 0."""
    a = np.array(matrices, dtype=float)
    n = a.shape[-1]
    lower = np.zeros(a.shape)
    out = np.ones(a.shape[:-2])
    for j in range(n):
        pivot = a[..., j, j] - dot(lower[..., j, :j], lower[..., j, :j]) if j \
            else a[..., j, j].copy()
        singular = ~(pivot > 0.0)
        root = np.sqrt(np.where(singular, 1.0, pivot))
        out = np.where(singular, 0.0, out * root)
        lower[..., j, j] = root
        for i in range(j + 1, n):
            below = a[..., i, j] - dot(lower[..., i, :j], lower[..., j, :j]) if j \
                else a[..., i, j]
            lower[..., i, j] = np.where(singular, 0.0, below / root)
    return out
