"""The planning scene: the robot's collision geometry, the pairs MoveIt would not check,
and collision objects; which states are in collision.

In: a :class:`~hrdf_ros.description.robot.RobotDescription`, its
:class:`~hrdf_ros.description.semantics.Semantics` (the SRDF's disabled pairs and the
URDF's joints) and :class:`~.objects.CollisionObject` values. Out:
:meth:`PlanningScene.in_collision`, :meth:`PlanningScene.colliding_pairs` for one state and
:meth:`PlanningScene.free` for a batch. A state is (dof,) joint positions in the model's
(HEBI's) order, rad or m; a parallel gripper's finger joint is where
:meth:`PlanningScene.set_gripper_positions` puts it (0, open, until then), as MoveIt
checks an arm's states with the gripper where it is.

What is checked, as MoveIt checks it:

* every pair of links with collision geometry that the SRDF does not disable
  (``Adjacent``, ``Default``, ``Always``, ``Never``:
  :mod:`hrdf_ros.description.collision_matrix`); links whose geometry cannot be read
  (a missing mesh) are not checked, as in the matrix;
* every link that a joint moves against every collision object. Links no joint moves
  (the base, what is bolted to it) are where the robot is mounted: they are not checked
  against objects, or a robot standing on its table would always collide with it.

The shapes are the URDF's ``<collision>`` shapes as it writes them, on the URDF's joints
(:mod:`.pinocchio_robot`). The checks run in Pinocchio (PyPI ``pin``, BSD), whose
``computeCollisions`` poses every shape and asks FCL (its Coal, formerly hpp-fcl) about
each checked pair in C++: one state of a 7-DoF kit in ~30 us (~65 us with a gripper's
meshes), where a loop of python-fcl calls takes ~150 us. States are first sifted by
bounding volumes (:mod:`.sieve`); FCL then checks only the pairs whose volumes meet. On
the compiled path (``hrdf_ros[fast]``, :mod:`.compiled_sieve`) every check is sifted:
~25-30 us a state alone, 3-7 us a state in a motion's batch; on the numpy path, batches
of :data:`SIEVE_FROM` states and more, every state at once. "In collision" is FCL's: the shapes
intersect or touch, to its GJK tolerance (shapes a micrometre apart may count as
touching; tested against mplib's FCL).
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..description.robot import RobotDescription
from ..description.semantics import Semantics
from ..kinematics import Kinematics
from . import pinocchio_robot
from .objects import CollisionObject
from .requirements import require
from .sieve import Sieve, link_sources

Pair = Tuple[str, str]
#: Batches this large and larger are sifted first (smaller ones: each state in C++).
SIEVE_FROM = 8
#: On the compiled path, a state alone is sifted first when this many pairs or more are
#: checked (fewer: Pinocchio's loop over them costs less than posing the links).
SIFT_ONE_FROM = 120


def _object_box(o: CollisionObject) -> np.ndarray:
    """(3,) half sizes of the box around an object (inf for a floor)."""
    if o.type == 'floor':
        return np.full(3, np.inf)
    if o.type == 'box':
        return np.array(o.dimensions) / 2
    if o.type == 'sphere':
        return np.full(3, o.dimensions[0])
    height, radius = o.dimensions
    return np.array([radius, radius, height / 2])


def gripper_values(current: Dict[str, float], limits: Dict[str, Tuple[float, float]],
                   positions) -> Dict[str, float]:
    """``current`` ({finger joint: rad}) with ``positions`` over it, each checked against
    its (lower, upper) ``limits``.

    Raises:
        ValueError: a name that is no finger joint, or a value that is not finite or
            outside the joint's limits.
    """
    values = dict(current)
    for name, value in dict(positions).items():
        if name not in values:
            known = ', '.join(values) or 'none: the robot has no parallel gripper'
            raise ValueError(f"gripper position of '{name}': not a finger joint "
                             f'(finger joints: {known})')
        low, high = limits[name]
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or not math.isfinite(value) or not low - 1e-9 <= value <= high + 1e-9:
            raise ValueError(f'gripper position of {name} must be a number in '
                             f'[{low:.6g}, {high:.6g}] rad, got {value!r}')
        values[name] = float(value)
    return values


class PlanningScene:
    """Collision checks of robot states (module docstring).

    Attributes:
        links: the links with readable collision geometry (URDF names).
        checked: the link pairs checked against each other (not disabled).
        objects: the collision objects, by name.
        notes: links whose geometry could not be read (never checked), with the reason.
        version: counts the changes of what is checked (:meth:`set_objects`), for
            what is derived from the scene (collision-free IK's seed table).
    """

    def __init__(self, description: RobotDescription, meaning: Semantics,
                 objects: Sequence[CollisionObject] = (), kinematics: Kinematics = None):
        """Build the robot's Pinocchio model and collision geometry.

        Raises:
            ImportError: Pinocchio missing (the ``motion`` extra, :mod:`.requirements`).
        """
        self._pin = require('pinocchio')
        self._geometry = pinocchio_robot.geometry_module()
        self._description, self._poser = description, meaning.poser
        self._robot = pinocchio_robot.build(description, meaning.poser)
        self._data = self._robot.model.createData()
        self._dof = description.model.dof_count
        #: {finger joint: URDF value, rad} of the parallel grippers (0: open)
        self.gripper_positions: Dict[str, float] = {
            name: 0.0 for name in description.tree.gripper_joint_names}
        self.links: List[str] = self._robot.links
        self.notes: Dict[str, str] = self._robot.notes
        disabled = set(meaning.disabled)
        self.checked: List[Pair] = [
            (a, b) for i, a in enumerate(self.links) for b in self.links[i + 1:]
            if tuple(sorted((a, b))) not in disabled]
        self._kinematics = kinematics or Kinematics(description.model)
        self._sources = link_sources(description.model, description.tree, self.links)
        #: {finger joint: (lower, upper)} the URDF's limits, rad
        self.gripper_limits = {joint.name: (joint.lower, joint.upper)
                                for joint in meaning.urdf.joints
                                if joint.name in self.gripper_positions}
        self.objects: Dict[str, CollisionObject] = {}
        self.version = 0
        self._blocks: Optional[np.ndarray] = None      # per pair, while counting
        self.set_objects(objects)

    def _geometry_object(self, name: str, joint: int, placement: np.ndarray, solid):
        pin = self._pin
        se3 = pin.SE3(placement[:3, :3], placement[:3, 3])
        if int(pin.__version__.split('.')[0]) >= 3:
            return pin.GeometryObject(name, joint, 0, se3, solid)
        return pin.GeometryObject(name, 0, joint, solid, se3)

    def set_objects(self, objects: Sequence[CollisionObject]) -> None:
        """Replace the collision objects.

        Raises:
            ValueError: two objects with one name.
        """
        pin, geometry = self._pin, self._geometry
        names = [o.name for o in objects]
        if len(set(names)) != len(names):
            raise ValueError('collision objects: names must be unique')
        self.objects = {o.name: o for o in objects}
        model = pin.GeometryModel()
        owners = [shape.link for shape in self._robot.shapes]
        for k, shape in enumerate(self._robot.shapes):
            model.addGeometryObject(self._geometry_object(f'{shape.link}#{k}', shape.joint,
                                                          shape.placement, shape.geometry))
        poses = []
        for o in objects:
            pose = o.pose()
            if o.type == 'box':
                solid = geometry.Box(*o.dimensions)
            elif o.type == 'sphere':
                solid = geometry.Sphere(o.dimensions[0])
            elif o.type == 'cylinder':
                solid = geometry.Cylinder(o.dimensions[1], o.dimensions[0])
            else:                        # floor: the half-space below z = position z
                solid = geometry.Halfspace(np.array([0.0, 0.0, 1.0]), o.position[2])
                pose = np.eye(4)
                pose[2, 3] = o.position[2]      # the sieve's plane; FCL's is in the solid
            model.addGeometryObject(self._geometry_object(o.name, 0, np.eye(4) if
                                                          o.type == 'floor' else pose, solid))
            owners.append(o.name)
            poses.append(pose)
        count = len(self._robot.shapes)
        checked = set(self.checked)
        moving = {shape.link for shape in self._robot.shapes if shape.joint != 0}
        self._pairs: List[Pair] = []
        indices = []
        for i in range(len(owners)):
            for j in range(i + 1, len(owners)):
                a, b = owners[i], owners[j]
                if (j < count and (a, b) in checked) or (i < count <= j and a in moving):
                    model.addCollisionPair(pin.CollisionPair(i, j))
                    self._pairs.append((a, b))
                    indices.append((i, j))
        self._geometry_model = model
        self._geometry_data = pin.GeometryData(model)
        self.version += 1
        self._sieve = Sieve(self._kinematics, self._sources, self.links, self._robot.shapes,
                            np.array(indices, dtype=int).reshape(-1, 2), count,
                            np.array(poses).reshape(-1, 4, 4),
                            np.array([_object_box(o) for o in objects]).reshape(-1, 3),
                            np.array([o.type == 'floor' for o in objects], dtype=bool))

    def set_gripper_positions(self, positions) -> None:
        """Hold the parallel grippers' fingers at ``positions`` (``{finger joint: URDF
        value}``, rad: 0 open, :data:`~hrdf_ros.kinematics.gripper.GRIPPER_UPPER`
        closed; the others keep theirs): their parts are posed there in every later
        check. Rebuilds the collision model (a few ms).

        Raises:
            ValueError: a name that is no finger joint, or a value that is not finite or
                outside the joint's limits.
        """
        values = gripper_values(self.gripper_positions, self.gripper_limits, positions)
        if values == self.gripper_positions:
            return
        description = self._description
        self._robot = pinocchio_robot.build(description, self._poser, values)
        self._data = self._robot.model.createData()
        self._sources = link_sources(description.model, description.tree, self.links,
                                     values)
        self.gripper_positions = values
        self.set_objects(list(self.objects.values()))

    def _state(self, positions) -> np.ndarray:
        q = np.asarray(positions, dtype=float)
        if q.shape != (self._dof,):
            raise ValueError(f'expected {self._dof} joint positions, got shape {q.shape}')
        if not np.all(np.isfinite(q)):
            raise ValueError('joint positions must be finite')
        return q

    def _collides(self, positions: np.ndarray, first: bool) -> bool:
        hit = bool(self._pin.computeCollisions(
            self._robot.model, self._data, self._geometry_model, self._geometry_data,
            self._robot.configuration(positions), first))
        if hit and self._blocks is not None:
            for row, result in enumerate(self._geometry_data.collisionResults):
                if result.isCollision():
                    self._blocks[row] += 1
                    break
        return hit

    @contextmanager
    def counting_blocks(self):
        """Within the block, every state found in collision counts the pair found
        colliding (the first one checked); :meth:`most_blocking` reads the counts."""
        self._blocks = np.zeros(len(self._pairs), dtype=np.int64)
        try:
            yield
        finally:
            self.block_counts, self._blocks = self._blocks, None

    def most_blocking(self) -> Optional[Tuple[Pair, int, int]]:
        """(the pair of links (or link and object) that the last
        :meth:`counting_blocks` found in collision most often, how often, of how many
        states in collision), or None when it found none."""
        counts = getattr(self, 'block_counts', None)
        if counts is None or not counts.sum():
            return None
        by_pair: Dict[Pair, int] = {}
        for pair, count in zip(self._pairs, counts.tolist()):
            by_pair[pair] = by_pair.get(pair, 0) + count
        pair = max(by_pair, key=lambda p: (by_pair[p], -self._pairs.index(p)))
        return pair, by_pair[pair], int(counts.sum())

    def in_collision(self, positions) -> bool:
        """True when a (dof,) state is in collision (module docstring).

        Raises:
            ValueError: positions of another length or not finite.
        """
        q = self._state(positions)
        if self._sieve.compiled and len(self._pairs) >= SIFT_ONE_FROM:
            return not self._sifted(q[None], True)[0]
        return self._collides(q, True)

    def link_poses(self, positions) -> np.ndarray:
        """(N, L, 4, 4) poses of :attr:`links` (root link frame, m) for (N, dof) states
        (a gripper open)."""
        return self._sieve.link_poses(positions)

    def free(self, positions, stop_at_first: bool = False) -> np.ndarray:
        """(N,) bool: each of (N, dof) states is free of collision (sifted in numpy
        first: module docstring).

        Args:
            stop_at_first: stop at the first state in collision (the states after it
                then read free, unchecked): how a motion is checked.

        Raises:
            ValueError: positions not finite, or of another width.
        """
        positions = np.asarray(positions, dtype=float).reshape(-1, self._dof)
        if not np.all(np.isfinite(positions)):
            raise ValueError('joint positions must be finite')
        free = np.ones(len(positions), dtype=bool)
        if not len(positions) or not self._pairs:
            return free
        if len(positions) < SIEVE_FROM and not self._sieve.compiled:
            for n, q in enumerate(positions):     # the numpy sieve costs more than it saves
                free[n] = not self._collides(q, True)
                if stop_at_first and not free[n]:
                    break
            return free
        return self._sifted(positions, stop_at_first)

    def _sifted(self, positions: np.ndarray, stop_at_first: bool) -> np.ndarray:
        """(N,) free, FCL asked only about the sieve's candidates."""
        free = np.ones(len(positions), dtype=bool)
        pin, placed = self._pin, -1
        for n, row in zip(*self._sieve.candidates(positions)):
            if not free[n]:
                continue
            if n != placed:
                pin.updateGeometryPlacements(self._robot.model, self._data,
                                             self._geometry_model, self._geometry_data,
                                             self._robot.configuration(positions[n]))
                placed = n
            if pin.computeCollision(self._geometry_model, self._geometry_data, int(row)):
                free[n] = False
                if self._blocks is not None:
                    self._blocks[row] += 1
                if stop_at_first:
                    break
        return free

    def colliding_pairs(self, positions) -> List[Pair]:
        """The pairs in collision at a (dof,) state: ``(link, link)`` (URDF order) or
        ``(link, object name)``, each once.

        Raises:
            ValueError: as :meth:`in_collision`.
        """
        self._collides(self._state(positions), False)
        found: List[Pair] = []
        for pair, result in zip(self._pairs, self._geometry_data.collisionResults):
            if result.isCollision() and pair not in found:
                found.append(pair)
        return found
