"""Evaluate a generated package's launch/bringup.launch.py with launch's own machinery,
without starting anything: run as ``python bringup_probe.py`` with a JSON request
``{"package", "use_mock_hardware", "prefix"}`` on stdin and AMENT_PREFIX_PATH covering
the installed package (and hebi_description). Prints one JSON object: what the launch
file's ``moveit_configuration`` gives (robot_description, SRDF, the controllers file it
hands ros2_control_node, MoveIt's controllers and joint limits) and, from its
``launch_setup`` in a LaunchContext holding the arguments, every node it would start
(package, executable), GroupActions opened.
"""
import importlib.util
import json
import os
import sys

import yaml
from ament_index_python.packages import get_package_share_directory
from launch import LaunchContext
from launch.actions import GroupAction
from launch_ros.actions import Node


def nodes(entities):
    for entity in entities:
        if isinstance(entity, GroupAction):
            yield from nodes(entity.get_sub_entities())
        elif isinstance(entity, Node):
            yield [entity.node_package, entity.node_executable]


def main():
    request = json.load(sys.stdin)
    path = os.path.join(get_package_share_directory(request['package']), 'launch',
                        'bringup.launch.py')
    spec = importlib.util.spec_from_file_location('bringup', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    config, controllers = module.moveit_configuration(request['use_mock_hardware'],
                                                      request['prefix'])
    with open(controllers, encoding='utf-8') as handle:
        controller_parameters = yaml.safe_load(handle)
    context = LaunchContext()
    for name, value in (('use_mock_hardware', request['use_mock_hardware']),
                        ('prefix', request['prefix']), ('use_rviz', 'true')):
        context.launch_configurations[name] = value
    described = module.generate_launch_description()
    json.dump({
        'arguments': [a.name for a in described.get_launch_arguments()],
        'robot_description': config.robot_description['robot_description'],
        'srdf': config.robot_description_semantic['robot_description_semantic'],
        'controllers_file': controllers,
        'controllers': controller_parameters,
        'moveit_controllers': config.trajectory_execution['moveit_simple_controller_manager'],
        'joint_limits': sorted(config.joint_limits['robot_description_planning']
                               ['joint_limits']),
        'nodes': list(nodes(module.launch_setup(context))),
    }, sys.stdout)


if __name__ == '__main__':
    main()
