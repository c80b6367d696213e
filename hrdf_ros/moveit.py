"""MoveIt 2 configuration files for a robot model (no ROS needed to write them).

:func:`moveit_config` returns, and :func:`write_moveit_config` writes into one folder:

* ``<name>.urdf``: the URDF (:func:`hrdf_ros.urdf.to_urdf`, or the text given).
* ``<name>.srdf``: a fixed virtual joint ``world`` -> root link (``base_link``); one
  planning group per end effector (a ``<chain>`` from the root link to the end-effector
  link; see :func:`planning_groups`); per end effector a one-link group and an
  ``<end_effector>`` whose ``parent_link`` is the link the end-effector link hangs from
  and whose ``parent_group`` is its arm group; ``<group_state name="zero">`` (every
  joint of a group at 0) per group; ``<disable_collisions>`` (see
  :func:`disabled_collision_pairs`).
* ``kinematics.yaml``: ``kdl_kinematics_plugin/KDLKinematicsPlugin`` per arm group,
  search resolution 0.005 (rad), timeout 0.005 (s).
* ``joint_limits.yaml``: per movable joint, velocity limit from the URDF ``<limit
  velocity>`` (rad/s or m/s), no acceleration limit, position limits only for
  ``revolute``/``prismatic`` joints (URDF ``lower``/``upper``); default velocity and
  acceleration scaling 0.1.
* ``ros2_controllers.yaml``: ``controller_manager`` at 100 Hz with a
  ``joint_state_broadcaster`` and one ``joint_trajectory_controller`` per arm group
  (``<group>_controller``: the group's joints, position command interface).
* ``moveit_controllers.yaml``: ``moveit_simple_controller_manager`` with those
  controllers as ``FollowJointTrajectory`` actions.

Everything is read from the URDF text (link and joint names, joint types and limits,
collision geometry), so the files always agree with the URDF they are written with; the
:class:`~hrdf_ros.frames.FrameTree` only says which links are end effectors.

Groups of a tree robot may share joints (e.g. two tools on one trunk); ros2_control
then refuses to run their controllers at the same time, so activate one of them.
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import defusedxml.ElementTree as SafeET
import yaml

from .frames import FrameTree, build_frame_tree
from .model import RobotModel
from .urdf import to_urdf

#: KDL solver settings written to kinematics.yaml (rad, s).
KINEMATICS_SEARCH_RESOLUTION = 0.005
KINEMATICS_TIMEOUT = 0.005
#: controller_manager update rate, Hz.
CONTROLLER_UPDATE_RATE = 100
#: MoveIt's default velocity/acceleration scaling written to joint_limits.yaml.
DEFAULT_SCALING = 0.1
#: URDF joint types MoveIt plans for with one position each.
MOVABLE_TYPES = ('revolute', 'continuous', 'prismatic')


@dataclass(frozen=True)
class UrdfJoint:
    """A URDF joint as MoveIt sees it.

    Attributes:
        name, type, parent, child: as in the URDF.
        lower, upper: ``<limit>`` position bounds (rad or m), or ``None``.
        velocity: ``<limit velocity>`` (rad/s or m/s), or ``None``.
    """

    name: str
    type: str
    parent: str
    child: str
    lower: Optional[float] = None
    upper: Optional[float] = None
    velocity: Optional[float] = None

    @property
    def is_movable(self) -> bool:
        """True for revolute, continuous and prismatic joints."""
        return self.type in MOVABLE_TYPES


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


def _float(node: ET.Element, attribute: str) -> Optional[float]:
    value = node.get(attribute) if node is not None else None
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        raise ValueError(f'URDF: <limit {attribute}="{value}"> is not a number') from None


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
        joints.append(UrdfJoint(node.get('name'), kind, parent.get('link'), child.get('link'),
                                _float(limit, 'lower') if bounded else None,
                                _float(limit, 'upper') if bounded else None,
                                _float(limit, 'velocity')))
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
    ET.SubElement(robot, 'virtual_joint', {'name': 'virtual_joint', 'type': 'fixed',
                                           'parent_frame': 'world', 'child_link': urdf.root})
    for group in groups:
        node = ET.SubElement(robot, 'group', {'name': group.name})
        ET.SubElement(node, 'chain', {'base_link': urdf.root, 'tip_link': group.tip})
    for group in groups:
        if group.end_effector:
            ET.SubElement(ET.SubElement(robot, 'group', {'name': group.end_effector}),
                          'link', {'name': group.end_effector})
    for group in _with_joints(groups):
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


def _with_joints(groups: Sequence[PlanningGroup]) -> List[PlanningGroup]:
    """The groups that can move (a solver or controller needs at least one joint)."""
    return [g for g in groups if g.joints]


def _yaml(comment: str, data) -> str:
    return f'# {comment} Generated by hrdf_ros.\n' + yaml.safe_dump(
        data, sort_keys=False, default_flow_style=False)


def kinematics_yaml(groups: Sequence[PlanningGroup]) -> str:
    """kinematics.yaml: the KDL plugin for every group with a movable joint."""
    return _yaml('MoveIt kinematics solvers.', {group.name: {
        'kinematics_solver': 'kdl_kinematics_plugin/KDLKinematicsPlugin',
        'kinematics_solver_search_resolution': KINEMATICS_SEARCH_RESOLUTION,
        'kinematics_solver_timeout': KINEMATICS_TIMEOUT} for group in _with_joints(groups)})


def joint_limits_yaml(urdf: UrdfStructure) -> str:
    """joint_limits.yaml: velocity and position limits of every movable URDF joint.

    A velocity limit is declared when the URDF gives a positive ``<limit velocity>``;
    position limits only for revolute and prismatic joints with ``lower``/``upper``.
    Acceleration limits are never declared (the HRDF has none).
    """
    limits = {}
    for j in urdf.joints:
        if not j.is_movable:
            continue
        entry = {'has_velocity_limits': j.velocity is not None and j.velocity > 0}
        if entry['has_velocity_limits']:
            entry['max_velocity'] = j.velocity
        entry.update(has_acceleration_limits=False, max_acceleration=0.0)
        entry['has_position_limits'] = j.lower is not None and j.upper is not None
        if entry['has_position_limits']:
            entry.update(min_position=j.lower, max_position=j.upper)
        limits[j.name] = entry
    return _yaml('MoveIt joint limits (rad, rad/s; m, m/s for prismatic joints).', {
        'default_velocity_scaling_factor': DEFAULT_SCALING,
        'default_acceleration_scaling_factor': DEFAULT_SCALING,
        'joint_limits': limits})


def ros2_controllers_yaml(groups: Sequence[PlanningGroup]) -> str:
    """ros2_controllers.yaml: controller_manager, joint_state_broadcaster and one
    joint_trajectory_controller per group with a movable joint (position commands)."""
    manager = {'update_rate': CONTROLLER_UPDATE_RATE,
               'joint_state_broadcaster': {
                   'type': 'joint_state_broadcaster/JointStateBroadcaster'}}
    data = {'controller_manager': {'ros__parameters': manager}}
    for group in _with_joints(groups):
        manager[group.controller] = {
            'type': 'joint_trajectory_controller/JointTrajectoryController'}
        data[group.controller] = {'ros__parameters': {
            'joints': list(group.joints), 'command_interfaces': ['position'],
            'state_interfaces': ['position', 'velocity']}}
    return _yaml('ros2_control controllers.', data)


def moveit_controllers_yaml(groups: Sequence[PlanningGroup]) -> str:
    """moveit_controllers.yaml: the group controllers for MoveIt's simple controller
    manager, as FollowJointTrajectory actions (the first group's is the default)."""
    groups = _with_joints(groups)
    manager = {'controller_names': [g.controller for g in groups]}
    for k, group in enumerate(groups):
        manager[group.controller] = {'type': 'FollowJointTrajectory',
                                     'action_ns': 'follow_joint_trajectory',
                                     'default': k == 0, 'joints': list(group.joints)}
    return _yaml('MoveIt controllers.', {
        'moveit_controller_manager':
            'moveit_simple_controller_manager/MoveItSimpleControllerManager',
        'moveit_simple_controller_manager': manager})


def moveit_config(model: RobotModel, robot_name: str, urdf_text: Optional[str] = None,
                  tree: Optional[FrameTree] = None, joint_prefix: str = 'J'
                  ) -> Dict[str, str]:
    """Every MoveIt configuration file of ``model``: file name -> text.

    Args:
        model: the robot.
        robot_name: URDF/SRDF robot name and the stem of ``<name>.urdf``/``.srdf``.
        urdf_text: the URDF to configure (default: :func:`~hrdf_ros.urdf.to_urdf` of the
            model with ``tree``); its robot name is used for the SRDF.
        tree: the model's frame tree (default: :func:`~hrdf_ros.frames.build_frame_tree`
            with ``joint_prefix``); gives the end-effector links.
        joint_prefix: joint name prefix when neither ``urdf_text`` nor ``tree`` is given.

    Raises:
        ValueError: on invalid names (``robot_name`` must be a plain file name stem),
            URDF text that is not a single-tree URDF, or end effectors that are not links
            of the URDF.
    """
    if not robot_name or robot_name in ('.', '..') or any(
            c in robot_name for c in ('/', '\\', os.sep, '\0')):
        raise ValueError(f'robot name "{robot_name}" cannot be a file name')
    if tree is None:
        tree = build_frame_tree(model, joint_prefix=joint_prefix)
    if urdf_text is None:
        urdf_text = to_urdf(model, robot_name, tree=tree)
    urdf = parse_urdf(urdf_text)
    groups = planning_groups(urdf, tree.end_effector_links)
    return {
        f'{robot_name}.urdf': urdf_text,
        f'{robot_name}.srdf': srdf_text(urdf, groups),
        'kinematics.yaml': kinematics_yaml(groups),
        'joint_limits.yaml': joint_limits_yaml(urdf),
        'ros2_controllers.yaml': ros2_controllers_yaml(groups),
        'moveit_controllers.yaml': moveit_controllers_yaml(groups),
    }


def write_moveit_config(model: RobotModel, out_dir: str, robot_name: str,
                        urdf_text: Optional[str] = None, tree: Optional[FrameTree] = None,
                        joint_prefix: str = 'J') -> List[str]:
    """Write :func:`moveit_config` into ``out_dir`` (created when missing).

    Returns:
        The paths written, in :func:`moveit_config` order.

    Raises:
        ValueError: as :func:`moveit_config`.
        OSError: when the folder or a file cannot be written.
    """
    files = moveit_config(model, robot_name, urdf_text, tree, joint_prefix)
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for name, text in files.items():
        path = os.path.join(out_dir, name)
        with open(path, 'w', encoding='utf-8') as handle:
            handle.write(text)
        paths.append(path)
    return paths
