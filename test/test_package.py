"""Package metadata and the launch file agree with the code (checked without launch_ros,
which is not installable from PyPI; the launch file itself runs on a ROS 2 install)."""
import ast
import os
import xml.etree.ElementTree as ET

from conftest import REPO


def _setup_entry_points():
    tree = ast.parse(open(os.path.join(REPO, 'setup.py')).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == 'console_scripts':
                    return [e.value for e in value.elts]
    raise AssertionError('no console_scripts in setup.py')


def test_console_scripts_point_at_real_functions():
    import importlib
    scripts = dict(e.replace(' ', '').split('=') for e in _setup_entry_points())
    assert set(scripts) == {'hrdf_ros_node', 'hrdf'}
    for target in scripts.values():
        module, function = target.split(':')
        assert callable(getattr(importlib.import_module(module), function))


def test_package_xml_declares_the_runtime_dependencies():
    root = ET.parse(os.path.join(REPO, 'package.xml')).getroot()
    assert root.get('format') == '3' and root.findtext('name') == 'hrdf_ros'
    deps = {e.text for e in root if e.tag.endswith('depend')}
    for needed in ('rclpy', 'std_msgs', 'sensor_msgs', 'geometry_msgs', 'tf2_msgs',
                   'launch_ros', 'xacro', 'urdf_parser_py', 'python3-numpy', 'python3-pytest'):
        assert needed in deps, needed
    assert root.find('export/build_type').text == 'ament_python'


def test_launch_file_starts_the_node_with_its_parameters():
    path = os.path.join(REPO, 'launch', 'hrdf.launch.py')
    tree = ast.parse(open(path).read())
    calls = {n.func.id: n for n in ast.walk(tree)
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    node = calls['Node']
    kwargs = {k.arg: k.value for k in node.keywords}
    assert kwargs['package'].value == 'hrdf_ros'
    assert kwargs['executable'].value == 'hrdf_ros_node'
    arguments = {c.args[0].value for c in ast.walk(tree) if isinstance(c, ast.Call)
                 and getattr(c.func, 'id', '') == 'DeclareLaunchArgument'}
    assert {'hrdf_file', 'frame_prefix', 'publish_frequency', 'params_file'} <= arguments
    for name in ('x_series_arm_6dof.hrdf', 'hrdf_ros.yaml'):
        assert os.path.exists(os.path.join(REPO, 'config', name))
        assert name in open(os.path.join(REPO, 'setup.py')).read()


def test_moveit_templates_ship_as_package_data():
    """Every Jinja2 template matches setup.py's package_data (and MANIFEST.in), and
    Jinja2 is a declared runtime dependency."""
    import fnmatch
    setup = open(os.path.join(REPO, 'setup.py')).read()
    tree = ast.parse(setup)
    [data] = [n.value for n in ast.walk(tree) if isinstance(n, ast.keyword)
              and n.arg == 'package_data']
    patterns = ast.literal_eval(data)['hrdf_ros.export.moveit']
    folder = os.path.join(REPO, 'hrdf_ros', 'export', 'moveit')
    templates = [os.path.relpath(os.path.join(d, f), folder)
                 for d, _, files in os.walk(os.path.join(folder, 'templates')) for f in files]
    assert templates and all(any(fnmatch.fnmatch(t, p) for p in patterns) for t in templates)
    assert 'templates *.jinja' in open(os.path.join(REPO, 'MANIFEST.in')).read()
    assert "'Jinja2'" in setup
    deps = {e.text for e in ET.parse(os.path.join(REPO, 'package.xml')).getroot()}
    assert 'python3-jinja2' in deps
