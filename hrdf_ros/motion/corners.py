"""Passing a planned path's corners without stopping, where that is free of collision.

In: a collision-free polyline (K, dof) (HEBI joint positions, model order; its segments
checked by :mod:`.joint_path`), the :class:`~.scene.PlanningScene` and the lever arms
of :mod:`.resolution`, the trajectory's joints (their columns in the state, gear
ratios) and their scaled limits, and the most a corner may be cut (``tolerance``, rad or
m of URDF joint values, Euclidean over the trajectory's joints). Out: a
:class:`~.trajectory.JointTrajectory` that rounds the corners (:mod:`.blend_path`,
:mod:`.blended_timing`) and is free of collision as joint_trajectory_controller plays
it, or None.

1. Every interior corner is rounded with a deviation of ``tolerance``.
2. The trajectory is timed and played as the controller plays it (1 kHz quintics,
   :func:`~.trajectory.playback`), and the played states are checked, no point of a link
   moving more than :data:`~.resolution.STEP` between two checked states (states
   between two 1 kHz samples, on the line between them, where the samples are farther
   apart).
3. Each corner whose arc holds a state in collision has its deviation halved (the
   deviation its arc had, which the segments' lengths may have made smaller than the
   one asked for); below :data:`SMALLEST` of its first one it is not rounded at all (the
   trajectory stops there, as on the polyline). Then again from 2, at most
   :data:`ROUNDS` times.

A state in collision on a straight part shrinks the arcs beside it (the played motion
leaves the line a little where it turns onto an arc); on a straight part with no arc
beside it, the trajectory follows the checked polyline itself (checked at states 5 mm
apart): the corners cannot help, the answer is None, and the caller keeps the polyline
that stops at every corner.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .blend_path import BlendPath
from .blended_timing import blended_trajectory
from .resolution import STEP
from .scene import PlanningScene
from .trajectory import JointTrajectory, playback

#: A corner's deviation is halved where it collides; below this share of the tolerance
#: the corner is not rounded.
SMALLEST = 1.0 / 16.0
#: At most this many checks of the played trajectory (each after some corners shrank).
ROUNDS = 8


def played_states(trajectory: JointTrajectory, full: np.ndarray, columns: np.ndarray,
                  ratios: np.ndarray, arms: np.ndarray, step: float = STEP):
    """((M,) times, (M, dof) states) of the trajectory as played at 1 kHz (the other
    joints of ``full`` (dof,) as given), thinned so that no point of a link moves more
    than ``step`` (m, by the lever arms) between two kept states, and filled in with
    states on the line between two samples that are farther apart than that."""
    times, played = playback(trajectory)
    states = np.repeat(full[None], len(played), axis=0)
    states[:, columns] = played * ratios[columns]
    travel = (np.abs(np.diff(states, axis=0)) @ arms).tolist()
    kept, fill, moved = [0], [], 0.0
    for k, distance in enumerate(travel):
        if distance > step:
            if k not in kept[-1:]:
                kept.append(k)
            fill.append(k)
            kept.append(k + 1)
            moved = 0.0
        elif moved + distance > step:
            kept.append(k)
            moved = distance
        else:
            moved += distance
    if kept[-1] != len(times) - 1:
        kept.append(len(times) - 1)
    # between samples k and k + 1 of ``fill``: count - 1 states, count = ceil(travel / step)
    fill = np.array(fill, dtype=int)
    counts = np.ceil(np.array(travel)[fill] / step).astype(int) if len(fill) else fill
    k = np.repeat(fill, counts - 1)
    first = np.repeat(np.cumsum(counts - 1) - (counts - 1), counts - 1)
    fractions = ((np.arange(len(k)) - first + 1) / np.repeat(counts, counts - 1))[:, None]
    times = np.concatenate([times[kept], times[k] + (times[k + 1] - times[k]) * fractions[:, 0]])
    states = np.concatenate([states[kept], states[k] + (states[k + 1] - states[k]) * fractions])
    order = np.argsort(times, kind='stable')
    return times[order], states[order]


def rounded_trajectory(scene: PlanningScene, arms: np.ndarray, path: np.ndarray,
                       joint_names, columns: np.ndarray, ratios: np.ndarray,
                       velocity_limits: np.ndarray, acceleration_limits: np.ndarray,
                       tolerance: float) -> Optional[JointTrajectory]:
    """The corners of ``path`` rounded where that is free as played (module docstring);
    None when a straight part collides as played, TOPP-RA fails, or the rounds run out.

    Args:
        path: (K, dof) the polyline, K >= 3, model order (HEBI positions).
        joint_names, columns: the trajectory's joints and their columns in a state.
        ratios: (dof,) gear ratios (a URDF value is the HEBI position / ratio).
        velocity_limits, acceleration_limits: (n,) of the trajectory's joints, scaled.
        tolerance: the largest deviation at a corner (URDF joint values, Euclidean).
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
        times, states = played_states(trajectory, full, columns, ratios, arms)
        hit = np.flatnonzero(~scene.free(states))
        if not len(hit):
            return trajectory
        s = np.interp(times[hit], trajectory.time_from_start, where)
        corners = set()
        for piece in np.unique(rounded.piece_of(s)):
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
