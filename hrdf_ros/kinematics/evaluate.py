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
    shape = (4, 4) if first else (fs.count, 4, 4)
    return _request(kernels and kernels.transforms, fs.transform if first else fs.transforms,
                    batch.transforms, shape, fs, q, single, out, threads, first)


def jacobians(kernels, fs: FrameSet, q: np.ndarray, single: bool, out=None,
              threads: int = 1, first: bool = False) -> np.ndarray:
    """Geometric Jacobians of the frames of ``fs`` (see the module docstring)."""
    shape = (6, fs.dof_count) if first else (fs.count, 6, fs.dof_count)
    one = (lambda x: fs.jacobians(x)[0]) if first else fs.jacobians
    return _request(kernels and kernels.jacobians, one, batch_jacobians.jacobians, shape,
                    fs, q, single, out, threads, first)


def _request(compiled, numpy_one, numpy_batch, shape, fs, q, single, out, threads, first):
    """One request: ``compiled(fs, q, out[, threads])`` (a kernel of :mod:`.compiled`,
    or None), else ``numpy_one(q)`` for one configuration and ``numpy_batch(fs, q, out)``
    for a batch; ``shape`` is the result's for one configuration."""
    if threads.__class__ is not int or threads < 1:     # the common case: one check
        threads = check_threads(threads)
    if single:
        if compiled is None:
            result = numpy_one(q)
            return result if out is None else _into(out, result, q)
        out = np.empty(shape) if out is None else result_array(out, shape, sources=(q,))
        compiled(fs, q, out[None] if first else out)
        return out
    if compiled is not None and out is None:     # written once, in order: no prefault
        out = np.empty((len(q),) + shape)
    else:
        out = result_array(out, (len(q),) + shape, sources=(q,))
    view = out[:, None] if first else out
    if compiled is None:
        numpy_batch(fs, q, view)
    else:
        compiled(fs, q, view, threads)
    return out


def _into(out, result: np.ndarray, q: np.ndarray) -> np.ndarray:
    """A one-configuration numpy result copied into ``out`` (checked)."""
    out = result_array(out, result.shape, sources=(q,))
    out[...] = result
    return out
