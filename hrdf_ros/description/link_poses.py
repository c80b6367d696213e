"""Poses of URDF links for batches of URDF joint values, computed from the URDF's own joints.

In: the :class:`~hrdf_ros.model.RobotModel`, its
:class:`~hrdf_ros.description.frame_tree.FrameTree` and its link tree
(:class:`~.structure.LinkTree`, as the URDF states it). Out: (N, L, 4, 4) link poses in
the root link frame (m), geometric Jacobians of a link, and random or default joint
values the way MoveIt draws them.

The poses are what a URDF consumer computes (robot_state_publisher, MoveIt, FCL): each
link is its parent link's pose times its joint's origin times the joint's motion
about (along) the joint's axis by the joint's value. The origins are the model's frames
as the URDF writes them (:func:`~.structure.written_pose` of
:func:`~.frame_tree.joint_origin`: ``base_link`` is the reference frame, an element's
link its *input* frame, a link at an output with nothing mounted that *output* frame),
the axes :class:`~.joints.JointSpec`'s; a parallel gripper's part links hang on its
joints (:meth:`~.gripper.GripperTree.joint_specs`), mimic joints at
``multiplier * value + offset`` of the finger joint. URDF joint values are joint
motions; the HEBI position of an HRDF ``<joint gear_ratio="g">`` is g times its URDF value
(doc/explanation/conventions.md). Mimic joints have no column: MoveIt plans for the
finger joint, the others follow it.

Everything here is computed with :mod:`hrdf_ros.reproducible` (no BLAS, the C library's
sine and cosine), so the collision matrix, the named states and every number the MoveIt
package derives from link poses are the same bits on every machine.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import reproducible
from ..model import RobotModel
from .frame_tree import FrameTree, joint_origin
from .joints import joint_spec
from .structure import LinkTree, written_pose


@dataclass(frozen=True)
class JointMotion:
    """One URDF joint as the poser evaluates it: ``pose(child) = pose(parent) @ origin @
    motion(value)``; ``value`` is column ``column``'s (times ``multiplier``, plus
    ``offset``: a mimic joint's), or none for a fixed joint (``column`` -1).

    Attributes:
        parent, child: link indices (:attr:`LinkPoser.links`).
        origin: (4, 4) the joint frame in the parent link frame, as the URDF writes it.
        prismatic: a translation along ``axis`` (else a rotation about it).
        axis: the unit axis in the joint frame (a principal one).
        column: the joint value's column (:attr:`LinkPoser.joints`), or -1 (fixed).
        multiplier, offset: a mimic joint's rule (1, 0 otherwise).
        name: the URDF joint's name.
    """

    parent: int
    child: int
    origin: np.ndarray
    prismatic: bool
    axis: Tuple[float, float, float]
    column: int
    multiplier: float = 1.0
    offset: float = 0.0
    name: str = ''


def _moved(pose: np.ndarray, axis: Sequence[float], prismatic: bool,
           values: np.ndarray) -> np.ndarray:
    """(N, 4, 4) ``pose @ motion(values)``, the motion about (along) a principal unit axis
    (+-x, y, z) by ``values`` (N,): for a rotation about axis a, column a is the pose's and
    the other two columns i, j turn (``c P_i + s P_j``, ``c P_j - s P_i``); for a
    translation, the origin moves along column a. The sums a product with the motion
    matrix would add, but for terms that are exactly 0."""
    index = int(np.argmax(np.abs(axis)))
    values = (1.0 if axis[index] > 0 else -1.0) * values
    out = np.array(np.broadcast_to(pose, (len(values), 4, 4)))
    if prismatic:
        out[:, :3, 3] = pose[..., :3, index] * values[:, None] + pose[..., :3, 3]
        return out
    c, s = reproducible.cos(values)[:, None], reproducible.sin(values)[:, None]
    i, j = (index + 1) % 3, (index + 2) % 3
    column_i, column_j = pose[..., :3, i], pose[..., :3, j]
    out[:, :3, i] = column_i * c + column_j * s
    out[:, :3, j] = column_i * -s + column_j * c
    return out


class LinkPoser:
    """Batched poses and Jacobians of named URDF links (module docstring).

    Attributes:
        joints: the URDF's movable joints but mimic joints, URDF order (the columns of
            joint values).
        lower, upper: (n,) sampling bounds per joint (rad or m): the URDF limits, or
            [-pi, pi] for continuous joints (MoveIt's random bounds).
        gripper_columns: the columns of the grippers' finger joints.
        links: the URDF's links (the frame tree's, then the grippers'), the indices
            :class:`JointMotion` uses.
        motions: every URDF joint as a :class:`JointMotion`, parents before children.
    """

    def __init__(self, model: RobotModel, tree: FrameTree, urdf: LinkTree):
        """Map every URDF joint to its origin, axis and column.

        Raises:
            ValueError: when the URDF's movable joints or links are not the frame tree's
                (a URDF written for another model or naming).
        """
        movable = [j for j in urdf.joints if j.is_active]
        self.joints: List[str] = [j.name for j in movable]
        expected = tree.dof_names + tree.gripper_joint_names
        if sorted(self.joints) != sorted(expected):
            raise ValueError('the URDF joints are not the model\'s degrees of freedom '
                             f'({", ".join(self.joints)} vs {", ".join(expected)})')
        links = list(tree.links) + [n for g in tree.grippers for n in g.links.values()]
        if sorted(links) != sorted(urdf.links):
            raise ValueError('the URDF links are not the model\'s frame tree links')
        self.gripper_columns = [self.joints.index(g.joint) for g in tree.grippers]
        self.lower = np.array([-math.pi if j.lower is None else j.lower for j in movable])
        self.upper = np.array([math.pi if j.upper is None else j.upper for j in movable])
        self._links = {name: k for k, name in enumerate(links)}
        self.links: List[str] = links
        self.motions: List[JointMotion] = self._joint_motions(model, tree, urdf)
        #: link index -> the motions from the root to it, root first
        self._chains: Dict[int, List[JointMotion]] = {0: []}
        for motion in self.motions:
            self._chains[motion.child] = self._chains[motion.parent] + [motion]

    def _joint_motions(self, model: RobotModel, tree: FrameTree, urdf: LinkTree
                       ) -> List[JointMotion]:
        """Every URDF joint as a :class:`JointMotion`, parents before children."""
        column = {name: k for k, name in enumerate(self.joints)}
        frames = {}   # joint name -> (origin, prismatic, axis)
        for joint in tree.joints:
            axis, prismatic = (1.0, 0.0, 0.0), False
            if joint.dof >= 0:
                element = model.elements[joint.element]
                axis = tuple(float(v) for v in joint_spec(element).axis)
                prismatic = element.motion[0] == 't'
            frames[joint.name] = (written_pose(joint_origin(model, joint)), prismatic, axis)
        for gripper in tree.grippers:
            for spec in gripper.joint_specs():
                frames[spec.name] = (written_pose(spec.origin), False, (1.0, 0.0, 0.0))
        by_parent: Dict[str, list] = {}
        for joint in urdf.joints:
            by_parent.setdefault(joint.parent, []).append(joint)
        motions, stack = [], [urdf.root]
        while stack:                      # depth first from the root: parents first
            for joint in reversed(by_parent.get(stack.pop(), [])):
                origin, prismatic, axis = frames[joint.name]
                if not joint.is_movable:
                    index, multiplier, offset = -1, 1.0, 0.0
                elif joint.mimic is not None:
                    index, multiplier, offset = (column[joint.mimic[0]], joint.mimic[1],
                                                 joint.mimic[2])
                else:
                    index, multiplier, offset = column[joint.name], 1.0, 0.0
                motions.append(JointMotion(self._links[joint.parent], self._links[joint.child],
                                           origin, prismatic, axis, index, multiplier, offset,
                                           joint.name))
                stack.append(joint.child)
        return motions

    def fingerprint(self) -> bytes:
        """Everything the poses and Jacobians depend on (joints, bounds, each joint's
        origin, axis, column and mimic rule), as bytes: equal fingerprints, equal poses."""
        parts = [repr((self.joints, self.lower.tolist(), self.upper.tolist())).encode()]
        for m in self.motions:
            parts.append(repr((m.parent, m.child, m.prismatic, m.axis, m.column,
                               m.multiplier, m.offset)).encode() + m.origin.tobytes())
        return b'\0'.join(parts)

    def _values(self, values) -> np.ndarray:
        values = np.atleast_2d(np.asarray(values, dtype=float))
        if values.shape[1] != len(self.joints):
            raise ValueError(f'expected {len(self.joints)} joint values per state, got '
                             f'{values.shape[1]}')
        return values

    def _all_poses(self, values: np.ndarray, needed: Sequence[int]) -> Dict[int, np.ndarray]:
        """{link index: (N, 4, 4) pose} of the ``needed`` links and their ancestors."""
        wanted = set()
        for link in needed:
            wanted.update(m.child for m in self._chains[link])
        poses = {0: np.broadcast_to(np.eye(4), (len(values), 4, 4))}
        for m in self.motions:
            if m.child not in wanted:
                continue
            pose = reproducible.compose(poses[m.parent], m.origin)
            if m.column >= 0:
                joint_values = values[:, m.column] * m.multiplier + m.offset
                pose = _moved(pose, m.axis, m.prismatic, joint_values)
            poses[m.child] = pose
        return poses

    def poses(self, links: Sequence[str], values: np.ndarray) -> np.ndarray:
        """(N, len(links), 4, 4) poses of ``links`` in the root link frame for (N, n)
        URDF joint values (``n = len(joints)``; rad, m).

        Raises:
            KeyError: for a link the URDF does not have.
            ValueError: for values of another width.
        """
        values = self._values(values)
        indices = [self._links[name] for name in links]
        poses = self._all_poses(values, indices)
        out = np.empty((len(values), len(links), 4, 4))
        for k, index in enumerate(indices):
            out[:, k] = poses[index]
        return out

    def jacobians(self, link: str, values: np.ndarray) -> np.ndarray:
        """(N, 6, n) geometric Jacobians of a link's frame per unit URDF joint value: rows
        vx vy vz (m per unit) wx wy wz (rad per unit) of the link's origin in the root
        link frame, columns :attr:`joints` (a mimic joint adds its multiple to the
        column of the joint it follows). Zero for the root link.

        Raises:
            KeyError, ValueError: as :meth:`poses`.
        """
        values = self._values(values)
        index = self._links[link]
        poses = self._all_poses(values, [index])
        tip = poses[index][:, :3, 3]
        out = np.zeros((len(values), 6, len(self.joints)))
        for m in self._chains[index]:
            if m.column < 0:
                continue
            frame = poses[m.child]
            axis = reproducible.apply(frame[:, :3, :3], m.axis)      # (N, 3), root frame
            if m.prismatic:
                linear, angular = axis, 0.0
            else:
                linear, angular = reproducible.cross(axis, tip - frame[:, :3, 3]), axis
            out[:, :3, m.column] += m.multiplier * linear
            out[:, 3:, m.column] += m.multiplier * angular
        return out

    def random_values(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """(count, n) joint values drawn uniformly within :attr:`lower`..:attr:`upper`
        (MoveIt's ``setToRandomPositions``); a gripper's finger joint is open (lower)
        in a third of the states and closed (upper) in another third, so that both
        ends, where the jaws come closest to each other or open widest, are sampled."""
        values = rng.uniform(self.lower, self.upper, size=(count, len(self.joints)))
        for column in self.gripper_columns:
            end = rng.integers(0, 3, size=count)
            values[end == 0, column] = self.lower[column]
            values[end == 1, column] = self.upper[column]
        return values

    def default_values(self) -> np.ndarray:
        """(n,) MoveIt's default state: 0, or the middle of the bounds when 0 is outside."""
        inside = (self.lower <= 0.0) & (self.upper >= 0.0)
        return np.where(inside, 0.0, (self.lower + self.upper) / 2)
