"""The MoveIt semantic description (SRDF) of a URDF: planning groups and collision pairs.

In: a :class:`~hrdf_ros.export.urdf_structure.UrdfStructure` and the end-effector links
(from the :class:`~hrdf_ros.export.frame_tree.FrameTree`). Out: planning groups (one
chain from the root link per end effector), the link pairs MoveIt need not check for
collisions, and the SRDF document: a fixed virtual joint ``world`` -> root link, the
groups, a one-link group and an ``<end_effector>`` per end effector, a ``zero`` group
state, and ``<disable_collisions>``.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from .urdf_structure import UrdfJoint, UrdfStructure


@dataclass(frozen=True)
class PlanningGroup:
    """A MoveIt planning group: the chain from the root link to ``tip``.

    Attributes:
        name: group name (``arm``, or ``arm1``, ``arm2``... for several).
        tip: the chain's tip link.
        links: root link .. tip, in order.
        joints: the movable joints along the chain, root to tip.
        end_effector: the end-effector link at the tip, or ``None``.
    """

    name: str
    tip: str
    links: List[str]
    joints: List[str]
    end_effector: Optional[str]

    @property
    def controller(self) -> str:
        """Name of the group's joint_trajectory_controller."""
        return f'{self.name}_controller'


def _chain(urdf: UrdfStructure, tip: str) -> Tuple[List[str], List[UrdfJoint]]:
    """Links and joints from the root link to ``tip``."""
    parent_joint = urdf.parent_joint()
    links, joints = [tip], []
    while links[-1] != urdf.root:
        joint = parent_joint[links[-1]]
        joints.append(joint)
        links.append(joint.parent)
    return links[::-1], joints[::-1]


def _first_leaf(urdf: UrdfStructure) -> str:
    """The last link of the first chain: from the root, follow each link's first child
    joint (URDF document order, which is HEBI's depth-first order) to a leaf."""
    first_child: Dict[str, str] = {}
    for j in urdf.joints:
        first_child.setdefault(j.parent, j.child)
    link = urdf.root
    while link in first_child:
        link = first_child[link]
    return link


def planning_groups(urdf: UrdfStructure, end_effector_links: Sequence[str]
                    ) -> List[PlanningGroup]:
    """One planning group per end effector: the chain from the root link to it.

    A robot without end effectors gets one group, to the last link of its first chain
    (:func:`_first_leaf`). Groups are named ``arm`` when there is one, else ``arm1``,
    ``arm2``... in end-effector (HEBI) order.

    Raises:
        ValueError: when an end-effector link is not a link of the URDF.
    """
    tips = list(end_effector_links) or [_first_leaf(urdf)]
    for tip in tips:
        if tip not in urdf.links:
            raise ValueError(f'end-effector link "{tip}" is not in the URDF')
    groups = []
    for k, tip in enumerate(tips):
        links, joints = _chain(urdf, tip)
        groups.append(PlanningGroup('arm' if len(tips) == 1 else f'arm{k + 1}', tip, links,
                                    [j.name for j in joints if j.is_movable],
                                    tip if end_effector_links else None))
    return groups


def disabled_collision_pairs(urdf: UrdfStructure) -> List[Tuple[str, str]]:
    """Link pairs MoveIt need not check, all with reason ``Adjacent``.

    * the parent and child link of every joint;
    * every two links rigidly attached through fixed joints (they never move relative
      to each other);
    * every two links of two rigid bodies joined by one moving joint (e.g. an actuator
      and the next actuator mounted on it through a bracket: the bracket and that
      actuator are one rigid body, adjacent to the first actuator);
    * every two links with collision geometry that are joined through links without
      any (MoveIt Setup Assistant's notion of adjacency).

    Pairs are unique, each ordered as the links appear in the URDF.
    """
    index = {name: k for k, name in enumerate(urdf.links)}
    pairs = set()

    def add(a: str, b: str) -> None:
        if a != b:
            pairs.add((a, b) if index[a] < index[b] else (b, a))

    neighbours: Dict[str, List[str]] = {name: [] for name in urdf.links}
    rigid = {name: name for name in urdf.links}   # union-find over fixed joints

    def find(name: str) -> str:
        while rigid[name] != name:
            rigid[name] = rigid[rigid[name]]
            name = rigid[name]
        return name

    for j in urdf.joints:
        add(j.parent, j.child)
        neighbours[j.parent].append(j.child)
        neighbours[j.child].append(j.parent)
        if j.type == 'fixed':
            rigid[find(j.child)] = find(j.parent)
    bodies: Dict[str, List[str]] = {}
    for name in urdf.links:
        bodies.setdefault(find(name), []).append(name)
    for members in bodies.values():
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                add(a, b)
    for j in urdf.joints:
        if j.type != 'fixed':
            for a in bodies[find(j.parent)]:
                for b in bodies[find(j.child)]:
                    add(a, b)
    for start in urdf.links:
        if start not in urdf.collision_links:
            continue
        seen, stack = {start}, list(neighbours[start])
        while stack:
            link = stack.pop()
            if link in seen:
                continue
            seen.add(link)
            if link in urdf.collision_links:
                add(start, link)
            else:
                stack.extend(neighbours[link])
    return sorted(pairs, key=lambda p: (index[p[0]], index[p[1]]))


def srdf_text(urdf: UrdfStructure, groups: Sequence[PlanningGroup]) -> str:
    """The SRDF document (see the module docstring) as a UTF-8 XML string."""
    robot = ET.Element('robot', {'name': urdf.name})
    robot.append(ET.Comment(' Generated by hrdf_ros (MoveIt semantic description). '))
    if not groups:
        robot.append(ET.Comment(' No planning group: the robot has no degree of freedom. '))
    ET.SubElement(robot, 'virtual_joint', {'name': 'virtual_joint', 'type': 'fixed',
                                           'parent_frame': 'world', 'child_link': urdf.root})
    for group in groups:
        node = ET.SubElement(robot, 'group', {'name': group.name})
        ET.SubElement(node, 'chain', {'base_link': urdf.root, 'tip_link': group.tip})
    for group in groups:
        if group.end_effector:
            ET.SubElement(ET.SubElement(robot, 'group', {'name': group.end_effector}),
                          'link', {'name': group.end_effector})
    for group in with_joints(groups):
        state = ET.SubElement(robot, 'group_state', {'name': 'zero', 'group': group.name})
        for joint in group.joints:
            ET.SubElement(state, 'joint', {'name': joint, 'value': '0'})
    parent_link = {j.child: j.parent for j in urdf.joints}
    for group in groups:
        if group.end_effector:
            ET.SubElement(robot, 'end_effector', {
                'name': group.end_effector, 'parent_link': parent_link[group.end_effector],
                'group': group.end_effector, 'parent_group': group.name})
    for a, b in disabled_collision_pairs(urdf):
        ET.SubElement(robot, 'disable_collisions', {'link1': a, 'link2': b,
                                                   'reason': 'Adjacent'})
    ET.indent(robot, space='  ')
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(robot, encoding='unicode') \
        + '\n'


def with_joints(groups: Sequence[PlanningGroup]) -> List[PlanningGroup]:
    """The groups that can move (a solver or controller needs at least one joint)."""
    return [g for g in groups if g.joints]
