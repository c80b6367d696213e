"""Poses of URDF links for batches of URDF joint values, with hrdf_ros's own kinematics.

In: the :class:`~hrdf_ros.model.RobotModel`, its
:class:`~hrdf_ros.description.frame_tree.FrameTree` and its link tree
(:class:`~.structure.LinkTree`, as the URDF states it). Out: (N, L, 4, 4) link poses in
the root link frame (m), and random or default joint values the way MoveIt draws them.

Each URDF link is a frame of the model: ``base_link`` is the reference frame (identity),
an element's link is its *input* frame, a link at an output with nothing mounted is that
*output* frame, a parallel gripper's part link is its gripper's input frame times the
part's pose (:mod:`hrdf_ros.kinematics.gripper`) for its finger joint's value. URDF joint
values are joint motions; the HEBI position of an HRDF ``<joint gear_ratio="g">`` is g
times its URDF value (doc/explanation/conventions.md). Mimic joints have no column: MoveIt plans
for the finger joint, the others follow it.
"""
from __future__ import annotations

import math
from typing import Dict, List, Sequence, Tuple

import numpy as np

from ..kinematics import Kinematics
from ..kinematics import gripper as mechanism
from ..model import RobotModel
from .frame_tree import FrameTree, link_frames
from .structure import LinkTree


class LinkPoser:
    """Batched poses of named URDF links.

    Attributes:
        joints: the URDF's movable joints but mimic joints, URDF order (the columns of
            joint values).
        lower, upper: (n,) sampling bounds per joint (rad or m): the URDF limits, or
            [-pi, pi] for continuous joints (MoveIt's random bounds).
        gripper_columns: the columns of the grippers' finger joints.
    """

    def __init__(self, model: RobotModel, tree: FrameTree, urdf: LinkTree):
        """Map every URDF link to a model frame.

        Raises:
            ValueError: when the URDF's movable joints or links are not the frame tree's
                (a URDF written for another model or naming).
        """
        self._kinematics = Kinematics(model)
        movable = [j for j in urdf.joints if j.is_active]
        self.joints: List[str] = [j.name for j in movable]
        expected = tree.dof_names + tree.gripper_joint_names
        if sorted(self.joints) != sorted(expected):
            raise ValueError('the URDF joints are not the model\'s degrees of freedom '
                             f'({", ".join(self.joints)} vs {", ".join(expected)})')
        dof_of = {name: k for k, name in enumerate(tree.dof_names)}
        #: URDF columns of the degrees of freedom, and their dof index
        self._urdf_columns = np.array([c for c, n in enumerate(self.joints) if n in dof_of],
                                      dtype=int)
        self._columns = np.array([dof_of[self.joints[c]] for c in self._urdf_columns],
                                 dtype=int)
        self._dof = len(tree.dof_names)
        ratios = np.array([model.elements[e].gear_ratio for e in model.dof_elements])
        self._ratios = ratios[self._columns] if len(ratios) else ratios
        self.gripper_columns = [self.joints.index(g.joint) for g in tree.grippers]
        self.lower = np.array([-math.pi if j.lower is None else j.lower for j in movable])
        self.upper = np.array([math.pi if j.upper is None else j.upper for j in movable])
        self._frames: Dict[str, Tuple[str, int]] = link_frames(model, tree)
        #: gripper part link -> (gripper element, finger joint column, part index)
        self._parts: Dict[str, Tuple[int, int, int]] = {}
        for gripper, column in zip(tree.grippers, self.gripper_columns):
            for k, part in enumerate(mechanism.PART_NAMES):
                self._parts[gripper.links[part]] = (gripper.element, column, k)
                self._frames[gripper.links[part]] = ('gripper', k)
        if set(self._frames) != set(urdf.links):
            raise ValueError('the URDF links are not the model\'s frame tree links')

    def hebi_positions(self, values: np.ndarray) -> np.ndarray:
        """(N, dof) HEBI joint positions of (N, n) URDF joint values."""
        values = np.atleast_2d(np.asarray(values, dtype=float))
        q = np.zeros((values.shape[0], self._dof))
        q[:, self._columns] = values[:, self._urdf_columns] * self._ratios
        return q

    def poses(self, links: Sequence[str], values: np.ndarray) -> np.ndarray:
        """(N, len(links), 4, 4) poses of ``links`` in the root link frame for (N, n)
        URDF joint values (``n = len(joints)``)."""
        values = np.atleast_2d(np.asarray(values, dtype=float))
        q = self.hebi_positions(values)
        frames = {}
        kinds = {self._frames[name][0] for name in links}
        if 'gripper' in kinds:
            kinds = (kinds - {'gripper'}) | {'input'}
        for kind in kinds - {'base'}:
            frames[kind] = self._kinematics.frames(kind, q)
        out = np.empty((q.shape[0], len(links), 4, 4))
        parts = {}
        for k, name in enumerate(links):
            kind, index = self._frames[name]
            if kind == 'gripper':
                element, column, part = self._parts[name]
                if column not in parts:
                    parts[column] = mechanism.part_poses(values[:, column])
                out[:, k] = frames['input'][:, element] @ parts[column][:, part]
                continue
            out[:, k] = np.eye(4) if kind == 'base' else frames[kind][:, index]
        return out

    def jacobians(self, link: str, values: np.ndarray) -> np.ndarray:
        """(N, 6, n) geometric Jacobians of a link's frame per unit URDF joint value
        (rows vx vy vz wx wy wz in the root link frame, columns :attr:`joints`).

        Raises:
            ValueError: for the root link (it never moves).
        """
        kind, index = self._frames[link]
        if kind in ('base', 'gripper'):
            raise ValueError(f'{link} is the root link or a gripper part')
        full = self._kinematics.frame_jacobian(kind, index, self.hebi_positions(values))
        out = np.zeros(full.shape[:2] + (len(self.joints),))
        out[:, :, self._urdf_columns] = full[:, :, self._columns] * self._ratios
        return out

    def frame_of(self, link: str) -> Tuple[str, int]:
        """(frame type, index) of a link: ``('base', 0)`` for the root, else
        ``('input', element)``, ``('output', output frame)`` or, for a gripper part,
        ``('gripper', part index)``."""
        return self._frames[link]

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
