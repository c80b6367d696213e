"""SDFormat 1.9 export of a :class:`~hrdf_ros.model.RobotModel` (``hrdf sdf``), the model
format of Gazebo and Drake.

In: the model (naming, limits, geometry options as for the URDF). Out: SDFormat text.

Layout, with the URDF's names (:mod:`hrdf_ros.description.frame_tree`):

* one ``<link>`` per element, at its input frame, with the same inertial as the URDF
  (:mod:`hrdf_ros.description.inertials`, including the physical fill, which SDFormat needs on every
  link: it gives a link without ``<inertial>`` 1 kg) and the same visual/collision shapes;
  each link's ``<pose relative_to="<parent link>">`` is the URDF joint origin;
* ``base_link`` (the reference frame) is a ``<frame>`` at the model origin, not a body;
  end effectors and free element outputs (``end_effector``, ``<element>_output``) are
  ``<frame>``\\ s attached to their element's link: frames have no mass, so SDFormat
  neither drops nor merges them;
* degrees of freedom are ``revolute`` (continuous: no position limits) or ``prismatic``
  joints with the URDF's axis (in the child link frame) and limits; other element
  connections are ``fixed`` joints named as in the URDF.

Numbers follow the one rule of :mod:`.numbers` (12 significant digits, rounding noise
written 0), so frames equal hrdf_ros's (and HEBI's) to 1e-12 m. Gear ratios: a joint value is the joint's motion, as in the
URDF (HEBI position = gear ratio x value).

A parallel gripper (:mod:`hrdf_ros.description.gripper`) adds its part links, its finger joint and
the joints that follow it. Those are SDFormat mimic joints, ``<axis><mimic joint>``, which
SDFormat has from 1.11 on (libsdformat 14, Gazebo Harmonic), so a robot with a gripper
is written as SDFormat :data:`MIMIC_SDF_VERSION` (otherwise :data:`SDF_VERSION`; with
``gripper_joints=False`` the gripper is rigid and the file 1.9, for libsdformat 12 /
Gazebo Fortress, which has no mimic). Each mimic joint also carries Drake's own
``<drake:mimic>``: Drake's SDFormat parser (1.51) makes coupler constraints from it and
ignores SDFormat's element.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import List, Mapping, Optional, Sequence

from ..description.frame_tree import FrameTree, joint_origin
from ..description.gripper import GripperJointSpec
from ..description.inertials import LinkInertial, fill_notes
from ..description.joints import JointSpec
from ..description.link_shapes import colour
from ..description.robot import RobotDescription, describe
from ..model import RobotModel
from ..numbers import EFFORT, INERTIA, LENGTH, MASS, POSITION, RATIO, VELOCITY, num, nums
from .xml_text import axis_text, comment, document, source_name, xyz_rpy

#: The SDFormat version written.
SDF_VERSION = '1.9'
#: The SDFormat version written for robots with mimic joints (the first with <mimic>).
MIMIC_SDF_VERSION = '1.11'
#: Drake's XML namespace (its custom elements, e.g. <drake:mimic>).
DRAKE_NS = 'http://drake.mit.edu'


def _pose(parent: ET.Element, transform, relative_to: Optional[str] = None) -> None:
    xyz, rpy = xyz_rpy(transform)
    attributes = {'relative_to': relative_to} if relative_to else {}
    ET.SubElement(parent, 'pose', attributes).text = f'{xyz} {rpy}'


def _text(parent: ET.Element, tag: str, text: str) -> ET.Element:
    node = ET.SubElement(parent, tag)
    node.text = text
    return node


def _inertial(link: ET.Element, inertial: LinkInertial) -> None:
    node = ET.SubElement(link, 'inertial')
    if inertial.filled:
        node.append(comment(f'hrdf_ros fill: +{inertial.added_mass:.3g} kg, '
                            f'+{inertial.added_moment:.3g} kg m^2 per principal moment'))
    _pose(node, inertial.com)
    _text(node, 'mass', num(inertial.mass, MASS))
    tensor = ET.SubElement(node, 'inertia')
    for name, value in zip(('ixx', 'iyy', 'izz', 'ixy', 'ixz', 'iyz'), inertial.inertia):
        _text(tensor, name, num(value, INERTIA))


def _geometry(link: ET.Element, tag: str, shapes) -> None:
    for k, shape in enumerate(shapes):
        node = ET.SubElement(link, tag, {'name': f'{tag}_{k}'})
        _pose(node, shape.pose)
        geometry = ET.SubElement(node, 'geometry')
        if shape.kind == 'box':
            _text(ET.SubElement(geometry, 'box'), 'size', nums(shape.size, LENGTH))
        elif shape.kind == 'cylinder':
            cylinder = ET.SubElement(geometry, 'cylinder')
            _text(cylinder, 'radius', num(shape.size[0], LENGTH))
            _text(cylinder, 'length', num(shape.size[1], LENGTH))
        elif shape.kind == 'sphere':
            _text(ET.SubElement(geometry, 'sphere'), 'radius', num(shape.size[0], LENGTH))
        else:
            mesh = ET.SubElement(geometry, 'mesh')
            _text(mesh, 'uri', shape.filename)
            _text(mesh, 'scale', nums([shape.size[0]] * 3, RATIO))
        if tag == 'visual' and shape.material:
            material = ET.SubElement(node, 'material')
            for name in ('ambient', 'diffuse'):
                _text(material, name, nums(colour(shape.material), RATIO))


def _joint_axis(joint: ET.Element, spec: JointSpec) -> None:
    axis = ET.SubElement(joint, 'axis')
    _text(axis, 'xyz', axis_text(spec.axis))
    limit = ET.SubElement(axis, 'limit')
    if spec.lower is not None:
        _text(limit, 'lower', num(spec.lower, POSITION))
        _text(limit, 'upper', num(spec.upper, POSITION))
    # SDFormat: a negative effort or velocity means unlimited
    _text(limit, 'effort', num(spec.effort, EFFORT) if spec.effort is not None else '-1')
    _text(limit, 'velocity',
          num(spec.velocity, VELOCITY) if spec.velocity is not None else '-1')


def _gripper_joint(root: ET.Element, spec: GripperJointSpec) -> None:
    node = ET.SubElement(root, 'joint', {'name': spec.name, 'type': spec.kind})
    _text(node, 'parent', spec.parent)
    _text(node, 'child', spec.child)
    if spec.kind == 'fixed':
        return
    axis = ET.SubElement(node, 'axis')
    _text(axis, 'xyz', '1 0 0')
    limit = ET.SubElement(axis, 'limit')
    for tag, value, quantity in (('lower', spec.lower, POSITION),
                                 ('upper', spec.upper, POSITION),
                                 ('effort', spec.effort, EFFORT),
                                 ('velocity', spec.velocity, VELOCITY)):
        _text(limit, tag, num(value, quantity))
    if spec.mimic is not None:
        joint, multiplier, offset = spec.mimic
        mimic = ET.SubElement(axis, 'mimic', {'joint': joint, 'axis': 'axis'})
        for tag, value, quantity in (('multiplier', multiplier, RATIO),
                                     ('offset', offset, POSITION), ('reference', 0, POSITION)):
            _text(mimic, tag, num(value, quantity))
        ET.SubElement(node, f'{{{DRAKE_NS}}}mimic', {
            'joint': joint, 'multiplier': num(multiplier, RATIO),
            'offset': num(offset, POSITION)})


def sdf_element(description: RobotDescription, notes: Optional[List[str]] = None
                ) -> ET.Element:
    """The ``<sdf>`` element of a described robot; ``notes``, when given, receives what
    the export added or replaced, as :func:`hrdf_ros.export.urdf.urdf_notes`."""
    model, tree = description.model, description.tree
    inertials = description.inertials()
    if tree.grippers:
        ET.register_namespace('drake', DRAKE_NS)
    sdf = ET.Element('sdf', {'version': MIMIC_SDF_VERSION if tree.grippers else SDF_VERSION})
    sdf.append(comment(f'Generated by hrdf_ros from {source_name(model.path)} (HRDF '
                       f'{".".join(map(str, model.version))}). Units: m, kg, rad.'))
    fill = fill_notes(inertials, model.total_mass)
    if fill:
        sdf.append(comment(fill[-1] + ' (see hrdf_ros.description.inertials)'))
    if notes is not None:
        notes.extend(fill)
        notes.extend(description.mesh_notes)
    root = ET.SubElement(sdf, 'model', {'name': description.name})
    base = tree.links[0]
    ET.SubElement(root, 'frame', {'name': base})          # the model frame: reference
    element_links = set(tree.element_links)
    parent_joint = {joint.child: joint for joint in tree.joints}
    gripper_origin = {spec.child: (spec.origin, spec.parent)
                      for spec in description.gripper_specs}
    for name in tree.element_links + list(gripper_origin):
        link = ET.SubElement(root, 'link', {'name': name})
        if name in gripper_origin:
            _pose(link, *gripper_origin[name])
        else:
            joint = parent_joint[name]
            _pose(link, joint_origin(model, joint), joint.parent)
        _inertial(link, inertials[name])
        shapes = description.shapes.get(name)
        if shapes is None:
            continue
        if shapes.note and notes is not None:
            notes.append(f'{name}: {shapes.note}')
        _geometry(link, 'visual', shapes.visual)
        _geometry(link, 'collision', shapes.collision)
    for name in tree.links[1:]:
        if name in element_links:
            continue
        joint = parent_joint[name]           # an end effector or a free output
        frame = ET.SubElement(root, 'frame', {'name': name, 'attached_to': joint.parent})
        _pose(frame, joint_origin(model, joint), joint.parent)
    for joint in tree.joints:
        if joint.parent == base or joint.child not in element_links:
            continue                          # the root link is posed in the model frame
        spec = description.joint_specs.get(joint.name)
        node = ET.SubElement(root, 'joint', {'name': joint.name,
                                             'type': 'fixed' if spec is None else
                                             ('revolute' if spec.kind != 'prismatic'
                                              else 'prismatic')})
        _text(node, 'parent', joint.parent)
        _text(node, 'child', joint.child)
        if spec is not None:
            _joint_axis(node, spec)
    for spec in description.gripper_specs:
        _gripper_joint(root, spec)
    return sdf


def to_sdf_tree(model: RobotModel, robot_name: str = 'hrdf_robot',
                joint_names: Optional[Sequence[str]] = None, joint_prefix: str = 'J',
                tree: Optional[FrameTree] = None,
                position_limits: Optional[Mapping] = None, hebi_meshes: bool = False,
                geometry: bool = True, mesh_dir: Optional[str] = None,
                notes: Optional[List[str]] = None, meshes: str = 'auto',
                gripper_joints: bool = True) -> ET.Element:
    """The ``<sdf>`` element of ``model`` (see :func:`to_sdf` for arguments)."""
    description = describe(model, robot_name, joint_names=joint_names,
                           joint_prefix=joint_prefix, tree=tree,
                           position_limits=position_limits, mesh_dir=mesh_dir, meshes=meshes,
                           hebi_meshes=hebi_meshes, gripper_joints=gripper_joints,
                           geometry=geometry)
    return sdf_element(description, notes)


def to_sdf(model: RobotModel, robot_name: str = 'hrdf_robot',
           joint_names: Optional[Sequence[str]] = None, joint_prefix: str = 'J',
           tree: Optional[FrameTree] = None, position_limits: Optional[Mapping] = None,
           hebi_meshes: bool = False, geometry: bool = True,
           mesh_dir: Optional[str] = None, meshes: str = 'auto',
           gripper_joints: bool = True) -> str:
    """Generate an SDFormat document for ``model`` (1.9, or 1.11 with a parallel
    gripper's mimic joints; see the module docstring).

    The arguments (model, robot_name, joint_names, joint_prefix, tree, position_limits,
    hebi_meshes, geometry, mesh_dir, meshes, gripper_joints) are as in
    :func:`hrdf_ros.export.urdf.to_urdf`.

    Returns:
        The SDFormat document as a UTF-8 XML string. Every link has its inertial with
        the physical fill (SDFormat gives a link without one 1 kg); HEBI's exact masses
        are a URDF option only.

    Raises:
        ValueError: on invalid or colliding names, invalid limits or an unusable mesh
            option.
    """
    return document(to_sdf_tree(model, robot_name, joint_names, joint_prefix, tree,
                                position_limits, hebi_meshes, geometry, mesh_dir,
                                meshes=meshes, gripper_joints=gripper_joints))
