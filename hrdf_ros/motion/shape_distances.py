"""Distances and lower bounds of pairs of primitive shapes, for :mod:`.clearance`: two
oriented boxes by the separating axes, two cylinders by their capsules, and a sphere
against a sphere, a box or a cylinder in closed form.

In: poses (E, 4, 4) or frames (N, R, 4, 4) (one frame for both shapes, m) and sizes. Out:
(E,) or (N, R) numbers, m, that the Euclidean distance of the two shapes is never below
(the closed forms: equal to it, less :data:`SLACK`). numpy only; the compiled kernels
(:mod:`.compiled_clearance`) compute the same by the same formulas.
"""
from __future__ import annotations

import numpy as np

#: m, taken off every exact distance besides its relative GJK tolerance.
SLACK = 2e-6
#: hpp-fcl's GJK tolerance (relative, the distance requests' default ``gjk_tolerance``).
GJK_TOLERANCE = 1e-6
#: Shape kinds, as the compiled kernels (:mod:`.compiled_clearance`) number them.
BOX, CYLINDER, SPHERE, MESH = 0, 1, 2, 3


def box_gaps(a: np.ndarray, half_a: np.ndarray, b: np.ndarray, half_b: np.ndarray
             ) -> np.ndarray:
    """(E,) the largest gap, m, between boxes a and b projected on the 15 axes of the
    separating axis test (<= their distance; <= 0 where no axis separates them): box
    poses (E, 4, 4) (centred, in one frame), half sizes (E, 3)."""
    ra, rb = a[:, :3, :3], b[:, :3, :3]
    t = np.einsum('eji,ej->ei', ra, b[:, :3, 3] - a[:, :3, 3])       # in a's frame
    r = np.einsum('eki,ekj->eij', ra, rb)                             # a_i . b_j
    absolute = np.abs(r)
    gaps = [np.abs(t) - half_a - np.einsum('eij,ej->ei', absolute, half_b),
            np.abs(np.einsum('eij,ei->ej', r, t)) - half_b
            - np.einsum('eij,ei->ej', absolute, half_a)]
    for i in range(3):
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        for j in range(3):
            j1, j2 = (j + 1) % 3, (j + 2) % 3
            length = np.sqrt(np.maximum(0.0, 1.0 - r[:, i, j] * r[:, i, j]))
            projected = np.abs(t[:, i2] * r[:, i1, j] - t[:, i1] * r[:, i2, j])
            reach = half_a[:, i1] * absolute[:, i2, j] + half_a[:, i2] * absolute[:, i1, j] \
                + half_b[:, j1] * absolute[:, i, j2] + half_b[:, j2] * absolute[:, i, j1]
            usable = length > 1e-6
            gap = np.full(len(a), -np.inf)
            gap[usable] = (projected[usable] - reach[usable]) / length[usable]
            gaps.append(gap[:, None])
    return np.concatenate(gaps, axis=1).max(axis=1) - SLACK


#: Below this sine of the angle between two cylinders' axes, their capsules give no bound
#: (the boxes' and the exact ones remain): the closest points of near-parallel lines are
#: ill-conditioned.
PARALLEL_SINE = 1e-4


def capsule_gaps(a: np.ndarray, half_a: np.ndarray, b: np.ndarray, half_b: np.ndarray
                 ) -> np.ndarray:
    """(E,) lower bounds, m, on the distance of two cylinders (poses (E, 4, 4), their
    axes z; half sizes (E, 3): radius, radius, half length): the distance of their axes'
    segments less both radii, each cylinder lying inside the capsule of its radius around
    its segment; -inf where the axes are near-parallel (:data:`PARALLEL_SINE`).

    The segments' distance is the least of a convex quadratic over a rectangle of the
    two segments' parameters: on one of its four edges (each a one-parameter least,
    clamped, exact) or at the lines' closest points when those lie on both segments
    (then the lines' distance |r . n| / |n|, n the axes' cross product). Where the
    closest points' parameters come within 1e-6 m of the segments, the lines' distance
    is taken too, so a rounding error can only lower the bound.
    """
    u1, u2 = a[:, :3, 2], b[:, :3, 2]
    h1, h2 = half_a[:, 2], half_b[:, 2]
    r = a[:, :3, 3] - b[:, :3, 3]
    dot = np.einsum('ek,ek->e', u1, u2)
    d, e = np.einsum('ek,ek->e', u1, r), np.einsum('ek,ek->e', u2, r)

    def length(s, t):
        gap = r + s[:, None] * u1 - t[:, None] * u2
        return np.sqrt(np.einsum('ek,ek->e', gap, gap))

    best = np.full(len(a), np.inf)
    for sign in (-1.0, 1.0):
        s = sign * h1
        best = np.minimum(best, length(s, np.clip(dot * s + e, -h2, h2)))
        t = sign * h2
        best = np.minimum(best, length(np.clip(dot * t - d, -h1, h1), t))
    n = np.cross(u1, u2)
    sine = np.sqrt(np.einsum('ek,ek->e', n, n))
    usable = sine >= PARALLEL_SINE
    square = np.where(usable, sine * sine, 1.0)
    s_line, t_line = (dot * e - d) / square, (e - dot * d) / square
    inside = usable & (np.abs(s_line) <= h1 + 1e-6) & (np.abs(t_line) <= h2 + 1e-6)
    lines = np.abs(np.einsum('ek,ek->e', r, n)) / np.where(usable, sine, 1.0)
    best = np.where(inside, np.minimum(best, lines), best)
    return np.where(usable, best - half_a[:, 0] - half_b[:, 0] - SLACK, -np.inf)


def point_table(pairs, shapes, objects, kinds, robot_count: int):
    """The rows of ``pairs`` (P, 2) (geometry objects: the robot's ``shapes``, then from
    ``robot_count`` the ``objects``; ``kinds`` each one's) that put a sphere against a
    sphere, a box or a cylinder (no floor, no mesh): (R,) rows, (R,) the sphere's end,
    (R,) the other end, (R,) its kind (:data:`BOX`, :data:`CYLINDER`, :data:`SPHERE`),
    (R, 3) its size (a box's half sizes; a cylinder's radius and half length; a sphere's
    radius), (R,) the sphere's radius."""
    codes = {'box': BOX, 'cylinder': CYLINDER, 'sphere': SPHERE}

    def size(end):
        if end < robot_count:
            geometry = shapes[end].geometry
            if kinds[end] == 'box':
                return list(shapes[end].half)
            if kinds[end] == 'cylinder':
                return [geometry.radius, geometry.halfLength, 0.0]
            return [geometry.radius, 0.0, 0.0]
        o = objects[end - robot_count]
        if o.type == 'box':
            return [d / 2 for d in o.dimensions]
        if o.type == 'cylinder':
            return [o.dimensions[1], o.dimensions[0] / 2, 0.0]
        return [o.dimensions[0], 0.0, 0.0]

    table = [[], [], [], [], [], []]
    for row, (a, b) in enumerate(pairs):
        if kinds[a] != 'sphere':
            a, b = b, a
        if kinds[a] != 'sphere' or kinds[b] not in codes:
            continue
        for column, value in zip(table, (row, a, b, codes[kinds[b]], size(b), size(a)[0])):
            column.append(value)
    return (np.array(table[0], dtype=np.int64), np.array(table[1], dtype=np.int64),
            np.array(table[2], dtype=np.int64), np.array(table[3], dtype=np.int64),
            np.array(table[4], dtype=float).reshape(-1, 3), np.array(table[5], dtype=float))


def point_gaps(centre: np.ndarray, frame: np.ndarray, kind: np.ndarray, size: np.ndarray,
               radius: np.ndarray) -> np.ndarray:
    """(N, R) the distance of spheres, centres (N, R, 3), to the other shapes of their rows,
    frames (N, R, 4, 4), kinds and sizes (R,), (R, 3) as :func:`point_table` gives them,
    m, less :data:`SLACK`, in closed form: the centre in the other shape's frame, its
    distance to a box, a solid cylinder (radial and axial excess) or a sphere, less the
    radius (<= 0: touching or intersecting)."""
    local = np.einsum('nrji,nrj->nri', frame[:, :, :3, :3], centre - frame[:, :, :3, 3])
    gap = np.empty(local.shape[:2])
    box, cylinder = kind == BOX, kind == CYLINDER
    sphere = ~(box | cylinder)
    excess = np.maximum(np.abs(local[:, box]) - size[box], 0.0)
    gap[:, box] = np.sqrt(np.einsum('nrk,nrk->nr', excess, excess))
    x, y = local[:, cylinder, 0], local[:, cylinder, 1]
    radial = np.maximum(np.sqrt(x * x + y * y) - size[cylinder, 0], 0.0)
    axial = np.maximum(np.abs(local[:, cylinder, 2]) - size[cylinder, 1], 0.0)
    gap[:, cylinder] = np.sqrt(radial * radial + axial * axial)
    gap[:, sphere] = np.maximum(np.linalg.norm(local[:, sphere], axis=2) - size[sphere, 0],
                                0.0)
    return gap - radius - SLACK


def sphere_radius(shape, kind: str) -> float:
    """m, the radius of a sphere around a robot shape (:class:`~.pinocchio_robot.RobotShape`)
    centred on its box: a box's half diagonal, a cylinder's hypot(radius, half length), a
    sphere's radius, a mesh's farthest vertex."""
    geometry = shape.geometry
    if kind == 'box':
        return float(np.linalg.norm(shape.half))
    if kind == 'cylinder':
        return float(np.hypot(geometry.radius, geometry.halfLength))
    if kind == 'sphere':
        return float(geometry.radius)
    centre = shape.box[:3, 3]
    return float(np.max(np.linalg.norm(shape.vertices - centre, axis=1), initial=0.0))


def floor_tables(shapes, kinds):
    """The constants of floor rows for :func:`~.compiled_clearance.cheap`, from each row's
    robot shape and kind: (F,) kind codes, (F, 3) sizes (a box's half sizes; a cylinder's
    radius and half length), (F, 3, 3) the shapes' rotations in their links, a mesh's
    vertices (V, 3) and each row's first and count of them."""
    codes = {'box': BOX, 'cylinder': CYLINDER, 'sphere': SPHERE, 'mesh': MESH}
    kind, size, box, vertices, first, count = [], [], [], [], [], []
    total = 0
    for shape, k in zip(shapes, kinds):
        kind.append(codes[k])
        box.append(shape.box[:3, :3])
        if k == 'box':
            size.append(shape.half)
        elif k == 'cylinder':
            size.append([shape.geometry.radius, shape.geometry.halfLength, 0.0])
        else:
            size.append([0.0, 0.0, 0.0])
        points = shape.vertices if k == 'mesh' else np.zeros((0, 3))
        vertices.append(points)
        first.append(total)
        count.append(len(points))
        total += len(points)
    return (np.array(kind, dtype=np.int64), np.array(size, dtype=float).reshape(-1, 3),
            np.array(box, dtype=float).reshape(-1, 3, 3),
            np.concatenate(vertices).reshape(-1, 3) if vertices else np.zeros((0, 3)),
            np.array(first, dtype=np.int64), np.array(count, dtype=np.int64))
