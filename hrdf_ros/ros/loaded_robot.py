"""Everything the node derives from one HRDF model, built completely before it is used.

A reload builds a new :class:`LoadedRobot` while the old one keeps running, and the node
switches over in one assignment, so a failed or partial load never shows.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..hrdf.diagnostics import Diagnostic, HrdfError
from ..description.frame_tree import FrameTree, build_frame_tree, joint_origin
from ..kinematics import Kinematics
from ..kinematics import gripper as mechanism
from ..model import RobotModel
from ..hrdf.reader import load, loads
from ..description.hebi_arm import hebi_arm
from ..description.limits import JointLimit
from ..description.limits import joint_limits as normalise_limits
from ..export.ros2_control import Ros2ControlOptions, add_ros2_control, hebi_arm_options
from ..hrdf.access import FileAccess
from ..hrdf.arm_config import ArmConfig
from ..export.urdf import to_urdf_tree
from ..export.xml_text import document


class LoadError(Exception):
    """An HRDF that cannot become the running model.

    Attributes:
        diagnostics: located errors and warnings (may be empty for naming errors).
    """

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic] = ()):
        super().__init__(message)
        self.diagnostics = list(diagnostics)


@dataclass
class RobotOptions:
    """Node parameters that shape the description: robot name, TF frame prefix, joint
    names, joint limits ``{joint: (lower, upper) | JointLimit}`` (rad or m), where HEBI's
    meshes come from (``mesh_dir``, ``meshes``: :mod:`hrdf_ros.parts.mesh_sources`),
    HEBI's exact masses (no physical fill, :mod:`hrdf_ros.description.inertials`), the
    ros2_control hardware (``None``: no ``<ros2_control>`` block), whether parallel
    grippers get their finger joint and mimic joints (:mod:`hrdf_ros.description.gripper`),
    and a HEBI arm config whose names, gripper joint, gains limits (under
    ``position_limits``) and ros2_control parameters apply (:mod:`hrdf_ros.description.hebi_arm`;
    it replaces ``joint_prefix`` and ``joint_names``)."""

    robot_name: str = ''
    frame_prefix: str = ''
    joint_prefix: str = 'J'
    joint_names: Tuple[str, ...] = ()
    position_limits: Dict[str, Tuple[float, float]] = field(default_factory=dict)
    mesh_dir: str = ''
    meshes: str = 'auto'
    exact_masses: bool = False
    ros2_control: Optional[Ros2ControlOptions] = None
    gripper_joints: bool = True
    hebi_config: Optional[ArmConfig] = None


@dataclass
class LoadedRobot:
    """A model with its kinematics, URDF and TF layout.

    Attributes:
        source: the HRDF path, or ``'<text>'`` for a model given as text.
        name: the URDF robot name.
        model, tree, kinematics, urdf: as the names say.
        moving_pairs: (parent, child) TF frame ids per degree of freedom, prefixed.
            (A gripper's moving parts are in ``gripper_moving``, its fixed parts in
            ``fixed_pairs``.)
        fixed_pairs: (parent, child) TF frame ids of fixed joints, prefixed.
        fixed_transforms: (k, 4, 4) parent -> child transforms of the fixed joints, m.
        base_frame_id: prefixed reference frame (the base link).
        gear_ratios: (dof,) HEBI position / URDF joint value per degree of freedom (1
            except for HRDF ``<joint gear_ratio>``).
        export_notes: what the URDF adds to HEBI's model (physical fill) or replaces
            (missing meshes), and where HEBI's meshes come from, one line each
            (:func:`~hrdf_ros.export.urdf.urdf_notes`).
        position_limits: the joint limits the URDF has from the node's parameters or
            HEBI arm config (over HEBI's), by URDF joint name.
        gripper_moving: per moving gripper part, ``(parent, child, value index, h, a, b,
            t)``: its transform is the quaternion ``sin(v h) a + cos(v h) b`` and the
            translation t for the value v = values[value index] of the joint-state vector
            (:attr:`input_joint_names`; :func:`hrdf_ros.kinematics.gripper.moving_forms`).
    """

    source: str
    name: str
    model: RobotModel
    tree: FrameTree
    kinematics: Kinematics
    urdf: str
    moving_pairs: List[Tuple[str, str]]
    fixed_pairs: List[Tuple[str, str]]
    fixed_transforms: np.ndarray
    base_frame_id: str
    gear_ratios: np.ndarray
    export_notes: List[str] = field(default_factory=list)
    gripper_moving: List[tuple] = field(default_factory=list)
    position_limits: Dict[str, JointLimit] = field(default_factory=dict)

    @property
    def joint_names(self) -> List[str]:
        """Joint name per degree of freedom, in joint-position order."""
        return list(self.tree.dof_names)

    @property
    def gripper_joint_names(self) -> List[str]:
        """The finger joint of every parallel gripper."""
        return list(self.tree.gripper_joint_names)

    @property
    def input_joint_names(self) -> List[str]:
        """The joints read from joint_states: the degrees of freedom, then the grippers'
        finger joints."""
        return self.joint_names + self.gripper_joint_names

    @property
    def mimic_joint_names(self) -> List[str]:
        """Joints computed from a finger joint (accepted in joint_states, not read)."""
        return [name for g in self.tree.grippers for name in g.mimic_joints]


def prepare(model: RobotModel, source: str, naming: 'RobotOptions') -> LoadedRobot:
    """Build every derived structure of a parsed model.

    Raises:
        LoadError: when the options do not fit the model (e.g. the number of joint
            names differs from the degrees of freedom, or limits name unknown joints).
    """
    control = naming.ros2_control
    try:
        limits = normalise_limits(naming.position_limits)
        if naming.hebi_config is not None:
            hebi = hebi_arm(model, naming.hebi_config, naming.gripper_joints)
            tree = hebi.frame_tree(model)
            limits = hebi.limits_under(limits)[0]
            control = control and hebi_arm_options(hebi, control.hardware)
        else:
            tree = build_frame_tree(model, list(naming.joint_names) or None,
                                    naming.joint_prefix, naming.gripper_joints)
    except ValueError as exc:
        raise LoadError(str(exc)) from None
    name = naming.robot_name or (os.path.splitext(os.path.basename(source))[0]
                                 if source != '<text>' else 'hrdf_robot')
    prefix = naming.frame_prefix
    moving = sorted((j for j in tree.joints if not j.is_fixed), key=lambda j: j.dof)
    fixed = [j for j in tree.joints if j.is_fixed]
    try:
        notes: List[str] = []       # what urdf_notes gives, from the same export
        urdf = document(to_urdf_tree(
            model, name, tree=tree, position_limits=limits,
            exact_masses=naming.exact_masses, mesh_dir=naming.mesh_dir or None,
            meshes=naming.meshes, notes=notes))
        if control is not None:
            urdf = add_ros2_control(urdf, control)
    except ValueError as exc:
        raise LoadError(str(exc)) from None
    fixed_pairs = [(prefix + j.parent, prefix + j.child) for j in fixed]
    fixed_transforms = [joint_origin(model, j) for j in fixed]
    moving_pairs = [(prefix + j.parent, prefix + j.child) for j in moving]
    gripper_moving = []
    for index, gripper in enumerate(tree.grippers):
        for part in mechanism.PARTS:
            pair = (prefix + gripper.link_of(part.parent), prefix + gripper.links[part.name])
            if not part.moving:
                fixed_pairs.append(pair)
                fixed_transforms.append(part.origin)
        value = len(tree.dof_names) + index
        gripper_moving += [(prefix + gripper.link_of(p.parent), prefix + gripper.links[p.name],
                            value, h, a, b, t) for p, h, a, b, t in mechanism.moving_forms()]
    return LoadedRobot(
        source=source, name=name, model=model, tree=tree, kinematics=Kinematics(model),
        urdf=urdf, moving_pairs=moving_pairs, fixed_pairs=fixed_pairs,
        fixed_transforms=np.array(fixed_transforms).reshape(-1, 4, 4),
        base_frame_id=prefix + tree.links[0],
        gear_ratios=np.array([model.elements[e].gear_ratio for e in model.dof_elements]),
        export_notes=notes, gripper_moving=gripper_moving, position_limits=limits)


def load_robot(naming: RobotOptions, path: str = '', text: str = '',
               base_directory: str = '', strict: bool = False,
               access: Optional[FileAccess] = None) -> LoadedRobot:
    """Parse an HRDF (a file path, or text whose ``<include>`` paths resolve against
    ``base_directory``) and prepare it; ``strict``: spec deviations hebi-py accepts are
    errors (:mod:`hrdf_ros.hrdf.leniency`); ``access``: the folders the file and its
    includes may be read from (:mod:`hrdf_ros.hrdf.access`; ``None``: anywhere).

    Raises:
        LoadError: with every located diagnostic when the HRDF is invalid or unreadable,
            or when neither or both of ``path`` and ``text`` are given.
    """
    if bool(path) == bool(text):
        raise LoadError('give exactly one of an HRDF file path or HRDF text')
    try:
        if path:
            model = load(path, strict=strict, access=access)
        else:
            model = loads(text, path='<text>', base_dir=base_directory or None,
                          strict=strict, access=access)
    except HrdfError as exc:
        raise LoadError(str(exc), exc.diagnostics) from None
    return prepare(model, path or '<text>', naming)
