"""Package metadata agrees with the code; ``make env`` installs the package as colcon
does; the RViz configuration. (The launch files run under the real ``ros2 launch`` in
test_ros_cli_*.py.)"""
import ast
import importlib.util
import os
import re
import sys
import xml.etree.ElementTree as ET

import yaml

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
    assert set(scripts) == {'hrdf_ros_node', 'hrdf_ros_web_view', 'hrdf'}
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


def _data_files(monkeypatch):
    import setuptools

    captured = {}
    monkeypatch.setattr(setuptools, 'setup', lambda **kwargs: captured.update(kwargs))
    monkeypatch.chdir(REPO)
    spec = importlib.util.spec_from_file_location('hrdf_ros_setup',
                                                  os.path.join(REPO, 'setup.py'))
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    return dict(captured['data_files'])


def test_setup_installs_launch_and_config_files(monkeypatch):
    data = _data_files(monkeypatch)
    assert set(data['share/hrdf_ros/launch']) == {
        f'launch/{f}' for f in os.listdir(os.path.join(REPO, 'launch'))
        if f.endswith(('.launch.py', '.launch.xml'))}
    assert {'launch/view.launch.py', 'launch/hrdf.launch.py', 'launch/hrdf.launch.xml',
            'launch/exit_code.launch.py'} <= set(data['share/hrdf_ros/launch'])
    assert {'config/view.rviz', 'config/x_series_arm_6dof.hrdf', 'config/hrdf_ros.yaml'} \
        <= set(data['share/hrdf_ros/config'])
    for files in data.values():
        for path in files:
            assert os.path.isfile(os.path.join(REPO, path)), path


def test_make_env_lays_the_package_out_as_colcon_symlink_install(monkeypatch):
    """Every data file of setup.py is in the venv prefix as a link to the source file
    (edits show without reinstalling), and the executables are in lib/hrdf_ros."""
    prefix = sys.prefix
    for destination, files in _data_files(monkeypatch).items():
        for path in files:
            installed = os.path.join(prefix, destination, os.path.basename(path))
            if destination.startswith('share/ament_index'):
                assert os.path.isfile(installed), installed
            else:
                assert os.path.islink(installed), installed
                assert os.path.samefile(installed, os.path.join(REPO, path)), installed
    for executable in ('hrdf_ros_node', 'hrdf_ros_web_view', 'hrdf'):
        path = os.path.join(prefix, 'lib', 'hrdf_ros', executable)
        assert os.access(path, os.X_OK), path
        assert os.path.samefile(path, os.path.join(prefix, 'bin', executable))


def test_rviz_config_shows_robot_model_from_the_topic_and_tf():
    config = yaml.safe_load(open(os.path.join(REPO, 'config', 'view.rviz')))
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


def test_pyyaml_is_a_runtime_dependency():
    """hrdf_ros.export.moveit (``hrdf moveit``) writes YAML with PyYAML."""
    root = ET.parse(os.path.join(REPO, 'package.xml')).getroot()
    assert 'python3-yaml' in {e.text for e in root.findall('exec_depend')}
    assert 'PyYAML' in open(os.path.join(REPO, 'setup.py')).read()


#: the doc pages that show the ros2 commands the real-CLI tests run
DOC_COMMAND_PAGES = ('doc/tutorials/ros.md', 'doc/howto/several_robots.md',
                     'doc/tutorials/move_end_effector.md', 'doc/tutorials/jog.md')


def _shell_blocks(path):
    """The lines of every ```bash block of a Markdown page."""
    text = open(os.path.join(REPO, path), encoding='utf-8').read()
    return [line for block in re.findall(r'^```bash\n(.*?)^```', text, re.M | re.S)
            for line in block.splitlines()]


def test_docs_show_the_commands_the_cli_tests_run():
    """Every command line of test_ros_cli_*.py is shown, as the tests type it, in a bash
    block of the ROS tutorial, the how-to for several robots or the tutorials Move the end
    effector and Jog the arm."""
    from cli_helpers import DOC_COMMANDS
    lines = [line for page in DOC_COMMAND_PAGES for line in _shell_blocks(page)]
    missing = [command for command in DOC_COMMANDS
               if not any(line == command or line.startswith(command + ' ')
                          for line in lines)]
    assert not missing, '\n'.join(missing)


def test_readme_links_point_at_files_that_exist():
    """The README links into doc/ by relative paths (they work on GitHub): each names a
    file of the repository, and the README links every tutorial, how-to and explanation
    page."""
    readme = open(os.path.join(REPO, 'README.md'), encoding='utf-8').read()
    targets = {link.split('#')[0] for link in re.findall(r'\]\(([^):]+)\)', readme)}
    assert targets, 'no relative links'
    for target in targets:
        assert os.path.exists(os.path.join(REPO, target)), target
    for folder in ('tutorials', 'howto', 'explanation'):
        pages = {f'doc/{folder}/{name}' for name in os.listdir(os.path.join(REPO, 'doc', folder))
                 if name.endswith('.md') and name != 'index.md'}
        assert pages <= targets, sorted(pages - targets)


def test_readme_is_short_and_keeps_its_two_commands():
    """About three screens, with `make demo` and `make test` (what .ci/run runs)."""
    readme = open(os.path.join(REPO, 'README.md'), encoding='utf-8').read()
    assert len(readme.splitlines()) <= 170
    blocks = re.findall(r'^```bash\n(.*?)^```', readme, re.M | re.S)
    assert 'make demo\n' in blocks and 'make test\n' in blocks


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


#: Every package from outside the standard library that `hrdf` (but `hrdf view`) and the
#: layers under it import, by import name: (its PyPI name in setup.py's install_requires,
#: its rosdep key in package.xml, or None where rosdep has none).
CORE_IMPORTS = {'numpy': ('numpy', 'python3-numpy'),
                'defusedxml': ('defusedxml', 'python3-defusedxml'),
                'yaml': ('PyYAML', 'python3-yaml'), 'jinja2': ('Jinja2', 'python3-jinja2'),
                'platformdirs': ('platformdirs', 'python3-platformdirs'),
                'tqdm': ('tqdm', 'python3-tqdm'),
                # no rosdep key, no Debian package (package.xml says so)
                'fcl': ('python-fcl', None)}
#: The extras hrdf_ros[fast] (compiled kernels, imported only when chosen) and
#: hrdf_ros[plot] (`hrdf plan --plot`, imported only then), by import name: extra's name.
EXTRA_IMPORTS = {'numba': 'fast', 'llvmlite': 'fast', 'matplotlib': 'plot',
                 'optuna': 'design', 'distributed': 'design'}
CORE_FOLDERS = ('model.py', 'cache_dir.py', 'hrdf', 'kinematics', 'parts', 'description',
                'export', 'cli')


def _outside_imports(folders):
    found = set()
    package = os.path.join(REPO, 'hrdf_ros')
    for folder, _, files in os.walk(package):
        for name in files:
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, package)
            if (not name.endswith('.py') or relative.split(os.sep)[0] not in folders
                    or relative == os.path.join('cli', 'view.py')):
                continue
            for node in ast.walk(ast.parse(open(path, encoding='utf-8').read())):
                if isinstance(node, ast.Import):
                    found.update(alias.name.split('.')[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and not node.level:
                    found.add(node.module.split('.')[0])
    return {n for n in found if n not in sys.stdlib_module_names
            and n not in ('hrdf_ros', '__future__')}


def test_every_core_import_is_declared_once_for_pip_and_rosdep():
    """What `hrdf urdf|sdf|mjcf|moveit` import is in install_requires (so a plain
    `pip install .` runs them with default options) and, where rosdep has a key, an
    exec_depend of package.xml; package.xml names no dependency twice."""
    assert _outside_imports(CORE_FOLDERS) - set(EXTRA_IMPORTS) == set(CORE_IMPORTS)
    tree = ast.parse(open(os.path.join(REPO, 'setup.py')).read())
    [requires] = [ast.literal_eval(n.value) for n in ast.walk(tree)
                  if isinstance(n, ast.keyword) and n.arg == 'install_requires']
    [extras] = [ast.literal_eval(n.value) for n in ast.walk(tree)
                if isinstance(n, ast.keyword) and n.arg == 'extras_require']
    for module, extra in EXTRA_IMPORTS.items():
        assert module == 'llvmlite' or any(r.lower().startswith(module)
                                           for r in extras[extra]), (module, extra)
    root = ET.parse(os.path.join(REPO, 'package.xml')).getroot()
    depends = [e.text for e in root if isinstance(e.tag, str) and e.tag.endswith('depend')]
    assert len(depends) == len(set(depends)), sorted(d for d in depends
                                                     if depends.count(d) > 1)
    for pip_name, key in CORE_IMPORTS.values():
        assert pip_name in requires, pip_name
        assert key is None or key in depends, key
