"""The poses and obstacles of a CoBRA task file (:mod:`.cobra`), read and checked.

In: parts of the file's mapping and the key path they sit at. Out: numpy poses (4, 4), a
tolerated pose's nominal pose and whether its orientation counts, the obstacles as
:mod:`hrdf_ros.motion.objects` mappings; or ``ValueError`` with one line naming the key
(:mod:`.cobra` says what is honoured and why).
"""
from __future__ import annotations

import math
from typing import List, Mapping, Sequence, Tuple

import numpy as np

from ..kinematics.rotations import rotation_to_quaternion
from .task import BaseRange

#: The IK's tolerances, m and rad: ``hrdf_ros.kinematics.ik.solve_ik``'s defaults, which
#: collision-free IK solves a design's targets to (:mod:`.evaluate`).
IK_POSITION, IK_ANGLE = 1e-5, 1e-5
#: Projections that bound the position (all of them distances from the nominal position,
#: m) and the orientation (rad).
POSITION_PROJECTIONS = ('x', 'y', 'z', 'r_cyl', 'r_sph')
ANGLE_PROJECTIONS = ('Theta_R',)
#: Obstacle shapes honoured: their parameters in the order of :mod:`hrdf_ros.motion.
#: objects`' dimensions (a cylinder's length along z, then its radius).
SHAPE_PARAMETERS = {'box': ('x', 'y', 'z'), 'sphere': ('r',), 'cylinder': ('z', 'r')}
#: Timor's projections this reader cannot honour yet.
REFUSED_PROJECTIONS = ('phi_cyl', 'theta', 'phi_sph', 'N_x', 'N_y', 'N_z')


def fail(where: str, message: str):
    raise ValueError(f'{where}: {message}')


def as_mapping(where: str, value) -> Mapping:
    if not isinstance(value, Mapping):
        fail(where, f'must be an object, got {type(value).__name__}')
    return value


def as_list(where: str, value) -> Sequence:
    if not isinstance(value, list):
        fail(where, f'must be a list, got {type(value).__name__}')
    return value


def number(where: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value):
        fail(where, f'must be a finite number, got {value!r}')
    return float(value)


def homogeneous(where: str, value) -> np.ndarray:
    """A 4x4 homogeneous transform: a rotation (orthonormal to 1e-6, det +1) and a
    translation, the last row 0 0 0 1."""
    rows = as_list(where, value)
    if len(rows) != 4 or not all(isinstance(r, list) and len(r) == 4 for r in rows):
        fail(where, 'must be a 4x4 homogeneous transform (4 rows of 4 numbers)')
    pose = np.array([[number(f'{where}[{i}][{j}]', v) for j, v in enumerate(r)]
                     for i, r in enumerate(rows)])
    rotation = pose[:3, :3]
    if np.abs(pose[3] - [0.0, 0.0, 0.0, 1.0]).max() > 1e-12 or \
            np.abs(rotation.T @ rotation - np.eye(3)).max() > 1e-6 or \
            np.linalg.det(rotation) < 0.0:
        fail(where, 'must be a homogeneous transform: a rotation (orthonormal, '
                     'determinant +1) and a translation, the last row [0, 0, 0, 1]')
    return pose


def _projected(where: str, value) -> Tuple[np.ndarray, List[Tuple[int, str, float, float]]]:
    """A tolerated pose's nominal pose and its (index, projection, low, high) intervals,
    the keys checked."""
    data = as_mapping(where, value)
    keys = ('nominal', 'nominalParent', 'toleranceProjection', 'tolerance',
            'toleranceFrame', 'frame')
    unknown = [k for k in data if k not in keys]
    if unknown:
        fail(f'{where}.{unknown[0]}', f'unknown key (keys: {", ".join(keys[:-1])})')
    if data.get('nominalParent', 'world') != 'world':
        fail(f'{where}.nominalParent', f"cannot be honoured: {data['nominalParent']!r} "
                                        "(only 'world')")
    if 'nominal' not in data:
        fail(where, 'needs a nominal pose')
    nominal = homogeneous(f'{where}.nominal', data['nominal'])
    projections = as_list(f'{where}.toleranceProjection', data.get('toleranceProjection', []))
    intervals = as_list(f'{where}.tolerance', data.get('tolerance', []))
    if len(intervals) != len(projections):
        fail(f'{where}.tolerance', f'{len(intervals)} intervals for {len(projections)} '
                                    'projections')
    # 'frame': a key timor-python 1.1.1 does not read (the rbo edge cases write it, all
    # 'nominal'); honoured when it says what Timor assumes
    for key in ('toleranceFrame', 'frame'):
        for k, frame in enumerate(as_list(f'{where}.{key}', data.get(key, []))):
            if frame != 'nominal':
                fail(f'{where}.{key}[{k}]', f"cannot be honoured: {frame!r} (only "
                                             "'nominal')")
    out = []
    for k, (name, interval) in enumerate(zip(projections, intervals)):
        at = f'{where}.toleranceProjection[{k}]'
        if name in REFUSED_PROJECTIONS:
            fail(at, f'cannot be honoured: {name!r} (the projections honoured: '
                      f'{", ".join(POSITION_PROJECTIONS + ANGLE_PROJECTIONS)})')
        if name not in POSITION_PROJECTIONS + ANGLE_PROJECTIONS:
            fail(at, f'unknown projection {name!r}')
        pair = as_list(f'{where}.tolerance[{k}]', interval)
        if len(pair) != 2:
            fail(f'{where}.tolerance[{k}]', 'must be an interval [low, high]')
        low, high = (number(f'{where}.tolerance[{k}][{i}]', v) for i, v in enumerate(pair))
        if low > high:
            fail(f'{where}.tolerance[{k}]', f'low must be <= high, got [{low:g}, {high:g}]')
        out.append((k, name, low, high))
    return nominal, out


def tolerated_pose(where: str, value) -> Tuple[np.ndarray, bool]:
    """A goal's tolerated pose: its nominal pose, and whether its orientation counts
    (:mod:`.cobra`: the tolerances the nominal pose meets, or refused)."""
    nominal, intervals = _projected(where, value)
    position, orientation = False, False
    for k, name, low, high in intervals:
        if name in POSITION_PROJECTIONS:
            position = True
            # r_cyl and r_sph are >= 0: their low bound only has to reach 0
            need = (0.0 if name.startswith('r_') else -IK_POSITION, IK_POSITION)
        else:
            need = (0.0, IK_ANGLE)
            if high >= math.pi:          # every angle
                continue
            orientation = True
        if not (low <= need[0] and high >= need[1]):
            fail(f'{where}.tolerance[{k}]', f'cannot be honoured: {name} in [{low:g}, '
                                             f'{high:g}] must hold [{need[0]:g}, '
                                             f'{need[1]:g}] (the design reaches the nominal '
                                             'pose to the IK\'s tolerance)')
    if not position:
        fail(f'{where}.toleranceProjection', 'cannot be honoured: the position is free '
                                              '(no x, y, z, r_cyl or r_sph)')
    return nominal, orientation


def base_placement(where: str, value) -> Tuple[np.ndarray, BaseRange]:
    """A basePlacement's nominal pose, and where in its frame the base may stand: a box
    inside the tolerances (``x``, ``y``, ``z`` as given, an axis not given at the
    nominal; ``r_sph`` R: the box of half side R / sqrt 3; ``r_cyl`` r: x and y within
    r / sqrt 2), z up, a yaw whose angle is within ``Theta_R`` (any without one)."""
    nominal, intervals = _projected(where, value)
    low, high = np.zeros(3), np.zeros(3)
    given = set()
    for k, name, lo, hi in intervals:
        if name in ('x', 'y', 'z'):
            axis = 'xyz'.index(name)
            low[axis], high[axis] = (max(low[axis], lo), min(high[axis], hi)) \
                if axis in given else (lo, hi)
            given.add(axis)
    for k, name, lo, hi in intervals:
        if name in ('r_sph', 'r_cyl'):
            half = hi / math.sqrt(3.0 if name == 'r_sph' else 2.0)
            for axis in (0, 1, 2) if name == 'r_sph' else (0, 1):
                low[axis] = max(low[axis], -half) if axis in given else -half
                high[axis] = min(high[axis], half) if axis in given else half
                given.add(axis)
    if np.any(low > high):
        fail(f'{where}.tolerance', 'the position tolerances leave no box')
    yaw = (-math.pi, math.pi)
    for k, name, lo, hi in intervals:
        if name != 'Theta_R':
            continue
        if lo > 0.0:
            fail(f'{where}.tolerance[{k}]', f'cannot be honoured: Theta_R in [{lo:g}, '
                                             f'{hi:g}] (a base turned by at least an angle)')
        yaw = (-math.pi, math.pi) if hi >= math.pi else (-hi, hi)
    return nominal, BaseRange(tuple(float(v) for v in low), tuple(float(v) for v in high),
                              yaw)


def obstacles(where: str, value, to_base: np.ndarray) -> List[Mapping]:
    out = []
    for k, obstacle in enumerate(as_list(where, value)):
        at = f'{where}[{k}]'
        data = as_mapping(at, obstacle)
        name = str(data.get('ID', f'obstacle{k}'))
        geometries = as_list(f'{at}.collision', data.get('collision', []))
        for j, geometry in enumerate(geometries):
            here = f'{at}.collision[{j}]'
            shape = as_mapping(here, geometry)
            kind = shape.get('type')
            parameters = as_mapping(f'{here}.parameters', shape.get('parameters', {}))
            if kind not in SHAPE_PARAMETERS:
                fail(f'{here}.type', f'cannot be honoured: {kind!r} (box, sphere, '
                                      'cylinder)')
            dimensions = [number(f'{here}.parameters.{p}', parameters.get(p))
                          for p in SHAPE_PARAMETERS[kind]]
            if min(dimensions) <= 0.0:
                fail(f'{here}.parameters', f'must be > 0 m, got {dimensions}')
            pose = to_base @ homogeneous(f'{here}.pose', shape.get('pose', np.eye(4).tolist()))
            quaternion = rotation_to_quaternion(pose[:3, :3])
            out.append({'name': name if len(geometries) == 1 else f'{name}.{j}',
                        'type': kind, 'dimensions': dimensions,
                        'pose': {'position': pose[:3, 3].tolist(),
                                 'orientation': [float(v) for v in quaternion]}})
    return out
