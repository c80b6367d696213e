"""MJCF (MuJoCo) export of a :class:`~hrdf_ros.model.RobotModel` (``hrdf mjcf``):
``robot.xml``, and ``scene.xml`` that includes it, laid out as MuJoCo Menagerie's models.

In: the model (naming, limits, masses, geometry options as for the URDF). Out: MJCF text.

Layout, with the URDF's names (:mod:`hrdf_ros.description.frame_tree`) and what every
writer shares (:class:`~hrdf_ros.description.robot.RobotDescription`: inertials, shapes,
joint specs, the mesh-source rule, the semantics):

* one ``<body>`` per URDF link, nested as the URDF tree (``base_link`` under
  ``<worldbody>``, welded to the world), at the URDF joint origin (``pos``, ``quat``
  numbers by the rule of :mod:`.numbers`), with the URDF's inertial (``fullinertia`` in the
  body's axes, at the COM: the physical fill, or HEBI's masses with ``exact_masses``,
  except where MuJoCo refuses HEBI's values and the fill stays: a body that carries a
  joint and has no mass (a massless end effector after the last actuator; MuJoCo needs
  mass behind every joint), and a tensor without positive moments (HEBI's point masses:
  their mass is kept, the moments are filled)); the end
  effector is a body ``end_effector`` (``end_effector1``... with several; Drake's MJCF
  parser reads no sites) with a site of the same name;
* degrees of freedom are ``hinge`` or ``slide`` joints (URDF axis, in the body frame;
  ``range`` where the HRDF or the limits give one); a parallel gripper's parts hang on
  hinge joints about +x, the finger joint's followers coupled to it by ``<equality>
  <joint polycoef="offset multiplier">`` (the URDF's mimic rules);
* geometry in two default classes, as Menagerie: ``visual`` (HEBI's meshes, absolute
  file paths, scale 0.001, or primitives, in HEBI's colours; no contact, group 2) and
  ``collision`` (the primitives fitted to HEBI's meshes, group 3);
* ``<contact><exclude>`` for every pair the MoveIt collision matrix disables
  (:mod:`hrdf_ros.description.semantics`: adjacent links, links touching at the start, never
  colliding pairs; ``samples=0``: adjacent only);
* actuators: one ``position`` actuator per degree of freedom and per gripper finger
  joint, named after its joint, ``ctrlrange`` the joint's range (none for continuous
  joints), ``forcerange`` and the joint's ``actuatorfrcrange`` its effort limit,
  ``kp`` = effort / :data:`FULL_EFFORT_ERROR`, ``kv`` = kp x :data:`DAMPING_TIME` (an
  HRDF ``<joint>`` without an effort limit: no force range, kp from
  :data:`~hrdf_ros.description.limits.DEFAULT_JOINT_EFFORT`); a gripper's finger, kv = kp x
  range / velocity limit, so it closes no faster than HEBI's spool (1.5 rad/s), and its
  followers are held by stiff equality constraints (:data:`MIMIC_SOLREF`); every
  actuated joint has ``armature`` = kv x :data:`TIMESTEP`, the least reflected inertia
  that keeps the damping stable when the actuator saturates (a saturated actuator's
  damping is integrated explicitly; HEBI publishes no rotor inertias, and the real
  reflected inertias of its gearboxes are larger);
* gravity: by default the position actuators alone hold the robot (pure PD, as
  Menagerie's arms; every HEBI kit stays within 0.04 rad of ``home``); with
  ``gravity_compensation`` it is compensated as HEBI's arm API does (its configs'
  GravityCompensationEffort plugin): every body ``gravcomp="1"``, every joint
  ``actuatorgravcomp="true"``, so the compensating torque comes through the joint's
  actuator and counts against its effort limit, and the PD gains only track;
* a keyframe ``home``: MoveIt's ``home`` state (:mod:`hrdf_ros.description.states`; qpos, and ctrl
  at the same joint values).

Units: m, kg, rad, N m (N for slides). MuJoCo reads STL and OBJ meshes; a mesh that is
only a URL (no local copy) or a ``package://`` reference that does not resolve here is
drawn as nothing and reported in the notes.
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from typing import Dict, List, Mapping, Optional, Sequence

import numpy as np

from .. import reproducible
from ..description.frame_tree import FrameTree
from ..description.gripper import finger_limits as limits_of_finger
from ..description.inertials import fill_notes, tensor_matrix
from ..description.limits import DEFAULT_JOINT_EFFORT
from ..description.robot import RobotDescription, describe
from ..description.semantics import DEFAULT_SAMPLES, DEFAULT_SEED, semantics
from ..model import RobotModel
from .mjcf_bodies import BodyWriter
from ..numbers import EFFORT, GAIN, LENGTH, POSITION, RATIO, TIME, num, nums
from .xml_text import comment, document, source_name

#: A position actuator reaches its effort limit at this position error, rad (m).
FULL_EFFORT_ERROR = 0.1
#: kv / kp, s: the actuator's damping relative to its stiffness.
DAMPING_TIME = 0.1
#: The simulation timestep, s (MuJoCo's default).
TIMESTEP = 0.002
#: solref of the mimic joints' equality constraints: (time constant s, damping ratio);
#: twice the default 2 ms timestep (MuJoCo's stable minimum), so a follower lags its
#: finger by under 0.01 rad at the spool's 1.5 rad/s.
MIMIC_SOLREF = (0.004, 1.0)
#: The default class every element of the model is in (Menagerie: the robot's name).
CLASS = 'hebi'


def _defaults(root: ET.Element, gravity_compensation: bool) -> None:
    default = ET.SubElement(ET.SubElement(root, 'default'), 'default', {'class': CLASS})
    if gravity_compensation:
        ET.SubElement(default, 'joint', {'actuatorgravcomp': 'true'})
    # mass comes from the inertials only (a body without one, e.g. base_link, has none)
    ET.SubElement(default, 'geom', {'density': '0'})
    visual = ET.SubElement(default, 'default', {'class': 'visual'})
    ET.SubElement(visual, 'geom', {'contype': '0', 'conaffinity': '0', 'group': '2'})
    collision = ET.SubElement(default, 'default', {'class': 'collision'})
    ET.SubElement(collision, 'geom', {'group': '3'})


def _inertials(description: RobotDescription, exact_masses: bool):
    """The URDF's inertials; with ``exact_masses``, HEBI's except where MuJoCo refuses
    them (a massless body that carries a joint, a tensor without positive moments),
    where the fill stays."""
    inertials = description.inertials(exact_masses)
    if not exact_masses:
        return inertials
    tree = description.tree
    filled = description.inertials()
    jointed = {j.child for j in tree.joints if not j.is_fixed} | {
        s.child for s in description.gripper_specs if s.kind != 'fixed'}

    def refused(link):
        if link not in inertials:
            return link in jointed
        moments = reproducible.symmetric_eigenvalues(tensor_matrix(inertials[link].inertia))
        return moments.min() <= 0.0
    inertials.update({link: filled[link] for link in filled if refused(link)})
    return inertials


def _build(model: RobotModel, robot_name: str = 'hrdf_robot',
           joint_names: Optional[Sequence[str]] = None, joint_prefix: str = 'J',
           tree: Optional[FrameTree] = None, position_limits: Optional[Mapping] = None,
           exact_masses: bool = False, mesh_dir: Optional[str] = None,
           meshes: str = 'auto', gripper_joints: bool = True,
           samples: Optional[int] = None, seed: Optional[int] = None,
           notes: Optional[List[str]] = None, gravity_compensation: bool = False):
    """(the ``<mujoco>`` element, the scene's floor height in m) of ``model`` (see
    :func:`to_mjcf` for the arguments)."""
    description = describe(model, robot_name, joint_names=joint_names,
                           joint_prefix=joint_prefix, tree=tree,
                           position_limits=position_limits, mesh_dir=mesh_dir, meshes=meshes,
                           gripper_joints=gripper_joints)
    tree, limits = description.tree, description.limits
    inertials = _inertials(description, exact_masses)
    own_notes: List[str] = list(description.mesh_notes)
    meaning = semantics(description, DEFAULT_SAMPLES if samples is None else samples,
                        DEFAULT_SEED if seed is None else seed)
    writer = BodyWriter(description, inertials, own_notes, gravity_compensation)
    root = ET.Element('mujoco', {'model': robot_name})
    root.append(comment(f'Generated by hrdf_ros from {source_name(model.path)} (HRDF '
                        f'{".".join(map(str, model.version))}). Units: m, kg, rad.'))
    fill = fill_notes(inertials, model.total_mass)
    if fill:
        root.append(comment(fill[-1] + ' (see hrdf_ros.description.inertials)'))
    ET.SubElement(root, 'compiler', {'angle': 'radian', 'autolimits': 'true',
                                     'balanceinertia': 'true'})
    ET.SubElement(root, 'option', {'integrator': 'implicitfast', 'timestep': num(TIMESTEP, TIME)})
    _defaults(root, gravity_compensation)
    asset = ET.SubElement(root, 'asset')
    world = ET.SubElement(root, 'worldbody')
    base = writer.body(world, tree.links[0], np.eye(4))
    base.set('childclass', CLASS)
    writer.geometry(base, tree.links[0])
    writer.subtree(base, tree.links[0])
    for name, rgba in writer.materials.items():
        ET.SubElement(asset, 'material', {'name': name, 'rgba': nums(rgba, RATIO)})
    for (path, scale), name in writer.meshes.items():
        ET.SubElement(asset, 'mesh', {'name': name, 'file': os.path.abspath(path),
                                      'scale': nums([scale] * 3, RATIO)})
    if meaning.disabled:
        contact = ET.SubElement(root, 'contact')
        for (a, b), reason in meaning.disabled.items():
            contact.append(comment(f'{a} - {b}: {reason}'))
            ET.SubElement(contact, 'exclude', {'body1': a, 'body2': b})
    if writer.mimic:
        equality = ET.SubElement(root, 'equality')
        for joint, followed, multiplier, offset in writer.mimic:
            ET.SubElement(equality, 'joint', {'name': joint, 'joint1': joint,
                                              'joint2': followed,
                                              'solref': f'{num(MIMIC_SOLREF[0], TIME)} '
                                                        f'{num(MIMIC_SOLREF[1], RATIO)}',
                                              'polycoef': f'{num(offset, POSITION)} '
                                                          f'{nums((multiplier, 0, 0, 0), RATIO)}'})
    actuators = ET.SubElement(root, 'actuator')
    fingers = set(tree.gripper_joint_names)
    for joint, lower, upper, effort in writer.actuated:
        kp = (DEFAULT_JOINT_EFFORT if effort is None else effort) / FULL_EFFORT_ERROR
        time = DAMPING_TIME
        if joint in fingers:     # the finger crosses its range at the spool's speed
            time = (upper - lower) / limits_of_finger(limits.get(joint))[2]
        attributes = {'name': joint, 'joint': joint, 'class': CLASS, 'kp': num(kp, GAIN),
                      'kv': num(kp * time, GAIN)}
        writer.joint_nodes[joint].set('armature', num(kp * time * TIMESTEP, GAIN))
        if effort is not None:
            attributes['forcerange'] = nums((-effort, effort), EFFORT)
        if lower is not None:
            attributes['ctrlrange'] = nums((lower, upper), POSITION)
        ET.SubElement(actuators, 'position', attributes)
    home = meaning.home()
    for joint, followed, multiplier, offset in writer.mimic:
        home[joint] = multiplier * home[followed] + offset
    keyframe = ET.SubElement(ET.SubElement(root, 'keyframe'), 'key', {'name': 'home'})
    keyframe.set('qpos', nums((home[j] for j in writer.joints), POSITION))
    keyframe.set('ctrl', nums((home[j] for j, _, _, _ in writer.actuated), POSITION))
    if notes is not None:
        notes.extend(fill + own_notes + meaning.notes)
    return root, meaning.floor


def to_mjcf(model: RobotModel, robot_name: str = 'hrdf_robot',
            joint_names: Optional[Sequence[str]] = None, joint_prefix: str = 'J',
            tree: Optional[FrameTree] = None, position_limits: Optional[Mapping] = None,
            exact_masses: bool = False, mesh_dir: Optional[str] = None,
            meshes: str = 'auto', gripper_joints: bool = True,
            samples: Optional[int] = None, seed: Optional[int] = None,
            notes: Optional[List[str]] = None, gravity_compensation: bool = False) -> str:
    """Generate the MJCF model of ``model`` (``robot.xml``; see the module docstring).

    The arguments model, robot_name, joint_names, joint_prefix, tree, position_limits,
    exact_masses, mesh_dir, meshes and gripper_joints are as in
    :func:`hrdf_ros.export.urdf.to_urdf`.

    Args:
        samples: random states of the collision matrix whose disabled pairs become
            contact exclusions and against which ``home`` is chosen (default: the MoveIt
            package's; 0: adjacent pairs only, no python-fcl).
        seed: their seed (default: the MoveIt package's).
        notes: receives what a user should know, one line each: the physical fill,
            shapes not drawn, and (lines starting with ``meshes:``) where HEBI's meshes
            come from.
        gravity_compensation: compensate gravity through the actuators, as HEBI's arm
            API does (module docstring); default: pure PD.

    Returns:
        The MJCF document as a UTF-8 XML string.

    Raises:
        ValueError: invalid or colliding names, invalid limits, an unusable mesh option.
        ImportError: python-fcl missing while ``samples`` > 0.
    """
    return document(_build(model, robot_name, joint_names, joint_prefix, tree,
                           position_limits, exact_masses, mesh_dir, meshes, gripper_joints,
                           samples, seed, notes, gravity_compensation)[0])


def mjcf_files(model: RobotModel, robot_name: str = 'hrdf_robot',
               robot_file: str = 'robot.xml', **options) -> Dict[str, str]:
    """``{robot_file: the robot (:func:`to_mjcf`), 'scene.xml': the scene including it
    (:func:`scene_xml`, its floor under the robot at home)}``.

    Args:
        model, robot_name: as :func:`to_mjcf`.
        robot_file: the robot's file name, as the scene includes it (relative to the
            scene's folder).
        options: the other arguments of :func:`to_mjcf`.

    Raises:
        ValueError, ImportError: as :func:`to_mjcf`; ValueError also for a robot file
            named ``scene.xml``.
    """
    if os.path.basename(robot_file) == 'scene.xml':
        raise ValueError('the robot\'s file cannot be scene.xml: that is the scene\'s')
    root, floor = _build(model, robot_name, **options)
    return {robot_file: document(root), 'scene.xml': scene_xml(robot_file, robot_name, floor)}


def scene_xml(robot_file: str = 'robot.xml', robot_name: str = 'hrdf_robot',
              floor: float = 0.0) -> str:
    """``scene.xml``: ``robot_file`` included, with a floor at height ``floor`` (m; the
    robot's base plane, or its lowest point at ``home`` when lower:
    :attr:`~hrdf_ros.description.semantics.Semantics.floor`), a light and a camera
    view, as MuJoCo Menagerie's scenes."""
    root = ET.Element('mujoco', {'model': f'{robot_name} scene'})
    ET.SubElement(root, 'include', {'file': robot_file})
    ET.SubElement(root, 'statistic', {'center': '0 0 0.3', 'extent': '1.0'})
    visual = ET.SubElement(root, 'visual')
    ET.SubElement(visual, 'headlight', {'diffuse': '0.6 0.6 0.6', 'ambient': '0.3 0.3 0.3',
                                        'specular': '0 0 0'})
    ET.SubElement(visual, 'global', {'azimuth': '120', 'elevation': '-20'})
    asset = ET.SubElement(root, 'asset')
    ET.SubElement(asset, 'texture', {'type': 'skybox', 'builtin': 'gradient',
                                     'rgb1': '0.3 0.5 0.7', 'rgb2': '0 0 0',
                                     'width': '512', 'height': '3072'})
    ET.SubElement(asset, 'texture', {'type': '2d', 'name': 'groundplane',
                                     'builtin': 'checker', 'mark': 'edge',
                                     'rgb1': '0.2 0.3 0.4', 'rgb2': '0.1 0.2 0.3',
                                     'markrgb': '0.8 0.8 0.8', 'width': '300',
                                     'height': '300'})
    ET.SubElement(asset, 'material', {'name': 'groundplane', 'texture': 'groundplane',
                                      'texuniform': 'true', 'texrepeat': '5 5',
                                      'reflectance': '0.2'})
    world = ET.SubElement(root, 'worldbody')
    ET.SubElement(world, 'light', {'pos': '0 0 1.5', 'dir': '0 0 -1',
                                   'directional': 'true'})
    plane = ET.SubElement(world, 'geom', {'name': 'floor', 'size': '0 0 0.05',
                                          'type': 'plane', 'material': 'groundplane'})
    if floor:
        plane.set('pos', nums((0.0, 0.0, floor), LENGTH))
    return document(root)


__all__ = ['CLASS', 'DAMPING_TIME', 'FULL_EFFORT_ERROR', 'mjcf_files', 'scene_xml',
           'to_mjcf']
