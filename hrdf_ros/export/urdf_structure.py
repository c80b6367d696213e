"""A URDF document read back as a kinematic tree: links, joints, limits, collision links.

In: URDF text (this package's own, or any single-tree URDF). Out: a
:class:`UrdfStructure` that the MoveIt files are derived from, so they always agree
with the URDF they are written with. XML is read with defusedxml.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import defusedxml.ElementTree as SafeET

#: URDF joint types MoveIt plans for with one position each.
MOVABLE_TYPES = ('revolute', 'continuous', 'prismatic')


@dataclass(frozen=True)
class UrdfJoint:
    """A URDF joint as MoveIt sees it.

    Attributes:
        name, type, parent, child: as in the URDF.
        lower, upper: ``<limit>`` position bounds (rad or m), or ``None``.
        velocity: ``<limit velocity>`` (rad/s or m/s), or ``None``.
        mimic: ``(joint, multiplier, offset)`` of a ``<mimic>`` joint, else ``None``.
    """

    name: str
    type: str
    parent: str
    child: str
    lower: Optional[float] = None
    upper: Optional[float] = None
    velocity: Optional[float] = None
    mimic: Optional[Tuple[str, float, float]] = None

    @property
    def is_movable(self) -> bool:
        """True for revolute, continuous and prismatic joints."""
        return self.type in MOVABLE_TYPES

    @property
    def is_active(self) -> bool:
        """A movable joint with a value of its own (not a ``<mimic>`` joint): what
        MoveIt plans for and ros2_control commands."""
        return self.is_movable and self.mimic is None


@dataclass(frozen=True)
class UrdfStructure:
    """The kinematic tree of a URDF document.

    Attributes:
        name: the ``<robot name>``.
        links: link names in document order.
        joints: joints in document order.
        root: the one link that is no joint's child.
        collision_links: links with at least one ``<collision>``.
    """

    name: str
    links: List[str]
    joints: List[UrdfJoint]
    root: str
    collision_links: frozenset

    def parent_joint(self) -> Dict[str, UrdfJoint]:
        """child link -> the joint that carries it."""
        return {j.child: j for j in self.joints}


def _float(node: ET.Element, attribute: str) -> Optional[float]:
    value = node.get(attribute) if node is not None else None
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        raise ValueError(f'URDF: <{node.tag} {attribute}="{value}"> is not a number') from None


def parse_urdf(urdf_text: str) -> UrdfStructure:
    """Read links, joints, limits and collision geometry from URDF text.

    Raises:
        ValueError: when the text is not XML, not a ``<robot>``, a joint lacks its
            parent/child, a limit is not a number, or the links do not form one tree.
    """
    try:
        root = SafeET.fromstring(urdf_text)
    except ET.ParseError as exc:
        raise ValueError(f'URDF is not XML: {exc}') from None
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
        joints.append(UrdfJoint(node.get('name'), kind, parent.get('link'), child.get('link'),
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
    return UrdfStructure(root.get('name', ''), links, joints, roots[0], collision)
