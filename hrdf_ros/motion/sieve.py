"""A numpy sieve for batches of collision checks: which (state, pair) entries need FCL.

In: the robot's collision shapes as boxes in their links' frames
(:class:`~.pinocchio_robot.RobotShape`), the checked pairs (shape-shape and
shape-object), the objects' boxes, and (N, dof) states. Out: the (state, pair) entries
whose bounding volumes meet, sorted by state; every other entry is apart.

The links are posed by hrdf_ros's kinematics (:class:`~hrdf_ros.kinematics.Kinematics`,
the compiled path where installed: a batch of 50 states of a 7-DoF arm in ~20 us); their
frames equal the URDF's to 1e-11 m, far inside :data:`SLACK`. Stages, every state at
once, each on what the one before kept: the two links' bounding spheres (each around its
boxes), the two shapes' spheres, the shapes' oriented boxes (the separating axis test,
:func:`~hrdf_ros.description.collision_matrix.boxes_overlap`). A shape against a floor
(a half-space): the lowest corner of its box against the plane. On the compiled path
the same stages run state by state in one numba kernel (:mod:`.compiled_sieve`).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..description.collision_matrix import boxes_overlap
from ..description.frame_tree import link_frames
from ..kinematics import Kinematics
from ..kinematics import gripper as mechanism

#: Added to every bounding box and sphere, m: shapes that touch always reach FCL.
SLACK = 1e-6


def link_sources(model, tree, links: Sequence[str],
                 gripper_positions: Optional[Dict[str, float]] = None
                 ) -> List[Tuple[str, int, object]]:
    """Per link: (frame type, index, constant offset or None) of its pose in hrdf_ros's
    kinematics: the root, an element's input frame, an output frame, a gripper part (a
    constant pose on its end effector's input frame: the gripper held at its finger
    joint's value in ``gripper_positions``, rad; 0, open, when missing)."""
    frames = link_frames(model, tree)
    parts = {}
    for gripper in tree.grippers:
        value = (gripper_positions or {}).get(gripper.joint, 0.0)
        poses = mechanism.part_poses([value])[0]
        for k, part in enumerate(mechanism.PART_NAMES):
            frames[gripper.links[part]] = ('gripper', gripper.element, part)
            parts[gripper.links[part]] = poses[k]
    out = []
    for link in links:
        source = frames[link]
        out.append(('input', source[1], parts[link]) if source[0] == 'gripper'
                   else (source[0], source[1], None))
    return out


def _spheres(box: np.ndarray, half: np.ndarray, owner: np.ndarray, count: int):
    """(count, 4) centres (homogeneous, in the link frame) and (count,) radii of the
    spheres around each link's boxes."""
    radius = np.sqrt((half ** 2).sum(axis=1))
    centres, radii = np.zeros((count, 4)), np.zeros(count)
    centres[:, 3] = 1.0
    for k in range(count):
        mine = owner == k
        points = box[mine, :3, 3]
        centre = points.mean(axis=0) if len(points) else np.zeros(3)
        centres[k, :3] = centre
        radii[k] = float(np.max(np.linalg.norm(points - centre, axis=1) + radius[mine],
                                initial=0.0))
    return centres, radii


class Sieve:
    """The bounding-volume stages of a batch check (module docstring)."""

    def __init__(self, kinematics: Kinematics, sources, links: Sequence[str], shapes,
                 pairs: np.ndarray, robot_count: int, object_poses: np.ndarray,
                 object_halves: np.ndarray, floors: np.ndarray):
        """Args:
            kinematics, sources: how links are posed (:func:`link_sources`).
            links: the links with shapes.
            shapes: :class:`~.pinocchio_robot.RobotShape` values, the first
                ``robot_count`` geometry objects.
            pairs: (P, 2) checked pairs of geometry objects (indices >= ``robot_count``
                are the objects).
            object_poses, object_halves: (O, 4, 4), (O, 3) the objects' boxes.
            floors: (O,) bool, which objects are floors.
        """
        self._kinematics, self._sources = kinematics, sources
        kinds = sorted({kind for kind, _, _ in sources if kind != 'base'})
        self._gather = [(kind, np.array([k for k, s in enumerate(sources) if s[0] == kind]),
                         np.array([s[1] for s in sources if s[0] == kind], dtype=int))
                        for kind in kinds]
        self._base = np.array([k for k, s in enumerate(sources) if s[0] == 'base'], dtype=int)
        #: the links are frames of one type (no base, no offset): (the type, the rows of
        #: its frames, or None when they are all of them in order)
        self._single = None
        if len(self._gather) == 1 and not len(self._base) and \
                all(s[2] is None for s in sources):
            kind, slots, index = self._gather[0]
            every = np.array_equal(index, np.arange(kinematics.model.frame_count(kind)))
            self._single = (kind, None if every else index[np.argsort(slots)])
        offset = [k for k, s in enumerate(sources) if s[2] is not None]
        self._offset_slots = np.array(offset, dtype=int)
        self._offsets = np.array([sources[k][2] for k in offset]).reshape(-1, 4, 4)
        self._dof = kinematics.dof_count
        self._owner = np.array([links.index(s.link) for s in shapes], dtype=int)
        self._box = np.array([s.box for s in shapes]).reshape(-1, 4, 4)
        self._half = np.array([s.half for s in shapes]).reshape(-1, 3) + SLACK
        self._radius = np.sqrt((self._half ** 2).sum(axis=1))
        self._link_centre, self._link_radius = _spheres(self._box, self._half, self._owner,
                                                        len(links))
        self._pairs, self._count = pairs, robot_count
        self._object_pose = object_poses
        self._object_half = object_halves + SLACK
        self._object_radius = np.sqrt((self._object_half ** 2).sum(axis=1))
        self._floor = floors
        robot = np.flatnonzero(pairs[:, 1] < robot_count)
        link_pairs, owner = np.unique(self._owner[pairs[robot]].reshape(-1, 2), axis=0,
                                      return_inverse=True)
        owner = owner.ravel()
        order = np.argsort(owner, kind='stable')
        self._link_pairs, self._robot_rows = link_pairs.reshape(-1, 2), robot[order]
        self._group_count = np.bincount(owner, minlength=len(link_pairs))
        self._group_first = np.cumsum(self._group_count) - self._group_count
        self._world = np.flatnonzero(pairs[:, 1] >= robot_count)
        self._compiled = None
        #: Whether the compiled kernel sifts (then even one state is sifted first).
        self.compiled = False
        if kinematics.path == 'numba':
            self.compiled = True
            from . import compiled_sieve  # noqa: PLC0415 - numba only on the compiled path
            self._compiled = compiled_sieve.candidates

    def link_poses(self, positions: np.ndarray) -> np.ndarray:
        """(N, L, 4, 4) the links' poses (root link frame, m) for (N, dof) states."""
        positions = np.asarray(positions, dtype=float).reshape(-1, self._dof)
        if self._single is not None:
            frames = self._kinematics.frames(self._single[0], positions)
            return frames if self._single[1] is None else frames[:, self._single[1]]
        out = np.empty((len(positions), len(self._sources), 4, 4))
        if len(self._base):
            out[:, self._base] = np.eye(4)
        for kind, slots, index in self._gather:
            out[:, slots] = self._kinematics.frames(kind, positions)[:, index]
        if len(self._offset_slots):
            out[:, self._offset_slots] = out[:, self._offset_slots] @ self._offsets
        return out

    def _compiled_candidates(self, poses: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        capacity = len(poses) * len(self._pairs)
        states, rows = np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.int64)
        count = self._compiled(
            poses, self._owner, self._box, self._half, self._radius, self._link_centre,
            self._link_radius, self._link_pairs, self._group_first, self._group_count,
            self._robot_rows, self._pairs, self._world, self._count, self._object_pose,
            self._object_half, self._object_radius, self._floor, SLACK, states, rows)
        return states[:count], rows[:count]

    def candidates(self, positions: np.ndarray, poses: Optional[np.ndarray] = None
                   ) -> Tuple[np.ndarray, np.ndarray]:
        """(state, pair) index arrays of the entries whose bounding volumes meet, sorted
        by state, then pair; ``poses``: the links' poses of the states (:meth:`link_poses`),
        when the caller has them."""
        poses = self.link_poses(positions) if poses is None else poses
        if self._compiled is not None:
            return self._compiled_candidates(poses)
        boxes = poses[:, self._owner] @ self._box                          # (N, S, 4, 4)
        centres = boxes[..., :3, 3]
        spheres = (poses @ self._link_centre[:, :, None])[..., :3, 0]      # (N, L, 3)
        a, b = self._link_pairs[:, 0], self._link_pairs[:, 1]
        gap = spheres[:, a] - spheres[:, b]
        reach = self._link_radius[a] + self._link_radius[b]
        n, p = np.nonzero(np.einsum('npk,npk->np', gap, gap) <= reach * reach)
        counts = self._group_count[p]
        n = np.repeat(n, counts)
        rows = self._robot_rows[np.repeat(self._group_first[p] - np.cumsum(counts) + counts,
                                          counts) + np.arange(len(n))]
        i, j = self._pairs[rows, 0], self._pairs[rows, 1]
        gap = centres[n, i] - centres[n, j]
        reach = self._radius[i] + self._radius[j]
        near = np.einsum('mk,mk->m', gap, gap) <= reach * reach
        n, rows, i, j = n[near], rows[near], i[near], j[near]
        keep = boxes_overlap(boxes[n, i], self._half[i], boxes[n, j], self._half[j])
        states, found = [n[keep]], [rows[keep]]
        if len(self._world):
            world = self._world
            s, o = self._pairs[world, 0], self._pairs[world, 1] - self._count
            floor = self._floor[o]
            gap = centres[:, s] - self._object_pose[o, :3, 3]
            reach = self._radius[s] + np.where(floor, 0.0, self._object_radius[o])
            near = np.einsum('nwk,nwk->nw', gap, gap) <= reach * reach
            if floor.any():        # the lowest corner of the shape's box below the plane
                depth = (np.abs(boxes[:, s[floor], 2, :3]) * self._half[s[floor]]).sum(axis=2)
                near[:, floor] = centres[:, s[floor], 2] - depth \
                    <= self._object_pose[o[floor], 2, 3] + SLACK
            n, k = np.nonzero(near)
            solid = np.flatnonzero(~floor[k])
            overlapping = solid[boxes_overlap(boxes[n[solid], s[k[solid]]],
                                              self._half[s[k[solid]]],
                                              self._object_pose[o[k[solid]]],
                                              self._object_half[o[k[solid]]])]
            keep = floor[k]
            keep[overlapping] = True
            states.append(n[keep])
            found.append(world[k[keep]])
        states, found = np.concatenate(states), np.concatenate(found)
        order = np.lexsort((found, states))
        return states[order], found[order]
