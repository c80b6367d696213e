"""The robot as Pinocchio sees it for collision checks: its joints and collision shapes.

In: a :class:`~hrdf_ros.description.robot.RobotDescription` and its
:class:`~hrdf_ros.description.link_poses.LinkPoser` (the URDF's joints: origins as
written, axes, mimic rules). Out: :class:`PinocchioRobot`: a ``pinocchio.Model`` with
one joint per degree of freedom (a revolute or prismatic joint about/along the URDF
axis, placed at the URDF origin), the collision shapes as FCL geometry (Pinocchio's
Coal, formerly hpp-fcl) on those joints, and the map from a state in the model's (HEBI's)
order to Pinocchio's configuration (HEBI position / gear ratio: the URDF joint value).

Links no degree of freedom moves hang on their parent's joint (on the universe, joint
0, for the base and what is bolted to it). A parallel gripper is held where it is given
(its finger joint's URDF value, rad; 0, open, by default), its parts fixed on their
joints at that position. A shape that cannot be read (a missing mesh) leaves its link
out, with a note.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..description.collision_shapes import mesh_triangles
from ..description.link_poses import LinkPoser
from ..description.robot import RobotDescription
from .requirements import require


def geometry_module():
    """Pinocchio's FCL: ``coal`` (Pinocchio 3.4 and later) or ``hppfcl``."""
    try:
        import coal as geometry  # noqa: PLC0415
    except ImportError:
        import hppfcl as geometry  # noqa: PLC0415
    return geometry


def _motion(axis, prismatic: bool, value: float) -> np.ndarray:
    """(4, 4) a joint's motion by ``value`` about/along a principal unit ``axis``."""
    out = np.eye(4)
    index = int(np.argmax(np.abs(axis)))
    value = value if axis[index] > 0 else -value
    if prismatic:
        out[index, 3] = value
        return out
    c, s = np.cos(value), np.sin(value)
    i, j = (index + 1) % 3, (index + 2) % 3
    out[i, i], out[i, j], out[j, i], out[j, j] = c, -s, s, c
    return out


def bounding_box(shape, cache) -> Tuple[np.ndarray, np.ndarray]:
    """((4, 4) pose in the link frame, (3,) half sizes, m) of a box that contains a
    collision shape (:class:`~hrdf_ros.description.collision_shapes.CollisionGeometry`).

    Raises:
        ValueError, OSError: a mesh that cannot be read.
    """
    box = np.eye(4)
    if shape.kind == 'box':
        half = np.array(shape.size, dtype=float) / 2
    elif shape.kind == 'cylinder':
        half = np.array([shape.size[0], shape.size[0], shape.size[1] / 2])
    elif shape.kind == 'sphere':
        half = np.full(3, float(shape.size[0]))
    else:
        corners = mesh_triangles(shape, cache).reshape(-1, 3)
        low, high = corners.min(axis=0), corners.max(axis=0)
        box[:3, 3] = (low + high) / 2
        half = np.maximum((high - low) / 2, 1e-9)
    return shape.pose @ box, half


def solid(geometry, shape, cache):
    """The FCL geometry of a collision shape, in its own frame.

    Raises:
        ValueError, OSError: a shape that cannot be read.
    """
    if shape.error:
        raise ValueError(shape.error)
    if shape.kind == 'box':
        return geometry.Box(*shape.size)
    if shape.kind == 'cylinder':
        return geometry.Cylinder(*shape.size)
    if shape.kind == 'sphere':
        return geometry.Sphere(shape.size[0])
    corners = mesh_triangles(shape, cache)
    model = geometry.BVHModelOBBRSS()
    model.beginModel(len(corners), 3 * len(corners))
    model.addVertices(np.ascontiguousarray(corners.reshape(-1, 3), dtype=float))
    model.addTriangles(np.arange(3 * len(corners), dtype=np.int64).reshape(-1, 3))
    model.endModel()
    return model


def farthest(shape, cache) -> float:
    """m, the farthest a point of a collision shape is from its link's origin (exact: a
    box's farthest corner, a cylinder's farthest rim point, a mesh's farthest vertex).

    Raises:
        ValueError, OSError: a mesh that cannot be read.
    """
    rotation, centre = shape.pose[:3, :3], shape.pose[:3, 3]
    if shape.kind == 'box':
        signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
        corners = centre + (signs * np.array(shape.size, dtype=float) / 2) @ rotation.T
        return float(np.max(np.linalg.norm(corners, axis=1)))
    if shape.kind == 'cylinder':
        radius, length = shape.size
        axis = rotation[:, 2]
        out = 0.0
        for end in (centre + axis * length / 2, centre - axis * length / 2):
            along = float(end @ axis)
            across = float(np.linalg.norm(end - along * axis))
            out = max(out, float(np.hypot(along, across + radius)))
        return out
    if shape.kind == 'sphere':
        return float(np.linalg.norm(centre)) + float(shape.size[0])
    return float(np.max(np.linalg.norm(mesh_vertices(shape, cache), axis=1), initial=0.0))


def mesh_vertices(shape, cache) -> np.ndarray:
    """(V, 3) the distinct vertices of a mesh shape in its link's frame, m.

    Raises:
        ValueError, OSError: a mesh that cannot be read.
    """
    corners = np.unique(mesh_triangles(shape, cache).reshape(-1, 3), axis=0)
    return corners @ shape.pose[:3, :3].T + shape.pose[:3, 3]


@dataclass
class RobotShape:
    """One collision shape: its link, Pinocchio joint, placement on that joint (4, 4),
    FCL geometry, the box that contains it (pose in the link frame, half sizes), the
    farthest its points are from the link's origin (m, :func:`farthest`) and, for a
    mesh, its vertices in the link frame ((V, 3), m; None for a primitive)."""

    link: str
    joint: int
    placement: np.ndarray
    geometry: object
    box: np.ndarray
    half: np.ndarray
    reach: float = 0.0
    vertices: Optional[np.ndarray] = None


@dataclass
class PinocchioRobot:
    """The robot for collision checks (module docstring).

    Attributes:
        model: the ``pinocchio.Model``.
        shapes: its collision shapes, links in URDF order.
        links: the links with shapes.
        q_index: (dof,) where each degree of freedom is in Pinocchio's configuration.
        scale: (dof,) 1 / gear ratio.
        notes: ``{link: why its shapes could not be read}``.
    """

    model: object
    shapes: List[RobotShape]
    links: List[str]
    q_index: np.ndarray
    scale: np.ndarray
    notes: Dict[str, str] = field(default_factory=dict)

    def configuration(self, positions: np.ndarray) -> np.ndarray:
        """Pinocchio's configuration (nq,) of a (dof,) state (model order)."""
        q = np.zeros(self.model.nq)
        q[self.q_index] = positions * self.scale
        return q


def gripper_values(current: Dict[str, float], limits: Dict[str, Tuple[float, float]],
                   positions) -> Dict[str, float]:
    """``current`` ({finger joint: rad}) with ``positions`` over it, each checked against
    its (lower, upper) ``limits``.

    Raises:
        ValueError: a name that is no finger joint, or a value that is not finite or
            outside the joint's limits.
    """
    values = dict(current)
    for name, value in dict(positions).items():
        if name not in values:
            known = ', '.join(values) or 'none: the robot has no parallel gripper'
            raise ValueError(f"gripper position of '{name}': not a finger joint "
                             f'(finger joints: {known})')
        low, high = limits[name]
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or not math.isfinite(value) or not low - 1e-9 <= value <= high + 1e-9:
            raise ValueError(f'gripper position of {name} must be a number in '
                             f'[{low:.6g}, {high:.6g}] rad, got {value!r}')
        values[name] = float(value)
    return values


def build(description: RobotDescription, poser: LinkPoser,
          gripper_positions: Optional[Dict[str, float]] = None) -> PinocchioRobot:
    """The :class:`PinocchioRobot` of a described robot, its grippers' finger joints at
    ``gripper_positions`` (``{finger joint: URDF value}``; missing ones at 0, open).

    Raises:
        ImportError: Pinocchio missing (the motion extra).
    """
    pin = require('pinocchio')
    geometry = geometry_module()
    model, tree = description.model, description.tree
    dof_of = {name: k for k, name in enumerate(tree.dof_names)}
    ratios = [float(model.elements[e].gear_ratio) for e in model.dof_elements]
    robot = pin.Model()
    placed = {0: (0, np.eye(4))}                 # link -> (Pinocchio joint, pose in it)
    q_index = np.zeros(len(tree.dof_names), dtype=int)
    scale = np.ones(len(tree.dof_names))
    for m in poser.motions:
        joint, pose = placed[m.parent]
        origin = pose @ m.origin
        name = poser.joints[m.column] if m.column >= 0 else ''
        if name in dof_of:
            kind = pin.JointModelPrismaticUnaligned if m.prismatic \
                else pin.JointModelRevoluteUnaligned
            joint = robot.addJoint(joint, kind(np.array(m.axis, dtype=float)),
                                   pin.SE3(origin[:3, :3], origin[:3, 3]), m.name)
            k = dof_of[name]
            q_index[k] = robot.joints[joint].idx_q
            scale[k] = 1.0 / ratios[k]
            placed[m.child] = (joint, np.eye(4))
        elif m.column >= 0:          # a gripper joint, held at its finger's position
            value = (gripper_positions or {}).get(name, 0.0)   # name: the finger joint
            placed[m.child] = (joint, origin @ _motion(m.axis, m.prismatic,
                                                       m.multiplier * value + m.offset))
        else:
            placed[m.child] = (joint, origin)
    index = {name: k for k, name in enumerate(poser.links)}
    shapes: List[RobotShape] = []
    notes: Dict[str, str] = {}
    cache: dict = {}
    for link, link_shapes in description.collision_geometry():
        joint, pose = placed[index[link]]
        try:
            built = [RobotShape(link, joint, pose @ s.pose, solid(geometry, s, cache),
                                *bounding_box(s, cache), farthest(s, cache),
                                mesh_vertices(s, cache) if s.kind == 'mesh' else None)
                     for s in link_shapes]
        except (ValueError, OSError) as exc:
            notes[link] = str(exc)
            continue
        shapes.extend(built)
    links = sorted({s.link for s in shapes}, key=poser.links.index)
    return PinocchioRobot(robot, shapes, links, q_index, scale, notes)
