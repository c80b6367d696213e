"""URDF export of a :class:`~hrdf_ros.model.RobotModel`.

In: the model (plus naming, limits and geometry options). Out: URDF (or xacro) text, and
notes on what the export added or replaced (:func:`urdf_notes`).

What the robot is comes from :mod:`hrdf_ros.description`
(:func:`~hrdf_ros.description.robot.describe`); this module spells it:
:func:`urdf_element` for a :class:`~hrdf_ros.description.robot.RobotDescription`,
:func:`to_urdf` for a model and options. The link/joint layout is
:mod:`hrdf_ros.description.frame_tree`. Numbers follow the one rule of :mod:`.numbers`
(12 significant digits, rounding noise written 0): forward kinematics of the URDF equal
hrdf_ros's (and HEBI's) to 1e-12 m, and the file is the same on every machine.

* Inertials (:mod:`hrdf_ros.description.inertials`): mass (kg), origin at the COM frame
  (``com_rot`` as rpy), inertia (kg m^2) about the COM in that frame; bodies HEBI leaves
  without mass or rotational inertia get a tiny documented fill (a comment in the URDF
  says where), or, with ``exact_masses``, HEBI's values only.
* Joints and limits (:mod:`hrdf_ros.description.joints`), and one SimpleTransmission per
  degree of freedom.
* A parallel gripper (X5Parallel, R8Parallel): its parts as links on the end effector's
  link, the finger joint (with a transmission) and ``<mimic>`` joints for the rest
  (:mod:`hrdf_ros.description.gripper`; ``gripper_joints=False``: one rigid end
  effector, as before).
* Geometry: every element link has visual and collision shapes
  (:mod:`hrdf_ros.description.link_shapes`, from HEBI's part catalogue,
  :mod:`hrdf_ros.parts`): HEBI's meshes for HEBI's parts (from the source
  :mod:`hrdf_ros.parts.mesh_sources` picks: ``mesh_dir``, hebi_description, the cache,
  or primitives) with the collision boxes and cylinders fitted to them, the HRDF's own
  meshes (:mod:`hrdf_ros.parts.meshes`), or primitives; web meshes are drawn but never
  used for collision. Visuals carry HEBI's colours as named materials with their RGBA.
* Simulator extensions, ignored by ROS tools: ``<gazebo reference="<fixed joint>">
  <preserveFixedJoint>`` so SDFormat's conversion keeps every link (end effectors
  included) as a link instead of merging it into its parent (not for the root joint: the
  root link has no mass, see :mod:`hrdf_ros.description.inertials`); and
  ``<mujoco><compiler fusestatic="false" inertiafromgeom="false" balanceinertia="true"/>`` so MuJoCo
  keeps every link as a body, takes masses from the inertials only, and accepts tensors that
  miss the triangle inequality by rounding.

Gear ratios and axes: a URDF joint value is the joint's motion (rad or m) about/along its
``<axis>``, so URDF tools compute the same poses as HEBI; an HRDF negative axis
(``-rz``) is written as the negative URDF axis (``0 0 -1``). For an HRDF
``<joint gear_ratio="g">`` the HEBI position is ``g`` times that value; the
transmission's ``mechanicalReduction`` is g.

:func:`to_xacro` wraps the same description in a xacro macro with a name ``prefix`` and
a ``parent`` link to mount the robot on; processed on its own it expands to the URDF
:func:`to_urdf` writes.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import List, Mapping, Optional, Sequence

from ..description.frame_tree import FrameTree, joint_origin
from ..description.gripper import GripperJointSpec
from ..description.inertials import FILL_MASS, FILL_MOMENT, LinkInertial, fill_notes
from ..description.joints import JointSpec
from ..description.link_shapes import Shape, colour
from ..description.robot import RobotDescription, describe
from ..model import RobotModel
from ..numbers import EFFORT, INERTIA, LENGTH, MASS, POSITION, RATIO, VELOCITY, num, nums
from .xml_text import axis_text, comment, document, source_name, xyz_rpy

#: SDFormat (1.9, libsdformat 12) merges or drops links whose mass is within this of 0, kg.
SDFORMAT_MIN_MASS = 1e-6
#: The quantity of each ``<limit>`` attribute (:mod:`.numbers`).
LIMIT_QUANTITIES = {'lower': POSITION, 'upper': POSITION, 'effort': EFFORT,
                    'velocity': VELOCITY}


def _origin(parent: ET.Element, transform) -> None:
    xyz, rpy = xyz_rpy(transform)
    ET.SubElement(parent, 'origin', {'xyz': xyz, 'rpy': rpy})


def _geometry(parent: ET.Element, tag: str, shape: Shape) -> None:
    node = ET.SubElement(parent, tag)
    _origin(node, shape.pose)
    geometry = ET.SubElement(node, 'geometry')
    if shape.kind == 'box':
        ET.SubElement(geometry, 'box', {'size': nums(shape.size, LENGTH)})
    elif shape.kind == 'cylinder':
        ET.SubElement(geometry, 'cylinder', {'radius': num(shape.size[0], LENGTH),
                                             'length': num(shape.size[1], LENGTH)})
    elif shape.kind == 'sphere':
        ET.SubElement(geometry, 'sphere', {'radius': num(shape.size[0], LENGTH)})
    else:
        ET.SubElement(geometry, 'mesh', {'filename': shape.filename,
                                         'scale': nums([shape.size[0]] * 3, RATIO)})
    if tag == 'visual' and shape.material:
        material = ET.SubElement(node, 'material', {'name': shape.material})
        ET.SubElement(material, 'color', {'rgba': nums(colour(shape.material), RATIO)})


def _inertial(link: ET.Element, inertial: LinkInertial) -> None:
    node = ET.SubElement(link, 'inertial')
    if inertial.filled:
        node.append(comment(
            f'hrdf_ros fill: +{inertial.added_mass:.3g} kg, +{inertial.added_moment:.3g} '
            'kg m^2 per principal moment (HEBI gives this body no mass or rotational '
            'inertia; HEBI\'s values: exact_masses)'))
    _origin(node, inertial.com)
    ET.SubElement(node, 'mass', {'value': num(inertial.mass, MASS)})
    ixx, iyy, izz, ixy, ixz, iyz = inertial.inertia
    ET.SubElement(node, 'inertia', {key: num(value, INERTIA) for key, value in (
        ('ixx', ixx), ('ixy', ixy), ('ixz', ixz), ('iyy', iyy), ('iyz', iyz), ('izz', izz))})


def preserved_fixed_joints(tree: FrameTree, inertials: Mapping[str, LinkInertial]) -> List[str]:
    """Fixed joints SDFormat can keep (``preserveFixedJoint``): not from the root link,
    and both links with mass > :data:`SDFORMAT_MIN_MASS` (else SDFormat drops them)."""
    def heavy(link):
        return link in inertials and inertials[link].mass > SDFORMAT_MIN_MASS
    fixed = [(j.name, j.parent, j.child) for j in tree.joints if j.is_fixed]
    fixed += [(s.name, s.parent, s.child) for g in tree.grippers for s in g.joint_specs()
              if s.kind == 'fixed']
    return [name for name, parent, child in fixed if parent != tree.links[0]
            and heavy(parent) and heavy(child)]


def _joint_details(node: ET.Element, spec: JointSpec) -> None:
    """Append ``<axis>`` and (when limited) ``<limit>`` to a URDF ``<joint>``."""
    ET.SubElement(node, 'axis', {'xyz': axis_text(spec.axis)})
    limit = spec.limit_values()
    if limit is not None:
        ET.SubElement(node, 'limit', {key: num(value, LIMIT_QUANTITIES[key])
                                      for key, value in limit.items()})


def _transmission(robot: ET.Element, joint: str, reduction: float) -> None:
    """Append a SimpleTransmission for ``joint`` (module docstring) to ``<robot>``."""
    transmission = ET.SubElement(robot, 'transmission', {'name': f'{joint}_transmission'})
    ET.SubElement(transmission, 'type').text = 'transmission_interface/SimpleTransmission'
    ET.SubElement(ET.SubElement(transmission, 'joint', {'name': joint}),
                  'hardwareInterface').text = 'hardware_interface/PositionJointInterface'
    actuator = ET.SubElement(transmission, 'actuator', {'name': f'{joint}_actuator'})
    ET.SubElement(actuator, 'mechanicalReduction').text = num(reduction, RATIO)


def _gripper_joint(robot: ET.Element, spec: GripperJointSpec) -> None:
    node = ET.SubElement(robot, 'joint', {'name': spec.name, 'type': spec.kind})
    _origin(node, spec.origin)
    ET.SubElement(node, 'parent', {'link': spec.parent})
    ET.SubElement(node, 'child', {'link': spec.child})
    if spec.kind == 'fixed':
        return
    ET.SubElement(node, 'axis', {'xyz': axis_text((1.0, 0.0, 0.0))})
    ET.SubElement(node, 'limit', {'lower': num(spec.lower, POSITION),
                                  'upper': num(spec.upper, POSITION),
                                  'effort': num(spec.effort, EFFORT),
                                  'velocity': num(spec.velocity, VELOCITY)})
    if spec.mimic is not None:
        joint, multiplier, offset = spec.mimic
        ET.SubElement(node, 'mimic', {'joint': joint, 'multiplier': num(multiplier, RATIO),
                                      'offset': num(offset, POSITION)})


def _extensions(robot: ET.Element, tree: FrameTree, inertials) -> None:
    mujoco = ET.SubElement(robot, 'mujoco')
    ET.SubElement(mujoco, 'compiler', {'fusestatic': 'false', 'inertiafromgeom': 'false',
                                       'balanceinertia': 'true'})
    for name in preserved_fixed_joints(tree, inertials):
        gazebo = ET.SubElement(robot, 'gazebo', {'reference': name})
        ET.SubElement(gazebo, 'preserveFixedJoint').text = 'true'


def urdf_element(description: RobotDescription, exact_masses: bool = False,
                 notes: Optional[List[str]] = None) -> ET.Element:
    """The URDF ``<robot>`` element of a described robot.

    Args:
        description: the robot (:func:`~hrdf_ros.description.robot.describe`).
        exact_masses: HEBI's masses and tensors only, without the physical fill.
        notes: when given, receives :func:`urdf_notes`-style lines for this export.
    """
    model, tree = description.model, description.tree
    inertials = description.inertials(exact_masses)
    robot = ET.Element('robot', {'name': description.name})
    robot.append(ET.Comment(f' Generated by hrdf_ros from {source_name(model.path)} (HRDF '
                            f'{".".join(map(str, model.version))}). Units: m, kg, rad. '))
    fill = fill_notes(inertials, model.total_mass)
    if fill:
        robot.append(comment(
            f'{fill[-1]}: each filled link gets at least {FILL_MASS:g} kg and principal '
            f'moments of at least {FILL_MOMENT:g} kg m^2, so simulators keep and can move '
            'it (hrdf_ros.description.inertials); HEBI\'s exact values: exact_masses option.'))
    if notes is not None:
        notes.extend(fill)
        notes.extend(description.mesh_notes)
    for name in tree.links + [n for g in tree.grippers for n in g.links.values()]:
        link = ET.SubElement(robot, 'link', {'name': name})
        if name in inertials:
            _inertial(link, inertials[name])
        shapes = description.shapes.get(name)
        if shapes is None:
            continue
        if shapes.note and notes is not None:
            notes.append(f'{name}: {shapes.note}')
        for shape in shapes.visual:
            _geometry(link, 'visual', shape)
        for shape in shapes.collision:
            _geometry(link, 'collision', shape)
    transmissions = []
    for joint in tree.joints:
        spec = description.joint_specs.get(joint.name)
        node = ET.SubElement(robot, 'joint', {'name': joint.name,
                                              'type': 'fixed' if spec is None else spec.kind})
        _origin(node, joint_origin(model, joint))
        ET.SubElement(node, 'parent', {'link': joint.parent})
        ET.SubElement(node, 'child', {'link': joint.child})
        if spec is not None:
            _joint_details(node, spec)
            transmissions.append((joint.dof, joint.name, spec.reduction))
    for spec in description.gripper_specs:
        _gripper_joint(robot, spec)
    for gripper in tree.grippers:
        transmissions.append((len(tree.dof_names) + len(transmissions), gripper.joint, 1.0))
    for _, name, reduction in sorted(transmissions):
        _transmission(robot, name, reduction)
    _extensions(robot, tree, inertials)
    return robot


def urdf_text(description: RobotDescription, exact_masses: bool = False) -> str:
    """The URDF document (UTF-8 XML text) of a described robot."""
    return document(urdf_element(description, exact_masses))


def to_urdf_tree(model: RobotModel, robot_name: str = 'hrdf_robot',
                 joint_names: Optional[Sequence[str]] = None, joint_prefix: str = 'J',
                 tree: Optional[FrameTree] = None,
                 position_limits: Optional[Mapping] = None,
                 hebi_meshes: bool = False, geometry: bool = True,
                 exact_masses: bool = False, mesh_dir: Optional[str] = None,
                 notes: Optional[List[str]] = None, meshes: str = 'auto',
                 gripper_joints: bool = True) -> ET.Element:
    """The URDF ``<robot>`` element of ``model`` (see :func:`to_urdf` for arguments).

    ``notes``, when given, receives :func:`urdf_notes`-style lines for this export.
    """
    description = describe(model, robot_name, joint_names=joint_names,
                           joint_prefix=joint_prefix, tree=tree,
                           position_limits=position_limits, mesh_dir=mesh_dir, meshes=meshes,
                           hebi_meshes=hebi_meshes, gripper_joints=gripper_joints,
                           geometry=geometry)
    return urdf_element(description, exact_masses, notes)


def to_urdf(model: RobotModel, robot_name: str = 'hrdf_robot',
            joint_names: Optional[Sequence[str]] = None, joint_prefix: str = 'J',
            tree: Optional[FrameTree] = None,
            position_limits: Optional[Mapping] = None,
            hebi_meshes: bool = False, geometry: bool = True,
            exact_masses: bool = False, mesh_dir: Optional[str] = None,
            meshes: str = 'auto', gripper_joints: bool = True) -> str:
    """Generate a URDF document for ``model``.

    Args:
        model: the robot.
        robot_name: the URDF ``<robot name>``.
        joint_names: optional names for the degrees of freedom (joint-position order).
        joint_prefix: prefix for generated joint names (default ``J`` -> ``J1``...).
        tree: a precomputed :class:`~hrdf_ros.description.frame_tree.FrameTree` (overrides the
            naming arguments).
        position_limits: ``{joint name: (lower, upper)}`` in rad (m for prismatic), or
            ``{joint: {'lower', 'upper', 'velocity', 'effort'}}`` (any of them; rad/s,
            N m) or :class:`~hrdf_ros.description.limits.JointLimit`; rotational joints with
            position limits become ``revolute``.
        hebi_meshes: deprecated, the same as ``meshes='package'``.
        geometry: write ``<visual>``/``<collision>`` shapes.
        exact_masses: write HEBI's masses and tensors only, without the physical fill
            (:mod:`hrdf_ros.description.inertials`); massless links then have no inertial.
        mesh_dir: a folder with HEBI's mesh files (written as ``file://`` URIs), also
            searched for web meshes (``<mesh_dir>/<host>/<path>``); default
            ``HRDF_ROS_MESH_DIR``, see :mod:`~hrdf_ros.parts.mesh_sources`.
        meshes: ``'auto'`` (mesh_dir, else hebi_description through the ament index,
            else the user cache, else primitives), ``'package'``
            (``package://hebi_description/...`` whether installed here or not) or
            ``'primitives'`` (no mesh files at all).
        gripper_joints: give parallel grippers (X5Parallel, R8Parallel) their finger
            joint ``gripper_joint`` and mimic joints (:mod:`hrdf_ros.description.gripper`);
            false: one rigid end effector (ignored when ``tree`` is given: the tree
            decides).

    Returns:
        The URDF as a UTF-8 XML string. Nothing is downloaded
        (:mod:`hrdf_ros.parts.mesh_fetch` does that, when asked).

    Raises:
        ValueError: on invalid or colliding names (see
            :func:`~hrdf_ros.description.frame_tree.build_frame_tree`), invalid limits, or
            an unusable mesh option (:class:`~hrdf_ros.parts.mesh_sources.MeshSourceError`).
    """
    return document(to_urdf_tree(model, robot_name, joint_names, joint_prefix, tree,
                                 position_limits, hebi_meshes, geometry, exact_masses,
                                 mesh_dir, meshes=meshes, gripper_joints=gripper_joints))


def urdf_notes(model: RobotModel, tree: Optional[FrameTree] = None,
               exact_masses: bool = False, **mesh_options) -> List[str]:
    """What :func:`to_urdf` adds to or replaces in HEBI's model, one line each: the
    physical fill per link and in total, local meshes that do not exist (drawn as
    primitives), and (lines starting with ``meshes:``) HEBI meshes drawn as primitives
    and web meshes left as URLs. Empty for a robot that needs none of these.

    Args:
        model: the robot.
        tree: its frame tree (default: :func:`~hrdf_ros.description.frame_tree.build_frame_tree`).
        exact_masses: as :func:`to_urdf` (then there is no fill to report).
        mesh_options: ``mesh_dir``, ``meshes``, ``hebi_meshes`` as :func:`to_urdf`.
    """
    notes: List[str] = []
    to_urdf_tree(model, tree=tree, exact_masses=exact_masses, notes=notes, **mesh_options)
    return notes


def _prefixed(node: ET.Element) -> None:
    """Prefix every link/joint/transmission/actuator name, mimicked joint and gazebo
    reference with ``${prefix}``."""
    for child in node.iter():
        if child.tag in ('link', 'joint', 'transmission', 'actuator') and 'name' in child.attrib:
            child.set('name', '${prefix}' + child.get('name'))
        if child.tag in ('parent', 'child') and 'link' in child.attrib:
            child.set('link', '${prefix}' + child.get('link'))
        if child.tag == 'mimic' and 'joint' in child.attrib:
            child.set('joint', '${prefix}' + child.get('joint'))
        if child.tag == 'gazebo' and 'reference' in child.attrib:
            child.set('reference', '${prefix}' + child.get('reference'))


def to_xacro(model: RobotModel, robot_name: str = 'hrdf_robot', standalone: bool = True,
             **options) -> str:
    """A xacro file with a macro ``<robot_name>`` that adds the robot to another one.

    Macro parameters: ``prefix`` (prepended to every link and joint name, default
    empty), ``parent`` (link to mount the robot's ``base_link`` on; empty: not mounted),
    ``xyz`` and ``rpy`` (pose of ``base_link`` in ``parent``, m and rad). The file also
    calls the macro once with the defaults unless the xacro argument ``standalone`` is
    false, so ``xacro robot.urdf.xacro`` gives exactly the URDF of :func:`to_urdf`. The
    ``<mujoco>`` compiler settings are written with that standalone call only (a robot
    may have one).

    Args:
        model, robot_name, options: as :func:`to_urdf`.
        standalone: false: the macro only (no ``standalone`` argument, no call), for a
            file that includes it and calls the macro itself.

    Raises:
        ValueError: as :func:`to_urdf`.
    """
    exact_masses = options.pop('exact_masses', False)
    description = describe(model, robot_name, **options)
    return xacro_text(description, standalone, exact_masses)


def xacro_text(description: RobotDescription, standalone: bool = True,
               exact_masses: bool = False) -> str:
    """:func:`to_xacro` of a described robot (``exact_masses`` as :func:`to_urdf`)."""
    robot_name, model = description.name, description.model
    urdf = urdf_element(description, exact_masses)
    xacro_ns = 'http://www.ros.org/wiki/xacro'
    ET.register_namespace('xacro', xacro_ns)
    root = ET.Element('robot', {'name': robot_name})
    root.append(ET.Comment(f' Generated by hrdf_ros from {source_name(model.path)}: xacro macro '
                           f'"{robot_name}" (prefix, parent, xyz, rpy). '))
    if standalone:
        ET.SubElement(root, f'{{{xacro_ns}}}arg', {'name': 'standalone', 'default': 'true'})
    macro = ET.SubElement(root, f'{{{xacro_ns}}}macro', {
        'name': robot_name, 'params': "prefix:='' parent:='' xyz:='0 0 0' rpy:='0 0 0'"})
    mount = ET.SubElement(macro, f'{{{xacro_ns}}}if', {'value': "${parent != ''}"})
    joint = ET.SubElement(mount, 'joint', {'name': '${prefix}base_link_mount',
                                           'type': 'fixed'})
    ET.SubElement(joint, 'origin', {'xyz': '${xyz}', 'rpy': '${rpy}'})
    ET.SubElement(joint, 'parent', {'link': '${parent}'})
    ET.SubElement(joint, 'child', {'link': '${prefix}base_link'})
    mujoco = None
    for child in urdf:
        if child.tag == 'mujoco':
            mujoco = child
        elif not isinstance(child.tag, str):  # comments: the fill note goes on top
            if 'Generated by' not in (child.text or ''):
                root.insert(1, child)
        else:
            _prefixed(child)
            macro.append(child)
    if standalone:
        call = ET.SubElement(root, f'{{{xacro_ns}}}if', {'value': '$(arg standalone)'})
        ET.SubElement(call, f'{{{xacro_ns}}}{robot_name}', {'prefix': ''})
        if mujoco is not None:
            call.append(mujoco)
    return document(root)
