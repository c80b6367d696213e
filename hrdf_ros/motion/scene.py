"""The planning scene: the robot's collision geometry, the pairs MoveIt would not check,
and collision objects; which states are in collision.

In: a :class:`~hrdf_ros.description.robot.RobotDescription`, its
:class:`~hrdf_ros.description.semantics.Semantics` (the SRDF's disabled pairs) and
:class:`~.objects.CollisionObject` values. Out: :meth:`PlanningScene.in_collision`,
:meth:`PlanningScene.colliding_pairs` for one state and :meth:`PlanningScene.free` for a
batch; a state is (dof,) joint positions in the model's (HEBI's) order, rad or m, a
gripper's finger at 0 (open).

What is checked, as MoveIt checks it:

* every pair of links with collision geometry that the SRDF does not disable
  (``Adjacent``, ``Default``, ``Always``, ``Never``: :mod:`hrdf_ros.description.collision_matrix`);
* every link that a joint moves against every collision object. Links no joint moves
  (the base, what is bolted to it) are where the robot is mounted: they are not checked
  against objects, or a robot standing on its table would always collide with it.

The shapes are the URDF's ``<collision>`` shapes (python-fcl geometry,
:mod:`hrdf_ros.description.collision_shapes`), posed by hrdf_ros's kinematics
(:class:`~hrdf_ros.kinematics.Kinematics`, the compiled path where installed). A pair is
first tested with bounding spheres (numpy, every pair at once); python-fcl decides the
pairs whose spheres meet, then with the oriented boxes that contain the shapes (the
separating axis test); python-fcl decides the pairs whose boxes meet. "In collision" is
FCL's: the shapes intersect or touch.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..description.collision_matrix import boxes_overlap
from ..description.collision_shapes import collision_shapes, require_fcl
from ..description.frame_tree import link_frames
from ..description.robot import RobotDescription
from ..description.semantics import Semantics
from ..kinematics import Kinematics
from ..kinematics import gripper as mechanism
from .objects import CollisionObject

Pair = Tuple[str, str]
#: Added to every bounding box, m: touching shapes always reach FCL.
_SLACK = 1e-6


class PlanningScene:
    """Collision checks of robot states (module docstring).

    Attributes:
        links: the links with collision geometry (URDF names), URDF order.
        objects: the collision objects, by name.
        checked: the link pairs checked against each other (not disabled).
    """

    def __init__(self, description: RobotDescription, meaning: Semantics,
                 objects: Sequence[CollisionObject] = (), kinematics: Optional[Kinematics] = None):
        """Build the FCL geometry of the robot and the objects.

        Raises:
            ImportError: python-fcl missing.
        """
        self._fcl = fcl = require_fcl()
        model, tree = description.model, description.tree
        self._kinematics = kinematics or Kinematics(model)
        self._dof = model.dof_count
        shapes = collision_shapes(description.collision_geometry())
        self.links: List[str] = list(shapes.links)
        self._shapes = shapes.shapes
        self._shape_link = np.array([s.link for s in shapes.shapes], dtype=int)
        self._local = np.array([s.shape_pose for s in shapes.shapes]).reshape(-1, 4, 4)
        self._obb = np.array([s.obb_pose for s in shapes.shapes]).reshape(-1, 4, 4)
        self._half = np.array([s.half_extents for s in shapes.shapes]).reshape(-1, 3) + _SLACK
        # bounding spheres: the box's centre and half diagonal
        self._radius = np.sqrt((self._half * self._half).sum(axis=1))
        self._robot_objects = [fcl.CollisionObject(s.geometry, fcl.Transform())
                               for s in shapes.shapes]
        self._request = fcl.CollisionRequest()
        self._link_source = self._sources(model, tree)
        self._moving = self._moving_links()
        disabled = set(meaning.disabled)
        opaque = set(shapes.opaque)
        self.checked: List[Pair] = [
            (a, b) for i, a in enumerate(self.links) for b in self.links[i + 1:]
            if tuple(sorted((a, b))) not in disabled and a not in opaque and b not in opaque]
        checked = set(self.checked)
        rows = [(i, j) for i, sa in enumerate(self._shapes) for j, sb in enumerate(self._shapes)
                if i < j and (self.links[sa.link], self.links[sb.link]) in checked]
        self._pairs = np.array(rows, dtype=int).reshape(-1, 2)
        self.objects: Dict[str, CollisionObject] = {}
        self._object_list: List[CollisionObject] = []
        self.set_objects(objects)

    def _sources(self, model, tree) -> List[Tuple[str, int, Optional[np.ndarray]]]:
        """Per link with geometry: (frame type, index, constant offset or None)."""
        frames = link_frames(model, tree)
        parts = mechanism.zero_poses()
        for gripper in tree.grippers:
            for part in mechanism.PART_NAMES:
                frames[gripper.links[part]] = ('gripper', gripper.element, part)
        out = []
        for link in self.links:
            source = frames[link]
            if source[0] == 'gripper':
                out.append(('input', source[1], parts[source[2]]))
            else:
                out.append((source[0], source[1], None))
        return out

    def _moving_links(self) -> np.ndarray:
        """(L,) bool: links whose pose changes with the joints."""
        if not self._dof:
            return np.zeros(len(self.links), dtype=bool)
        probe = np.array([np.zeros(self._dof), np.full(self._dof, 0.5),
                          np.full(self._dof, -0.5)])
        poses = self.link_poses(probe)
        return np.any(np.abs(poses - poses[:1]) > 1e-12, axis=(0, 2, 3))

    def set_objects(self, objects: Sequence[CollisionObject]) -> None:
        """Replace the collision objects (names must be unique)."""
        fcl = self._fcl
        names = [o.name for o in objects]
        if len(set(names)) != len(names):
            raise ValueError('collision objects: names must be unique')
        self._object_list = list(objects)
        self.objects = {o.name: o for o in objects}
        self._object_fcl = []
        poses, halves = [], []
        for o in objects:
            pose = o.pose()
            if o.type == 'box':
                geometry, half = fcl.Box(*o.dimensions), np.array(o.dimensions) / 2
            elif o.type == 'sphere':
                geometry, half = fcl.Sphere(o.dimensions[0]), np.full(3, o.dimensions[0])
            elif o.type == 'cylinder':
                height, radius = o.dimensions
                geometry, half = fcl.Cylinder(radius, height), np.array([radius, radius,
                                                                         height / 2])
            else:   # floor: the half-space below z = position z
                geometry = fcl.Halfspace(np.array([0.0, 0.0, 1.0]), o.position[2])
                pose, half = np.eye(4), np.full(3, np.inf)
            self._object_fcl.append(fcl.CollisionObject(
                geometry, fcl.Transform(pose[:3, :3], pose[:3, 3])))
            poses.append(pose)
            halves.append(half + _SLACK)
        self._object_pose = np.array(poses).reshape(-1, 4, 4)
        self._object_half = np.array(halves).reshape(-1, 3)
        self._object_radius = np.sqrt((self._object_half ** 2).sum(axis=1))
        self._floors = np.array([o.type == 'floor' for o in objects], dtype=bool)
        moving_shapes = np.flatnonzero(self._moving[self._shape_link]) if len(self._shapes) \
            else np.zeros(0, dtype=int)
        self._object_pairs = np.array([(s, k) for s in moving_shapes
                                       for k in range(len(objects))], dtype=int).reshape(-1, 2)

    def link_poses(self, positions: np.ndarray) -> np.ndarray:
        """(N, L, 4, 4) poses of the links with geometry (root link frame, m) for (N, dof)
        joint positions."""
        positions = np.asarray(positions, dtype=float).reshape(-1, self._dof)
        frames = {}
        out = np.empty((len(positions), len(self.links), 4, 4))
        for k, (kind, index, offset) in enumerate(self._link_source):
            if kind == 'base':
                out[:, k] = np.eye(4)
                continue
            if kind not in frames:
                frames[kind] = self._kinematics.frames(kind, positions)
            out[:, k] = frames[kind][:, index] if offset is None \
                else frames[kind][:, index] @ offset
        return out

    def _candidates(self, positions: np.ndarray):
        """Shape poses (N, S, 4, 4) and the (state, pair) and (state, object pair) entries
        whose bounding boxes meet (module docstring)."""
        poses = self.link_poses(positions)[:, self._shape_link]
        shape_poses = poses @ self._local
        boxes = poses @ self._obb                                      # (N, S, 4, 4)
        centres = boxes[..., :3, 3]
        i, j = self._pairs[:, 0], self._pairs[:, 1]
        gap = centres[:, i] - centres[:, j]
        reach = self._radius[i] + self._radius[j]
        n, k = np.nonzero((gap * gap).sum(axis=2) <= reach * reach)
        keep = boxes_overlap(boxes[n, i[k]], self._half[i[k]], boxes[n, j[k]], self._half[j[k]])
        robot = n[keep], k[keep]
        world = (np.zeros(0, dtype=int), np.zeros(0, dtype=int))
        if len(self._object_pairs):
            s, o = self._object_pairs[:, 0], self._object_pairs[:, 1]
            floor = self._floors[o]
            gap = centres[:, s] - self._object_pose[o, :3, 3]
            reach = self._radius[s] + np.where(floor, 0.0, self._object_radius[o])
            near = (gap * gap).sum(axis=2) <= reach * reach
            if floor.any():     # the lowest corner of the shape's box below the plane
                depth = (np.abs(boxes[:, s[floor], 2, :3]) * self._half[s[floor]]).sum(axis=2)
                near[:, floor] = (centres[:, s[floor], 2] - depth
                                  <= self._object_pose[o[floor], 2, 3])
            n, k = np.nonzero(near)
            solid = ~floor[k]
            keep = np.ones(len(n), dtype=bool)
            keep[np.flatnonzero(solid)[boxes_overlap(
                boxes[n[solid], s[k[solid]]], self._half[s[k[solid]]],
                self._object_pose[o[k[solid]]], self._object_half[o[k[solid]]])]] = False
            keep ^= solid         # solid pairs: kept where their boxes overlap
            world = n[keep], k[keep]
        return shape_poses, robot, world

    def _collide(self, shape: int, pose: np.ndarray, other) -> bool:
        robot = self._robot_objects[shape]
        robot.setRotation(pose[:3, :3])
        robot.setTranslation(pose[:3, 3])
        return self._fcl.collide(robot, other, self._request) > 0

    def _robot_pair(self, shape_poses, n: int, pair: int) -> bool:
        i, j = self._pairs[pair]
        other = self._robot_objects[j]
        other.setRotation(shape_poses[n, j, :3, :3])
        other.setTranslation(shape_poses[n, j, :3, 3])
        return self._collide(i, shape_poses[n, i], other)

    def _object_pair(self, shape_poses, n: int, pair: int) -> bool:
        shape, k = self._object_pairs[pair]
        return self._collide(shape, shape_poses[n, shape], self._object_fcl[k])

    def free(self, positions: np.ndarray) -> np.ndarray:
        """(N,) bool: each of (N, dof) states is free of collision."""
        positions = np.asarray(positions, dtype=float).reshape(-1, self._dof)
        free = np.ones(len(positions), dtype=bool)
        if not len(positions):
            return free
        shape_poses, robot, world = self._candidates(positions)
        for n, pair in zip(*robot):
            if free[n] and self._robot_pair(shape_poses, n, pair):
                free[n] = False
        for n, pair in zip(*world):
            if free[n] and self._object_pair(shape_poses, n, pair):
                free[n] = False
        return free

    def in_collision(self, positions) -> bool:
        """True when a (dof,) state is in collision (module docstring).

        Raises:
            ValueError: positions of another length or not finite.
        """
        return not bool(self.free(self._state(positions))[0])

    def colliding_pairs(self, positions) -> List[Pair]:
        """The pairs in collision at a (dof,) state: ``(link, link)`` for two links (URDF
        order) or ``(link, object name)``, in that order of checking.

        Raises:
            ValueError: as :meth:`in_collision`.
        """
        shape_poses, robot, world = self._candidates(self._state(positions))
        found = []
        for n, pair in zip(*robot):
            i, j = self._pairs[pair]
            names = (self.links[self._shape_link[i]], self.links[self._shape_link[j]])
            if names not in found and self._robot_pair(shape_poses, n, pair):
                found.append(names)
        for n, pair in zip(*world):
            shape, k = self._object_pairs[pair]
            names = (self.links[self._shape_link[shape]], self._object_list[k].name)
            if names not in found and self._object_pair(shape_poses, n, pair):
                found.append(names)
        return found

    def _state(self, positions) -> np.ndarray:
        q = np.asarray(positions, dtype=float)
        if q.shape != (self._dof,):
            raise ValueError(f'expected {self._dof} joint positions, got shape {q.shape}')
        if not np.all(np.isfinite(q)):
            raise ValueError('joint positions must be finite')
        return q[None, :]
