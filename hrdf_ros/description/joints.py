"""Joint types, axes and limits of the described robot (every writer's joints).

In: a degree-of-freedom :class:`~hrdf_ros.model.Element` and the user's
:class:`~.limits.JointLimit` for its joint (or ``None``). Out: a :class:`JointSpec`
(type, unit axis, limits, gear ratio).

* Actuators are ``continuous`` (HEBI actuators turn without end stops), with velocity
  and effort limits from the module's rated speed (rad/s) and torque (N m).
* HRDF ``<joint>`` rotations are ``continuous`` with no limits (no rated speed or
  effort: unlimited, never 0); translations are ``prismatic`` with position limits
  +-:data:`~.limits.DEFAULT_PRISMATIC_LIMIT` m (URDF requires limits), velocity
  :data:`~.limits.DEFAULT_JOINT_VELOCITY` and effort :data:`~.limits.DEFAULT_JOINT_EFFORT`.
* User position limits make a rotation ``revolute``; user velocity/effort replace the
  rated or default values.
* The axis is the element's motion axis times its ``axis_sign`` (``0 0 -1`` for an HRDF
  ``axis="-rz"``), so joint values are HEBI positions divided by the gear ratio
  (:attr:`JointSpec.reduction`).
* Limits are the values every output writes (:mod:`hrdf_ros.numbers`): 12 significant
  digits, rounded inward (a lower bound up, an upper bound down, velocity and effort
  toward zero), so no written limit admits more than the bound it stands for.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional

import numpy as np

from ..model import Element
from ..numbers import (EFFORT, POSITION, VELOCITY, Quantity, lower_limit, magnitude_limit,
                       upper_limit)
from .limits import (DEFAULT_JOINT_EFFORT, DEFAULT_JOINT_VELOCITY, DEFAULT_PRISMATIC_LIMIT,
                     JointLimit)

_AXES = {'x': (1.0, 0.0, 0.0), 'y': (0.0, 1.0, 0.0), 'z': (0.0, 0.0, 1.0)}


@dataclass(frozen=True)
class JointSpec:
    """One degree of freedom as every writer spells it.

    Attributes:
        kind: URDF type: ``continuous``, ``revolute`` or ``prismatic``.
        axis: (3,) unit axis in the joint frame (the child link frame).
        lower, upper: position limits (rad or m), or ``None`` (continuous).
        velocity, effort: limits (rad/s or m/s; N m or N), or ``None`` when unlimited.
        reduction: HEBI position per joint value (the HRDF gear ratio).
    """

    kind: str
    axis: np.ndarray
    lower: Optional[float]
    upper: Optional[float]
    velocity: Optional[float]
    effort: Optional[float]
    reduction: float

    def limit_values(self) -> Optional[Dict[str, float]]:
        """A URDF ``<limit>``'s values (``lower``/``upper`` when bounded; ``effort`` and
        ``velocity`` always, URDF requires both: the defaults where unlimited), or
        ``None`` when the joint has no limit at all."""
        if self.lower is None and self.velocity is None and self.effort is None:
            return None
        limit = {}
        if self.lower is not None:
            limit.update(lower=self.lower, upper=self.upper)
        limit.update(effort=self.effort if self.effort is not None else DEFAULT_JOINT_EFFORT,
                     velocity=self.velocity if self.velocity is not None
                     else DEFAULT_JOINT_VELOCITY)
        return limit


def joint_spec(element: Element, limit: Optional[JointLimit] = None) -> JointSpec:
    """The :class:`JointSpec` of a degree-of-freedom element.

    Args:
        element: an element with ``motion`` (actuator or HRDF joint).
        limit: the user's limits for its joint, or ``None``.
    """
    limit = limit or JointLimit()
    axis = np.array(_AXES[element.motion[1]]) * float(np.sign(element.axis_sign) or 1.0)
    velocity, effort = element.max_speed, element.max_effort
    lower = upper = None
    if element.motion[0] == 't':
        kind = 'prismatic'
        lower, upper = -DEFAULT_PRISMATIC_LIMIT, DEFAULT_PRISMATIC_LIMIT
        if velocity is None:
            velocity, effort = DEFAULT_JOINT_VELOCITY, DEFAULT_JOINT_EFFORT
    else:
        kind = 'continuous'
    if limit.has_position:
        lower, upper = limit.lower, limit.upper
        if kind == 'continuous':
            kind = 'revolute'
            if velocity is None:
                velocity, effort = DEFAULT_JOINT_VELOCITY, DEFAULT_JOINT_EFFORT
    if limit.velocity is not None:
        velocity = limit.velocity
    if limit.effort is not None:
        effort = limit.effort
    return JointSpec(kind, axis, written_lower(lower), written_upper(upper),
                     written_magnitude(velocity, VELOCITY), written_magnitude(effort, EFFORT),
                     float(element.gear_ratio))


def written_lower(value: Optional[float]) -> Optional[float]:
    """A lower position limit (rad or m) as every output writes it: rounded up
    (:func:`hrdf_ros.numbers.lower_limit`); ``None`` stays."""
    return None if value is None else lower_limit(value, POSITION)


def written_upper(value: Optional[float]) -> Optional[float]:
    """An upper position limit (rad or m) as every output writes it: rounded down."""
    return None if value is None else upper_limit(value, POSITION)


def written_magnitude(value: Optional[float], quantity: Quantity) -> Optional[float]:
    """A velocity, acceleration or effort limit as every output writes it: rounded toward
    zero, never above the rated or configured bound."""
    return None if value is None else magnitude_limit(value, quantity)


__all__ = ['JointSpec', 'joint_spec', 'written_lower', 'written_magnitude', 'written_upper']
