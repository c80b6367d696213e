"""One request of :class:`~.kinematics.Kinematics` on its path: the frames or Jacobians
of a :class:`~.frame_set.FrameSet`, for one configuration or a batch, by numpy
(:mod:`.frame_set`, :mod:`.batch`, :mod:`.batch_jacobians`) or by the compiled kernels
(:mod:`.compiled`, passed in as ``kernels``; None for numpy).

In: the kernels or None, the frame set, checked positions q ((dof,) when ``single``,
else (N, dof)), the caller's ``out`` or None, and ``threads`` (batches on the compiled
path). Out: the result, ``out`` when given (checked by :mod:`.buffers`): frames
(…, n, 4, 4) or Jacobians (…, n, 6, dof); ``first=True`` drops the frame axis (a
one-frame set: (…, 4, 4), (…, 6, dof)).
"""
from __future__ import annotations

import numpy as np

from . import batch, batch_jacobians
from .buffers import result_array
from .frame_set import FrameSet


def check_threads(threads) -> int:
    """``threads`` checked: an int >= 1 (ValueError otherwise)."""
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f'threads must be an integer >= 1, got {threads!r}')
    return int(threads)


def frames(kernels, fs: FrameSet, q: np.ndarray, single: bool, out=None, threads: int = 1,
           first: bool = False) -> np.ndarray:
    """Frames of ``fs`` (see the module docstring)."""
    if threads.__class__ is not int or threads < 1:     # the common case: one check
        threads = check_threads(threads)
    shape = (4, 4) if first else (fs.count, 4, 4)
    if single:
        if kernels is None:
            result = fs.transform(q) if first else fs.transforms(q)
            return result if out is None else _into(out, result, q)
        if out is None:
            out = np.empty(shape)
        else:
            out = result_array(out, shape, sources=(q,))
        kernels.transforms(fs, q, out[None] if first else out)
        return out
    if kernels is not None and out is None:     # written once, in order: no prefault
        out = np.empty((len(q),) + shape)
    else:
        out = result_array(out, (len(q),) + shape, sources=(q,))
    view = out[:, None] if first else out
    if kernels is None:
        batch.transforms(fs, q, view)
    else:
        kernels.transforms(fs, q, view, threads)
    return out


def jacobians(kernels, fs: FrameSet, q: np.ndarray, single: bool, out=None,
              threads: int = 1, first: bool = False) -> np.ndarray:
    """Geometric Jacobians of the frames of ``fs`` (see the module docstring)."""
    if threads.__class__ is not int or threads < 1:     # the common case: one check
        threads = check_threads(threads)
    shape = (6, fs.dof_count) if first else (fs.count, 6, fs.dof_count)
    if single:
        if kernels is None:
            result = fs.jacobians(q)
            result = result[0] if first else result
            return result if out is None else _into(out, result, q)
        if out is None:
            out = np.empty(shape)
        else:
            out = result_array(out, shape, sources=(q,))
        kernels.jacobians(fs, q, out[None] if first else out)
        return out
    if kernels is not None and out is None:     # written once, in order: no prefault
        out = np.empty((len(q),) + shape)
    else:
        out = result_array(out, (len(q),) + shape, sources=(q,))
    view = out[:, None] if first else out
    if kernels is None:
        batch_jacobians.jacobians(fs, q, view)
    else:
        kernels.jacobians(fs, q, view, threads)
    return out


def _into(out, result: np.ndarray, q: np.ndarray) -> np.ndarray:
    """A one-configuration numpy result copied into ``out`` (checked)."""
    out = result_array(out, result.shape, sources=(q,))
    out[...] = result
    return out
