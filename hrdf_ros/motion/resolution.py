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


__all__: List[str] = ['STEP', 'interpolate', 'interpolation_counts', 'lever_arms']
