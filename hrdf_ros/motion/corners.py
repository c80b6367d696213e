"""Passing a planned path's corners without stopping, where that is proven free of
collision.

In: a collision-free polyline (K, dof) (HEBI joint positions, model order; its segments
proven free by :mod:`.joint_path`), the :class:`~.scene.PlanningScene`, the trajectory's
joints (their columns in the state, gear ratios) and their scaled limits, and the most a
corner may be cut (``tolerance``, rad or m of URDF joint values, Euclidean over the
trajectory's joints). Out: a :class:`~.trajectory.JointTrajectory` that rounds the
corners (:mod:`.blend_path`, :mod:`.blended_timing`) and is proven free of collision as
joint_trajectory_controller plays it, or None.

1. Every interior corner is rounded with a deviation of ``tolerance``.
2. The trajectory is timed, and its quintics between points, as the controller plays
   them, are proven free or refused piece by piece (:func:`played_free`,
   :mod:`.certified`: the whole continuous motion, not samples of it).
3. Each corner whose arc holds a refused piece has its deviation halved (the deviation
   its arc had, which the segments' lengths may have made smaller than the one asked
   for); below :data:`SMALLEST` of its first one it is not rounded at all (the
   trajectory stops there, as on the polyline). Then again from 2, at most
   :data:`ROUNDS` times.

A refused piece on a straight part shrinks the arcs beside it (the played motion leaves
the line a little where it turns onto an arc); on a straight part with no arc beside it
the corners cannot help: the answer is None, and the caller keeps the polyline that
stops at every corner (itself proven as played).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .blend_path import BlendPath
from .blended_timing import blended_trajectory
from .pieces import trajectory_pieces
from .scene import PlanningScene
from .trajectory import JointTrajectory

#: A corner's deviation is halved where it collides; below this share of the tolerance
#: the corner is not rounded.
SMALLEST = 1.0 / 16.0
#: At most this many checks of the played trajectory (each after some corners shrank).
ROUNDS = 8


def played_pieces(trajectory: JointTrajectory, full: np.ndarray, columns: np.ndarray,
                  ratios: np.ndarray) -> np.ndarray:
    """(K - 1, 6, dof) the quintics joint_trajectory_controller plays between the
    trajectory's K points, as Bernstein pieces of whole states (HEBI positions; the joints
    the trajectory does not name at their values in ``full`` (dof,))."""
    return trajectory_pieces(trajectory.time_from_start, trajectory.positions,
                             trajectory.velocities, trajectory.accelerations, full, columns,
                             ratios)


def played_free(scene: PlanningScene, trajectory: JointTrajectory, full: np.ndarray,
                columns: np.ndarray, ratios: np.ndarray) -> bool:
    """True when the trajectory, as played, is proven free of collision at every instant
    (:func:`played_pieces`, :meth:`~.scene.PlanningScene.certify`)."""
    if len(trajectory.time_from_start) < 2:
        return not scene.in_collision(_state(trajectory.positions[0], full, columns, ratios))
    return bool(scene.certify(played_pieces(trajectory, full, columns, ratios)).free.all())


def _state(values: np.ndarray, full: np.ndarray, columns: np.ndarray,
           ratios: np.ndarray) -> np.ndarray:
    state = np.array(full, dtype=float)
    state[columns] = values * ratios[columns]
    return state


def rounded_trajectory(scene: PlanningScene, path: np.ndarray,
                       joint_names, columns: np.ndarray, ratios: np.ndarray,
                       velocity_limits: np.ndarray, acceleration_limits: np.ndarray,
                       tolerance: float, margins=0.0) -> Optional[JointTrajectory]:
    """The corners of ``path`` rounded where that is proven free as played (module
    docstring); None when a straight part is refused as played, TOPP-RA fails, or the
    rounds run out.

    Args:
        path: (K, dof) the polyline, K >= 3, model order (HEBI positions).
        joint_names, columns: the trajectory's joints and their columns in a state.
        ratios: (dof,) gear ratios (a URDF value is the HEBI position / ratio).
        velocity_limits, acceleration_limits: (n,) of the trajectory's joints, scaled.
        tolerance: the largest deviation at a corner (URDF joint values, Euclidean).
        margins: m, how far apart the played motion keeps every checked pair (scalar
            or per pair, :meth:`~.scene.PlanningScene.certify`).
    """
    waypoints = (path / ratios)[:, columns]
    keep = np.concatenate([[True], np.any(np.diff(waypoints, axis=0) != 0.0, axis=1)])
    waypoints, full = waypoints[keep], path[0]
    if len(waypoints) < 3:
        return None
    # the path is rounded in joint space measured in seconds at full speed (each joint's
    # value over its velocity limit): there every joint has the same velocity limit, 1
    scale = np.asarray(velocity_limits, dtype=float)
    deviations = np.full(len(waypoints), float(tolerance) / scale.max())
    first = None
    for _ in range(ROUNDS):
        rounded = BlendPath(waypoints / scale, deviations)
        if first is None:
            first = rounded.deviations.copy()
        timed = blended_trajectory(joint_names, rounded, np.ones_like(scale),
                                   acceleration_limits / scale)
        if timed is None:
            return None
        trajectory, where = timed
        trajectory = JointTrajectory(trajectory.joint_names, trajectory.time_from_start,
                                     trajectory.positions * scale,
                                     trajectory.velocities * scale,
                                     trajectory.accelerations * scale)
        refused = np.flatnonzero(~scene.certify(played_pieces(trajectory, full, columns, ratios),
                                                stop_at_first=False,
                                                margins=margins).free)
        if not len(refused):
            return trajectory
        # the path's pieces under each refused piece of the trajectory, from the one at
        # its start to the one at its end
        first_piece = rounded.piece_of(np.asarray(where)[refused])
        last_piece = rounded.piece_of(np.asarray(where)[refused + 1])
        under = np.unique(np.concatenate([np.arange(p0, p1 + 1) for p0, p1 in
                                          zip(np.minimum(first_piece, last_piece),
                                              np.maximum(first_piece, last_piece))]))
        corners = set()
        for piece in under:
            if rounded.corners[piece] >= 0:
                corners.add(rounded.corners[piece])
                continue
            # on a straight part: the arcs beside it (the played motion leaves the line
            # a little where it turns onto one), else the polyline itself collides
            beside = [rounded.corners[k] for k in (piece - 1, piece + 1)
                      if 0 <= k < len(rounded.pieces) and rounded.corners[k] >= 0]
            if not beside:
                return None
            corners.update(beside)
        for corner in corners:
            deviations[corner] = rounded.deviations[corner] / 2.0
            if deviations[corner] < SMALLEST * first[corner]:
                deviations[corner] = 0.0
    return None
