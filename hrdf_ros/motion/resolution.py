"""How densely a joint-space motion must be checked for collisions.

In: the robot's joints (:class:`~hrdf_ros.description.link_poses.LinkPoser`) and collision
geometry. Out: per degree of freedom a lever arm r_j (m per rad, or 1 for a prismatic
joint) such that no point of any link moves more than sum_j r_j |dq_j| when the joints
move by dq along a straight line in joint space; and the states a motion is checked at,
no point moving more than :data:`STEP` between two of them.

A point at distance d from a rotation axis moves at most d |dq| (the chord is shorter than
the arc); the distance from joint j's axis to any point of a link it carries is at most
the length of the chain from j to that link (the translations of the joint origins in
between) plus the distance from the link's origin to the farthest point of its shapes,
whatever the other joints do. The sum over joints is the triangle inequality.
"""
from __future__ import annotations

import math
from typing import Dict, List, Sequence

import numpy as np

from ..description.collision_shapes import mesh_triangles
from ..description.link_poses import LinkPoser

#: The most a point of a link moves between two checked states of a motion, m.
STEP = 0.005


def _reach(shape) -> float:
    """The farthest a point of a collision shape is from its link's origin, m."""
    centre = float(np.linalg.norm(shape.pose[:3, 3]))
    if shape.kind == 'box':
        return centre + float(np.linalg.norm(shape.size)) / 2
    if shape.kind == 'cylinder':
        radius, length = shape.size
        return centre + math.hypot(radius, length / 2)
    if shape.kind == 'sphere':
        return centre + shape.size[0]
    try:
        corners = mesh_triangles(shape).reshape(-1, 3)
    except (ValueError, OSError):
        return centre
    points = corners @ shape.pose[:3, :3].T + shape.pose[:3, 3]
    return float(np.max(np.linalg.norm(points, axis=1))) if len(points) else centre


def lever_arms(poser: LinkPoser, geometry: Sequence, dof_names: Sequence[str],
               ratios: Sequence[float]) -> np.ndarray:
    """(dof,) lever arms r_j (module docstring), per unit of HEBI joint position.

    Args:
        poser: the URDF's joints.
        geometry: ``[(link, its collision shapes)]`` (the description's collision
            geometry).
        dof_names: the degrees of freedom, in the model's order.
        ratios: each one's gear ratio (a URDF joint value is the HEBI position / ratio).
    """
    reach: Dict[int, float] = {}
    index = {name: k for k, name in enumerate(poser.links)}
    for link, shapes in geometry:
        reach[index[link]] = max([_reach(s) for s in shapes], default=0.0)
    parent_motion = {m.child: m for m in poser.motions}
    column_of = {name: k for k, name in enumerate(poser.joints)}
    arms = np.zeros(len(dof_names))
    dof_of_column = {column_of[name]: k for k, name in enumerate(dof_names)
                     if name in column_of}
    for link, farthest in reach.items():
        length, node = farthest, link
        while node in parent_motion:          # up the chain, adding each origin's offset
            motion = parent_motion[node]
            if motion.column in dof_of_column:
                k = dof_of_column[motion.column]
                arms[k] = max(arms[k], 1.0 if motion.prismatic else length)
            length += float(np.linalg.norm(motion.origin[:3, 3]))
            node = motion.parent
    return arms / np.asarray(ratios, dtype=float)


def interpolation_counts(starts: np.ndarray, goals: np.ndarray, arms: np.ndarray,
                         step: float = STEP) -> np.ndarray:
    """(N,) how many intervals the lines from (N, dof) starts to goals are cut into, so
    that no point moves more than ``step`` (m) between two checked states."""
    travel = np.abs(np.asarray(goals) - np.asarray(starts)) @ arms
    return np.maximum(np.ceil(travel / step), 1).astype(int)


def interpolate(start: np.ndarray, goal: np.ndarray, count: int) -> np.ndarray:
    """(count + 1, dof) the states of the line from start to goal, both included."""
    fractions = np.linspace(0.0, 1.0, count + 1)[:, None]
    return start + fractions * (goal - start)


class ShapeArms:
    """Per collision shape, how far its points move when the joints move (module docstring),
    for :func:`pair_weights`.

    Attributes:
        arms: (S, dof) r[s, k]: no point of shape s moves more than r[s, k] |dq_k| when
            degree of freedom k alone moves by dq_k (HEBI position units: m per rad, or
            1 for a prismatic joint; divided by the gear ratio), whatever the other
            joints' values, but for the prismatic joints below k on the chain
            (``slides``).
        moves: (S, dof) bool, whether k moves shape s at all.
        slides: ``[(m, (S, dof) C_m)]`` per prismatic degree of freedom m: r[s, k] grows
            by C_m[s, k] |q_m| (q_m its HEBI position) where m lies between k and the
            shape (the chain is then longer by m's extension).
    """

    def __init__(self, arms: np.ndarray, moves: np.ndarray, slides):
        self.arms, self.moves, self.slides = arms, moves, slides


def shape_arms(poser: LinkPoser, shapes: Sequence, dof_names: Sequence[str],
               ratios: Sequence[float], held: Dict[str, float] = None) -> ShapeArms:
    """The :class:`ShapeArms` of collision shapes.

    Args:
        poser: the URDF's joints.
        shapes: per shape (link name, m: the farthest its points are from the link's
            origin).
        dof_names: the degrees of freedom, in the model's order.
        ratios: (dof,) gear ratios (a URDF joint value is the HEBI position / ratio).
        held: ``{joint: URDF value}`` of the movable joints that are no degree of
            freedom (grippers' finger joints, held where the scene holds them; 0 when
            missing): a held prismatic joint lengthens the chain by its extension.
    """
    ratios = np.asarray(ratios, dtype=float)
    index = {name: k for k, name in enumerate(poser.links)}
    parent_motion = {m.child: m for m in poser.motions}
    dof_of = {k: dof_names.index(name) for k, name in enumerate(poser.joints)
              if name in dof_names}
    held = held or {}
    dof = len(dof_names)
    arms, moves = np.zeros((len(shapes), dof)), np.zeros((len(shapes), dof), dtype=bool)
    slides: Dict[int, np.ndarray] = {}
    for s, (link, reach) in enumerate(shapes):
        length, node, below = float(reach), index[link], []   # prismatic dofs below
        while node in parent_motion:
            motion = parent_motion[node]
            k = dof_of.get(motion.column)
            gain = abs(motion.multiplier)
            if k is not None:
                moves[s, k] = True
                if motion.prismatic:
                    arms[s, k] += gain
                    below.append((k, gain))
                    length += abs(motion.offset)
                else:
                    arms[s, k] += gain * length
                    for m, slide in below:
                        slides.setdefault(m, np.zeros((len(shapes), dof)))[s, k] += \
                            gain * slide / ratios[m]
            elif motion.prismatic and motion.column >= 0:      # held: a fixed extension
                value = held.get(poser.joints[motion.column], 0.0)
                length += abs(motion.multiplier * value + motion.offset)
            length += float(np.linalg.norm(motion.origin[:3, 3]))
            node = motion.parent
    return ShapeArms(arms / ratios, moves,
                     [(m, c / ratios) for m, c in sorted(slides.items())])


def pair_weights(arms: ShapeArms, pairs: np.ndarray, robot_count: int):
    """((P, dof) W, [(m, (P, dof) W_m)]) of checked pairs of shapes (P, 2) (an index >=
    ``robot_count`` is a collision object, which no joint moves): along any motion of the
    joints, the distance between the two shapes of pair p changes by at most
    sum_k (W[p, k] + sum_m W_m[p, k] max |q_m|) V_k, V_k being joint k's total variation
    (HEBI units). Only the joints that move one shape of the pair and not the other count:
    the joints that move both move them rigidly together (the pair as seen from the last
    link they share does not change)."""
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    count = arms.arms.shape[1]
    padded = np.vstack([arms.arms, np.zeros((1, count))])
    moving = np.vstack([arms.moves, np.zeros((1, count), dtype=bool)])
    i = pairs[:, 0]
    j = np.where(pairs[:, 1] < robot_count, pairs[:, 1], len(arms.arms))
    only_i = moving[i] & ~moving[j]
    only_j = moving[j] & ~moving[i]
    weights = np.where(only_i, padded[i], 0.0) + np.where(only_j, padded[j], 0.0)
    slides = []
    for m, c in arms.slides:
        c = np.vstack([c, np.zeros((1, count))])
        slides.append((m, np.where(only_i, c[i], 0.0) + np.where(only_j, c[j], 0.0)))
    return weights, slides


__all__: List[str] = ['STEP', 'ShapeArms', 'interpolate', 'interpolation_counts',
                      'lever_arms', 'pair_weights', 'shape_arms']
