"""The checks of an inverse kinematics request (:mod:`.ik`): targets, seeds, joint limits
and numbers, each turned into the arrays the solvers take, or a ValueError that says
what is wrong.

In: what the caller gave (array-likes, mappings, numbers). Out: float64 C-contiguous
arrays: targets (N, 4, 4) (and whether one was given alone), seeds (N, dof), limits
(dof, 2) with -inf/inf for free joints; a positive float.
"""
from __future__ import annotations

import math
from typing import Mapping

import numpy as np

#: A target's rotation block must be orthonormal (|R^T R - I| entries) and its last row
#: (0, 0, 0, 1) to this much.
POSE_TOLERANCE = 1e-6


def check_targets(target) -> tuple:
    """(targets (N, 4, 4), single) from a (4, 4) or (N, 4, 4) pose.

    Raises:
        ValueError: another shape, a non-finite entry, or not a rigid transform.
    """
    t = np.asarray(target, dtype=float)
    single = t.ndim == 2
    if t.shape[-2:] != (4, 4) or t.ndim not in (2, 3):
        raise ValueError(f'target must be a (4, 4) pose or (N, 4, 4) poses; got {t.shape}')
    if single:           # one pose, checked on 16 floats: a few microseconds, not tens
        if not _rigid(*t.ravel().tolist()):
            check_poses(t[None], True)          # raises, saying why
        return np.ascontiguousarray(t.reshape(1, 4, 4)), True
    t = np.ascontiguousarray(t)
    check_poses(t, False)
    return t, False


def _rigid(r00, r01, r02, x, r10, r11, r12, y, r20, r21, r22, z, b0, b1, b2, b3) -> bool:
    """Whether 16 numbers (row major) are a finite rigid transform (the rules of
    :func:`check_poses`)."""
    if not math.isfinite(r00 + r01 + r02 + x + r10 + r11 + r12 + y + r20 + r21 + r22 + z
                         + b0 + b1 + b2 + b3):
        return False
    c = POSE_TOLERANCE
    gram = (r00 * r00 + r10 * r10 + r20 * r20 - 1.0, r01 * r01 + r11 * r11 + r21 * r21 - 1.0,
            r02 * r02 + r12 * r12 + r22 * r22 - 1.0, r00 * r01 + r10 * r11 + r20 * r21,
            r00 * r02 + r10 * r12 + r20 * r22, r01 * r02 + r11 * r12 + r21 * r22,
            b0, b1, b2, b3 - 1.0)
    determinant = r02 * (r10 * r21 - r20 * r11) + r12 * (r20 * r01 - r00 * r21) \
        + r22 * (r00 * r11 - r10 * r01)
    return max(abs(v) for v in gram) <= c and determinant > 0.0


def check_poses(t: np.ndarray, single: bool) -> None:
    """Raises ValueError unless every (4, 4) of t (N, 4, 4) is finite, its rotation
    orthonormal with determinant +1 and its last row (0, 0, 0, 1), each to
    :data:`POSE_TOLERANCE`."""
    if not np.isfinite(t).all():
        raise ValueError('target must be finite (no NaN or inf)')
    rotations = t[:, :3, :3]
    orthonormal = np.abs(np.matmul(rotations.transpose(0, 2, 1), rotations)
                         - np.eye(3)).max(axis=(1, 2))
    bottom = np.abs(t[:, 3] - (0.0, 0.0, 0.0, 1.0)).max(axis=1)
    bad = (orthonormal > POSE_TOLERANCE) | (bottom > POSE_TOLERANCE) \
        | (np.linalg.det(rotations) <= 0.0)
    if bad.any():
        where = '' if single else f' (target {int(np.argmax(bad))})'
        raise ValueError(f'target must be a rigid transform: an orthonormal rotation with '
                         f'determinant +1 and a last row 0 0 0 1{where}')


def check_seeds(seed, count: int, dof: int) -> np.ndarray:
    """(count, dof) seeds from None (zeros), (dof,) or (count, dof).

    Raises:
        ValueError: another shape, or a non-finite entry.
    """
    if seed is None:
        return np.zeros((count, dof))
    s = np.asarray(seed, dtype=float)
    if s.shape == (dof,):
        s = np.broadcast_to(s, (count, dof))
    elif s.shape != (count, dof):
        raise ValueError(f'seed must have shape ({dof},) or ({count}, {dof}); got {s.shape}')
    if not np.isfinite(s).all():
        raise ValueError('seed must be finite (no NaN or inf)')
    return np.ascontiguousarray(s)


def _pair(name: str, value) -> tuple:
    """(lower, upper) of one joint's limits (-inf/inf where None): a pair, a mapping or
    an object with ``lower`` and ``upper``.

    Raises:
        ValueError: anything else, or bounds that are not numbers.
    """
    if isinstance(value, Mapping):
        pair = value.get('lower'), value.get('upper')
    elif isinstance(value, (tuple, list, np.ndarray)) and len(value) == 2:
        pair = tuple(value)
    elif not isinstance(value, (str, bytes)) and hasattr(value, 'lower') \
            and hasattr(value, 'upper'):
        pair = value.lower, value.upper
    else:
        raise ValueError(f'limits of {name}: expected (lower, upper), got {value!r}')
    bounds = []
    for bound, free in zip(pair, (-math.inf, math.inf)):
        if bound is None:
            bounds.append(free)
        elif isinstance(bound, (int, float, np.number)) and not isinstance(bound, bool):
            bounds.append(float(bound))
        else:
            raise ValueError(f'limits of {name}: bounds must be numbers, got {bound!r}')
    return tuple(bounds)


def joint_limit_array(joint_limits, joint_names) -> np.ndarray:
    """(dof, 2) lower/upper bounds (rad or m; -inf/inf: free) from None, a (dof, 2)
    array, or a mapping ``{joint name: (lower, upper)}`` (or values with ``lower`` and
    ``upper``, as :func:`~hrdf_ros.description.limits.read_limits` gives; None: free) over
    ``joint_names`` (dof order).

    Raises:
        ValueError: a wrong shape, an unknown joint name, NaN, or lower > upper.
    """
    dof = len(joint_names)
    limits = np.empty((dof, 2))
    limits[:, 0], limits[:, 1] = -math.inf, math.inf
    if joint_limits is None:
        return limits
    if isinstance(joint_limits, Mapping):
        index = {name: k for k, name in enumerate(joint_names)}
        for name, value in joint_limits.items():
            if name not in index:
                raise ValueError(f"limits for unknown joint '{name}' (joints: "
                                 f"{', '.join(joint_names)})")
            limits[index[name]] = _pair(name, value)
    else:
        given = np.asarray(joint_limits, dtype=float)
        if given.shape != (dof, 2):
            raise ValueError(f'joint_limits must have shape ({dof}, 2) (lower, upper per '
                             f'joint) or map joint names; got {given.shape}')
        limits[...] = given
    if np.isnan(limits).any():
        raise ValueError('joint limits must not be NaN')
    wrong = np.nonzero(limits[:, 0] > limits[:, 1])[0]
    if len(wrong):
        k = int(wrong[0])
        raise ValueError(f'limits of {joint_names[k]}: lower {limits[k, 0]} > upper '
                         f'{limits[k, 1]}')
    return limits


def positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
            or not value > 0 or not math.isfinite(value):
        raise ValueError(f'{name} must be a finite number > 0, got {value!r}')
    return float(value)
