"""The nearest configurations of collision-free IK's seed table (:class:`~.collision_free_ik.
SeedTable`) as one compiled kernel (numba; the optional extra ``hrdf_ros[fast]``), used when
the planner's kinematics take the compiled path.

In: the table's end effector positions (K, 3), rotations (K, 9) and z axes (K, 3), the
target's, the objective and the orientation weight, and a count. Out: the rows of the
``count`` nearest, nearest first (ties: the lower row), by the same distance as the numpy
path (:meth:`~.collision_free_ik.SeedTable.nearest`): one pass over the table keeping the
best in an insertion-sorted list, ~3 us for 800 rows where numpy's nine array calls take
~80 us on the same machine.

Compiled on first use and cached on disk as :mod:`hrdf_ros.kinematics.compiled`'s kernels
are. Imported only by :class:`~.collision_free_ik.SeedTable`, on the compiled path.
"""
from __future__ import annotations

import math

import numpy as np

from ..kinematics import compiled as _kernels  # noqa: F401 - sets NUMBA_CACHE_DIR first

from numba import njit  # noqa: E402


@njit(cache=True)
def nearest(positions, rotations, axes, target_position, target_rotation, target_axis,
            mode, weight, count, out):
    """Fill ``out`` (count,) with the rows nearest the target (module docstring); mode 0
    full (position + weight / sqrt 2 x the rotations' chord), 1 tip axis (+ weight x the
    z axes' chord), 2 position only. Returns how many rows were written."""
    rows = positions.shape[0]
    best = np.empty(count)
    kept = 0
    root2 = math.sqrt(2.0)
    for k in range(rows):
        d = 0.0
        for i in range(3):
            e = positions[k, i] - target_position[i]
            d += e * e
        distance = math.sqrt(d)
        if mode == 0:
            d = 0.0
            for i in range(9):
                e = rotations[k, i] - target_rotation[i]
                d += e * e
            distance += weight / root2 * math.sqrt(d)
        elif mode == 1:
            d = 0.0
            for i in range(3):
                e = axes[k, i] - target_axis[i]
                d += e * e
            distance += weight * math.sqrt(d)
        if kept == count and distance >= best[count - 1]:
            continue
        j = kept if kept < count else count - 1
        while j > 0 and best[j - 1] > distance:     # ties keep the earlier row first
            if j < count:
                best[j] = best[j - 1]
                out[j] = out[j - 1]
            j -= 1
        best[j] = distance
        out[j] = k
        if kept < count:
            kept += 1
    return kept
