"""The bodies of an MJCF model: the frame tree as nested ``<body>`` s with their inertials,
joints and geoms (:mod:`hrdf_ros.export.mjcf` writes the rest of the model).

In: a :class:`~hrdf_ros.description.robot.RobotDescription` and the inertials to write.
Out: ``<body>`` elements under a parent, and what they hold: the joints in
MuJoCo's qpos order, the actuated joints with their range and effort, the mimic joints,
the mesh files and materials the geoms use. Poses are ``pos`` and ``quat`` (w x y z),
numbers by the rule of :mod:`.numbers`; a box is written with half sizes, a cylinder with radius and
half length (MJCF's conventions); meshes by absolute file path (MuJoCo reads STL, OBJ).
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from typing import Dict, List

import numpy as np

from ..description.frame_tree import joint_origin
from ..description.inertials import LinkInertial, tensor_matrix
from ..description.link_shapes import colour, mesh_file
from ..description.robot import RobotDescription
from ..kinematics.rotations import rotation_to_quaternion
from ..reproducible import matmul
from ..numbers import EFFORT, INERTIA, LENGTH, MASS, POSITION, RATIO, num, nums, rounded
from .xml_text import axis_text, comment


def pose_attributes(node: ET.Element, transform: np.ndarray) -> None:
    """``pos`` (unless it is written as zero) and ``quat`` (w x y z, unless it is written as
    the identity) of a (4, 4) transform."""
    transform = np.asarray(transform, dtype=float)
    if any(rounded(v, LENGTH) for v in transform[:3, 3]):
        node.set('pos', nums(transform[:3, 3], LENGTH))
    x, y, z, w = rotation_to_quaternion(transform[:3, :3])
    if [rounded(v, RATIO) for v in (w, x, y, z)] != [1.0, 0.0, 0.0, 0.0]:
        node.set('quat', nums((w, x, y, z), RATIO))


def inertial(body: ET.Element, inertial: LinkInertial) -> None:
    """Append ``<inertial>`` to ``body``: centre of mass ``pos`` (m), ``mass`` (kg) and
    ``fullinertia`` (kg m^2, about the centre of mass, in the body's axes: the link's
    tensor rotated out of its inertial frame), after a comment on any physical fill."""
    if inertial.filled:
        body.append(comment(f'hrdf_ros fill: +{inertial.added_mass:.3g} kg, '
                            f'+{inertial.added_moment:.3g} kg m^2 per principal moment'))
    com = np.asarray(inertial.com, dtype=float)
    # MJCF takes a full tensor in the body's axes (no quat beside fullinertia)
    tensor = matmul(matmul(com[:3, :3], tensor_matrix(inertial.inertia)), com[:3, :3].T)
    ET.SubElement(body, 'inertial', {
        'pos': nums(com[:3, 3], LENGTH), 'mass': num(inertial.mass, MASS),
        'fullinertia': nums(tensor[[0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]], INERTIA)})


class BodyWriter:
    """The MJCF bodies of one robot, from its frame tree (module docstring); what it
    wrote is kept for the rest of the model (joints in qpos order, actuated and mimic
    joints, mesh and material assets)."""

    def __init__(self, description: RobotDescription, inertials, notes: List[str],
                 gravity_compensation: bool = False):
        self.description = description
        self.model, self.tree = description.model, description.tree
        self.inertials = inertials
        self.notes = notes
        self.gravity_compensation = gravity_compensation
        self.meshes: Dict[tuple, str] = {}      # (file path, scale) -> mesh asset name
        self.materials: Dict[str, tuple] = {}
        self.joints: List[str] = []             # MuJoCo's joint (qpos) order
        self.joint_nodes: Dict[str, ET.Element] = {}
        self.actuated: List[tuple] = []         # (joint, lower, upper, effort)
        self.mimic: List[tuple] = []            # (joint, followed, multiplier, offset)
        self.children: Dict[str, List[tuple]] = {}
        for joint in self.tree.joints:
            self.children.setdefault(joint.parent, []).append(('tree', joint))
        for spec in description.gripper_specs:
            self.children.setdefault(spec.parent, []).append(('gripper', spec))

    def geometry(self, body: ET.Element, link: str) -> None:
        """Append the visual and collision geoms of ``link`` (an element's or a gripper
        part's shapes, the URDF's) to ``body``; a link with no part adds nothing."""
        shapes = self.description.shapes.get(link)
        if shapes is None:
            return
        if shapes.note:
            self.notes.append(f'{link}: {shapes.note}')
        for kind, group in (('visual', shapes.visual), ('collision', shapes.collision)):
            for shape in group:
                self.geom(body, kind, shape, link)

    def geom(self, body: ET.Element, kind: str, shape, link: str) -> None:
        """Append one ``<geom>`` of class ``kind`` ('visual' or 'collision'): MJCF half
        sizes (m) for box and cylinder, radius for sphere, a mesh asset per (file,
        scale); a mesh with no local file is left out with a note."""
        attributes = {'class': kind}
        if shape.kind == 'mesh':
            path = mesh_file(shape)
            if path is None:
                self.notes.append(f'{link}: mesh {shape.filename} has no local file '
                                  'MuJoCo can read: not drawn')
                return
            key = (path, float(shape.size[0]))
            if key not in self.meshes:
                self.meshes[key] = f'mesh{len(self.meshes) + 1}_' + os.path.splitext(
                    os.path.basename(path))[0]
            attributes.update(type='mesh', mesh=self.meshes[key])
        elif shape.kind == 'box':
            attributes.update(type='box', size=nums(np.asarray(shape.size) / 2.0, LENGTH))
        elif shape.kind == 'cylinder':
            attributes.update(type='cylinder',
                              size=nums((shape.size[0], shape.size[1] / 2), LENGTH))
        else:
            attributes.update(type='sphere', size=num(shape.size[0], LENGTH))
        if kind == 'visual' and shape.material:
            self.materials[shape.material] = colour(shape.material)
            attributes['material'] = shape.material
        node = ET.SubElement(body, 'geom', attributes)
        pose_attributes(node, shape.pose)

    def joint(self, body: ET.Element, name: str, kind: str, axis: str, lower, upper,
              effort) -> None:
        """Append ``<joint>`` ``name`` ('hinge' or 'slide', axis in the body's axes),
        range [lower, upper] (rad or m; None: unlimited) and actuatorfrcrange +-effort
        (N m or N; None: none), and keep it in qpos order."""
        attributes = {'name': name, 'type': kind, 'axis': axis}
        if lower is not None:
            attributes['range'] = nums((lower, upper), POSITION)
        if effort is not None:
            attributes['actuatorfrcrange'] = nums((-effort, effort), EFFORT)
        self.joint_nodes[name] = ET.SubElement(body, 'joint', attributes)
        self.joints.append(name)

    def body(self, parent: ET.Element, link: str, origin: np.ndarray) -> ET.Element:
        """Append and return ``<body name=link>`` under ``parent`` at ``origin`` ((4, 4),
        m, in the parent body's frame), with its inertial (gravcomp when asked)."""
        node = ET.SubElement(parent, 'body', {'name': link})
        if self.gravity_compensation:
            node.set('gravcomp', '1')
        pose_attributes(node, origin)
        if link in self.inertials:
            inertial(node, self.inertials[link])
        return node

    def subtree(self, parent_node: ET.Element, link: str) -> None:
        """Write the bodies below ``link`` (iteratively: HRDF trees may be deep)."""
        stack = [(parent_node, link)]
        while stack:
            node, name = stack.pop()
            pending = []
            for kind, joint in self.children.get(name, []):
                if kind == 'tree':
                    child = self.body(node, joint.child, joint_origin(self.model, joint))
                    if not joint.is_fixed:
                        spec = self.description.joint_specs[joint.name]
                        self.joint(child, joint.name,
                                   'slide' if spec.kind == 'prismatic' else 'hinge',
                                   axis_text(spec.axis), spec.lower, spec.upper, spec.effort)
                        self.actuated.append((joint.name, spec.lower, spec.upper,
                                              spec.effort))
                    if joint.child in self.tree.end_effector_links:
                        ET.SubElement(child, 'site', {'name': joint.child})
                else:
                    child = self.body(node, joint.child, joint.origin)
                    if joint.kind != 'fixed':
                        self.joint(child, joint.name, 'hinge', '1 0 0', joint.lower,
                                   joint.upper, joint.effort)
                        if joint.mimic is None:
                            self.actuated.append((joint.name, joint.lower, joint.upper,
                                                  joint.effort))
                        else:
                            self.mimic.append((joint.name,) + tuple(joint.mimic))
                self.geometry(child, joint.child)
                pending.append((child, joint.child))
            stack.extend(reversed(pending))
