"""Show an HRDF robot in RViz2 or in the browser: hrdf_ros_node, RViz2 or the web view,
and a joint state publisher.

Usage (``--show-args`` lists the arguments)::

    ros2 launch hrdf_ros view.launch.py hrdf_file:=/path/to/robot.hrdf [rviz:=false] [gui:=false]
    ros2 launch hrdf_ros view.launch.py hrdf_file:=/path/to/robot.hrdf web:=true [web_port:=8080]

hrdf_ros_node comes from ``hrdf.launch.py`` (included: its arguments, e.g.
``publish_frequency``, apply here too, and its failure makes ``ros2 launch`` exit 1).
What else starts is decided when the launch runs, from what is installed:

* ``rviz:=true`` (default): RViz2 with ``config/view.rviz`` (fixed frame ``base_link``,
  RobotModel from ``/robot_description``, TF); closing it ends the launch. Without the
  rviz2 package, the web view instead (below), or, without the view extra either, a
  message.
* ``web:=true``: ``hrdf_ros_web_view``, the robot and TF in the browser at
  ``http://127.0.0.1:<web_port>/`` (:mod:`hrdf_ros.ros.web_view`; needs the view extra,
  ``pip install 'hrdf_ros[view]'``), in the node's namespace with its frame_prefix.
* ``gui:=true`` (default): joint_state_publisher_gui sliders; without that package, the
  web view's sliders when it runs (they publish joint_states as joint_state_publisher_gui
  does), else joint_state_publisher (all joints at 0); with ``gui:=false``,
  joint_state_publisher; without any, a message says so (publish
  sensor_msgs/JointState on joint_states yourself).

Nothing names a package that is not installed, so a missing one never aborts the launch
half-way (which would leave started nodes running).
"""
import importlib.util
import os

from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
from launch import LaunchDescription
from launch.actions import (DeclareLaunchArgument, IncludeLaunchDescription, LogInfo,
                            OpaqueFunction, Shutdown)
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue

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


def _view_extra():
    """True when the web view can run (viser and yourdfpy import)."""
    return all(importlib.util.find_spec(name) is not None for name in ('viser', 'yourdfpy'))


def _web(context):
    """Whether the web view runs: web:=true, or RViz2 asked for but not installed."""
    return _flag(context, 'web') or (_flag(context, 'rviz') and not _installed('rviz2'))


def _rviz(context):
    if not _flag(context, 'rviz'):
        return []
    if not _installed('rviz2'):
        if _view_extra():
            return [LogInfo(msg='rviz2 is not installed: the robot in the browser instead '
                                '(hrdf_ros_web_view; its URL follows)')]
        return [LogInfo(msg='rviz2 is not installed: not starting RViz2 (install '
                            "ros-<distro>-rviz2, or pip install 'hrdf_ros[view]' for the "
                            'browser view, or run with rviz:=false)')]
    return [Node(package='rviz2', executable='rviz2', name='rviz2', output='screen',
                 arguments=['-d', os.path.join(SHARE, 'config', 'view.rviz')],
                 on_exit=Shutdown(reason='RViz2 closed'))]


def _web_view(context):
    if not _web(context):
        return []
    if not _view_extra():
        return [LogInfo(msg="the web view needs the view extra: pip install 'hrdf_ros[view]'")]
    gui = _flag(context, 'gui') and not _installed('joint_state_publisher_gui')
    return [Node(package='hrdf_ros', executable='hrdf_ros_web_view', name='hrdf_ros_web_view',
                 namespace=LaunchConfiguration('namespace', default=''), output='screen',
                 parameters=[{'port': ParameterValue(LaunchConfiguration('web_port'),
                                                     value_type=int),
                              'frame_prefix': ParameterValue(
                                  LaunchConfiguration('frame_prefix', default=''),
                                  value_type=str),
                              'gui': gui}])]


def _joint_state_publisher(context):
    gui = _flag(context, 'gui')
    if gui and _installed('joint_state_publisher_gui'):
        return [Node(package='joint_state_publisher_gui',
                     executable='joint_state_publisher_gui',
                     name='joint_state_publisher_gui', output='screen')]
    if gui and _web(context) and _view_extra():
        return [LogInfo(msg='joint_state_publisher_gui is not installed: the web view\'s '
                            'sliders publish joint_states')]
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
                              description='joint_state_publisher_gui sliders, or the web '
                                          'view\'s (false: joint_state_publisher, all '
                                          'joints at 0)'),
        DeclareLaunchArgument('web', default_value='false', choices=['true', 'false'],
                              description='the robot in the browser (hrdf_ros_web_view; '
                                          'also when rviz:=true and rviz2 is missing)'),
        DeclareLaunchArgument('servo', default_value='false', choices=['true', 'false'],
                              description='run hrdf_ros_node\'s servo (hrdf.launch.py\'s '
                                          'servo argument)'),
        DeclareLaunchArgument('web_port', default_value='8080',
                              description='port of the web view (0: any free one; a '
                                          'taken one: the next free one)'),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(os.path.join(SHARE, 'launch', 'hrdf.launch.py')),
            launch_arguments={'hrdf_file': LaunchConfiguration('hrdf_file'),
                              'servo': LaunchConfiguration('servo')}.items()),
        OpaqueFunction(function=_rviz),
        OpaqueFunction(function=_web_view),
        OpaqueFunction(function=_joint_state_publisher),
    ])
