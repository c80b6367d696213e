"""The YAML files of the MoveIt config package, written with PyYAML.

In: planning groups (:mod:`hrdf_ros.description.groups`), joint limits
(:mod:`hrdf_ros.description.planning_limits`) and names. Out: the text of
``config/kinematics.yaml``, ``joint_limits.yaml``, ``pilz_cartesian_limits.yaml``,
``moveit_controllers.yaml``, ``ros2_controllers.yaml``, ``initial_positions.yaml``,
``servo.yaml`` (hrdf_ros_node's servo) and the package's ``.setup_assistant``, laid out
as MoveIt Setup Assistant (Jazzy/Kilted) writes them, with the additions MoveIt 2 needs to
plan and execute:

* kinematics: KDL per group, search resolution 0.005 rad, timeout 0.005 s (Setup
  Assistant's defaults), ``position_only_ik: true`` for groups under 6 joints;
* joint limits: velocity **and acceleration** for every joint (time parameterization
  and Pilz reject a joint without an acceleration limit), position limits for bounded
  joints, the rated effort; scaling factors 0.1 (Setup Assistant's);
* moveit_controllers: a ``trajectory_execution`` block (MoveIt's defaults written out,
  duration scaling 1.2 as Setup Assistant's examples) and one ``FollowJointTrajectory``
  controller per group;
* ros2_controllers: controller_manager at 100 Hz, ``joint_state_broadcaster`` and a
  ``joint_trajectory_controller`` per group (position and velocity command, as every
  hebi_bringup controllers file: HEBI's gains are made for a position target with a
  velocity feed-forward, and hebi_hardware sends NaN, "none", for a velocity nobody
  commands; position and velocity state; ``allow_nonzero_velocity_at_trajectory_end``,
  as Setup Assistant writes);
* a parallel gripper's action controller depends on the ROS distribution
  (:data:`~hrdf_ros.export.ros2_control.GRIPPER_CONTROLLERS`): Jazzy:
  ``position_controllers/GripperActionController`` (ros2_controllers' ``gripper_controllers``;
  control_msgs/GripperCommand), as HEBI documents for its arms (hebi_ros2_examples' README), with
  MoveIt's ``GripperCommand`` handler; Kilted, where ``gripper_controllers`` is gone:
  ``parallel_gripper_action_controller/ GripperActionController`` (``parallel_gripper_controller``;
  control_msgs/ParallelGripperCommand) with MoveIt's ``ParallelGripperCommand``
  handler. Both on the finger joint, action ``<controller>/gripper_cmd``,
  ``allow_stalling: true`` (a grasp stops the fingers short of the goal).
  Entries in both files (:func:`moveit_controller_entries`,
  :func:`ros2_controller_entries`).
"""
from __future__ import annotations

import textwrap
from typing import Dict, Mapping, Sequence

import yaml

from ...description.gripper_groups import GripperGroup
from ...description.groups import PlanningGroup
from ...description.planning_limits import JointLimits
from ...numbers import POSITION, rounded
from ..ros2_control import DEFAULT_ROS_DISTRO, GRIPPER_CONTROLLERS

#: KDL solver settings (Setup Assistant's defaults): rad, s.
KINEMATICS_SEARCH_RESOLUTION = 0.005
KINEMATICS_TIMEOUT = 0.005
KINEMATICS_SOLVER = 'kdl_kinematics_plugin/KDLKinematicsPlugin'
#: controller_manager update rate, Hz.
CONTROLLER_UPDATE_RATE = 100
#: Default velocity/acceleration scaling of MoveIt requests (Setup Assistant's).
DEFAULT_SCALING = 0.1
#: Pilz Cartesian limits (Setup Assistant's template): m/s, m/s^2, rad/s.
PILZ_CARTESIAN_LIMITS = {'max_trans_vel': 1.0, 'max_trans_acc': 2.25,
                         'max_trans_dec': -5.0, 'max_rot_vel': 1.57}
#: trajectory_execution parameters (MoveIt's defaults but the duration scaling).
TRAJECTORY_EXECUTION = {'allowed_execution_duration_scaling': 1.2,
                        'allowed_goal_duration_margin': 0.5,
                        'allowed_start_tolerance': 0.01,
                        'execution_duration_monitoring': True}
#: Interfaces the trajectory controllers claim.
CONTROLLER_COMMAND_INTERFACES = ['position', 'velocity']
CONTROLLER_STATE_INTERFACES = ['position', 'velocity']
#: The gripper controller's action server, relative to the controller.
GRIPPER_ACTION = 'gripper_cmd'
#: The first group's forward position controller, for the servo (its topic:
#: ``/forward_position_controller/commands``, std_msgs/Float64MultiArray).
FORWARD_POSITION_CONTROLLER = 'forward_position_controller'
FORWARD_POSITION_TYPE = 'forward_command_controller/ForwardCommandController'


def moveit_controller_entries(grippers: Sequence[GripperGroup],
                              distro: str = DEFAULT_ROS_DISTRO) -> Dict[str, dict]:
    """``{controller: moveit_simple_controller_manager entry}`` of the grippers."""
    kind = GRIPPER_CONTROLLERS[distro][2]
    return {g.controller: {'type': kind, 'joints': [g.joint], 'action_ns': GRIPPER_ACTION,
                           'default': True} for g in grippers}


def ros2_controller_entries(grippers: Sequence[GripperGroup],
                            distro: str = DEFAULT_ROS_DISTRO) -> Dict[str, tuple]:
    """``{controller: (type, ros__parameters)}`` of the grippers for ros2_controllers.yaml."""
    kind = GRIPPER_CONTROLLERS[distro][0]
    return {g.controller: (kind, {'joint': g.joint, 'allow_stalling': True})
            for g in grippers}


def _yaml(comment: str, data) -> str:
    header = ''.join(f'# {line}\n' for line in comment.splitlines())
    return header + yaml.safe_dump(data, sort_keys=False, default_flow_style=False)


def kinematics_yaml(groups: Sequence[PlanningGroup]) -> str:
    """config/kinematics.yaml: the KDL solver per group."""
    data = {}
    for group in groups:
        entry = {'kinematics_solver': KINEMATICS_SOLVER,
                 'kinematics_solver_search_resolution': KINEMATICS_SEARCH_RESOLUTION,
                 'kinematics_solver_timeout': KINEMATICS_TIMEOUT}
        if group.position_only:
            entry['position_only_ik'] = True
        data[group.name] = entry
    return _yaml('Kinematics solvers per planning group (hrdf_ros). Groups with fewer than\n'
                 '6 joints solve for position only.', data)


def joint_limits_yaml(limits: Mapping[str, JointLimits]) -> str:
    """config/joint_limits.yaml: limits of every movable joint (rad, rad/s, rad/s^2, N m;
    m, m/s, m/s^2, N for prismatic joints); the header names where each joint's velocity
    and effort come from when that is not the modules' rated values."""
    joints: Dict[str, dict] = {}
    for name, limit in limits.items():
        # the values as written: JointLimits are rounded where they are decided
        entry = {'has_velocity_limits': True, 'max_velocity': limit.velocity,
                 'has_acceleration_limits': True, 'max_acceleration': limit.acceleration,
                 'has_effort_limits': True, 'max_effort': limit.effort,
                 'has_position_limits': limit.lower is not None}
        if limit.lower is not None:
            entry.update(min_position=limit.lower, max_position=limit.upper)
        joints[name] = entry
    sources = ''.join(f'\n  {name}: {limit.source}' for name, limit in limits.items()
                      if not limit.source.endswith(' rated'))
    return _yaml(
        'Joint limits for MoveIt (hrdf_ros): velocity and effort are the modules\' rated\n'
        'values (HRDF <joint>s: defaults), lowered to a HEBI arm config\'s gains bounds,\n'
        'acceleration = velocity / 0.5 s; see hrdf_ros\'s\n'
        'doc/explanation/moveit_package.md. Units: rad, rad/s, rad/s^2, N m\n'
        '(m, m/s, m/s^2, N if prismatic).'
        + (f'\nOther sources of velocity and effort:{sources}' if sources else '')
        + '\nScale them per request with the scaling factors below.', {
            'default_velocity_scaling_factor': DEFAULT_SCALING,
            'default_acceleration_scaling_factor': DEFAULT_SCALING,
            'joint_limits': joints})


def pilz_cartesian_limits_yaml() -> str:
    """config/pilz_cartesian_limits.yaml (Setup Assistant's values)."""
    return _yaml('Cartesian limits for the Pilz planner (m/s, m/s^2, rad/s).',
                 {'cartesian_limits': dict(PILZ_CARTESIAN_LIMITS)})


def moveit_controllers_yaml(groups: Sequence[PlanningGroup],
                            grippers: Sequence[GripperGroup] = (),
                            distro: str = DEFAULT_ROS_DISTRO) -> str:
    """config/moveit_controllers.yaml: trajectory execution, one FollowJointTrajectory
    controller per group and one gripper controller per gripper (its handler type for
    ``distro``: :data:`~hrdf_ros.export.ros2_control.GRIPPER_CONTROLLERS`)."""
    manager = {'controller_names': [g.controller for g in list(groups) + list(grippers)]}
    for group in groups:
        manager[group.controller] = {'type': 'FollowJointTrajectory',
                                     'joints': list(group.joints),
                                     'action_ns': 'follow_joint_trajectory',
                                     'default': True}
    manager.update(moveit_controller_entries(grippers, distro))
    return _yaml('MoveIt uses this configuration for controller management (hrdf_ros).', {
        'trajectory_execution': dict(TRAJECTORY_EXECUTION),
        'moveit_controller_manager':
            'moveit_simple_controller_manager/MoveItSimpleControllerManager',
        'moveit_simple_controller_manager': manager})


def ros2_controllers_yaml(groups: Sequence[PlanningGroup],
                          grippers: Sequence[GripperGroup] = (),
                          distro: str = DEFAULT_ROS_DISTRO) -> str:
    """config/ros2_controllers.yaml: controller_manager, joint_state_broadcaster, a
    joint_trajectory_controller per group, a gripper action controller per gripper
    (the type ``distro`` ships: :data:`~hrdf_ros.export.ros2_control.GRIPPER_CONTROLLERS`)
    and, for the first group, the servo's forward position controller
    (:data:`FORWARD_POSITION_CONTROLLER`, forward_command_controller on the position
    interface; the bringup loads it inactive)."""
    manager = {'update_rate': CONTROLLER_UPDATE_RATE}
    for group in groups:
        manager[group.controller] = {
            'type': 'joint_trajectory_controller/JointTrajectoryController'}
    gripper_controllers = ros2_controller_entries(grippers, distro)
    for name, (kind, _) in gripper_controllers.items():
        manager[name] = {'type': kind}
    if groups:
        manager[FORWARD_POSITION_CONTROLLER] = {'type': FORWARD_POSITION_TYPE}
    manager['joint_state_broadcaster'] = {
        'type': 'joint_state_broadcaster/JointStateBroadcaster'}
    data = {'controller_manager': {'ros__parameters': manager}}
    for group in groups:
        data[group.controller] = {'ros__parameters': {
            'joints': list(group.joints),
            'command_interfaces': list(CONTROLLER_COMMAND_INTERFACES),
            'state_interfaces': list(CONTROLLER_STATE_INTERFACES),
            'allow_nonzero_velocity_at_trajectory_end': True}}
    if groups:
        data[FORWARD_POSITION_CONTROLLER] = {'ros__parameters': {
            'joints': list(groups[0].joints), 'interface_name': 'position'}}
    for name, (_, parameters) in gripper_controllers.items():
        data[name] = {'ros__parameters': dict(parameters)}
    return _yaml('This config file is used by ros2_control (hrdf_ros; update_rate in Hz).',
                 data)


def initial_positions_yaml(robot_name: str, positions: Mapping[str, float]) -> str:
    """config/initial_positions.yaml: start position of every joint (rad or m)."""
    return _yaml(f"Default initial positions for {robot_name}'s ros2_control system.",
                 {'initial_positions': {j: rounded(v, POSITION)
                                        for j, v in positions.items()}})


def setup_assistant_yaml(package: str, robot_name: str, author_name: str,
                         author_email: str, timestamp: int) -> str:
    """The package's .setup_assistant (what MoveItConfigsBuilder and Setup Assistant
    read to find the URDF and SRDF)."""
    return yaml.safe_dump({'moveit_setup_assistant_config': {
        'urdf': {'package': package, 'relative_path': f'config/{robot_name}.urdf'},
        'srdf': {'relative_path': f'config/{robot_name}.srdf'},
        'package_settings': {'author_name': author_name, 'author_email': author_email,
                             'generated_timestamp': int(timestamp)},
        'control_xacro': {'command': ['position', 'velocity'],
                          'state': ['position', 'velocity', 'effort']},
        'modified_urdf': {'xacros': ['control_xacro']},
    }}, sort_keys=False, default_flow_style=False)


def servo_yaml(group: PlanningGroup) -> str:
    """config/servo.yaml: a parameter file of hrdf_ros_node that runs its servo on
    ``group`` (the first planning group), twists in its base link, through
    :data:`FORWARD_POSITION_CONTROLLER`; its comment names the group's frames and
    joints."""
    comment = (f'hrdf_ros_node\'s servo for planning group {group.name}: twists move '
               f'{group.tip} (the end effector) in {group.base} (the planning frame), joint '
               f'jogs name {", ".join(group.joints)}. Commands go to '
               f'{FORWARD_POSITION_CONTROLLER} (ros2_controllers.yaml; activate it in '
               f'place of {group.controller}). Use: ros2 launch hrdf_ros hrdf.launch.py '
               'params_file:=<this file> hrdf_file:=<the HRDF>.')
    servo = {'enabled': True, 'command_out_type': 'forward_position',
             'command_out_topic': f'/{FORWARD_POSITION_CONTROLLER}/commands'}
    return _yaml(textwrap.fill(comment, 86),
                 {'/**/hrdf_ros_node': {'ros__parameters': {'servo': servo}}})
