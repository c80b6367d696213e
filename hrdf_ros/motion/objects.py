"""Collision objects of a planning scene: boxes, spheres, cylinders and a floor.

In: a list of mappings (from Python, a YAML file of ``hrdf plan --collision-objects``, the
node's ``collision_objects`` parameter or its service), each::

    {name: table, type: box, dimensions: [x, y, z],
     pose: {position: [x, y, z], orientation: [x, y, z, w]}}

in the robot's reference frame (``base_link``), m. ``dimensions`` are
``shape_msgs/SolidPrimitive``'s: a box's sizes along its x, y, z; a sphere's
``[radius]``; a cylinder's ``[height, radius]``, its axis along z, centred at the pose.
A ``floor`` is the half-space below the plane z = ``position`` z (no dimensions, no
orientation). ``pose`` may be left out (the identity), and ``orientation`` too.
Out: :class:`CollisionObject` values (frozen), or ``ValueError`` naming the object and the
field that is wrong.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, List, Mapping, Sequence, Tuple

import numpy as np

#: The object types, and how many dimensions each takes.
DIMENSIONS = {'box': 3, 'sphere': 1, 'cylinder': 2, 'floor': 0}


@dataclass(frozen=True)
class CollisionObject:
    """One object of the planning scene.

    Attributes:
        name: unique within the scene.
        type: ``box``, ``sphere``, ``cylinder`` or ``floor``.
        dimensions: m, ``shape_msgs/SolidPrimitive``'s order (module docstring).
        position: (x, y, z) of its centre (a floor: a point of its plane), m, in the
            reference frame.
        orientation: unit quaternion (x, y, z, w).
    """

    name: str
    type: str
    dimensions: Tuple[float, ...]
    position: Tuple[float, float, float] = (0.0, 0.0, 0.0)
    orientation: Tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)

    def pose(self) -> np.ndarray:
        """(4, 4) pose of the object in the reference frame."""
        x, y, z, w = self.orientation
        out = np.eye(4)
        out[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                       [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                       [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
        out[:3, 3] = self.position
        return out

    def to_dict(self) -> dict:
        """The object in the schema it was read from."""
        out = {'name': self.name, 'type': self.type,
               'pose': {'position': list(self.position),
                        'orientation': list(self.orientation)}}
        if self.type != 'floor':
            out['dimensions'] = list(self.dimensions)
        return out


def _numbers(value, count: int, where: str) -> Tuple[float, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ValueError(f'{where}: expected a list of {count} numbers, got {value!r}')
    if len(value) != count:
        raise ValueError(f'{where}: expected {count} numbers, got {len(value)}')
    try:
        numbers = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f'{where}: expected numbers, got {list(value)!r}') from None
    if not all(math.isfinite(v) for v in numbers):
        raise ValueError(f'{where}: numbers must be finite, got {list(value)!r}')
    return numbers


def collision_object(entry: Mapping, index: int = 0) -> CollisionObject:
    """One object of the schema (module docstring).

    Raises:
        ValueError: a missing or unknown field, a type that is none of
            :data:`DIMENSIONS`, dimensions <= 0 or not finite, a zero quaternion.
    """
    if not isinstance(entry, Mapping):
        raise ValueError(f'collision object {index}: expected a mapping, got {entry!r}')
    unknown = sorted(set(entry) - {'name', 'type', 'dimensions', 'pose'})
    name = entry.get('name', f'object{index}')
    where = f'collision object {name!r}'
    if unknown:
        raise ValueError(f'{where}: unknown field(s) {", ".join(map(str, unknown))} '
                         '(name, type, dimensions, pose)')
    if not isinstance(name, str) or not name:
        raise ValueError(f'collision object {index}: name must be a non-empty string')
    kind = entry.get('type')
    if kind not in DIMENSIONS:
        raise ValueError(f'{where}: type must be one of {", ".join(DIMENSIONS)}, got {kind!r}')
    dimensions: Tuple[float, ...] = ()
    if DIMENSIONS[kind]:
        if 'dimensions' not in entry:
            raise ValueError(f'{where}: a {kind} needs dimensions')
        dimensions = _numbers(entry['dimensions'], DIMENSIONS[kind], f'{where}: dimensions')
        if min(dimensions) <= 0.0:
            raise ValueError(f'{where}: dimensions must be > 0 m, got {list(dimensions)}')
    pose = entry.get('pose') or {}
    if not isinstance(pose, Mapping) or set(pose) - {'position', 'orientation'}:
        raise ValueError(f'{where}: pose must be {{position: [x, y, z], orientation: '
                         f'[x, y, z, w]}}, got {pose!r}')
    position = _numbers(pose.get('position', (0.0, 0.0, 0.0)), 3, f'{where}: position')
    orientation = _numbers(pose.get('orientation', (0.0, 0.0, 0.0, 1.0)), 4,
                           f'{where}: orientation')
    length = math.sqrt(sum(v * v for v in orientation))
    if length < 1e-9:
        raise ValueError(f'{where}: orientation is a zero quaternion')
    return CollisionObject(name, kind, dimensions, position,
                           tuple(v / length for v in orientation))


def collision_objects(entries: Iterable) -> List[CollisionObject]:
    """Every object of a list (the schema of the module docstring); objects already
    built pass as they are.

    Raises:
        ValueError: as ``collision_object``, or two objects with one name.
    """
    if entries is None:
        return []
    if isinstance(entries, (str, bytes, Mapping)):
        raise ValueError('collision objects: expected a list of objects')
    out = []
    for index, entry in enumerate(entries):
        out.append(entry if isinstance(entry, CollisionObject)
                   else collision_object(entry, index))
    names = [o.name for o in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f'collision objects: names used twice: {", ".join(twice)}')
    return out


def read_collision_objects(path: str) -> List[CollisionObject]:
    """The objects of a YAML file: a list, or a mapping with the list under
    ``collision_objects``.

    Raises:
        ValueError: the file is not YAML or not the schema (its path in the message).
        OSError: the file cannot be read.
    """
    import yaml  # noqa: PLC0415 - PyYAML is a core dependency; imported when used
    with open(path, encoding='utf-8') as handle:
        try:
            data = yaml.safe_load(handle)
        except yaml.YAMLError as exc:
            raise ValueError(f'{path}: not YAML ({exc})') from None
    if isinstance(data, Mapping) and 'collision_objects' in data:
        data = data['collision_objects']
    try:
        return collision_objects(data if data is not None else [])
    except ValueError as exc:
        raise ValueError(f'{path}: {exc}') from None
