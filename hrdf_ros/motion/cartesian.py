"""Cartesian paths, with MoveIt's ``computeCartesianPath`` meaning.

In: a start state (dof,), waypoint poses (4, 4) of an end effector in the reference frame,
a :class:`~hrdf_ros.kinematics.Kinematics` and a :class:`~.scene.PlanningScene`. Out: the
joint states (K, dof) of the part of the path that could be followed, ``fraction``, the
share of the path's steps they cover, and why it stopped (:data:`STOPS`).

The end effector moves along straight lines from the start pose through the waypoints:
position linearly, orientation by slerp, in steps of at most ``max_step`` m (and of at
most ``max_step`` / :data:`ROTATION_RADIUS` rad of rotation: a point 0.1 m from the end
effector moves at most ``max_step``). Each step is solved by IK seeded with the state
before, without restarts (a restart would jump to another branch). The path stops at the
first step that fails, that collides (with ``avoid_collisions``: the joint-space segment
from the state before, proven free as a joint motion is, :mod:`.certified`), or where
the joint path leaves
the line: the state halfway between two consecutive states (joint-space
interpolation) must put the end effector within :data:`POSITION_PRECISION` m of the line
and :data:`ORIENTATION_PRECISION` rad of the slerp (MoveIt's ``CartesianPrecision``).
Where it does not, the step is halved (a state solved at the middle pose) up to
:data:`SUBDIVISIONS` times.
"""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..kinematics import Kinematics
from .pieces import line_pieces
from .scene import PlanningScene

#: m: how far the end effector may be from the line between checked states.
POSITION_PRECISION = 0.001
#: rad: how far its orientation may be from the slerp.
ORIENTATION_PRECISION = 0.01
#: m: a rotation step moves a point this far from the end effector at most max_step.
ROTATION_RADIUS = 0.1
#: How often a step is halved before the path stops there.
SUBDIVISIONS = 6
#: Iteration cap of a step's IK (one attempt, no restart).
STEP_ITERATIONS = 60
#: Why a path stopped short: no IK solution from the state before (or only by a
#: restart), a state (a step's, or between two) in collision, the joint path leaving the
#: line however often the step was halved, the trajectory through the states not proven
#: free as joint_trajectory_controller plays it (the planner's check, after timing).
STOPS = ('ik', 'collision', 'line', 'played')


def _quaternion(rotation: np.ndarray) -> np.ndarray:
    from ..kinematics.rotations import rotation_to_quaternion  # noqa: PLC0415
    return rotation_to_quaternion(rotation)


def _slerp(a: np.ndarray, b: np.ndarray, fraction: float) -> np.ndarray:
    """(3, 3) the rotation a fraction of the way from rotation a to b (the shorter way)."""
    from ..kinematics.rotations import quaternion_to_rotation  # noqa: PLC0415
    qa, qb = _quaternion(a), _quaternion(b)
    dot = float(qa @ qb)
    if dot < 0.0:
        qb, dot = -qb, -dot
    if dot > 0.9999995:
        q = qa + fraction * (qb - qa)
    else:
        angle = math.acos(min(dot, 1.0))
        q = (math.sin((1 - fraction) * angle) * qa + math.sin(fraction * angle) * qb) \
            / math.sin(angle)
    return quaternion_to_rotation(q)


def rotation_angle(a: np.ndarray, b: np.ndarray) -> float:
    """rad, the angle of the rotation from (3, 3) a to b."""
    cosine = (float(np.trace(a.T @ b)) - 1.0) / 2.0
    return math.acos(max(-1.0, min(1.0, cosine)))


class _Segment:
    """One straight line of the path: poses at a parameter u in [0, 1]."""

    def __init__(self, start: np.ndarray, end: np.ndarray):
        self.start, self.end = start, end
        self.length = float(np.linalg.norm(end[:3, 3] - start[:3, 3]))
        self.angle = rotation_angle(start[:3, :3], end[:3, :3])

    def pose(self, u: float) -> np.ndarray:
        out = np.eye(4)
        out[:3, 3] = self.start[:3, 3] + u * (self.end[:3, 3] - self.start[:3, 3])
        out[:3, :3] = _slerp(self.start[:3, :3], self.end[:3, :3], u)
        return out

    def steps(self, max_step: float) -> int:
        return max(1, math.ceil(max(self.length / max_step,
                                    self.angle * ROTATION_RADIUS / max_step) - 1e-9))

    def off_line(self, pose: np.ndarray, u: float, orientation: str) -> Tuple[float, float]:
        """(m, rad): how far a pose is from the line, and from the slerp at u."""
        a, b, p = self.start[:3, 3], self.end[:3, 3], pose[:3, 3]
        direction = b - a
        length2 = float(direction @ direction)
        t = 0.0 if length2 == 0.0 else min(1.0, max(0.0, float((p - a) @ direction) / length2))
        distance = float(np.linalg.norm(p - (a + t * direction)))
        wanted = _slerp(self.start[:3, :3], self.end[:3, :3], u)
        if orientation == 'none':
            return distance, 0.0
        if orientation == 'tip_axis':
            cosine = float(pose[:3, 2] @ wanted[:, 2])
            return distance, math.acos(max(-1.0, min(1.0, cosine)))
        return distance, rotation_angle(pose[:3, :3], wanted)


def _refusal(scene: PlanningScene, a: np.ndarray, b: np.ndarray):
    """('collision', the checked state nearest to touching, the pair that refused it) of
    the segment from a to b."""
    found = scene.certify(line_pieces(np.stack([a, b])))
    if found.state is None:
        return 'collision', b, None
    return 'collision', found.state, scene.row_pair(found.row)


def follow(kinematics: Kinematics, scene: PlanningScene, start: np.ndarray,
           waypoints: Sequence[np.ndarray], index: int, max_step: float,
           avoid_collisions: bool, limits: np.ndarray, orientation: str,
           tolerances: Tuple[float, float]
           ) -> Tuple[np.ndarray, float, Optional[tuple], np.ndarray]:
    """The states of the path that could be followed (module docstring), the start
    first; the fraction of its steps they cover; None, or why it stopped: (one of
    :data:`STOPS`, the state (dof,) in collision or None); and (K,) the share of the
    path's steps done at each state."""
    segments: List[_Segment] = []
    previous = kinematics.end_effector(start, index)
    for pose in waypoints:
        segments.append(_Segment(previous, np.asarray(pose, dtype=float)))
        previous = segments[-1].end
    counts = [segment.steps(max_step) for segment in segments]
    total = sum(counts)
    states = [np.asarray(start, dtype=float)]
    progress = [0.0]
    done = 0
    stop: List[tuple] = []            # the last reason a step failed

    def solve(pose, seed):
        result = kinematics.solve_ik(pose, seed, index=index, orientation=orientation,
                                     joint_limits=limits, position_tolerance=tolerances[0],
                                     orientation_tolerance=tolerances[1], timeout=None,
                                     max_iterations=STEP_ITERATIONS)
        if not result.success or result.restarts:
            stop[:] = [('ik', None, None)]
            return None
        if avoid_collisions and scene.in_collision(result.positions):
            stop[:] = [('collision', result.positions, None)]
            return None
        return result.positions

    def reach(segment, q_a, u_a, u_b, depth) -> List[np.ndarray]:
        """States from after q_a (at u_a) to u_b, or [] (the path stops)."""
        q_b = solve(segment.pose(u_b), q_a)
        if q_b is None:
            return []
        middle = (q_a + q_b) / 2
        pose = kinematics.end_effector(middle, index)
        distance, angle = segment.off_line(pose, (u_a + u_b) / 2, orientation)
        clear = not avoid_collisions or scene.segment_free(q_a, q_b)
        if distance <= POSITION_PRECISION and angle <= ORIENTATION_PRECISION and clear:
            return [q_b]
        if depth >= SUBDIVISIONS:
            stop[:] = [_refusal(scene, q_a, q_b)
                       if not clear else ('line', None, None)]
            return []
        u_m = (u_a + u_b) / 2
        first = reach(segment, q_a, u_a, u_m, depth + 1)
        if not first:
            return []
        second = reach(segment, first[-1], u_m, u_b, depth + 1)
        return first + second if second else []

    for segment, count in zip(segments, counts):
        for k in range(1, count + 1):
            found = reach(segment, states[-1], (k - 1) / count, k / count, 0)
            if not found:
                return (np.array(states), done / total if total else 1.0, stop[-1],
                        np.array(progress))
            states.extend(found)
            progress.extend(np.linspace(done / total, (done + 1) / total,
                                        len(found) + 1)[1:].tolist())
            done += 1
    return np.array(states), 1.0, None, np.array(progress)
