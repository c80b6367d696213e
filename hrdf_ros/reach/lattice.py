"""The grid of a reach map: tool directions over the sphere and voxel centres in reach.

In: a count of directions; end-effector positions (N, 3), m, in the reference frame, and
a voxel edge (m). Out: unit vectors (N, 3) spread evenly over the sphere (a Fibonacci
sphere), the lattice points ``k * voxel`` (k integer per axis) near the positions (M, 3),
and each point's six face neighbours (M, 6), -1 where the neighbour is not in the grid.
"""
from __future__ import annotations

import math

import numpy as np

from .. import reproducible

#: Face neighbours of a lattice cell, in integer steps (x-, x+, y-, y+, z-, z+).
FACE_STEPS = np.array([[-1, 0, 0], [1, 0, 0], [0, -1, 0], [0, 1, 0], [0, 0, -1], [0, 0, 1]])


def fibonacci_sphere(count: int) -> np.ndarray:
    """(count, 3) unit vectors spread evenly over the sphere: the golden-angle spiral,
    point i at height ``z = 1 - (2 i + 1) / count`` and azimuth ``i * pi (3 - sqrt 5)``
    (Gonzalez, "Measurement of areas on a sphere using Fibonacci and latitude-longitude
    lattices", Math. Geosci. 42, 2010). The first points near +z, the last near -z.

    Raises:
        ValueError: ``count`` is not an integer >= 1.
    """
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise ValueError(f'directions must be an integer >= 1, got {count!r}')
    # elementwise IEEE operations and the C library's sine and cosine: the same bits on
    # every machine (numpy's own sine follows the CPU: hrdf_ros.reproducible)
    i = np.arange(count, dtype=float)
    z = 1.0 - (2.0 * i + 1.0) / count
    r = np.sqrt(np.maximum(0.0, 1.0 - z * z))
    azimuth = i * (math.pi * (3.0 - math.sqrt(5.0)))
    out = np.stack([r * reproducible.cos(azimuth), r * reproducible.sin(azimuth), z], axis=1)
    return out / reproducible.norm(out)[:, None]


def cells_of(positions: np.ndarray, voxel: float) -> np.ndarray:
    """(N, 3) int64: the lattice point ``k`` nearest each position (``k * voxel``)."""
    return np.rint(np.asarray(positions, dtype=float) / voxel).astype(np.int64)


class Lattice:
    """Lattice cells (integer triples) with a lookup from cell to row.

    Attributes:
        cells: (M, 3) int64, sorted (x, then y, then z).
        neighbours: (M, 6) int64, the row of each face neighbour (:data:`FACE_STEPS`
            order), -1 where it is not a cell of the lattice.
    """

    def __init__(self, cells: np.ndarray):
        self.cells = np.unique(np.asarray(cells, dtype=np.int64).reshape(-1, 3), axis=0)
        self._low = self.cells.min(axis=0) - 1 if len(self.cells) else np.zeros(3, np.int64)
        self._size = (self.cells.max(axis=0) + 2 - self._low) if len(self.cells) \
            else np.ones(3, np.int64)
        self._keys = self._key(self.cells)          # ascending: cells are sorted
        self.neighbours = np.stack([self.rows(self.cells + step) for step in FACE_STEPS],
                                   axis=1) if len(self.cells) else np.empty((0, 6), np.int64)

    def _key(self, cells: np.ndarray) -> np.ndarray:
        c = cells - self._low
        return (c[:, 0] * self._size[1] + c[:, 1]) * self._size[2] + c[:, 2]

    def rows(self, cells: np.ndarray) -> np.ndarray:
        """(N,) int64: the row of each cell (N, 3), -1 where it is not in the lattice."""
        cells = np.asarray(cells, dtype=np.int64).reshape(-1, 3)
        inside = np.all((cells > self._low) & (cells < self._low + self._size - 1), axis=1)
        out = np.full(len(cells), -1, dtype=np.int64)
        if not len(self._keys):
            return out
        keys = self._key(cells[inside])
        found = np.searchsorted(self._keys, keys)
        found = np.minimum(found, len(self._keys) - 1)
        hit = self._keys[found] == keys
        rows = np.where(hit, found, -1)
        out[inside] = rows
        return out


def reach_cells(positions: np.ndarray, voxel: float) -> np.ndarray:
    """(M, 3) int64: the lattice cells that hold one of ``positions`` (N, 3), m, and the
    cells around them (their 26 neighbours): the points ``k * voxel`` within about a
    voxel of where the end effector was seen."""
    seen = np.unique(cells_of(positions, voxel), axis=0)
    steps = np.stack(np.meshgrid([-1, 0, 1], [-1, 0, 1], [-1, 0, 1], indexing='ij'),
                     axis=-1).reshape(-1, 3)
    return np.unique((seen[:, None, :] + steps[None]).reshape(-1, 3), axis=0)


def tool_rotations(directions: np.ndarray) -> np.ndarray:
    """(N, 3, 3) rotations whose z axis is each unit direction (N, 3); the x axis is the
    direction's cross product with the reference z axis (reference x near the poles):
    the roll a ``'tip_axis'`` IK target leaves free."""
    d = np.asarray(directions, dtype=float)
    helper = np.where(np.abs(d[:, 2:3]) < 0.9, [[0.0, 0.0, 1.0]], [[1.0, 0.0, 0.0]])
    x = reproducible.cross(helper, d)
    x /= reproducible.norm(x)[:, None]
    y = reproducible.cross(d, x)
    return np.stack([x, y, d], axis=2)
