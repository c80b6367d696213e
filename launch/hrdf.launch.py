"""Launch hrdf_ros_node: HRDF -> robot_description and TF.

Usage:
    ros2 launch hrdf_ros hrdf.launch.py hrdf_file:=/path/to/robot.hrdf
Arguments:
    hrdf_file: HRDF file (default: the bundled 6-DoF X-series arm)
    params_file: parameter YAML (default: config/hrdf_ros.yaml)
    namespace: ROS namespace of the node (default: none); with frame_prefix, lets
        several robots run side by side
    frame_prefix: prefix for TF frame ids (default: none)
    publish_frequency: Hz for re-publishing moving TF; 0 = only on joint_states
"""
import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def generate_launch_description():
    share = get_package_share_directory('hrdf_ros')
    return LaunchDescription([
        DeclareLaunchArgument('hrdf_file',
                              default_value=os.path.join(share, 'config',
                                                         'x_series_arm_6dof.hrdf')),
        DeclareLaunchArgument('params_file',
                              default_value=os.path.join(share, 'config', 'hrdf_ros.yaml')),
        DeclareLaunchArgument('namespace', default_value=''),
        DeclareLaunchArgument('frame_prefix', default_value=''),
        DeclareLaunchArgument('publish_frequency', default_value='20.0'),
        Node(
            package='hrdf_ros',
            executable='hrdf_ros_node',
            name='hrdf_ros_node',
            namespace=LaunchConfiguration('namespace'),
            output='screen',
            parameters=[
                LaunchConfiguration('params_file'),
                {
                    'hrdf_file': LaunchConfiguration('hrdf_file'),
                    'frame_prefix': LaunchConfiguration('frame_prefix'),
                    'publish_frequency': LaunchConfiguration('publish_frequency'),
                },
            ],
        ),
    ])
