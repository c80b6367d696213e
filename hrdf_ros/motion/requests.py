"""The checks of a planning request and its answers in words, for
:class:`~.planner.MotionPlanner`.

In: states (dof,) (HEBI joint positions, model order), the planner's limits and scene,
scaling factors, collision objects. Out: checked arrays, MoveIt's error codes with the
message that says why, the limits the planner plans within. ``ValueError`` for a request
that is wrong (NaN, the wrong length, a factor outside (0, 1]).
"""
from __future__ import annotations

from typing import Mapping, Optional, Sequence, Tuple

import numpy as np

from ..kinematics.ik_request import joint_limit_array
from . import cartesian
from .objects import collision_objects

#: MoveIt's MoveItErrorCodes values the planner answers with.
SUCCESS, FAILURE, PLANNING_FAILED = 1, 99999, -1
START_STATE_IN_COLLISION, GOAL_IN_COLLISION = -10, -12
START_STATE_INVALID, GOAL_STATE_INVALID, NO_IK_SOLUTION = -26, -27, -31
#: Slack on position limits when a given state is checked against them (rad or m).
LIMIT_SLACK = 1e-9


def position_limits(limits: Mapping, joint_names: Sequence[str], ratios: np.ndarray,
                    joint_limits=None) -> np.ndarray:
    """(dof, 2) the position limits a planner plans within (HEBI positions: the URDF's
    ``limits`` by joint name times the gear ``ratios`` (dof,)), narrowed by the user's
    ``joint_limits`` (as :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik` takes them);
    -inf / inf where free.

    Raises:
        ValueError: a wrong user limit.
    """
    position = np.array([[limits[n].lower if limits[n].lower is not None else -np.inf,
                          limits[n].upper if limits[n].upper is not None else np.inf]
                         for n in joint_names]).reshape(-1, 2) * ratios[:, None]
    if joint_limits is not None:
        user = joint_limit_array(joint_limits, joint_names)
        position = np.stack([np.maximum(position[:, 0], user[:, 0]),
                             np.minimum(position[:, 1], user[:, 1])], axis=1)
    return position


def state_problem(q: np.ndarray, which: str, limits: np.ndarray,
                  joint_names: Sequence[str], scene=None) -> Optional[Tuple[int, str]]:
    """(MoveIt error code, message) when the ``which`` ('start' or 'goal') state ``q``
    (dof,) is outside (dof, 2) ``limits`` or, with a ``scene``, in collision; None when it
    can be planned from."""
    outside = outside_limits(q, limits, joint_names)
    if outside:
        return (START_STATE_INVALID if which == 'start' else GOAL_STATE_INVALID,
                f'the {which} is outside the limits: {outside}')
    if scene is not None and scene.in_collision(q):
        return (START_STATE_IN_COLLISION if which == 'start' else GOAL_IN_COLLISION,
                f'the {which} is in collision: ' + pair_text(scene.colliding_pairs(q)))
    return None


def stop_text(stop: tuple, scene) -> str:
    """Why a Cartesian path stopped (:data:`.cartesian.STOPS`), in words."""
    kind, state, pair = stop
    if kind == 'collision':
        pairs = scene.colliding_pairs(state)
        if pairs or pair is None:
            return 'the next step collides: ' + pair_text(pairs)
        return ('the next step comes too close to be proven free of collision: '
                + pair_text([pair]))
    if kind == 'played':
        return ('the trajectory through the next states, as joint_trajectory_controller '
                'plays it, could not be proven free of collision'
                + (': ' + pair_text([pair]) if pair else ''))
    if kind == 'line':
        return (f'the joints leave the line there (by more than '
                f'{1000 * cartesian.POSITION_PRECISION:g} mm or '
                f'{cartesian.ORIENTATION_PRECISION:g} rad, the step halved '
                f'{cartesian.SUBDIVISIONS} times)')
    return 'the next step has no IK solution from the one before (out of reach, at a ' \
        'joint limit or a singularity)'


def checked_state(positions, joint_names: Sequence[str], what: str) -> np.ndarray:
    """(dof,) float positions.

    Raises:
        ValueError: the wrong length, or not finite (naming ``what``).
    """
    q = np.asarray(positions, dtype=float)
    if q.shape != (len(joint_names),):
        raise ValueError(f'{what}: expected {len(joint_names)} joint positions '
                         f'({", ".join(joint_names)}), got shape {q.shape}')
    if not np.all(np.isfinite(q)):
        raise ValueError(f'{what}: joint positions must be finite')
    return q


def scaled_limits(velocity: np.ndarray, acceleration: np.ndarray, velocity_scaling: float,
                  acceleration_scaling: float):
    """(velocity, acceleration) limits times MoveIt's scaling factors.

    Raises:
        ValueError: a factor outside (0, 1].
    """
    for name, value in (('max_velocity_scaling_factor', velocity_scaling),
                        ('max_acceleration_scaling_factor', acceleration_scaling)):
        if not (np.isfinite(value) and 0.0 < value <= 1.0):
            raise ValueError(f'{name} must be in (0, 1], got {value}')
    return velocity * velocity_scaling, acceleration * acceleration_scaling


def outside_limits(q: np.ndarray, limits: np.ndarray, joint_names: Sequence[str]
                   ) -> Optional[str]:
    """Which joints of a state are outside (dof, 2) position limits, in words, or None."""
    low, high = limits[:, 0], limits[:, 1]
    bad = np.flatnonzero((q < low - LIMIT_SLACK) | (q > high + LIMIT_SLACK))
    if not len(bad):
        return None
    return ', '.join(f'{joint_names[k]} {q[k]:.6g} not in [{low[k]:.6g}, {high[k]:.6g}]'
                     for k in bad)


def blocked_text(scene) -> str:
    """'; most often blocked by a - b (n of m states in collision)' of the scene's last
    count (:meth:`~.scene.PlanningScene.most_blocking`), or '' when none was counted."""
    found = scene.most_blocking()
    if found is None:
        return ''
    (a, b), count, total = found
    return f'; most often blocked by {a} - {b} ({count} of {total} states in collision)'


def pair_text(pairs) -> str:
    """``a - b, c - d`` of colliding pairs."""
    return ', '.join(f'{a} - {b}' for a, b in pairs)


def collision_objects_list(objects: Sequence) -> list:
    """Objects of ``hrdf_ros.motion.objects``' schema (or already built) as a list."""
    return collision_objects(list(objects) if not isinstance(objects, Mapping) else objects)
