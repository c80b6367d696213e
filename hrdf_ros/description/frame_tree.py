"""The URDF/TF frame tree of a robot model: link names, joint names, parent/child pairs.

One structure serves both the URDF export and the TF publisher, so the names in
``robot_description`` and on ``/tf`` always agree.

Layout (names are the defaults; an element's HRDF ``tag`` replaces its link name):

* ``base_link``: the reference frame HEBI's kinematics are expressed in. A fixed joint
  carries the HRDF ``<robot rot trans>`` base frame to the first element.
* one link per element, at the element's *input* frame, carrying its inertia:
  ``actuator1``, ``bracket1``, ``link1``, ``rigid_body1``, ``hrdf_joint1``,
  ``end_effector_mount1`` (counted per kind, in HEBI's depth-first order).
* each element output connects to the element mounted on it; an output with nothing
  mounted becomes a link of its own: ``end_effector`` (``end_effector2``... when a robot
  has several) for end effectors, ``<element>_output`` otherwise.
* degrees of freedom become joints ``J1``, ``J2``... in joint-position order (prefix
  configurable), or take their element's ``tag``, or an explicit list of names; fixed
  joints are ``<child link>_joint``.
* a tagged element's link is named after the tag, except for a degree of freedom (an
  actuator or an HRDF ``<joint>``), whose *joint* takes the tag: its link is
  ``<tag>_link`` (whatever the joint names), so no link and joint share a name.
  SDFormat, Drake's SDFormat parser and Pinocchio's frame lookup need names that are
  unique across links and joints; :func:`build_frame_tree` checks it.
* a parallel gripper (X5Parallel, R8Parallel end effector) adds its finger links and
  joints on its element link (:mod:`.gripper`), unless ``gripper_joints`` is false.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..model import RobotModel
from .gripper import GripperTree, gripper_trees

BASE_LINK = 'base_link'

_KIND_LINK_NAMES = {
    'actuator': 'actuator', 'link': 'link', 'bracket': 'bracket',
    'rigid-body': 'rigid_body', 'joint': 'hrdf_joint', 'end-effector': 'end_effector_mount',
}
_NAME_RE = re.compile(r'[A-Za-z_][A-Za-z0-9_./-]*')


@dataclass(frozen=True)
class TreeJoint:
    """A joint of the frame tree (URDF joint / TF parent-child pair).

    Attributes:
        name: URDF joint name.
        parent: parent link name.
        child: child link name.
        element: index of the element whose output this joint realises, or -1 for the
            base joint.
        output: output index on that element.
        dof: index into the joint-position vector, or -1 for fixed joints.
    """

    name: str
    parent: str
    child: str
    element: int
    output: int
    dof: int

    @property
    def is_fixed(self) -> bool:
        """True when the joint never moves."""
        return self.dof < 0


@dataclass(frozen=True)
class FrameTree:
    """Names and topology shared by the URDF and TF.

    Attributes:
        links: every link name; ``links[0]`` is the root (``base_link``).
        element_links: link name per element (index as ``model.elements``).
        joints: base joint first, then one joint per element output, depth first.
        dof_names: joint name per degree of freedom, in joint-position order.
        end_effector_links: link name per end-effector frame, in HEBI order.
        grippers: the parallel grippers' links and joints (:mod:`.gripper`), not in
            ``links`` or ``joints`` (those are the HRDF's elements and outputs).
    """

    links: List[str]
    element_links: List[str]
    joints: List[TreeJoint]
    dof_names: List[str]
    end_effector_links: List[str]
    grippers: Tuple[GripperTree, ...] = ()

    @property
    def gripper_joint_names(self) -> List[str]:
        """The finger joint of every gripper (the joints a controller drives)."""
        return [g.joint for g in self.grippers]


def _check_name(name: str, what: str) -> str:
    if not _NAME_RE.fullmatch(name):
        raise ValueError(f'{what} "{name}" is not a valid URDF/TF name '
                         '(letters, digits, _ . / -; not starting with a digit)')
    return name


def build_frame_tree(model: RobotModel, joint_names: Optional[Sequence[str]] = None,
                     joint_prefix: str = 'J', gripper_joints: bool = True,
                     finger_joint_names: Sequence[str] = ()) -> FrameTree:
    """Name every link and joint of ``model``.

    Args:
        model: the robot.
        joint_names: optional names for the degrees of freedom, in joint-position order
            (length must equal ``model.dof_count``).
        joint_prefix: prefix for generated joint names (``J`` -> ``J1, J2, ...``); a
            degree of freedom whose element has a ``tag`` is named after the tag.
        gripper_joints: give parallel grippers their finger links and joints; false: the
            gripper is one rigid end effector, as HEBI's library models it.
        finger_joint_names: names of the grippers' finger joints, in gripper order
            (default ``gripper_joint``...; :func:`~.gripper.gripper_trees`).

    Returns:
        The :class:`FrameTree`.

    Raises:
        ValueError: when ``joint_names`` has the wrong length, or names collide (links and
            joints share one namespace) or are not valid URDF/TF names.
    """
    dof = model.dof_count
    if joint_names is not None and len(joint_names) > 0:
        if len(joint_names) != dof:
            raise ValueError(f'{len(joint_names)} joint names given for {dof} degrees of '
                             'freedom')
        dof_names = [_check_name(str(n), 'joint name') for n in joint_names]
    else:
        # a tagged degree of freedom is named after its HRDF tag
        dof_names = model.joint_names(joint_prefix)
        for n in dof_names:
            _check_name(n, 'joint name')

    counts = {}
    element_links = []
    for element in model.elements:
        if element.tag:
            _check_name(element.tag, f'tag of <{element.kind}>')
            element_links.append(f'{element.tag}_link' if element.is_dof else element.tag)
            continue
        base = _KIND_LINK_NAMES[element.kind]
        counts[base] = counts.get(base, 0) + 1
        element_links.append(f'{base}{counts[base]}')

    mounted = {}
    for index, element in enumerate(model.elements):
        if element.parent >= 0:
            mounted[(element.parent, element.parent_output)] = index
    n_end_effectors = model.frame_count('end_effector')

    links = [BASE_LINK] + list(element_links)
    joints: List[TreeJoint] = []
    end_effector_links: List[str] = []
    dof_of_element = {e: k for k, e in enumerate(model.dof_elements)}
    roots = [i for i, e in enumerate(model.elements) if e.parent < 0]
    for i in roots:
        joints.append(TreeJoint(f'{element_links[i]}_joint', BASE_LINK, element_links[i],
                                -1, 0, -1))
    for index, element in enumerate(model.elements):
        for k in range(len(element.outputs)):
            child_index = mounted.get((index, k))
            if child_index is not None:
                child = element_links[child_index]
            elif element.is_end_effector:
                child = ('end_effector' if n_end_effectors == 1
                         else f'end_effector{len(end_effector_links) + 1}')
                end_effector_links.append(child)
                links.append(child)
            else:
                suffix = '_output' if len(element.outputs) == 1 else f'_output{k + 1}'
                child = element_links[index] + suffix
                links.append(child)
            dof_index = dof_of_element.get(index, -1)
            name = dof_names[dof_index] if dof_index >= 0 else f'{child}_joint'
            joints.append(TreeJoint(name, element_links[index], child, index, k, dof_index))

    for n in finger_joint_names:
        _check_name(n, 'finger joint name')
    grippers = gripper_trees(model, element_links, finger_joint_names) if gripper_joints \
        else ()
    names = [('link', n) for n in links] + [('joint', j.name) for j in joints]
    for gripper in grippers:
        names += [('link', n) for n in gripper.links.values()]
        names += [('joint', n) for n in gripper.joints.values()]
    seen = {}
    for what, name in names:
        if name in seen:
            both = what if seen[name] == what else f'{seen[name]} and a {what}'
            raise ValueError(f'name "{name}" is used twice (a {both}); link and joint names '
                             'must be unique together')
        seen[name] = what
    return FrameTree(links, element_links, joints, dof_names, end_effector_links, grippers)


def link_frames(model: RobotModel, tree: FrameTree) -> Dict[str, Tuple[str, int]]:
    """The model frame of each link of the tree (the grippers' part links aside): the
    root link is the reference frame (``('base', 0)``, the identity), an element's link
    its input frame (``('input', element)``), a link at an output with nothing mounted
    (an end effector's too) that output frame (``('output', index among the output
    frames)``)."""
    output_index = {pair: k for k, pair in enumerate(model.output_frames)}
    element_of_link = {name: i for i, name in enumerate(tree.element_links)}
    frames: Dict[str, Tuple[str, int]] = {tree.links[0]: ('base', 0)}
    for joint in tree.joints:
        if joint.child in element_of_link:
            frames[joint.child] = ('input', element_of_link[joint.child])
        else:
            frames[joint.child] = ('output', output_index[(joint.element, joint.output)])
    return frames


def joint_origin(model: RobotModel, joint: TreeJoint) -> np.ndarray:
    """(4, 4) fixed part of a tree joint's transform, parent link -> child link.

    For a moving joint the full transform is ``origin @ motion(q / gear_ratio)``, the
    motion being about/along the URDF axis (the negative axis for an HRDF ``-rz``).
    """
    if joint.element < 0:
        return np.array(model.base_frame, dtype=float)
    return np.array(model.elements[joint.element].outputs[joint.output], dtype=float)
