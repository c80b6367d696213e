"""Joint limits given by the user (the HRDF carries none), and the defaults where the HRDF
gives no rated speed or effort.

In: a YAML file, or a mapping ``{joint: (lower, upper)}`` / ``{joint: JointLimit}``.
Out: :class:`JointLimit` per joint name (rad, rad/s, rad/s^2, N m; m, m/s, m/s^2, N for
prismatic joints). The one format for ``hrdf urdf|sdf|moveit --limits`` and the node's
``position_limits_file``.

YAML: ``J2: [-1.5, 2.0]`` (position limits), or a mapping with any of ``lower``/``upper``
(together; or ``position: [lower, upper]``), ``velocity``, ``acceleration``, ``effort``:
``slide: {lower: -0.2, upper: 0.2, velocity: 0.5}``. The URDF takes position, velocity
and effort; acceleration goes to MoveIt's ``joint_limits.yaml`` only.
"""
from __future__ import annotations

import math
from typing import Dict, Mapping, NamedTuple, Optional, Sequence, Tuple

import yaml

#: Position limits (m) of prismatic HRDF joints without user limits: URDF requires limits
#: on a prismatic joint and the HRDF has none.
DEFAULT_PRISMATIC_LIMIT = 1.0
#: Velocity limit (rad/s or m/s) of HRDF ``<joint>`` elements that need a ``<limit>``
#: (prismatic, or given position limits): the HRDF gives them no rated speed. A limit of
#: 0 would make them immovable in Drake and MoveIt.
DEFAULT_JOINT_VELOCITY = 1.0
#: Effort limit (N m or N) of those joints: the HRDF gives them no rated effort. Drake
#: creates no actuator for a joint with effort limit 0.
DEFAULT_JOINT_EFFORT = 100.0


def rated_limits(element) -> Tuple[float, float, str]:
    """``(velocity, effort, source)`` of a degree-of-freedom element: the actuator's rated
    speed (rad/s) times and rated effort (N m) over its motion scale's magnitude (a gear
    ratio speeds the joint up and weakens it), from HEBI's catalogue (hebi-py 2.16.1
    ``max_speeds``/``max_efforts``); :data:`DEFAULT_JOINT_VELOCITY` and
    :data:`DEFAULT_JOINT_EFFORT` for an HRDF ``<joint>`` (no rated values). ``source`` says
    which (``'X8-9 rated'``, ``'HRDF joint default'``)."""
    if element.max_speed is None:
        return DEFAULT_JOINT_VELOCITY, DEFAULT_JOINT_EFFORT, 'HRDF joint default'
    scale = abs(element.motion_scale)
    return element.max_speed * scale, element.max_effort / scale, f'{element.type} rated'


class JointLimit(NamedTuple):
    """User limits of one joint; ``None`` keeps the default.

    Attributes:
        lower, upper: position limits, rad (m for prismatic), both or neither.
        velocity: rad/s (m/s), > 0.
        effort: N m (N), > 0.
        acceleration: rad/s^2 (m/s^2), > 0 (MoveIt only).
    """

    lower: Optional[float] = None
    upper: Optional[float] = None
    velocity: Optional[float] = None
    effort: Optional[float] = None
    acceleration: Optional[float] = None

    @property
    def has_position(self) -> bool:
        """True when position limits are given."""
        return self.lower is not None


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def as_joint_limit(name: str, value) -> JointLimit:
    """A :class:`JointLimit` from ``(lower, upper)``, a mapping or a JointLimit.

    Raises:
        ValueError: on a malformed or invalid limit (unknown keys, not finite,
            lower >= upper, velocity, effort or acceleration <= 0).
    """
    if isinstance(value, JointLimit):
        limit = value
    elif isinstance(value, Mapping):
        keys = JointLimit._fields + ('position',)
        unknown = sorted(map(str, set(value) - set(keys)))
        if unknown:
            raise ValueError(f'{name}: unknown keys {", ".join(unknown)} '
                             f'(expected {", ".join(keys)})')
        fields = {k: v for k, v in value.items() if k != 'position'}
        if 'position' in value:
            position = value['position']
            if 'lower' in value or 'upper' in value:
                raise ValueError(f'{name}: give position or lower/upper, not both')
            if not isinstance(position, (list, tuple)) or len(position) != 2:
                raise ValueError(f'{name}: position must be [lower, upper], got {position!r}')
            fields.update(lower=position[0], upper=position[1])
        limit = JointLimit(**fields)
    elif isinstance(value, (list, tuple)) and len(value) == 2:
        limit = JointLimit(value[0], value[1])
    else:
        raise ValueError(f'{name}: expected [lower, upper] or a mapping, got {value!r}')
    if not all(v is None or _number(v) for v in limit):
        raise ValueError(f'{name}: expected [lower, upper] or a mapping of numbers, '
                         f'got {value!r}')
    if (limit.lower is None) != (limit.upper is None):
        raise ValueError(f'{name}: give both lower and upper position limits')
    if limit.has_position and not (math.isfinite(limit.lower) and math.isfinite(limit.upper)
                                   and limit.lower < limit.upper):
        raise ValueError(f'position limits of {name} must be finite with lower < upper, '
                         f'got [{limit.lower}, {limit.upper}]')
    for field in ('velocity', 'effort', 'acceleration'):
        v = getattr(limit, field)
        if v is not None and not (math.isfinite(v) and v > 0):
            raise ValueError(f'{field} limit of {name} must be finite and > 0, got {v}')
    return JointLimit(*(None if v is None else float(v) for v in limit))


def joint_limits(limits: Optional[Mapping]) -> Dict[str, JointLimit]:
    """Normalise ``{joint: (lower, upper) | mapping | JointLimit}``.

    Raises:
        ValueError: as :func:`as_joint_limit`.
    """
    return {str(name): as_joint_limit(str(name), value)
            for name, value in (limits or {}).items()}


def overlay_limits(base: Mapping[str, JointLimit], top: Mapping[str, JointLimit]
                   ) -> Dict[str, JointLimit]:
    """Per joint, the values ``top`` gives over those of ``base`` (a user's ``--limits``
    over a HEBI arm config's velocity and effort bounds); both already normalised."""
    out = dict(base)
    for name, limit in top.items():
        under = out.get(name)
        given = {f: v for f, v in zip(JointLimit._fields, limit) if v is not None}
        out[name] = limit if under is None else under._replace(**given)
    return out


def limits_for_joints(limits: Optional[Mapping],
                      joint_names: Sequence[str]) -> Dict[str, JointLimit]:
    """:func:`joint_limits` of a robot whose movable joints are ``joint_names``.

    Raises:
        ValueError: as :func:`as_joint_limit`, or limits for joints the robot lacks.
    """
    normalised = joint_limits(limits)
    unknown = sorted(set(normalised) - set(joint_names))
    if unknown:
        raise ValueError(f'position limits for unknown joints: {", ".join(unknown)} '
                         f'(joints: {", ".join(joint_names)})')
    return normalised


def read_limits(path: str) -> Dict[str, JointLimit]:
    """Joint limits from a YAML file (see the module docstring).

    Raises:
        OSError: when the file cannot be read.
        ValueError: when it is not such a mapping of valid limits.
    """
    with open(path, encoding='utf-8') as handle:
        try:
            data = yaml.safe_load(handle)
        except yaml.YAMLError as exc:
            raise ValueError(f'{path}: not YAML ({exc})') from None
    if not isinstance(data, dict):
        raise ValueError(f'{path}: expected a mapping joint: [lower, upper] or joint: '
                         '{lower, upper, velocity, acceleration, effort}')
    try:
        return joint_limits(data)
    except ValueError as exc:
        raise ValueError(f'{path}: {exc}') from None
