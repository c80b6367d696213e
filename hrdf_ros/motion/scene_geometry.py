"""The planning scene's geometry in Pinocchio: the robot's collision shapes and the
collision objects as one ``pinocchio.GeometryModel``, and the pairs it checks.

In: Pinocchio and its FCL module, the scene's :class:`~.pinocchio_robot.PinocchioRobot`,
:class:`~.objects.CollisionObject` values and the link pairs the SRDF leaves checked.
Out: :class:`SceneGeometry`: the model (the robot's shapes first, then one geometry
object per collision object), its checked pairs (rows) by name and by geometry object,
and the objects' boxes for the sieve. A pair of links is checked when the SRDF does not
disable it; a link and an object when a joint moves the link (links no joint moves are
where the robot is mounted).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence, Set, Tuple

import numpy as np

Pair = Tuple[str, str]


@dataclass
class SceneGeometry:
    """What :func:`build` makes.

    Attributes:
        model: the ``pinocchio.GeometryModel``, its collision pairs the rows.
        pairs: per row, (link, link) or (link, object name).
        indices: (P, 2) per row its two geometry objects (>= the robot's shape count: an
            object).
        object_poses: (O, 4, 4) the objects' poses (a floor: a point of its plane).
        object_boxes: (O, 3) half sizes of the box around each object (inf: a floor).
        floors: (O,) bool, which objects are floors.
    """

    model: object
    pairs: List[Pair]
    indices: np.ndarray
    object_poses: np.ndarray
    object_boxes: np.ndarray
    floors: np.ndarray


def object_box(o) -> np.ndarray:
    """(3,) half sizes of the box around an object (inf for a floor)."""
    if o.type == 'floor':
        return np.full(3, np.inf)
    if o.type == 'box':
        return np.array(o.dimensions) / 2
    if o.type == 'sphere':
        return np.full(3, o.dimensions[0])
    height, radius = o.dimensions
    return np.array([radius, radius, height / 2])


def _geometry_object(pin, name: str, joint: int, placement: np.ndarray, solid):
    se3 = pin.SE3(placement[:3, :3], placement[:3, 3])
    if int(pin.__version__.split('.')[0]) >= 3:
        return pin.GeometryObject(name, joint, 0, se3, solid)
    return pin.GeometryObject(name, 0, joint, solid, se3)


def _solid(geometry, o):
    """(FCL geometry, its placement (4, 4)) of a collision object."""
    if o.type == 'box':
        return geometry.Box(*o.dimensions), o.pose()
    if o.type == 'sphere':
        return geometry.Sphere(o.dimensions[0]), o.pose()
    if o.type == 'cylinder':
        return geometry.Cylinder(o.dimensions[1], o.dimensions[0]), o.pose()
    # a floor: the half-space below z = position z (the plane in the solid)
    return geometry.Halfspace(np.array([0.0, 0.0, 1.0]), o.position[2]), np.eye(4)


def build(pin, geometry, robot, objects: Sequence, checked: Set[Pair]) -> SceneGeometry:
    """The scene's :class:`SceneGeometry` (module docstring)."""
    model = pin.GeometryModel()
    owners = [shape.link for shape in robot.shapes]
    for k, shape in enumerate(robot.shapes):
        model.addGeometryObject(_geometry_object(pin, f'{shape.link}#{k}', shape.joint,
                                                 shape.placement, shape.geometry))
    poses = []
    for o in objects:
        solid, placement = _solid(geometry, o)
        model.addGeometryObject(_geometry_object(pin, o.name, 0, placement, solid))
        owners.append(o.name)
        pose = o.pose()
        if o.type == 'floor':              # the sieve's plane
            pose = np.eye(4)
            pose[2, 3] = o.position[2]
        poses.append(pose)
    count = len(robot.shapes)
    moving = {shape.link for shape in robot.shapes if shape.joint != 0}
    pairs: List[Pair] = []
    indices = []
    for i in range(len(owners)):
        for j in range(i + 1, len(owners)):
            a, b = owners[i], owners[j]
            if (j < count and (a, b) in checked) or (i < count <= j and a in moving):
                model.addCollisionPair(pin.CollisionPair(i, j))
                pairs.append((a, b))
                indices.append((i, j))
    return SceneGeometry(model, pairs, np.array(indices, dtype=np.int64).reshape(-1, 2),
                         np.array(poses).reshape(-1, 4, 4),
                         np.array([object_box(o) for o in objects]).reshape(-1, 3),
                         np.array([o.type == 'floor' for o in objects], dtype=bool))
