"""Result arrays supplied by the caller (the ``out=`` argument of the kinematics calls).

In: the caller's array and the shape the call's result has. Out: the same array, checked
to be one the call can fill in place (or a clear error); or a new array when the caller
gave none.

A caller that evaluates many batches in turn passes the same buffer every time: the call
then writes memory that is already mapped (no first-touch page faults, no allocation),
and a batch larger than memory is evaluated slice by slice into one buffer::

    buf = np.empty((B, kin.output_count, 4, 4))
    for start in range(0, len(q), B):
        part = q[start:start + B]
        frames = kin.frames('output', part, out=buf[:len(part)])   # a view of buf

(a leading-axis slice of a C-contiguous array is C-contiguous, so ``buf[:k]`` is a valid
``out``.)
"""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

#: A new result array of at least this many bytes is touched once per 4 KiB page before
#: it is filled: the kernel then maps and zeroes all its pages in one go, instead of in
#: the middle of the computation, where clearing each new page evicts the chunk's
#: scratch from the cache (measured, all output frames of a 7-DoF arm at N=100k: 0.72
#: -> 0.60 us per configuration; the same allocation filled right away: 0.22).
PREFAULT_BYTES = 1 << 22


def new_array(shape: Tuple[int, ...], zero: bool = False) -> np.ndarray:
    """A new float64 array (zeroed if ``zero``), its pages mapped when it is large."""
    if zero:
        return np.zeros(shape)
    out = np.empty(shape)
    if out.nbytes >= PREFAULT_BYTES:
        out.reshape(-1)[::512] = 0.0
    return out


def result_array(out: Optional[np.ndarray], shape: Tuple[int, ...], *,
                 sources: Tuple[np.ndarray, ...] = (), zero: bool = False) -> np.ndarray:
    """``out`` checked against ``shape``, or a new float64 array of that shape.

    Args:
        out: the caller's array, or None.
        shape: the shape of the call's result.
        sources: input arrays the call reads while it writes ``out`` (they must not
            share memory with it).
        zero: a new array starts zeroed (``out`` is used as it is; callers that need
            zeros where they write nothing clear those entries themselves).

    Raises:
        TypeError: ``out`` is not a numpy array of dtype float64.
        ValueError: ``out`` has another shape, is not C-contiguous, is read-only, or
            shares memory with one of ``sources``.
    """
    if out is None:
        return new_array(shape, zero)
    if not isinstance(out, np.ndarray):
        raise TypeError(f'out must be a numpy array, got {type(out).__name__}')
    if out.dtype != np.float64:
        raise TypeError(f'out must have dtype float64, got {out.dtype}')
    if out.shape != tuple(shape):
        raise ValueError(f'out must have shape {tuple(shape)}, got {out.shape}')
    if not out.flags.c_contiguous:
        raise ValueError('out must be C-contiguous (e.g. from np.empty, or a slice '
                         'buf[start:stop] of one)')
    if not out.flags.writeable:
        raise ValueError('out is read-only')
    for source in sources:
        if np.may_share_memory(out, source):
            raise ValueError('out shares memory with the input positions')
    return out
