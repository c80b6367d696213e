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
touching; tested against mplib's FCL). A floor is the exception: a shape touches it when
its own lowest point is at or below the plane (:meth:`~.clearance.Clearance.floor_gaps`),
since hpp-fcl 2.4.4 calls about half of all cylinders that reach 5 mm into a half-space
free.

Motions between states are proven free, not sampled: :meth:`PlanningScene.certify` and
:meth:`PlanningScene.segment_free` (:mod:`.certified`, over the distance bounds of
:mod:`.clearance` and the motion bounds of :func:`~.resolution.pair_weights`).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..description.robot import RobotDescription
from ..description.semantics import Semantics
from ..kinematics import Kinematics
from . import pinocchio_robot, scene_geometry
from .certified import Certifier
from .scene_proofs import SceneProofs
from .clearance import Clearance
from .objects import CollisionObject
from .requirements import require
from .resolution import pair_weights, shape_arms
from .sieve import Sieve, link_sources

Pair = Tuple[str, str]
#: Batches this large and larger are sifted first (smaller ones: each state in C++).
SIEVE_FROM = 8
#: On the compiled path, a state alone is sifted first when this many pairs or more are
#: checked (fewer: Pinocchio's loop over them costs less than posing the links).
SIFT_ONE_FROM = 120


class PlanningScene(SceneProofs):
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
        model = description.model
        self._ratios = np.array([float(model.elements[e].gear_ratio)
                                 for e in model.dof_elements]).reshape(-1)
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

    def set_objects(self, objects: Sequence[CollisionObject]) -> None:
        """Replace the collision objects.

        Raises:
            ValueError: two objects with one name.
        """
        names = [o.name for o in objects]
        if len(set(names)) != len(names):
            raise ValueError('collision objects: names must be unique')
        self.objects = {o.name: o for o in objects}
        built = scene_geometry.build(self._pin, self._geometry, self._robot, objects,
                                     set(self.checked))
        model, pairs, count = built.model, built.indices, len(self._robot.shapes)
        self._pairs: List[Pair] = built.pairs
        self._geometry_model = model
        self._geometry_data = self._pin.GeometryData(model)
        self.version += 1
        self._sieve = Sieve(self._kinematics, self._sources, self.links, self._robot.shapes,
                            pairs, count, built.object_poses, built.object_boxes,
                            built.floors)
        arms = shape_arms(self._poser, [(shape.link, shape.reach) for shape in
                                        self._robot.shapes],
                          list(self._description.tree.dof_names), self._ratios,
                          self.gripper_positions)
        #: the rows' motion weights and slides (:func:`~.resolution.pair_weights`)
        self.weights, slides = pair_weights(arms, pairs, count)
        self.slides = slides
        self.clearance = Clearance(self._pin, self._robot, self._data, model,
                                   self._geometry_data, pairs, count, self._sieve._owner,
                                   list(objects), self._sieve.link_poses,
                                   self._sieve.compiled)
        # a floor is checked by the shapes' lowest points, not by hpp-fcl (its
        # cylinder-halfspace test misses contacts: hrdf_ros.motion.clearance)
        self._floor_rows = self.clearance.floor_rows
        self._floor_of = {int(row): k for k, row in enumerate(self._floor_rows)}
        for row in self._floor_rows:
            self._geometry_data.deactivateCollisionPair(int(row))
        self._certifier = Certifier(self.clearance, self.weights, slides,
                                    self._sieve.link_poses, self._dof,
                                    compiled=self._sieve.compiled,
                                    free_states=self._free_posed,
                                    colliding_row=self._colliding_row)

    def set_gripper_positions(self, positions) -> None:
        """Hold the parallel grippers' fingers at ``positions`` (``{finger joint: URDF
        value}``, rad: 0 open, :data:`~hrdf_ros.kinematics.gripper.GRIPPER_UPPER`
        closed; the others keep theirs): their parts are posed there in every later
        check. Rebuilds the collision model (a few ms).

        Raises:
            ValueError: a name that is no finger joint, or a value that is not finite or
                outside the joint's limits.
        """
        values = pinocchio_robot.gripper_values(self.gripper_positions, self.gripper_limits,
                                                positions)
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

    def _floor_touching(self, positions: np.ndarray) -> np.ndarray:
        """(N, F) bool: each floor row's shape at or below its floor, at (N, dof) states."""
        if not len(self._floor_rows):
            return np.zeros((len(positions), 0), dtype=bool)
        return self.clearance.floor_gaps(self._sieve.link_poses(positions)) <= 0.0

    def _collides(self, positions: np.ndarray, first: bool) -> bool:
        hit = bool(self._pin.computeCollisions(
            self._robot.model, self._data, self._geometry_model, self._geometry_data,
            self._robot.configuration(positions), first))
        found = -1
        if hit:
            for row, result in enumerate(self._geometry_data.collisionResults):
                if result.isCollision() and row not in self._floor_of:
                    found = row
                    break
        self._floors_hit = self._floor_touching(positions[None])[0] if             len(self._floor_rows) and (not hit or not first) else None
        if self._floors_hit is not None and self._floors_hit.any():
            if not hit:
                found = int(self._floor_rows[int(np.argmax(self._floors_hit))])
            hit = True
        if hit and self._blocks is not None and found >= 0:
            self._blocks[found] += 1
        self._first_row = found
        return hit

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

    def _free_posed(self, positions: np.ndarray, poses: np.ndarray) -> np.ndarray:
        """(N,) free, stopping at the first in collision, of (N, dof) states whose links'
        poses (N, L, 4, 4) are known (the certifier's states)."""
        if not self._pairs:
            return np.ones(len(positions), dtype=bool)
        return self._sifted(np.asarray(positions, dtype=float), True, poses)

    def _sifted(self, positions: np.ndarray, stop_at_first: bool,
                poses: Optional[np.ndarray] = None) -> np.ndarray:
        """(N,) free, FCL asked only about the sieve's candidates (``poses``: the links'
        poses of the states, when known)."""
        free = np.ones(len(positions), dtype=bool)
        pin, placed = self._pin, -1
        states, rows = self._sieve.candidates(positions, poses)
        floors = {}
        if len(self._floor_rows) and len(rows):
            on_floor = np.isin(rows, self._floor_rows)
            if on_floor.any():
                asked = np.unique(states[on_floor])
                touching = self._floor_touching(positions[asked])
                floors = {int(n): touching[k] for k, n in enumerate(asked)}
        for n, row in zip(states, rows):
            if not free[n]:
                continue
            k = self._floor_of.get(int(row))
            if k is not None:
                if floors[int(n)][k]:
                    free[n] = False
                    if self._blocks is not None:
                        self._blocks[row] += 1
                    if stop_at_first:
                        break
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
        for row, (pair, result) in enumerate(zip(self._pairs,
                                                 self._geometry_data.collisionResults)):
            k = self._floor_of.get(row)
            hit = bool(self._floors_hit[k]) if k is not None else result.isCollision()
            if hit and pair not in found:
                found.append(pair)
        return found
