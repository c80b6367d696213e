"""Lower bounds on how far apart the checked pairs of a planning scene are.

In: the scene's collision shapes (:class:`~.pinocchio_robot.RobotShape`, on Pinocchio's
joints), its checked rows (pairs of shapes, and of a shape and a collision object), the
objects, and states (dof,) or (N, dof) with the links posed for them ((N, L, 4, 4), root
link frame, m: :meth:`~.sieve.Sieve.link_poses`). Out: per state and row a number, m,
that the Euclidean distance between the row's two shapes is never below: the proofs of
:mod:`.certified` add them up.

Three kinds, each a true lower bound, each asked only where the one before does not
prove enough:

* **cheap** (:meth:`Clearance.cheap`, every state and row at once in numpy): the gap
  between two spheres that contain the shapes (centred on each shape's bounding box;
  for a box its half diagonal, a cylinder hypot(radius, half length), a sphere its
  radius, a mesh its farthest vertex); against a floor the shape's own lowest point
  (exact: a box's lowest corner, a cylinder's lowest rim point, a mesh's lowest vertex,
  which is its convex hull's); and for a sphere (the robot's or an object) against a
  sphere, a box or a cylinder, their distance in closed form (the centre in the other
  shape's frame: its distance to the box, to the solid cylinder from its radial and
  axial excess, or to the sphere, less the radius): these rows are exact already
  (:attr:`Clearance.cheap_is_exact`), and no distance query is asked for them;
* **boxes** (:meth:`Clearance.boxes`, in numpy): the largest gap between the two shapes'
  oriented bounding boxes projected on one of the 15 axes of the separating axis test
  (each box's 3 face normals, the 9 cross products of their edges, normalised). Two
  convex sets are at least as far apart as their projections on any unit axis, so each
  gap is a lower bound (for a box the box is the shape itself; a cylinder, a sphere and
  a mesh lie inside theirs); for two cylinders also the distance of their axes'
  segments less both radii (each lies inside that capsule;
  :func:`~.shape_distances.capsule_gaps`),
  which equals their distance where the closest points are clear of the rims;
* **exact** (:meth:`Clearance.exact`): against a floor, the shape's own lowest point (as
  the cheap bound: hpp-fcl 2.4.4's cylinder-halfspace distance overestimates, and its
  collision test misses contacts, in about half of all orientations: measured 980 of
  2 000 random ones overestimated, 1 802 of 4 000 cylinders 5 mm into the floor called
  free; boxes, spheres and capsules are right). Otherwise FCL's distance (Pinocchio's
  hpp-fcl 2.4), less
  what its GJK may overestimate. hpp-fcl's GJK stops when its distance rl and the best
  separating plane found, alpha <= true distance, satisfy rl - alpha <= tol * rl (the
  VDB criterion, relative, ``gjk_tolerance`` 1e-6: hpp-fcl ``src/narrowphase/gjk.cpp``,
  ``GJK::checkConvergence``), and returns rl; a GJK that fails returns 0. So rl (1 - tol)
  is below the true distance; :data:`SLACK` more covers the shapes' placement (Pinocchio's
  against hrdf_ros's kinematics, ~1e-11 m) and rounding. Meshes (grippers) are triangle
  soups whose bounding-volume tree is searched without error bounds (``rel_err`` and
  ``abs_err`` 0: hpp-fcl then prunes only subtrees provably farther than the best pair
  found), each triangle against the other shape by the same GJK. Shapes that intersect
  give 0 or less.

Not python-fcl: its DistanceRequest passes its arguments to the wrong parameters, and
FCL's libccd box-box distance overestimates (FCL issue 508). The bounds are tested
against dense sampling of the shapes' surfaces and the exact box-box distance
(test/test_certified.py).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .shape_distances import (BOX, CYLINDER, GJK_TOLERANCE, MESH, PARALLEL_SINE,  # noqa: F401
                              SLACK, SPHERE, box_gaps, capsule_gaps, floor_tables, point_gaps,
                              point_table, sphere_radius)

def _object_half(o) -> np.ndarray:
    """(3,) half sizes of the box around a collision object (0 for a floor, which the
    boxes do not bound: its rows are exact already)."""
    if o.type == 'box':
        return np.array(o.dimensions, dtype=float) / 2
    if o.type == 'sphere':
        return np.full(3, float(o.dimensions[0]))
    if o.type == 'cylinder':
        height, radius = o.dimensions
        return np.array([radius, radius, height / 2], dtype=float)
    return np.zeros(3)


def _shape_kind(geometry) -> str:
    name = type(geometry).__name__
    return {'Box': 'box', 'Cylinder': 'cylinder', 'Sphere': 'sphere'}.get(name, 'mesh')


class Clearance:
    """Lower bounds on the distances of a scene's rows (module docstring)."""

    def __init__(self, pin, robot, data, geometry_model, geometry_data, pairs: np.ndarray,
                 robot_count: int, owner: np.ndarray, objects: Sequence, link_poses,
                 compiled: bool = False):
        """Args:
            pin: the ``pinocchio`` module.
            robot: the scene's :class:`~.pinocchio_robot.PinocchioRobot` (its shapes are
                the first ``robot_count`` geometry objects).
            data, geometry_model, geometry_data: Pinocchio's, the rows being the
                geometry model's collision pairs in order.
            pairs: (P, 2) the rows' geometry objects (>= ``robot_count``: an object).
            owner: (S,) each shape's link (index into the posed links).
            objects: the :class:`~.objects.CollisionObject` values, in order.
            link_poses: (N, dof) states -> (N, L, 4, 4) the links' poses.
            compiled: compute the cheap and the boxes' bounds in the compiled kernels
                (:mod:`.compiled_clearance`; numba).
        """
        self._pin, self._robot, self._data = pin, robot, data
        self._link_poses = link_poses
        self._model, self._gdata = geometry_model, geometry_data
        self.pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        self._count, self._owner = robot_count, np.asarray(owner, dtype=np.int64)
        shapes = robot.shapes
        self._kind = [_shape_kind(s.geometry) for s in shapes]
        #: (S, 4) homogeneous centres of the shapes' spheres in their link frames
        self._centre = np.zeros((len(shapes), 4))
        self._centre[:, 3] = 1.0
        self._radius = np.zeros(len(shapes))
        for k, s in enumerate(shapes):
            self._centre[k, :3] = s.box[:3, 3]
            self._radius[k] = sphere_radius(s, self._kind[k])
        object_centre, object_radius, plane = [], [], []
        for o in objects:
            object_centre.append(np.asarray(o.position, dtype=float))
            plane.append(o.type == 'floor')
            if o.type == 'box':
                object_radius.append(float(np.linalg.norm(o.dimensions)) / 2)
            elif o.type == 'sphere':
                object_radius.append(float(o.dimensions[0]))
            elif o.type == 'cylinder':
                object_radius.append(float(np.hypot(o.dimensions[1], o.dimensions[0] / 2)))
            else:
                object_radius.append(0.0)
        self._object_centre = np.array(object_centre).reshape(-1, 3)
        self._object_radius = np.array(object_radius)
        i, j = self.pairs[:, 0], self.pairs[:, 1]
        world = j >= robot_count
        floor = np.zeros(len(self.pairs), dtype=bool)
        floor[world] = np.array(plane, dtype=bool)[j[world] - robot_count]
        #: rows of two shapes, of a shape and a solid object, of a shape and a floor
        self.robot_rows = np.flatnonzero(~world)
        self.object_rows = np.flatnonzero(world & ~floor)
        self.floor_rows = np.flatnonzero(floor).astype(np.int64)
        kinds = self._kind + [o.type for o in objects]
        #: each geometry object's kind: the robot's shapes ('box', 'cylinder', 'sphere',
        #: 'mesh'), then the objects ('box', 'sphere', 'cylinder', 'floor')
        self.kinds = kinds
        #: (P,) bool: the boxes' bound decides (two boxes: no separating axis among the 15
        #: means they intersect), no exact distance is asked
        self.boxes_decide = np.array([kinds[a] == 'box' and kinds[b] == 'box'
                                      for a, b in self.pairs], dtype=bool).reshape(-1)
        #: (P,) bool: rows of two cylinders, whose capsules bound them too
        self.capsule_rows = np.array([kinds[a] == kinds[b] == 'cylinder'
                                      for a, b in self.pairs], dtype=bool).reshape(-1)
        #: rows of a sphere (the robot's or an object) and a sphere, a box or a cylinder,
        #: whose distance the cheap bounds give in closed form
        self._point = point_table(self.pairs, shapes, objects, kinds, robot_count)
        self.point_rows = self._point[0]
        self.cheap_is_exact = floor.copy()
        self.cheap_is_exact[self.point_rows] = True
        self._floor_height = np.array([self._object_centre[o, 2] for o in
                                       j[self.floor_rows] - robot_count])
        floor_shapes = i[self.floor_rows]
        self._floor_kinds = {}
        for kind in ('box', 'cylinder', 'sphere', 'mesh'):
            picked = np.flatnonzero([self._kind[s] == kind for s in floor_shapes])
            if len(picked):
                self._floor_kinds[kind] = picked
        self._shapes = shapes
        self._box = np.array([s.box for s in shapes]).reshape(-1, 4, 4)
        self._half = np.array([s.half for s in shapes]).reshape(-1, 3)
        self._object_pose = np.array([o.pose() for o in objects]).reshape(-1, 4, 4)
        self._object_half = np.array([_object_half(o) for o in objects]).reshape(-1, 3)
        self._kernels = None
        if compiled:
            from . import compiled_clearance  # noqa: PLC0415 - numba only when compiled
            self._kernels = compiled_clearance
            on_floor = self.pairs[self.floor_rows, 0]
            self._floor_arrays = floor_tables([shapes[k] for k in on_floor],
                                              [self._kind[k] for k in on_floor])

    def _frames(self, poses: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """(N, E, 4, 4) the frames of geometry objects ``ends`` (E,) (robot shapes: their
        link's pose times their box; objects: their pose) for the links posed at (N, L, 4,
        4)."""
        out = np.empty((len(poses), len(ends), 4, 4))
        robot = ends < self._count
        if robot.any():
            out[:, robot] = np.einsum('nrij,rjk->nrik', poses[:, self._owner[ends[robot]]],
                                      self._box[ends[robot]])
        if (~robot).any():
            out[:, ~robot] = self._object_pose[ends[~robot] - self._count]
        return out

    def _point_gaps(self, poses: np.ndarray) -> np.ndarray:
        """(N, R) the sphere rows' (:attr:`point_rows`) distances in closed form
        (:func:`~.shape_distances.point_gaps`)."""
        _, point, other, kind, size, radius = self._point
        return point_gaps(self._frames(poses, point)[:, :, :3, 3], self._frames(poses, other),
                          kind, size, radius)

    def cheap(self, poses: np.ndarray) -> np.ndarray:
        """(N, P) lower bounds, m, for the links posed at (N, L, 4, 4) (module
        docstring); exact on the floor rows (:attr:`cheap_is_exact`)."""
        poses = np.ascontiguousarray(poses, dtype=float)
        n = len(poses)
        out = np.empty((n, len(self.pairs)))
        if self._kernels is not None:
            kind, size, box, vertices, first, count = self._floor_arrays
            self._kernels.cheap(poses, self._owner, self._centre, self._radius, self.pairs,
                                self._count, self._object_centre, self._object_radius,
                                self.floor_rows, kind, size, box, vertices, first, count,
                                self._floor_height, SLACK, out)
            if len(self.point_rows):
                self._kernels.point_gaps(poses, self._owner, self._box, self._count,
                                         self._object_pose, *self._point, SLACK, out)
            return out
        owner = self._owner
        # the spheres' centres (N, S, 3)
        centres = np.einsum('nsij,sj->nsi', poses[:, owner, :3, :], self._centre)
        rows = self.robot_rows
        if len(rows):
            i, j = self.pairs[rows, 0], self.pairs[rows, 1]
            gap = centres[:, i] - centres[:, j]
            out[:, rows] = np.sqrt(np.einsum('npk,npk->np', gap, gap)) \
                - (self._radius[i] + self._radius[j])
        rows = self.object_rows
        if len(rows):
            i, o = self.pairs[rows, 0], self.pairs[rows, 1] - self._count
            gap = centres[:, i] - self._object_centre[o]
            out[:, rows] = np.sqrt(np.einsum('npk,npk->np', gap, gap)) \
                - (self._radius[i] + self._object_radius[o])
        if len(self.floor_rows):
            out[:, self.floor_rows] = self._floor_gaps(poses, centres)
        if len(self.point_rows):
            out[:, self.point_rows] = self._point_gaps(poses)
        return out

    def floor_gaps(self, poses: np.ndarray) -> np.ndarray:
        """(N, F) how far the lowest point of each floor row's shape (:attr:`floor_rows`)
        is above its floor, m, less :data:`SLACK` (<= 0: touching or below), for the links
        posed at (N, L, 4, 4): exact, for every kind of shape (not hpp-fcl's: its
        cylinder-halfspace test misses contacts, module docstring)."""
        poses = np.asarray(poses, dtype=float)
        centres = np.einsum('nsij,sj->nsi', poses[:, self._owner, :3, :], self._centre)
        return self._floor_gaps(poses, centres)

    def _floor_gaps(self, poses: np.ndarray, centres: np.ndarray) -> np.ndarray:
        """(N, F) the lowest point of each floor row's shape above its floor, m (less
        :data:`SLACK`)."""
        rows = self.floor_rows
        shapes = self.pairs[rows, 0]
        out = np.empty((len(poses), len(rows)))
        for kind, picked in self._floor_kinds.items():
            s = shapes[picked]
            if kind == 'mesh':
                for column, k in zip(picked, s):
                    pose = poses[:, self._owner[k]]
                    heights = self._shapes[k].vertices @ pose[:, 2, :3].T + pose[:, 2, 3]
                    out[:, column] = heights.min(axis=0)
                continue
            # the shape's own frame in the world: link pose times its placement in the link
            rotation = np.einsum('nsij,sjk->nsik', poses[:, self._owner[s], :3, :3],
                                 np.array([self._shapes[k].box[:3, :3] for k in s]))
            z = centres[:, s, 2]
            if kind == 'box':
                half = np.array([self._shapes[k].half for k in s])
                out[:, picked] = z - np.einsum('nsk,sk->ns', np.abs(rotation[:, :, 2, :]),
                                               half)
            elif kind == 'cylinder':
                radius = np.array([self._shapes[k].geometry.radius for k in s])
                half = np.array([self._shapes[k].geometry.halfLength for k in s])
                axis_z = np.abs(rotation[:, :, 2, 2])
                out[:, picked] = z - axis_z * half \
                    - radius * np.sqrt(np.maximum(0.0, 1.0 - axis_z * axis_z))
            else:
                out[:, picked] = z - self._radius[s]
        return out - self._floor_height - SLACK

    def boxes(self, poses: np.ndarray, states: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """(E,) lower bounds, m, by the separating axes of the two boxes (module
        docstring) of (state, row) entries ``states``, ``rows`` (E,), the links posed
        at (N, L, 4, 4) ``poses``; floor rows give their exact bound."""
        rows = np.asarray(rows, dtype=int)
        out = np.empty(len(rows))
        if self._kernels is not None:
            self._kernels.boxes(np.ascontiguousarray(poses), np.asarray(states, dtype=np.int64),
                                rows.astype(np.int64), self._owner, self._box, self._half,
                                self.pairs, self._count, self._object_pose, self._object_half,
                                self.capsule_rows, SLACK, out)
            floor = self.cheap_is_exact[rows]
            if floor.any():
                out[floor] = -np.inf          # their cheap bound is exact: never lower it
            return out
        poses = poses[states]
        i, j = self.pairs[rows, 0], self.pairs[rows, 1]
        entries = np.arange(len(rows))
        a = np.einsum('eij,ejk->eik', poses[entries, self._owner[i]], self._box[i])
        world = j >= self._count
        b = np.empty_like(a)
        robot = ~world
        b[robot] = np.einsum('eij,ejk->eik', poses[entries[robot], self._owner[j[robot]]],
                             self._box[j[robot]])
        b[world] = self._object_pose[j[world] - self._count]
        half_b = np.empty((len(rows), 3))
        half_b[robot] = self._half[j[robot]]
        half_b[world] = self._object_half[j[world] - self._count]
        out[:] = box_gaps(a, self._half[i], b, half_b)
        capsule = self.capsule_rows[rows]
        if capsule.any():
            out[capsule] = np.maximum(out[capsule], capsule_gaps(
                a[capsule], self._half[i[capsule]], b[capsule], half_b[capsule]))
        floor = self.cheap_is_exact[rows]
        if floor.any():
            out[floor] = -np.inf          # their cheap bound is exact: never lower it
        return out

    def exact(self, q: np.ndarray, rows: Sequence[int]) -> np.ndarray:
        """(R,) lower bounds, m, on the distances of ``rows`` at the (dof,) state ``q``
        (module docstring): hpp-fcl's distance less its tolerance, <= 0 where the shapes
        touch or intersect; a floor row's exact lowest point (:meth:`floor_gaps`)."""
        pin, robot = self._pin, self._robot
        rows = np.asarray(list(rows), dtype=np.int64)
        out = np.empty(len(rows))
        closed = self.cheap_is_exact[rows]
        if closed.any():
            out[closed] = self.cheap(self._link_poses(np.asarray(q, dtype=float)[None]))[
                0, rows[closed]]
        if closed.all():
            return out
        pin.updateGeometryPlacements(robot.model, self._data, self._model, self._gdata,
                                     robot.configuration(q))
        for k in np.flatnonzero(~closed):
            distance = pin.computeDistance(self._model, self._gdata, int(rows[k])).min_distance
            out[k] = distance - GJK_TOLERANCE * abs(distance) - SLACK
        return out
