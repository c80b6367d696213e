"""Show an HRDF robot in RViz2: hrdf_ros_node, RViz2 and a joint state publisher.

Usage:
    ros2 launch hrdf_ros view.launch.py hrdf_file:=/path/to/robot.hrdf
Arguments:
    hrdf_file: HRDF file (default: the bundled 6-DoF X-series arm)
    rviz: start RViz2 with config/view.rviz (default: true)
    gui: move the joints with joint_state_publisher_gui sliders (default: true); with
        gui:=false, or when that package is not installed, joint_state_publisher
        publishes zeros instead; when neither is installed, nothing publishes
        joint_states (a message says so) and the robot shows once they arrive
"""
import os

from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, LogInfo
from launch.conditions import IfCondition, UnlessCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def _installed(package):
    """True when the ROS package is on the ament index."""
    try:
        get_package_share_directory(package)
    except PackageNotFoundError:
        return False
    return True


def _joint_state_publishers(gui):
    have_gui = _installed('joint_state_publisher_gui')
    have_plain = _installed('joint_state_publisher')
    actions = []
    if have_gui:
        actions.append(Node(package='joint_state_publisher_gui',
                            executable='joint_state_publisher_gui',
                            name='joint_state_publisher_gui', condition=IfCondition(gui)))
    elif have_plain:
        actions.append(LogInfo(condition=IfCondition(gui), msg=(
            'joint_state_publisher_gui is not installed; using joint_state_publisher '
            '(all joints at 0)')))
    if have_plain:
        actions.append(Node(package='joint_state_publisher',
                            executable='joint_state_publisher', name='joint_state_publisher',
                            condition=UnlessCondition(gui) if have_gui else None))
    if not have_gui and not have_plain:
        actions.append(LogInfo(msg=(
            'Neither joint_state_publisher_gui nor joint_state_publisher is installed: '
            'publish sensor_msgs/JointState on joint_states to see the robot move')))
    return actions


def generate_launch_description():
    share = get_package_share_directory('hrdf_ros')
    gui = LaunchConfiguration('gui')
    return LaunchDescription([
        DeclareLaunchArgument('hrdf_file',
                              default_value=os.path.join(share, 'config',
                                                         'x_series_arm_6dof.hrdf'),
                              description='HRDF file to show'),
        DeclareLaunchArgument('rviz', default_value='true', description='start RViz2'),
        DeclareLaunchArgument('gui', default_value='true',
                              description='joint_state_publisher_gui sliders'),
        Node(
            package='hrdf_ros',
            executable='hrdf_ros_node',
            name='hrdf_ros_node',
            output='screen',
            parameters=[{'hrdf_file': LaunchConfiguration('hrdf_file')}],
        ),
        Node(
            package='rviz2',
            executable='rviz2',
            name='rviz2',
            arguments=['-d', os.path.join(share, 'config', 'view.rviz')],
            condition=IfCondition(LaunchConfiguration('rviz')),
        ),
        *_joint_state_publishers(gui),
    ])
