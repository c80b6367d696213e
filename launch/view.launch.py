"""Show an HRDF robot in RViz2: hrdf_ros_node, RViz2 and a joint state publisher.

Usage (``--show-args`` lists the arguments)::

    ros2 launch hrdf_ros view.launch.py hrdf_file:=/path/to/robot.hrdf [rviz:=false] [gui:=false]

hrdf_ros_node comes from ``hrdf.launch.py`` (included: its arguments, e.g.
``publish_frequency``, apply here too, and its failure makes ``ros2 launch`` exit 1).
What else starts is decided when the launch runs, from what is installed:

* ``rviz:=true`` (default): RViz2 with ``config/view.rviz`` (fixed frame ``base_link``,
  RobotModel from ``/robot_description``, TF); closing it ends the launch. Without the
  rviz2 package a message says so and nothing else changes.
* ``gui:=true`` (default): joint_state_publisher_gui sliders; with ``gui:=false``, or
  without that package, joint_state_publisher (all joints at 0); without either, a
  message says so (publish sensor_msgs/JointState on joint_states yourself).

Nothing names a package that is not installed, so a missing one never aborts the launch
half-way (which would leave started nodes running).
"""
import os

from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
from launch import LaunchDescription
from launch.actions import (DeclareLaunchArgument, IncludeLaunchDescription, LogInfo,
                            OpaqueFunction, Shutdown)
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

SHARE = get_package_share_directory('hrdf_ros')


def _installed(package):
    """True when the ROS package is on the ament index."""
    try:
        get_package_share_directory(package)
    except PackageNotFoundError:
        return False
    return True


def _flag(context, name):
    return LaunchConfiguration(name).perform(context).lower() == 'true'


def _rviz(context):
    if not _flag(context, 'rviz'):
        return []
    if not _installed('rviz2'):
        return [LogInfo(msg='rviz2 is not installed: not starting RViz2 '
                            '(install ros-<distro>-rviz2, or run with rviz:=false)')]
    return [Node(package='rviz2', executable='rviz2', name='rviz2', output='screen',
                 arguments=['-d', os.path.join(SHARE, 'config', 'view.rviz')],
                 on_exit=Shutdown(reason='RViz2 closed'))]


def _joint_state_publisher(context):
    gui = _flag(context, 'gui')
    if gui and _installed('joint_state_publisher_gui'):
        return [Node(package='joint_state_publisher_gui',
                     executable='joint_state_publisher_gui',
                     name='joint_state_publisher_gui', output='screen')]
    actions = []
    if gui:
        actions.append(LogInfo(msg='joint_state_publisher_gui is not installed'))
    if _installed('joint_state_publisher'):
        actions.append(LogInfo(msg='starting joint_state_publisher (all joints at 0)'))
        actions.append(Node(package='joint_state_publisher',
                            executable='joint_state_publisher',
                            name='joint_state_publisher', output='screen'))
    else:
        actions.append(LogInfo(msg=(
            'joint_state_publisher is not installed either: publish '
            'sensor_msgs/JointState on joint_states to see the robot move')))
    return actions


def generate_launch_description():
    return LaunchDescription([
        DeclareLaunchArgument(
            'hrdf_file', default_value=os.path.join(SHARE, 'config', 'x_series_arm_6dof.hrdf'),
            description='HRDF file to show (default: the bundled 6-DoF X-series arm)'),
        DeclareLaunchArgument('rviz', default_value='true', choices=['true', 'false'],
                              description='start RViz2 with config/view.rviz'),
        DeclareLaunchArgument('gui', default_value='true', choices=['true', 'false'],
                              description='joint_state_publisher_gui sliders (false: '
                                          'joint_state_publisher, all joints at 0)'),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(os.path.join(SHARE, 'launch', 'hrdf.launch.py')),
            launch_arguments={'hrdf_file': LaunchConfiguration('hrdf_file')}.items()),
        OpaqueFunction(function=_rviz),
        OpaqueFunction(function=_joint_state_publisher),
    ])
