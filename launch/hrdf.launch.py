"""Launch hrdf_ros_node: an HRDF file -> robot_description and TF from joint_states.

Usage (``--show-args`` lists the arguments with their descriptions and defaults)::

    ros2 launch hrdf_ros hrdf.launch.py hrdf_file:=/path/to/robot.hrdf
    ros2 launch hrdf_ros hrdf.launch.py namespace:=left frame_prefix:=left/
    ros2 launch hrdf_ros hrdf.launch.py servo:=true

Launch arguments override the same parameters in ``params_file`` (the other parameters,
e.g. ``joint_prefix``, ``republish_frequency``, go there). Every value is typed here, so
``publish_frequency:=10`` and ``:=10.0`` are the same double, and ``robot_name:=123``
stays a string. When the node exits, the launch ends; when it fails (exit code > 0,
e.g. an invalid HRDF file), ``ros2 launch`` exits 1 (``exit_code.launch.py``).
``hrdf.launch.xml`` is the same launch in XML.
"""
import os
from typing import List

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription, Shutdown
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue

SHARE = get_package_share_directory('hrdf_ros')

#: name -> (default, description, value type, choices)
ARGUMENTS = {
    'hrdf_file': (os.path.join(SHARE, 'config', 'x_series_arm_6dof.hrdf'),
                  'HRDF file to load (default: the bundled 6-DoF X-series arm)', str, None),
    'params_file': (os.path.join(SHARE, 'config', 'hrdf_ros.yaml'),
                    'parameter YAML for hrdf_ros_node; launch arguments override it', None,
                    None),
    'robot_name': ('', 'URDF robot name; empty: the HRDF file name without extension',
                   str, None),
    'namespace': ('', 'ROS namespace of the node, e.g. left (topics become '
                      '/left/joint_states, /left/robot_description)', None, None),
    'frame_prefix': ('', 'prefix of every TF frame id, e.g. left/ (the URDF is unchanged)',
                     str, None),
    'publish_frequency': ('20.0', 'as robot_state_publisher: maximum /tf rate in Hz, in '
                                  'joint_states stamp time (0..1000; 0: every message)',
                          float, None),
    'ignore_timestamp': ('false', 'as robot_state_publisher: publish every joint_states '
                                  'message, whatever its stamp', bool, ['true', 'false']),
    'missing_joints': ('last', 'position of a joint absent from a joint_states message: '
                               'its last value or zero', str, ['last', 'zero']),
    'allowed_directories': ("['']", 'folders ~/load_hrdf, ~/validate_hrdf and a run-time '
                                    'hrdf_file may read from, e.g. "[/robots, /data]"; '
                                    "['']: hrdf_file's folder and package", List[str], None),
    'allow_load': ('true', 'false: refuse every load (~/load_hrdf, setting hrdf_file); '
                           '~/validate_hrdf still answers', bool, ['true', 'false']),
    'servo': ('false', 'run the servo: twists, joint jogs and pose targets on '
                       '~/delta_twist_cmds, ~/delta_joint_cmds, ~/pose_target_cmds to the '
                       'arm controller (the servo.* parameters, e.g. in params_file)', bool,
              ['true', 'false']),
}
#: The parameter a launch argument sets, where its name is not the parameter's.
PARAMETER_NAMES = {'servo': 'servo.enabled'}


def generate_launch_description():
    declared = [DeclareLaunchArgument(name, default_value=default, description=text,
                                      **({'choices': choices} if choices else {}))
                for name, (default, text, _, choices) in ARGUMENTS.items()]
    overrides = {PARAMETER_NAMES.get(name, name): ParameterValue(LaunchConfiguration(name),
                                                                 value_type=value_type)
                 for name, (_, _, value_type, _) in ARGUMENTS.items() if value_type}
    node = Node(
        package='hrdf_ros',
        executable='hrdf_ros_node',
        name='hrdf_ros_node',
        namespace=LaunchConfiguration('namespace'),
        output='screen',
        parameters=[LaunchConfiguration('params_file'), overrides],
        on_exit=Shutdown(reason='hrdf_ros_node exited'),
    )
    exit_code = IncludeLaunchDescription(PythonLaunchDescriptionSource(
        os.path.join(SHARE, 'launch', 'exit_code.launch.py')))
    return LaunchDescription(declared + [exit_code, node])
