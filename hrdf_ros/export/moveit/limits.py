"""Joint limits for MoveIt: position, velocity, acceleration and effort of every joint.

In: the model, its frame tree, the URDF read back, and optional user overrides (a YAML
file, :func:`read_limits_file`). Out: :class:`JointLimits` per movable URDF joint
(rad, rad/s, rad/s^2, N m; m, m/s, m/s^2, N for prismatic joints).

Sources of the values:

* **Velocity and effort of actuators**: the module's rated speed and torque from the
  catalogue (:mod:`hrdf_ros.hrdf.catalogue`: hebi-py 2.16.1 ``max_speeds`` /
  ``max_efforts``, i.e. HEBI's data sheets: e.g. X8-9 39 rpm = 4.08 rad/s, 23 N m).
* **Acceleration of actuators**: neither the HRDF, HEBI's library (``hebi.arm`` leaves
  acceleration limits at infinity) nor HEBI's MoveIt configs give one, and MoveIt 2
  needs one (time parameterization and Pilz reject a joint without it). hrdf_ros uses
  rated speed / :data:`ACCELERATION_TIME`: the joint may reach its rated speed in
  0.5 s (X5-1 18.8 rad/s^2, X8-16 4.2 rad/s^2; the README lists every type). This is
  conservative for HEBI's torques (an X8-16's 44 N m accelerates a 0.5 kg m^2 arm at
  88 rad/s^2) and close to the 5-10 rad/s^2 other vendors ship for MoveIt.
* **HRDF ``<joint>`` elements** carry no rated values: velocity
  :data:`DEFAULT_JOINT_VELOCITY`, effort :data:`DEFAULT_JOINT_EFFORT`, acceleration by
  the same rule.
* **Position**: the URDF's ``lower``/``upper`` (revolute and prismatic joints);
  continuous joints have none (MoveIt refuses position limits on them).

Overrides (``--limits``): a YAML mapping per joint, either ``[lower, upper]`` (position
limits, as ``hrdf urdf --limits``) or a mapping with any of ``position: [lower, upper]``
(or ``lower``/``upper``), ``velocity``, ``acceleration``, ``effort``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Dict, Mapping, Optional, Tuple

import yaml

from ...model import RobotModel
from ..frame_tree import FrameTree
from ..urdf_structure import UrdfStructure

#: Velocity limit of HRDF ``<joint>`` elements (no rated speed in the HRDF), rad/s or m/s.
DEFAULT_JOINT_VELOCITY = 1.0
#: Effort limit of HRDF ``<joint>`` elements (no rated effort in the HRDF), N m or N.
DEFAULT_JOINT_EFFORT = 100.0
#: Time to reach the velocity limit from rest at the acceleration limit, s.
ACCELERATION_TIME = 0.5

_KEYS = ('position', 'lower', 'upper', 'velocity', 'acceleration', 'effort')


@dataclass(frozen=True)
class JointLimits:
    """Limits of one joint.

    Attributes:
        lower, upper: position limits (rad or m), or ``None`` for a continuous joint.
        velocity: > 0, rad/s (m/s).
        acceleration: > 0, rad/s^2 (m/s^2).
        effort: > 0, N m (N).
        source: where velocity/effort come from (``X8-9 rated``, ``HRDF joint default``,
            ``user``).
    """

    lower: Optional[float]
    upper: Optional[float]
    velocity: float
    acceleration: float
    effort: float
    source: str


@dataclass(frozen=True)
class LimitOverride:
    """User limits of one joint; ``None`` keeps the generated value."""

    position: Optional[Tuple[float, float]] = None
    velocity: Optional[float] = None
    acceleration: Optional[float] = None
    effort: Optional[float] = None


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def _position(joint: str, value) -> Tuple[float, float]:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(_number(v) for v in value) or not value[0] < value[1]):
        raise ValueError(f'{joint}: position limits must be [lower, upper] with finite '
                         f'lower < upper, got {value!r}')
    return float(value[0]), float(value[1])


def parse_override(joint: str, value) -> LimitOverride:
    """A :class:`LimitOverride` from ``[lower, upper]`` or a mapping (module docstring).

    Raises:
        ValueError: unknown keys, non-finite or non-positive values, lower >= upper.
    """
    if not isinstance(value, Mapping):
        return LimitOverride(position=_position(joint, value))
    unknown = sorted(map(str, set(value) - set(_KEYS)))
    if unknown:
        raise ValueError(f'{joint}: unknown keys {", ".join(unknown)} '
                         f'(expected {", ".join(_KEYS)})')
    position = value.get('position')
    if ('lower' in value) or ('upper' in value):
        if position is not None:
            raise ValueError(f'{joint}: give position or lower/upper, not both')
        position = [value.get('lower'), value.get('upper')]
    fields = {}
    for key in ('velocity', 'acceleration', 'effort'):
        if value.get(key) is not None:
            if not (_number(value[key]) and value[key] > 0):
                raise ValueError(f'{joint}: {key} must be a finite number > 0, '
                                 f'got {value[key]!r}')
            fields[key] = float(value[key])
    return LimitOverride(position=None if position is None else _position(joint, position),
                         **fields)


def read_limits_file(path: str) -> Dict[str, LimitOverride]:
    """User limits from a YAML file (module docstring).

    Raises:
        OSError: the file cannot be read.
        ValueError: not YAML, not a mapping, or an invalid entry.
    """
    with open(path, encoding='utf-8') as handle:
        try:
            data = yaml.safe_load(handle)
        except yaml.YAMLError as exc:
            raise ValueError(f'{path}: not YAML ({exc})') from None
    if not isinstance(data, dict):
        raise ValueError(f'{path}: expected a mapping joint: [lower, upper] or '
                         'joint: {position, velocity, acceleration, effort}')
    try:
        return {str(joint): parse_override(str(joint), value) for joint, value in data.items()}
    except ValueError as exc:
        raise ValueError(f'{path}: {exc}') from None


def position_limits(overrides: Mapping[str, LimitOverride]) -> Dict[str, Tuple[float, float]]:
    """``{joint: (lower, upper)}`` of the overrides that set position limits (for the
    URDF's ``position_limits``)."""
    return {j: o.position for j, o in overrides.items() if o.position is not None}


def joint_limits(model: RobotModel, tree: FrameTree, urdf: UrdfStructure,
                 overrides: Optional[Mapping[str, LimitOverride]] = None
                 ) -> Dict[str, JointLimits]:
    """Limits of every movable URDF joint, URDF order (see the module docstring).

    Args:
        model, tree: the robot and its naming (which element each joint is).
        urdf: the URDF read back (position limits, joint types).
        overrides: user values per joint name.

    Raises:
        ValueError: overrides name joints the URDF does not move.
    """
    overrides = dict(overrides or {})
    movable = [j for j in urdf.joints if j.is_movable]
    unknown = sorted(set(overrides) - {j.name for j in movable})
    if unknown:
        raise ValueError(f'limits given for unknown joints: {", ".join(unknown)} '
                         f'(joints: {", ".join(j.name for j in movable)})')
    element_of = dict(zip(tree.dof_names, model.dof_elements))
    out = {}
    for joint in movable:
        element = model.elements[element_of[joint.name]]
        if element.max_speed is not None:
            velocity = element.max_speed * abs(element.motion_scale)
            effort = element.max_effort / abs(element.motion_scale)
            source = f'{element.type} rated'
        else:
            velocity, effort, source = (DEFAULT_JOINT_VELOCITY, DEFAULT_JOINT_EFFORT,
                                        'HRDF joint default')
        limits = JointLimits(joint.lower, joint.upper, velocity,
                             velocity / ACCELERATION_TIME, effort, source)
        user = overrides.get(joint.name)
        if user is not None:
            if user.position is not None and joint.type == 'continuous':
                raise ValueError(f'{joint.name}: the URDF joint is continuous; position '
                                 'limits must be in the URDF too (hrdf urdf --limits)')
            changes = {k: getattr(user, k) for k in ('velocity', 'acceleration', 'effort')
                       if getattr(user, k) is not None}
            if user.position is not None:
                changes.update(lower=user.position[0], upper=user.position[1])
            if changes:
                limits = replace(limits, source='user', **changes)
        out[joint.name] = limits
    return out
