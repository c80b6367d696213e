"""A URDF document read back: its kinematic tree and its collision geometry (a writer
tool: the ros2_control writer checks its joints against a URDF; tests read URDFs with it).

In: URDF text (this package's own, or any single-tree URDF). Out: a
:class:`~hrdf_ros.description.structure.LinkTree` (:func:`parse_urdf`) and each link's
``<collision>`` shapes as :class:`~hrdf_ros.description.collision_shapes.CollisionGeometry`
(:func:`urdf_collisions`). XML is read with defusedxml.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Dict, List, Optional, Tuple

import defusedxml.ElementTree as SafeET
import numpy as np

from ..description.collision_shapes import CollisionGeometry
from ..description.structure import LinkTree, TreeJoint
from ..kinematics.rotations import rpy_to_rotation

def _float(node: ET.Element, attribute: str) -> Optional[float]:
    value = node.get(attribute) if node is not None else None
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        raise ValueError(f'URDF: <{node.tag} {attribute}="{value}"> is not a number') from None


def _read(urdf_text: str) -> ET.Element:
    try:
        root = SafeET.fromstring(urdf_text)
    except ET.ParseError as exc:
        raise ValueError(f'URDF is not XML: {exc}') from None
    return root


def parse_urdf(urdf_text: str) -> LinkTree:
    """Read links, joints, limits and collision geometry from URDF text.

    Raises:
        ValueError: when the text is not XML, not a ``<robot>``, a joint lacks its
            parent/child, a limit is not a number, or the links do not form one tree.
    """
    root = _read(urdf_text)
    if root.tag != 'robot':
        raise ValueError(f'URDF root element is <{root.tag}>, expected <robot>')
    links = [link.get('name') for link in root.findall('link')]
    if len(set(links)) != len(links) or None in links:
        raise ValueError('URDF links must have unique names')
    collision = frozenset(link.get('name') for link in root.findall('link')
                          if link.find('collision') is not None)
    joints = []
    for node in root.findall('joint'):
        parent, child = node.find('parent'), node.find('child')
        if parent is None or child is None:
            raise ValueError(f'URDF joint "{node.get("name")}" lacks <parent> or <child>')
        limit = node.find('limit')
        kind = node.get('type')
        bounded = kind in ('revolute', 'prismatic')
        mimic = node.find('mimic')
        if mimic is not None:
            multiplier, offset = _float(mimic, 'multiplier'), _float(mimic, 'offset')
            mimic = (mimic.get('joint'), 1.0 if multiplier is None else multiplier,
                     0.0 if offset is None else offset)
        joints.append(TreeJoint(node.get('name'), kind, parent.get('link'), child.get('link'),
                                _float(limit, 'lower') if bounded else None,
                                _float(limit, 'upper') if bounded else None,
                                _float(limit, 'velocity'), mimic))
    known = set(links)
    children = [j.child for j in joints]
    for j in joints:
        for link in (j.parent, j.child):
            if link not in known:
                raise ValueError(f'URDF joint "{j.name}" names unknown link "{link}"')
    roots = [link for link in links if link not in set(children)]
    reached = set(roots[:1])
    below: Dict[str, List[str]] = {}
    for j in joints:
        below.setdefault(j.parent, []).append(j.child)
    stack = list(reached)
    while stack:
        for child in below.get(stack.pop(), []):
            if child not in reached:
                reached.add(child)
                stack.append(child)
    if len(roots) != 1 or len(set(children)) != len(children) or reached != known:
        raise ValueError('URDF links do not form a single tree '
                         f'(roots: {", ".join(roots) or "none"})')
    return LinkTree(root.get('name', ''), links, joints, roots[0], collision)


def _pose(node: Optional[ET.Element]) -> np.ndarray:
    pose = np.eye(4)
    if node is None:
        return pose
    pose[:3, :3] = rpy_to_rotation(*[float(v) for v in node.get('rpy', '0 0 0').split()])
    pose[:3, 3] = [float(v) for v in node.get('xyz', '0 0 0').split()]
    return pose


def _geometry(collision: ET.Element) -> CollisionGeometry:
    """One ``<collision>`` (box size, cylinder radius and length, sphere radius, mesh
    filename and scale), or one that names why it cannot be read."""
    geometry = collision.find('geometry')
    child = None if geometry is None else next(
        (c for c in geometry if isinstance(c.tag, str)), None)
    try:
        pose = _pose(collision.find('origin'))
        if child is None:
            raise ValueError('<collision> without <geometry>' if geometry is None
                             else 'empty <geometry>')
        if child.tag == 'box':
            size = tuple(float(v) for v in child.get('size').split())
        elif child.tag == 'cylinder':
            size = (float(child.get('radius')), float(child.get('length')))
        elif child.tag == 'sphere':
            size = (float(child.get('radius')),)
        elif child.tag == 'mesh':
            size = tuple(float(v) for v in child.get('scale', '1 1 1').split())
            return CollisionGeometry('mesh', size, pose, child.get('filename', ''))
        else:
            raise ValueError(f'unsupported geometry <{child.tag}>')
    except (ValueError, TypeError, AttributeError) as exc:
        return CollisionGeometry('', (), np.eye(4), error=str(exc))
    return CollisionGeometry(child.tag, size, pose)


def urdf_collisions(urdf_text: str) -> List[Tuple[str, List[CollisionGeometry]]]:
    """``[(link, its collision geometry)]`` of every link with a ``<collision>``, in
    document order (what :func:`~hrdf_ros.description.collision_shapes.collision_shapes`
    takes).

    Raises:
        ValueError: the text is not XML.
    """
    return [(link.get('name'), [_geometry(c) for c in link.findall('collision')])
            for link in _read(urdf_text).findall('link') if link.find('collision') is not None]
