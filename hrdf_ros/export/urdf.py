"""URDF export of a :class:`~hrdf_ros.model.RobotModel`.

The link/joint layout is :mod:`hrdf_ros.export.frame_tree`. Numbers are written with full double
precision (``repr``), so forward kinematics of the URDF equal hrdf_ros's (and HEBI's) to
rounding. Inertials: mass (kg), origin at the COM frame (``com_rot`` as rpy), inertia
(kg m^2) about the COM in that frame; massless elements get no ``<inertial>``.

Joint types: actuators are ``continuous`` (HEBI actuators turn without end stops) with
``<limit effort velocity>`` from the module's rated torque (N m) and speed (rad/s);
HRDF ``<joint>`` rotations are ``continuous``, translations ``prismatic`` with limits
+-:data:`DEFAULT_PRISMATIC_LIMIT` m (the HRDF carries no limits). Joints given position
limits (``position_limits``) become ``revolute`` (or prismatic) with those limits.

Gear ratios and axes: a URDF joint value is the joint's motion (rad or m) about/along its
``<axis>``, so URDF tools compute the same poses as HEBI; an HRDF negative axis
(``-rz``) is written as the negative URDF axis (``0 0 -1``). For an HRDF
``<joint gear_ratio="g">`` the HEBI position is ``g`` times that value; the URDF records
this as a ``<transmission>`` with ``mechanicalReduction`` g (actuator = HEBI position,
joint = URDF value).

Geometry: every element link has visual and collision shapes from
:mod:`hrdf_ros.export.geometry` (primitives, the HRDF ``mesh_path``, or HEBI's meshes).

:func:`to_xacro` wraps the same description in a xacro macro with a name ``prefix`` and
a ``parent`` link to mount the robot on; processed on its own it expands to the URDF
:func:`to_urdf` writes.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from ..hrdf.catalogue import ACTUATORS
from .frame_tree import FrameTree, build_frame_tree, joint_origin
from .geometry import Shape, element_shapes
from ..model import RobotModel
from ..kinematics.rotations import rotation_to_rpy

#: Position limit (m) written for prismatic HRDF joints, which carry none in the HRDF.
DEFAULT_PRISMATIC_LIMIT = 1.0

_AXIS_VECTORS = {'x': '1 0 0', 'y': '0 1 0', 'z': '0 0 1'}


def _axis(element) -> str:
    """URDF ``<axis xyz>`` of a degree of freedom: its motion axis, negated for an HRDF
    negative axis (``-rz`` -> ``0 0 -1``), so the URDF joint value stays position /
    gear_ratio."""
    vector = _AXIS_VECTORS[element.motion[1]]
    return vector.replace('1', '-1') if element.axis_sign < 0 else vector


def _num(value: float) -> str:
    value = float(value)
    if value == 0.0:
        return '0'
    return repr(value)


def _origin(parent: ET.Element, transform: np.ndarray) -> None:
    roll, pitch, yaw = rotation_to_rpy(transform[:3, :3])
    ET.SubElement(parent, 'origin', {
        'xyz': ' '.join(_num(v) for v in transform[:3, 3]),
        'rpy': ' '.join(_num(v) for v in (roll, pitch, yaw)),
    })


def _geometry(parent: ET.Element, tag: str, shape: Shape) -> None:
    node = ET.SubElement(parent, tag)
    _origin(node, shape.pose)
    geometry = ET.SubElement(node, 'geometry')
    if shape.kind == 'box':
        ET.SubElement(geometry, 'box', {'size': ' '.join(_num(v) for v in shape.size)})
    elif shape.kind == 'cylinder':
        ET.SubElement(geometry, 'cylinder', {'radius': _num(shape.size[0]),
                                             'length': _num(shape.size[1])})
    elif shape.kind == 'sphere':
        ET.SubElement(geometry, 'sphere', {'radius': _num(shape.size[0])})
    else:
        scale = _num(shape.size[0])
        ET.SubElement(geometry, 'mesh', {'filename': shape.filename,
                                         'scale': f'{scale} {scale} {scale}'})


def _shapes(element, hebi_meshes: bool):
    spec = ACTUATORS.get(element.type) if element.kind == 'actuator' else None
    return element_shapes(element, spec.series if spec else None,
                          spec.output_height if spec else None, hebi_meshes)


def to_urdf_tree(model: RobotModel, robot_name: str = 'hrdf_robot',
                 joint_names: Optional[Sequence[str]] = None, joint_prefix: str = 'J',
                 tree: Optional[FrameTree] = None,
                 position_limits: Optional[Dict[str, Tuple[float, float]]] = None,
                 hebi_meshes: bool = False, geometry: bool = True) -> ET.Element:
    """The URDF ``<robot>`` element of ``model`` (see :func:`to_urdf` for arguments)."""
    if tree is None:
        tree = build_frame_tree(model, joint_names, joint_prefix)
    limits = dict(position_limits or {})
    unknown = sorted(set(limits) - set(tree.dof_names))
    if unknown:
        raise ValueError(f'position limits for unknown joints: {", ".join(unknown)} '
                         f'(joints: {", ".join(tree.dof_names)})')
    for name, (lower, upper) in limits.items():
        if not (np.isfinite(lower) and np.isfinite(upper) and lower < upper):
            raise ValueError(f'position limits of {name} must be finite with lower < upper, '
                             f'got [{lower}, {upper}]')
    robot = ET.Element('robot', {'name': robot_name})
    robot.append(ET.Comment(f' Generated by hrdf_ros from {model.path} (HRDF '
                            f'{".".join(map(str, model.version))}). Units: m, kg, rad. '))
    element_of_link = {name: i for i, name in enumerate(tree.element_links)}
    for name in tree.links:
        link = ET.SubElement(robot, 'link', {'name': name})
        index = element_of_link.get(name)
        if index is None:
            continue
        element = model.elements[index]
        if element.mass > 0.0:
            inertial = ET.SubElement(link, 'inertial')
            _origin(inertial, element.com)
            ET.SubElement(inertial, 'mass', {'value': _num(element.mass)})
            ixx, iyy, izz, ixy, ixz, iyz = element.inertia
            ET.SubElement(inertial, 'inertia', {
                'ixx': _num(ixx), 'ixy': _num(ixy), 'ixz': _num(ixz),
                'iyy': _num(iyy), 'iyz': _num(iyz), 'izz': _num(izz)})
        if geometry:
            shapes = _shapes(element, hebi_meshes)
            for shape in shapes:
                _geometry(link, 'visual', shape)
            for shape in shapes:
                _geometry(link, 'collision', shape)
    geared = []
    for joint in tree.joints:
        element = None if joint.is_fixed else model.elements[joint.element]
        if element is None:
            kind = 'fixed'
        elif element.motion[0] == 't':
            kind = 'prismatic'
        else:
            kind = 'revolute' if joint.name in limits else 'continuous'
        node = ET.SubElement(robot, 'joint', {'name': joint.name, 'type': kind})
        _origin(node, joint_origin(model, joint))
        ET.SubElement(node, 'parent', {'link': joint.parent})
        ET.SubElement(node, 'child', {'link': joint.child})
        if element is None:
            continue
        ET.SubElement(node, 'axis', {'xyz': _axis(element)})
        limit = {}
        if kind == 'prismatic':
            lower, upper = limits.get(joint.name, (-DEFAULT_PRISMATIC_LIMIT,
                                                   DEFAULT_PRISMATIC_LIMIT))
            limit = {'lower': _num(lower), 'upper': _num(upper), 'effort': '0',
                     'velocity': '0'}
        elif kind == 'revolute':
            lower, upper = limits[joint.name]
            limit = {'lower': _num(lower), 'upper': _num(upper), 'effort': '0',
                     'velocity': '0'}
        if element.max_effort is not None:
            limit.update(effort=_num(element.max_effort), velocity=_num(element.max_speed))
        if limit:
            ET.SubElement(node, 'limit', limit)
        if element.gear_ratio != 1.0:
            geared.append((joint.name, element.gear_ratio))
    for name, ratio in geared:
        transmission = ET.SubElement(robot, 'transmission', {'name': f'{name}_transmission'})
        ET.SubElement(transmission, 'type').text = \
            'transmission_interface/SimpleTransmission'
        ET.SubElement(ET.SubElement(transmission, 'joint', {'name': name}),
                      'hardwareInterface').text = 'hardware_interface/PositionJointInterface'
        actuator = ET.SubElement(transmission, 'actuator', {'name': f'{name}_hebi_position'})
        ET.SubElement(actuator, 'mechanicalReduction').text = _num(ratio)
    return robot


def _serialise(root: ET.Element) -> str:
    ET.indent(root, space='  ')
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding='unicode') \
        + '\n'


def to_urdf(model: RobotModel, robot_name: str = 'hrdf_robot',
            joint_names: Optional[Sequence[str]] = None, joint_prefix: str = 'J',
            tree: Optional[FrameTree] = None,
            position_limits: Optional[Dict[str, Tuple[float, float]]] = None,
            hebi_meshes: bool = False, geometry: bool = True) -> str:
    """Generate a URDF document for ``model``.

    Args:
        model: the robot.
        robot_name: the URDF ``<robot name>``.
        joint_names: optional names for the degrees of freedom (joint-position order).
        joint_prefix: prefix for generated joint names (default ``J`` -> ``J1``...).
        tree: a precomputed :class:`~hrdf_ros.export.frame_tree.FrameTree` (overrides the naming
            arguments).
        position_limits: ``{joint name: (lower, upper)}`` in rad (m for prismatic);
            such rotational joints become ``revolute``.
        hebi_meshes: draw actuators with HEBI's meshes
            (``package://hebi_description/meshes/...``; needs that package).
        geometry: write ``<visual>``/``<collision>`` shapes.

    Returns:
        The URDF as a UTF-8 XML string.

    Raises:
        ValueError: on invalid or colliding names (see
            :func:`~hrdf_ros.export.frame_tree.build_frame_tree`) or invalid position limits.
    """
    return _serialise(to_urdf_tree(model, robot_name, joint_names, joint_prefix, tree,
                                   position_limits, hebi_meshes, geometry))


def to_xacro(model: RobotModel, robot_name: str = 'hrdf_robot', **options) -> str:
    """A xacro file with a macro ``<robot_name>`` that adds the robot to another one.

    Macro parameters: ``prefix`` (prepended to every link and joint name, default
    empty), ``parent`` (link to mount the robot's ``base_link`` on; empty: not mounted),
    ``xyz`` and ``rpy`` (pose of ``base_link`` in ``parent``, m and rad). The file also
    calls the macro once with the defaults unless the xacro argument ``standalone`` is
    false, so ``xacro robot.urdf.xacro`` gives exactly the URDF of :func:`to_urdf`.

    Args:
        model, robot_name, options: as :func:`to_urdf`.

    Raises:
        ValueError: as :func:`to_urdf`.
    """
    urdf = to_urdf_tree(model, robot_name, **options)
    xacro_ns = 'http://www.ros.org/wiki/xacro'
    ET.register_namespace('xacro', xacro_ns)
    root = ET.Element('robot', {'name': robot_name})
    root.append(ET.Comment(f' Generated by hrdf_ros from {model.path}: xacro macro '
                           f'"{robot_name}" (prefix, parent, xyz, rpy). '))
    ET.SubElement(root, f'{{{xacro_ns}}}arg', {'name': 'standalone', 'default': 'true'})
    macro = ET.SubElement(root, f'{{{xacro_ns}}}macro', {
        'name': robot_name, 'params': "prefix:='' parent:='' xyz:='0 0 0' rpy:='0 0 0'"})
    mount = ET.SubElement(macro, f'{{{xacro_ns}}}if', {'value': "${parent != ''}"})
    joint = ET.SubElement(mount, 'joint', {'name': '${prefix}base_link_mount',
                                           'type': 'fixed'})
    ET.SubElement(joint, 'origin', {'xyz': '${xyz}', 'rpy': '${rpy}'})
    ET.SubElement(joint, 'parent', {'link': '${parent}'})
    ET.SubElement(joint, 'child', {'link': '${prefix}base_link'})
    for child in urdf:
        if not isinstance(child.tag, str):
            continue
        for node in child.iter():
            if node.tag in ('link', 'joint') and 'name' in node.attrib:
                node.set('name', '${prefix}' + node.get('name'))
            if node.tag in ('parent', 'child') and 'link' in node.attrib:
                node.set('link', '${prefix}' + node.get('link'))
            if node.tag == 'transmission':
                node.set('name', '${prefix}' + node.get('name'))
            if node.tag == 'actuator' and 'name' in node.attrib:
                node.set('name', '${prefix}' + node.get('name'))
        macro.append(child)
    call = ET.SubElement(root, f'{{{xacro_ns}}}if', {'value': '$(arg standalone)'})
    ET.SubElement(call, f'{{{xacro_ns}}}{robot_name}', {'prefix': ''})
    return _serialise(root)
