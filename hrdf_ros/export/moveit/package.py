"""A complete MoveIt 2 config package for a robot model, laid out as MoveIt Setup
Assistant (Jazzy/Kilted) lays one out.

In: a :class:`~hrdf_ros.model.RobotModel` and options. Out: :class:`MoveItPackage`, the
files by path relative to the package directory (and :func:`write_moveit_package` writes
them). The file list and what each holds are in doc/explanation/moveit_package.md; XML and
Python files come from the Jinja2 templates in ``templates/``, YAML from
:mod:`.config_files`, the SRDF from :mod:`.srdf`, the ros2_control macro from
:mod:`hrdf_ros.export.ros2_control`.
"""
from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field, replace
from typing import Dict, List, Mapping, Optional

import jinja2
import numpy as np

from ...description.collision_matrix import DEFAULT_SAMPLES, DEFAULT_SEED
from ...description.frame_tree import FrameTree, build_frame_tree
from ...description.gripper_groups import GripperGroup
from ...description.groups import PlanningGroup
from ...description.hebi_arm import HebiArm
from ...description.limits import JointLimit, joint_limits as normalise_limits
from ...description.link_poses import LinkPoser
from ...description.planning_limits import joint_limits
from ...description.robot import describe
from ...description.semantics import semantics
from ...model import RobotModel
from ...reproducible import norm
from ..ros2_control import (DEFAULT_ROS_DISTRO, GRIPPER_CONTROLLERS, Ros2ControlOptions,
                            ros2_control_xacro)
from ..urdf import urdf_text as urdf_document, xacro_text
from ..xml_text import source_name
from . import config_files as cf
from .srdf import WORLD_FRAME, srdf_text, srdf_xacro

#: Where a HEBI arm config that sits in no package is installed, in the package.
HEBI_CONFIG_DIR = 'config/hebi'
#: moveit_configs_utils launch bundles, one ``launch/<bundle>.launch.py`` each.
LAUNCH_BUNDLES = ('demo', 'move_group', 'moveit_rviz', 'rsp', 'setup_assistant',
                  'spawn_controllers', 'static_virtual_joint_tfs', 'warehouse_db')
#: exec_depend of the package: Setup Assistant's fixed list and per-bundle packages,
#: plus the ros2_control controllers the package configures.
EXEC_DEPENDS = (
    'moveit_ros_move_group', 'moveit_kinematics', 'moveit_planners',
    'moveit_simple_controller_manager', 'joint_state_publisher',
    'joint_state_publisher_gui', 'tf2_ros', 'xacro', 'moveit_configs_utils',
    'robot_state_publisher', 'rviz2', 'rviz_common', 'rviz_default_plugins',
    'moveit_ros_visualization', 'moveit_setup_assistant', 'warehouse_ros_mongo',
    'moveit_ros_warehouse', 'controller_manager', 'joint_state_broadcaster',
    'joint_trajectory_controller')
DEFAULT_AUTHOR = 'hrdf_ros user'
DEFAULT_EMAIL = 'user@example.com'
#: A robot name usable as a file stem and in XML attribute values.
_ROBOT_NAME = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_.-]*')
_EMAIL = re.compile(r'[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,63}')


def ros_name(name: str) -> str:
    """A valid ROS package name part from any name (REP 144: lower case letters, digits
    and single underscores, starting with a letter): ``A-2085-06`` -> ``a_2085_06``."""
    text = re.sub(r'[^a-z0-9]+', '_', name.lower()).strip('_')
    if not text or not text[0].isalpha():
        text = 'robot_' + text if text else 'robot'
    return text


def package_name_for(robot_name: str) -> str:
    """``<ros_name(robot_name)>_moveit_config``."""
    return f'{ros_name(robot_name)}_moveit_config'


@dataclass
class MoveItPackage:
    """A generated MoveIt config package.

    Attributes:
        name: the package name.
        robot_name: URDF/SRDF robot name (file stem of ``config/<robot>.*``).
        files: text per path relative to the package directory.
        groups: the planning groups.
        disabled: ``{(link1, link2): reason}`` of the collision matrix.
        notes: what a user should know (opaque collision geometry, no groups...).
        grippers: the parallel grippers' groups (:mod:`hrdf_ros.description.gripper_groups`).
    """

    name: str
    robot_name: str
    files: Dict[str, str]
    groups: List[PlanningGroup]
    disabled: Dict[tuple, str]
    notes: List[str] = field(default_factory=list)
    grippers: List[GripperGroup] = field(default_factory=list)


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader('hrdf_ros.export.moveit', 'templates'),
        autoescape=lambda name: bool(name) and name.endswith(('.xml.jinja', '.xacro.jinja')),
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined)


def _view(poser: LinkPoser, links: List[str]) -> Dict[str, object]:
    """Orbit view of moveit.rviz: focus on the middle of the robot at its default state."""
    origins = poser.poses(links, poser.default_values()[None, :])[0, :, :3, 3]
    low, high = origins.min(axis=0), origins.max(axis=0)
    size = float(norm(high - low))
    return {'focus': [round(float(v), 3) + 0.0 for v in (low + high) / 2],
            'distance': round(max(1.0, 2.5 * size), 2)}


def _hebi_config_files(hebi: HebiArm, package: str) -> Dict[str, str]:
    """The files a config in no package needs, at their place in the package."""
    files = {}
    for relative, path in hebi.config.files.items():
        if relative.startswith('../'):
            raise ValueError(f'{hebi.config.path} names {path}, outside its own folder: '
                             'to be installed with the package, a config in no package '
                             'must have its HRDF and gains in its folder or below')
        with open(path, encoding='utf-8') as handle:
            files[f'{HEBI_CONFIG_DIR}/{relative}'] = handle.read()
    return files


def _hardware(control: Ros2ControlOptions) -> Dict[str, str]:
    """The xacro defaults: hardware switches and hebi_hardware's config."""
    return {'use_mock_hardware': str(control.hardware == 'mock').lower(),
            'sim_gazebo': str(control.hardware == 'gazebo').lower(),
            'config_pkg': control.hebi_config_pkg, 'config_file': control.hebi_config_file}


def moveit_package(model: RobotModel, robot_name: str, *, joint_prefix: str = 'J',
                   tree: Optional[FrameTree] = None,
                   limits: Optional[Mapping] = None,
                   samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED,
                   ros2_control: Optional[Ros2ControlOptions] = None,
                   package_name: Optional[str] = None,
                   author_name: str = DEFAULT_AUTHOR, author_email: str = DEFAULT_EMAIL,
                   timestamp: Optional[int] = None, mesh_dir: Optional[str] = None,
                   meshes: str = 'auto', gripper_joints: bool = True,
                   hebi: Optional[HebiArm] = None,
                   ros_distro: str = DEFAULT_ROS_DISTRO) -> MoveItPackage:
    """Every file of the MoveIt config package of ``model``.

    Args:
        model: the robot.
        robot_name: URDF/SRDF robot name and file stem.
        joint_prefix: generated joint names (when ``tree`` and ``hebi`` are not given).
        tree: the model's frame tree (default :func:`~..frame_tree.build_frame_tree`).
        limits: user limits per joint, ``{joint: [lower, upper] | mapping | JointLimit}``
            (:mod:`hrdf_ros.description.limits`); position, velocity and effort also go into
            the URDF, acceleration into ``joint_limits.yaml`` only.
        samples, seed: random states of the collision matrix
            (:mod:`hrdf_ros.description.collision_matrix`); ``samples=0`` keeps only
            ``Adjacent`` pairs and needs no python-fcl.
        ros2_control: the default hardware of the ros2_control xacro (``mock``).
        package_name: default :func:`package_name_for` of the robot name.
        author_name, author_email: package maintainer.
        timestamp: ``.setup_assistant`` generation time, s since the epoch (default:
            ``SOURCE_DATE_EPOCH`` when set, as reproducible builds do, else now).
        mesh_dir, meshes: where HEBI's meshes come from, as
            :func:`~hrdf_ros.export.urdf.to_urdf` (the collision geometry, and so the
            collision matrix, does not depend on them).
        gripper_joints: parallel grippers get their finger joint, group, end effector
            and controllers (:mod:`hrdf_ros.description.gripper_groups`; ignored when ``tree`` is
            given).
        hebi: a HEBI arm config applied to the model (:mod:`hrdf_ros.description.hebi_arm`):
            its joint names and gripper joint (and its ``gripper_joints``, not this
            function's), gains limits (under ``limits``) and the
            ``config_pkg``/``config_file`` hebi_hardware is started with; a config in no
            package is installed under ``config/hebi/`` and this package named.
        ros_distro: ``jazzy`` or ``kilted``: the gripper controller
            (:data:`~hrdf_ros.export.ros2_control.GRIPPER_CONTROLLERS`).

    Raises:
        ValueError: an unusable robot name, package name, e-mail or distribution,
            invalid limits or ros2_control options, names the URDF cannot hold, or a
            config in no package whose files are outside its folder.
        ImportError: python-fcl missing while ``samples`` > 0.
    """
    if not _ROBOT_NAME.fullmatch(robot_name or ''):
        raise ValueError(f'robot name "{robot_name}" must be letters, digits, _ . - (it '
                         'names files and the URDF)')
    package = package_name or package_name_for(robot_name)
    if ros_name(package) != package:
        raise ValueError(f'package name "{package}" is not a valid ROS package name')
    if not _EMAIL.fullmatch(author_email):
        raise ValueError(f'"{author_email}" is not an e-mail address')
    if ros_distro not in GRIPPER_CONTROLLERS:
        raise ValueError(f'ROS distribution must be one of {", ".join(GRIPPER_CONTROLLERS)}, '
                         f'got "{ros_distro}"')
    overrides: Dict[str, JointLimit] = normalise_limits(limits)
    sources: Dict[str, str] = {}
    if hebi is not None:
        tree = tree or hebi.frame_tree(model)
        overrides, sources = hebi.limits_under(overrides)
    tree = tree or build_frame_tree(model, joint_prefix=joint_prefix,
                                    gripper_joints=gripper_joints)
    control = ros2_control or Ros2ControlOptions()
    if hebi is not None:    # hebi_hardware finds the config in its package, or in this one
        control = replace(
            control, hebi_gripper_joint=hebi.gripper_joint,
            hebi_config_pkg=hebi.config.config_pkg or package,
            hebi_config_file=hebi.config.config_file
            or f'{HEBI_CONFIG_DIR}/{os.path.basename(hebi.config.path)}')
    description = describe(model, robot_name, tree=tree, position_limits=overrides,
                           mesh_dir=mesh_dir, meshes=meshes)
    meaning = semantics(description, samples, seed)
    urdf = meaning.urdf
    joints = [j.name for j in urdf.joints if j.is_active]
    mimic = {j.name: j.mimic for j in urdf.joints if j.is_movable and j.mimic}
    if not control.hebi_gripper_joint and len(tree.grippers) == 1:
        control = replace(control, hebi_gripper_joint=tree.grippers[0].joint)
    control.check(joints)
    limit_values = joint_limits(model, tree, urdf, overrides, sources)
    groups, grippers, poser = meaning.groups, meaning.grippers, meaning.poser
    notes = [] if groups else ['the robot has no degree of freedom: no planning group']
    notes += list(hebi.notes) if hebi is not None else []
    notes += [n[len('meshes: '):] for n in description.mesh_notes]
    notes += meaning.notes
    initial = dict(zip(joints, poser.default_values()))
    initial.update({name: m * initial[source] + o for name, (source, m, o) in mimic.items()})
    macro = f'{ros_name(robot_name)}_ros2_control'
    env = _environment()
    hardware = _hardware(control)
    depends = EXEC_DEPENDS + ((GRIPPER_CONTROLLERS[ros_distro][1],) if grippers else ())
    if hebi is not None:
        depends += ('hebi_hardware',) + ((hardware['config_pkg'],)
                                         if hardware['config_pkg'] != package else ())
    context = {'package': package, 'robot': robot_name, 'source': source_name(model.path),
               'author_name': author_name, 'author_email': author_email,
               'exec_depends': depends, 'macro': macro, **hardware,
               'system': control.name or f'{ros_name(robot_name)}_system',
               'fixed_frame': WORLD_FRAME, **_view(poser, urdf.links),
               'forward_controller': cf.FORWARD_POSITION_CONTROLLER}
    srdf = srdf_text(urdf, groups, meaning.states, meaning.disabled, grippers)
    files = {
        'package.xml': env.get_template('package.xml.jinja').render(context),
        'CMakeLists.txt': env.get_template('CMakeLists.txt.jinja').render(context),
        '.setup_assistant': cf.setup_assistant_yaml(
            package, robot_name, author_name, author_email,
            _generation_time() if timestamp is None else timestamp),
        f'config/{robot_name}.urdf': urdf_document(description),
        f'config/{robot_name}.macro.xacro': xacro_text(description, standalone=False),
        f'config/{robot_name}.urdf.xacro':
            env.get_template('config/robot.urdf.xacro.jinja').render(context),
        f'config/{robot_name}.ros2_control.xacro': ros2_control_xacro(
            macro, joints, list(mimic), control.hebi_gripper_joint),
        f'config/{robot_name}.srdf': srdf,
        f'config/{robot_name}.srdf.xacro': srdf_xacro(srdf),
        'config/initial_positions.yaml': cf.initial_positions_yaml(robot_name, initial),
        'config/kinematics.yaml': cf.kinematics_yaml(groups),
        'config/joint_limits.yaml': cf.joint_limits_yaml(limit_values),
        'config/pilz_cartesian_limits.yaml': cf.pilz_cartesian_limits_yaml(),
        'config/moveit_controllers.yaml': cf.moveit_controllers_yaml(groups, grippers,
                                                                     ros_distro),
        'config/ros2_controllers.yaml': cf.ros2_controllers_yaml(groups, grippers,
                                                                 ros_distro),
        'config/moveit.rviz': env.get_template('config/moveit.rviz.jinja').render(context),
    }
    if groups:
        files['config/servo.yaml'] = cf.servo_yaml(groups[0])
    if hebi is not None and not hebi.config.in_package:
        files.update(_hebi_config_files(hebi, package))
    launch = env.get_template('launch/bundle.launch.py.jinja')
    for bundle in LAUNCH_BUNDLES:
        files[f'launch/{bundle}.launch.py'] = launch.render(context, bundle=bundle)
    files['launch/bringup.launch.py'] = env.get_template(
        'launch/bringup.launch.py.jinja').render(context)
    return MoveItPackage(package, robot_name, files, groups, meaning.disabled, notes,
                         grippers)


def _generation_time() -> int:
    """``SOURCE_DATE_EPOCH`` (reproducible-builds.org) when set to an integer, else now."""
    value = os.environ.get('SOURCE_DATE_EPOCH', '').strip()
    return int(value) if value.isdigit() else int(time.time())


def write_moveit_package(package: MoveItPackage, out_dir: str) -> List[str]:
    """Write the package's files under ``out_dir`` (the package directory; created when
    missing; files of the same names are replaced, others left alone).

    Returns:
        The paths written, in :attr:`MoveItPackage.files` order.

    Raises:
        OSError: when a folder or file cannot be written.
    """
    paths = []
    for relative, text in package.files.items():
        path = os.path.join(out_dir, *relative.split('/'))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as handle:
            handle.write(text)
        paths.append(path)
    return paths
