"""The job an arm is designed for: ``hrdf design``'s task file, read and checked.

In: a YAML file (or the mapping it holds; a CoBRA task file's JSON: :mod:`.cobra`).
Out: a :class:`Task`, or ``ValueError`` with
one line that says where (the file, the key, the target's index) and what is wrong.

The file (lengths in m, angles in rad, masses in kg; poses in the mount frame, the first
module's input frame, z up)::

    targets:                     # one or more; each the end effector at xyz and at most
      - xyz: [0.4, 0.0, 0.1]     # one orientation:
        tip_axis: [0, 0, -1]     #   its z axis along this direction (5 conditions)
      - xyz: [0.3, 0.2, 0.3]
        rpy: [3.14159, 0, 0]     #   the whole pose: roll pitch yaw (URDF: Rz Ry Rx)
      - xyz: [0.2, -0.3, 0.2]
        quat: [1, 0, 0, 0]       #   the whole pose: a quaternion x y z w (normalised)
      - xyz: [0.5, 0.0, 0.4]     #   none: the position only
    payload: 1.5                 # kg at the end effector's origin, held at every target
                                 # (default 0)
    margin: 0.1                  # the efforts stay within (1 - margin) of the rated
                                 # ones (default 0: up to them)
    collision_objects: [...]     # hrdf plan's schema (hrdf_ros.motion.objects)
    floor: -0.02                 # a floor: the half-space below z = -0.02 m
    dof: [4, 6]                  # actuators, from 3 to 7 (default [3, 7])
    families: [X, R]             # actuator series to choose from (default X, T, R)
    gripper: parallel            # none (default) or parallel: the series' parallel
                                 # gripper ends the arm, its mass counted
    base:                        # where the base may stand (default: at the origin
      low: [-0.5, -0.5, 0.0]     # of the targets' frame, unturned): its origin in
      high: [0.5, 0.5, 0.0]      # this box (m), z up, turned about z by an angle in
      yaw: [-3.14159, 3.14159]   # [least, most] rad (default [0, 0]); the search
                                 # places it as it chooses the modules

Refused, each in one line: an unknown key (of the file or of a target), a number that is
not finite, a zero direction or quaternion, a negative payload, a margin outside
[0, 1), no targets, a DoF range outside 3..7 or upside down, an unknown family or
gripper, a collision object that is not the schema.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence, Tuple

import numpy as np

from ..kinematics.rotations import frame_with_z, quaternion_to_rotation, rpy_to_rotation

#: The keys of a task file, and of one target.
TASK_KEYS = ('targets', 'payload', 'margin', 'collision_objects', 'floor', 'dof',
             'families', 'gripper', 'base')
BASE_KEYS = ('low', 'high', 'yaw')
TARGET_KEYS = ('xyz', 'tip_axis', 'rpy', 'quat')
#: Actuator series a design may use (HEBI's X, T and R series), and its grippers.
FAMILIES = ('X', 'T', 'R')
GRIPPERS = ('none', 'parallel')
#: The design space's actuator counts.
MIN_DOF, MAX_DOF = 3, 7


@dataclass(frozen=True)
class Target:
    """One pose the end effector must reach.

    Attributes:
        pose: (4, 4) in the mount frame, m; for ``'tip_axis'`` its z column is the
            direction (x, y any), for ``'none'`` its rotation is the identity.
        orientation: what must match, as ``solve_ik``'s objectives: ``'full'``,
            ``'tip_axis'`` or ``'none'``.
    """

    pose: np.ndarray
    orientation: str

    @property
    def position(self) -> np.ndarray:
        """(3,) m, mount frame."""
        return self.pose[:3, 3]


@dataclass(frozen=True)
class BaseRange:
    """Where the base may stand: the mount frame's origin within a box of the task's
    frame, its z axis up, turned about z by a yaw within a range.

    Attributes:
        low, high: (3,) the box's corners, m, ``low <= high`` per axis.
        yaw: (least, most) rad, ``least <= most <= least + 2 pi``.
    """

    low: Tuple[float, float, float]
    high: Tuple[float, float, float]
    yaw: Tuple[float, float] = (0.0, 0.0)

    def nearest(self, point) -> Tuple[float, float, float]:
        """The point of the box nearest to ``point`` (3,), m."""
        return tuple(float(min(max(float(p), lo), hi))
                     for p, lo, hi in zip(point, self.low, self.high))


@dataclass(frozen=True)
class Task:
    """A checked task file (module docstring).

    Attributes:
        targets: the :class:`Target` values, in the file's order.
        payload: kg at the end effector's origin.
        margin: share of the rated efforts kept free, in [0, 1).
        collision_objects: the objects' mappings (``hrdf_ros.motion.objects``'s schema,
            checked), the floor last.
        dof: (least, most) actuators.
        families: the actuator series allowed, in :data:`FAMILIES` order.
        gripper: ``'none'`` or ``'parallel'``.
        base: where the base may stand (:class:`BaseRange`); None: at the origin of the
            targets' frame, unturned.
    """

    targets: Tuple[Target, ...]
    payload: float = 0.0
    margin: float = 0.0
    collision_objects: Tuple[Mapping, ...] = ()
    dof: Tuple[int, int] = (MIN_DOF, MAX_DOF)
    families: Tuple[str, ...] = FAMILIES
    gripper: str = 'none'
    base: Optional[BaseRange] = None


def _finite(where: str, value, count: Optional[int] = None) -> np.ndarray:
    """``value`` as a float array of ``count`` finite numbers (a scalar for None)."""
    if count is None:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not ok or not math.isfinite(value):
            raise ValueError(f'{where} must be a finite number, got {value!r}')
        return np.asarray(float(value))
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)) or \
            len(value) != count or not all(isinstance(v, (int, float)) and
                                           not isinstance(v, bool) for v in value):
        raise ValueError(f'{where} must be {count} numbers, got {value!r}')
    array = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(array)):
        raise ValueError(f'{where} must be finite numbers, got {value!r}')
    return array


def _unit(where: str, value, count: int) -> np.ndarray:
    array = _finite(where, value, count)
    norm = float(np.linalg.norm(array))
    if not norm > 1e-12:
        raise ValueError(f'{where} must not be zero, got {value!r}')
    return array / norm


def target(where: str, entry) -> Target:
    """One target of the schema (module docstring).

    Raises:
        ValueError: as the module docstring says, naming ``where``.
    """
    if not isinstance(entry, Mapping):
        raise ValueError(f'{where} must be a mapping with xyz (and at most one of '
                         f'tip_axis, rpy, quat), got {entry!r}')
    unknown = [k for k in entry if k not in TARGET_KEYS]
    if unknown:
        raise ValueError(f'{where}: unknown key {unknown[0]!r} (keys: '
                         f'{", ".join(TARGET_KEYS)})')
    if 'xyz' not in entry:
        raise ValueError(f'{where} needs xyz (m)')
    given = [k for k in ('tip_axis', 'rpy', 'quat') if k in entry]
    if len(given) > 1:
        raise ValueError(f'{where}: give at most one of tip_axis, rpy, quat, got '
                         f'{" and ".join(given)}')
    pose = np.eye(4)
    pose[:3, 3] = _finite(f'{where}.xyz', entry['xyz'], 3)
    orientation = 'none'
    if given == ['tip_axis']:
        pose[:3, :3] = frame_with_z(_unit(f'{where}.tip_axis', entry['tip_axis'], 3))
        orientation = 'tip_axis'
    elif given == ['rpy']:
        pose[:3, :3] = rpy_to_rotation(*_finite(f'{where}.rpy', entry['rpy'], 3))
        orientation = 'full'
    elif given == ['quat']:
        pose[:3, :3] = quaternion_to_rotation(_unit(f'{where}.quat', entry['quat'], 4))
        orientation = 'full'
    pose.setflags(write=False)
    return Target(pose, orientation)


def _objects(where: str, data: Mapping) -> Tuple[Mapping, ...]:
    from ..motion.objects import collision_objects  # noqa: PLC0415 - the schema's check
    objects = data.get('collision_objects') or []
    try:
        checked = [o.to_dict() for o in collision_objects(objects)]
    except ValueError as exc:
        raise ValueError(f'{where}collision_objects: {exc}') from None
    if 'floor' in data:
        z = float(_finite(f'{where}floor', data['floor']))
        checked.append({'name': 'floor', 'type': 'floor',
                        'pose': {'position': [0.0, 0.0, z]}})
        collision_objects(checked)            # a second object named 'floor' is refused
    return tuple(checked)


def task(data, source: str = '') -> Task:
    """The :class:`Task` of a task file's mapping; ``source`` (the file) prefixes every
    message.

    Raises:
        ValueError: as the module docstring says, in one line.
    """
    where = f'{source}: ' if source else ''
    if not isinstance(data, Mapping):
        raise ValueError(f'{where}a task is a mapping with targets (and payload, margin, '
                         f'...), got {type(data).__name__}')
    unknown = [k for k in data if k not in TASK_KEYS]
    if unknown:
        raise ValueError(f'{where}unknown key {unknown[0]!r} (keys: {", ".join(TASK_KEYS)})')
    entries = data.get('targets')
    if not isinstance(entries, Sequence) or isinstance(entries, (str, bytes)) or \
            not entries:
        raise ValueError(f'{where}targets must be a list of one or more targets')
    targets = tuple(target(f'{where}targets[{k}]', e) for k, e in enumerate(entries))
    payload = float(_finite(f'{where}payload', data.get('payload', 0.0)))
    if payload < 0.0:
        raise ValueError(f'{where}payload must be >= 0 kg, got {payload:g}')
    margin = float(_finite(f'{where}margin', data.get('margin', 0.0)))
    if not 0.0 <= margin < 1.0:
        raise ValueError(f'{where}margin must be in [0, 1), got {margin:g}')
    dof = data.get('dof', [MIN_DOF, MAX_DOF])
    if not (isinstance(dof, Sequence) and len(dof) == 2 and all(
            isinstance(d, int) and not isinstance(d, bool) for d in dof)
            and MIN_DOF <= dof[0] <= dof[1] <= MAX_DOF):
        raise ValueError(f'{where}dof must be [least, most] actuators, integers with '
                         f'{MIN_DOF} <= least <= most <= {MAX_DOF}, got {dof!r}')
    families = data.get('families', list(FAMILIES))
    if not isinstance(families, Sequence) or isinstance(families, (str, bytes)) or \
            not families or any(f not in FAMILIES for f in families):
        raise ValueError(f'{where}families must be a list of one or more of '
                         f'{", ".join(FAMILIES)}, got {families!r}')
    gripper = data.get('gripper', 'none')
    if gripper not in GRIPPERS:
        raise ValueError(f'{where}gripper must be one of {", ".join(GRIPPERS)}, got '
                         f'{gripper!r}')
    return Task(targets, payload, margin, _objects(where, data), (dof[0], dof[1]),
                tuple(f for f in FAMILIES if f in families), gripper,
                base_range(f'{where}base', data['base']) if 'base' in data else None)


def base_range(where: str, entry) -> BaseRange:
    """The ``base`` of a task file (module docstring).

    Raises:
        ValueError: not a mapping of low, high (3 finite numbers each, low <= high) and
            yaw (2, least <= most <= least + 2 pi), naming ``where``.
    """
    if not isinstance(entry, Mapping):
        raise ValueError(f'{where} must be a mapping with low, high and yaw, got {entry!r}')
    unknown = [k for k in entry if k not in BASE_KEYS]
    if unknown:
        raise ValueError(f'{where}: unknown key {unknown[0]!r} (keys: {", ".join(BASE_KEYS)})')
    low = _finite(f'{where}.low', entry.get('low', [0.0, 0.0, 0.0]), 3)
    high = _finite(f'{where}.high', entry.get('high', [0.0, 0.0, 0.0]), 3)
    if np.any(low > high):
        raise ValueError(f'{where}: low must be <= high on every axis, got {low.tolist()} '
                         f'and {high.tolist()}')
    yaw = _finite(f'{where}.yaw', entry.get('yaw', [0.0, 0.0]), 2)
    if not yaw[0] <= yaw[1] <= yaw[0] + 2.0 * math.pi:
        raise ValueError(f'{where}.yaw must be [least, most] rad, least <= most <= least + '
                         f'2 pi, got {yaw.tolist()}')
    return BaseRange(tuple(float(v) for v in low), tuple(float(v) for v in high),
                     (float(yaw[0]), float(yaw[1])))


def read_task(path: str) -> Task:
    """The task of a YAML file, or of a CoBRA task file (``.json``: :mod:`.cobra`, its
    targets and objects in the base frame).

    Raises:
        ValueError: not YAML (JSON), or not the schema (one line naming the file).
        OSError: the file cannot be read.
    """
    if path.lower().endswith('.json'):
        from .cobra import read_cobra_task  # noqa: PLC0415 - a module of its own
        return read_cobra_task(path).task
    return task(read_yaml(path), path)


def read_yaml(path: str):
    """What a YAML file holds (``design-K.yaml`` is read by it too).

    Raises:
        ValueError: not YAML (one line naming the file).
        OSError: the file cannot be read.
    """
    import yaml  # noqa: PLC0415 - PyYAML is a core dependency; imported when used
    with open(path, encoding='utf-8') as handle:
        try:
            return yaml.safe_load(handle)
        except yaml.YAMLError as exc:
            raise ValueError(f'{path}: not YAML ({" ".join(str(exc).split())})') from None
