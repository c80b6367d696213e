"""view.launch.py, config/view.rviz and their installation, checked without launch_ros
(not installable from PyPI): the launch file is read with ast, and run against stand-in
launch modules to see which nodes it starts when joint_state_publisher(_gui) is or is not
installed."""
import ast
import importlib.util
import os
import sys
import types

import yaml

from conftest import REPO

LAUNCH = os.path.join(REPO, 'launch', 'view.launch.py')
RVIZ = os.path.join(REPO, 'config', 'view.rviz')


def calls(tree, name):
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name) and n.func.id == name]


def keywords(call):
    return {k.arg: k.value for k in call.keywords}


def test_launch_file_declares_its_nodes_and_arguments():
    tree = ast.parse(open(LAUNCH).read())
    nodes = {(keywords(c)['package'].value, keywords(c)['executable'].value)
             for c in calls(tree, 'Node')}
    assert nodes == {('hrdf_ros', 'hrdf_ros_node'), ('rviz2', 'rviz2'),
                     ('joint_state_publisher_gui', 'joint_state_publisher_gui'),
                     ('joint_state_publisher', 'joint_state_publisher')}
    declared = {c.args[0].value: keywords(c).get('default_value')
                for c in calls(tree, 'DeclareLaunchArgument')}
    assert set(declared) == {'hrdf_file', 'rviz', 'gui'}
    assert declared['rviz'].value == declared['gui'].value == 'true'
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    assert {'x_series_arm_6dof.hrdf', 'view.rviz', 'hrdf_file', '-d'} <= strings
    assert calls(tree, 'LogInfo')
    # package availability is probed with get_package_share_directory inside a try
    [probe] = [t for t in ast.walk(tree) if isinstance(t, ast.Try)]
    assert calls(ast.Module(body=probe.body, type_ignores=[]), 'get_package_share_directory')
    assert [h.type.id for h in probe.handlers] == ['PackageNotFoundError']


class _Recorded:
    """Stand-in for a launch action/substitution: remembers its arguments."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


def _stub_modules(monkeypatch, installed):
    class PackageNotFoundError(KeyError):
        pass

    def get_package_share_directory(package):
        if package not in installed:
            raise PackageNotFoundError(package)
        return f'/opt/share/{package}'

    modules = {
        'ament_index_python': {},
        'ament_index_python.packages': {
            'PackageNotFoundError': PackageNotFoundError,
            'get_package_share_directory': get_package_share_directory},
        'launch': {'LaunchDescription': _Recorded},
        'launch.actions': {'DeclareLaunchArgument': type('DeclareLaunchArgument',
                                                         (_Recorded,), {}),
                           'LogInfo': type('LogInfo', (_Recorded,), {})},
        'launch.conditions': {'IfCondition': type('IfCondition', (_Recorded,), {}),
                              'UnlessCondition': type('UnlessCondition', (_Recorded,), {})},
        'launch.substitutions': {'LaunchConfiguration': type('LaunchConfiguration',
                                                             (_Recorded,), {})},
        'launch_ros': {},
        'launch_ros.actions': {'Node': type('Node', (_Recorded,), {})},
    }
    for name, attributes in modules.items():
        module = types.ModuleType(name)
        module.__dict__.update(attributes)
        monkeypatch.setitem(sys.modules, name, module)


def _launch(monkeypatch, installed):
    """(Node package -> condition, LogInfo messages, arguments) of the description."""
    _stub_modules(monkeypatch, installed)
    spec = importlib.util.spec_from_file_location('hrdf_ros_view_launch', LAUNCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    [entities] = module.generate_launch_description().args
    kinds = {}
    for entity in entities:
        kinds.setdefault(type(entity).__name__, []).append(entity)

    def condition(entity):
        c = entity.kwargs.get('condition')
        return None if c is None else (type(c).__name__, c.args[0].args[0])

    nodes = {n.kwargs['package']: condition(n) for n in kinds['Node']}
    logs = [(condition(e), e.kwargs['msg']) for e in kinds.get('LogInfo', [])]
    arguments = {a.args[0]: a.kwargs['default_value'] for a in kinds['DeclareLaunchArgument']}
    return nodes, logs, arguments, {n.kwargs['package']: n for n in kinds['Node']}


def test_launch_with_both_joint_state_publishers(monkeypatch):
    nodes, logs, arguments, node = _launch(monkeypatch, {
        'hrdf_ros', 'joint_state_publisher_gui', 'joint_state_publisher'})
    assert nodes == {'hrdf_ros': None, 'rviz2': ('IfCondition', 'rviz'),
                     'joint_state_publisher_gui': ('IfCondition', 'gui'),
                     'joint_state_publisher': ('UnlessCondition', 'gui')}
    assert logs == []
    assert arguments == {'hrdf_file': '/opt/share/hrdf_ros/config/x_series_arm_6dof.hrdf',
                         'rviz': 'true', 'gui': 'true'}
    assert node['hrdf_ros'].kwargs['executable'] == 'hrdf_ros_node'
    [parameters] = node['hrdf_ros'].kwargs['parameters']
    assert parameters['hrdf_file'].args == ('hrdf_file',)
    assert node['rviz2'].kwargs['arguments'] == ['-d', '/opt/share/hrdf_ros/config/view.rviz']


def test_launch_without_the_gui_package_falls_back(monkeypatch):
    nodes, logs, _, _ = _launch(monkeypatch, {'hrdf_ros', 'joint_state_publisher'})
    assert nodes == {'hrdf_ros': None, 'rviz2': ('IfCondition', 'rviz'),
                     'joint_state_publisher': None}
    [(condition, message)] = logs
    assert condition == ('IfCondition', 'gui') and 'not installed' in message


def test_launch_without_joint_state_publishers_says_so(monkeypatch):
    nodes, logs, _, _ = _launch(monkeypatch, {'hrdf_ros'})
    assert nodes == {'hrdf_ros': None, 'rviz2': ('IfCondition', 'rviz')}
    [(condition, message)] = logs
    assert condition is None and 'Neither' in message


def test_rviz_config_shows_robot_model_from_the_topic_and_tf():
    config = yaml.safe_load(open(RVIZ))
    manager = config['Visualization Manager']
    assert manager['Global Options']['Fixed Frame'] == 'base_link'
    displays = {d['Class']: d for d in manager['Displays']}
    assert set(displays) == {'rviz_default_plugins/Grid', 'rviz_default_plugins/RobotModel',
                             'rviz_default_plugins/TF'}
    model = displays['rviz_default_plugins/RobotModel']
    assert model['Description Source'] == 'Topic'
    assert model['Description Topic']['Value'] == '/robot_description'
    assert model['Description Topic']['Durability Policy'] == 'Transient Local'
    assert all(d['Enabled'] for d in displays.values())


def test_setup_installs_launch_files_and_rviz_configs(monkeypatch):
    import setuptools

    captured = {}
    monkeypatch.setattr(setuptools, 'setup', lambda **kwargs: captured.update(kwargs))
    monkeypatch.chdir(REPO)
    spec = importlib.util.spec_from_file_location('hrdf_ros_setup',
                                                  os.path.join(REPO, 'setup.py'))
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    data = dict(captured['data_files'])
    assert set(data['share/hrdf_ros/launch']) == {
        f'launch/{f}' for f in os.listdir(os.path.join(REPO, 'launch')) if f.endswith('.py')}
    assert {'launch/view.launch.py', 'launch/hrdf.launch.py'} <= set(
        data['share/hrdf_ros/launch'])
    assert {'config/view.rviz', 'config/x_series_arm_6dof.hrdf', 'config/hrdf_ros.yaml'} \
        <= set(data['share/hrdf_ros/config'])
    for files in data.values():
        for path in files:
            assert os.path.isfile(os.path.join(REPO, path)), path


def test_pyyaml_is_a_runtime_dependency():
    """hrdf_ros.export.moveit (``hrdf moveit``) writes YAML with PyYAML."""
    import xml.etree.ElementTree as ET

    root = ET.parse(os.path.join(REPO, 'package.xml')).getroot()
    assert 'python3-yaml' in {e.text for e in root.findall('exec_depend')}
    assert 'PyYAML' in open(os.path.join(REPO, 'setup.py')).read()
