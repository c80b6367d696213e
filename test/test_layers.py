"""The package layout is the pipeline, and imports follow it.

Layers, lowest first: ``model`` (plain data, with ``cache_dir``, ``reproducible``,
``numbers`` and ``stop_signals``; they import nothing of the package), ``hrdf`` (reads
HRDF into a model),
``kinematics``, ``parts`` (HEBI's part catalogue as drawn), ``description`` (the robot
every output sees), ``motion`` (collision checks, planning, trajectories), ``servo``
(live steering over motion's checks), ``export`` (the writers), ``view``, ``ros``, then the top modules (``cli``, ``demo``,
``__init__``). A module may import from its own layer and the layers below it, never
from a layer above; only ``motion`` imports the motion extra; nothing below ``ros`` imports rclpy or ROS messages
(``demo`` at the top is a ROS program; ``cli`` must import without ROS, checked apart).
Also the size rule of the layout: no module over ~400 lines, no class over ~250.
"""
import ast
import os
import subprocess
import sys

import pytest

import hrdf_ros
from conftest import BUNDLED_ARM as BUNDLED, REPO

PACKAGE = os.path.join(REPO, 'hrdf_ros')
LAYERS = ['model', 'hrdf', 'kinematics', 'parts', 'description', 'motion', 'servo', 'reach',
          'export', 'design', 'view', 'ros', 'top']
#: Top-level modules/packages that need ROS 2 (rclpy or generated interfaces).
ROS_MODULES = {'rclpy', 'rcl_interfaces', 'sensor_msgs', 'std_msgs', 'geometry_msgs',
               'tf2_msgs', 'builtin_interfaces', 'hrdf_ros_interfaces', 'launch',
               'launch_ros', 'ament_index_python', 'trajectory_msgs', 'shape_msgs'}
#: The view extra (viser, yourdfpy, trimesh and what they pull in): only view/ imports
#: them; ros/web_view.py, ros/web_jog.py and cli/view.py import view/ when they run,
#: inside a function.
VIEW_MODULES = {'viser', 'yourdfpy', 'trimesh', 'rich', 'msgspec', 'websockets'}
#: The motion extra (Pinocchio and its FCL, OMPL, TOPP-RA and the SciPy it uses): only
#: motion/ imports them, inside functions (motion/requirements.py).
MOTION_MODULES = {'pinocchio', 'hppfcl', 'coal', 'ompl', 'toppra', 'scipy'}
#: Lazy importers of view/ (inside a function, never at module level).
VIEW_USERS = {os.path.join('cli', 'view.py'), os.path.join('ros', 'web_view.py'),
              os.path.join('ros', 'web_jog.py')}
MAX_MODULE_LINES = 400
MAX_CLASS_LINES = 250

PUBLIC_API = {'Diagnostic', 'Element', 'FRAME_TYPES', 'HrdfError', 'Kinematics', 'design_arm',
              'MassProperties', 'MotionPlanner', 'ReachMap', 'RobotModel', 'ValidationReport',
              'load', 'loads', 'reach_map', 'to_hrdf', 'to_mjcf', 'to_urdf', 'to_xacro',
              'validate_file', 'validate_text'}


def _modules():
    for folder, _, files in os.walk(PACKAGE):
        for name in sorted(files):
            if name.endswith('.py'):
                path = os.path.join(folder, name)
                yield os.path.relpath(path, PACKAGE), path


def _layer(relative: str) -> str:
    first = relative.split(os.sep)[0]
    if first in ('model.py', 'cache_dir.py', 'reproducible.py', 'numbers.py',
                 'stop_signals.py'):
        return 'model'
    if first in ('hrdf', 'kinematics', 'parts', 'description', 'motion', 'servo', 'reach',
                 'export', 'design', 'view', 'ros'):
        return first
    return 'top'


def _package_of(relative: str):
    parts = relative[:-3].split(os.sep)
    return ['hrdf_ros'] + (parts[:-1] if parts[-1] != '__init__' else parts[:-1])


def _imports(relative: str, path: str):
    """(absolute module name, line) of every import in the module, relative ones
    resolved against its package."""
    tree = ast.parse(open(path, encoding='utf-8').read())
    package = _package_of(relative)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = '.'.join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            if node.module is None or module.count('.') == 0:
                for alias in node.names:  # from . import catalogue
                    yield f'{module}.{alias.name}', node.lineno
            else:
                yield module, node.lineno


def _target_layer(module: str):
    parts = module.split('.')
    if parts[0] != 'hrdf_ros':
        return None
    if len(parts) == 1:
        return 'top'
    return _layer(parts[1] + '.py' if parts[1] in ('model', 'cache_dir', 'reproducible',
                                                   'numbers', 'stop_signals')
                  else parts[1])


MODULES = list(_modules())


def test_layers_are_known():
    assert {_layer(r) for r, _ in MODULES} == set(LAYERS)


def _violations(relative: str, path: str):
    own = LAYERS.index(_layer(relative))
    found = []
    for module, line in _imports(relative, path):
        target = _target_layer(module)
        top = module.split('.')[0]
        if target is not None and LAYERS.index(target) > own:
            found.append(f'{relative}:{line} imports {module} ({target}) from a layer above')
        # view/ may find package:// meshes through the ament index (a file lookup)
        ros_ok = _layer(relative) == 'view' and top == 'ament_index_python'
        if top in ROS_MODULES and own < LAYERS.index('ros') and not ros_ok:
            found.append(f'{relative}:{line} imports {module} below ros/')
        if top in MOTION_MODULES and _layer(relative) != 'motion':
            found.append(f'{relative}:{line} imports {module} (the motion extra) outside '
                         'motion/')
        if top in VIEW_MODULES and _layer(relative) != 'view':
            found.append(f'{relative}:{line} imports {module} (the view extra) outside view/')
        if target == 'view' and _layer(relative) != 'view' and relative not in VIEW_USERS:
            found.append(f'{relative}:{line} imports {module}: only {sorted(VIEW_USERS)} '
                         'may use view/')
    return found


def _module_level_imports(path: str):
    """Modules imported at module level (not inside a function)."""
    tree = ast.parse(open(path, encoding='utf-8').read())
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            yield ('.' * node.level) + (node.module or '')
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name


@pytest.mark.parametrize('relative,path', MODULES, ids=[r for r, _ in MODULES])
def test_imports_point_down_the_pipeline(relative, path):
    assert _violations(relative, path) == []


#: The writers of export/ (a module's writer: its first path part below export/, the
#: stem for a module file; mjcf_bodies is the MJCF writer's), and the writer tools
#: every writer may use.
WRITER_OF = {'mjcf_bodies': 'mjcf'}
WRITER_TOOLS = {'xml_text', 'urdf_structure'}
#: The one exception: the MoveIt package embeds the URDF and the ros2_control macro.
WRITER_USES = {'moveit': {'urdf', 'ros2_control'}}
MAX_EXPORT_LINES = 3600


def _writer(parts):
    """The writer (or tool) of an export/ module given as path parts below export/."""
    name = parts[0][:-3] if parts[0].endswith('.py') else parts[0]
    return WRITER_OF.get(name, name)


def _writer_violations(relative: str, path: str):
    parts = relative.split(os.sep)
    if parts[0] != 'export' or len(parts) < 2 or parts[1] == '__init__.py':
        return []
    own = _writer(parts[1:])
    found = []
    for module, line in _imports(relative, path):
        names = module.split('.')
        if names[:2] == ['hrdf_ros', 'parts']:
            found.append(f'{relative}:{line} imports {module}: writers get parts through '
                         'description/')
        if names[:2] != ['hrdf_ros', 'export'] or len(names) < 3:
            continue
        other = _writer([names[2]])
        if other not in (own, *WRITER_TOOLS, *WRITER_USES.get(own, ())):
            found.append(f'{relative}:{line} imports {module}: writer {own} uses writer '
                         f'{other}')
    return found


@pytest.mark.parametrize('relative,path', MODULES, ids=[r for r, _ in MODULES])
def test_writers_use_the_description_not_parts_or_each_other(relative, path):
    assert _writer_violations(relative, path) == []


def test_the_writer_checker_catches_parts_and_writer_imports(tmp_path):
    bad = tmp_path / 'bad.py'
    bad.write_text('"""A writer reaching around."""\nfrom ..parts.hebi_parts import COLOURS\n'
                   'from .urdf import to_urdf\nfrom .xml_text import num\n'
                   'from ..description.robot import describe\n')
    found = _writer_violations(os.path.join('export', 'sdf.py'), str(bad))
    assert len(found) == 2 and 'parts' in found[0] and 'writer sdf uses writer urdf' in found[1]
    bad.write_text('"""A MoveIt module reaching around."""\n'
                   'from ...parts.hebi_parts import COLOURS\nfrom ..urdf import to_urdf\n'
                   'from ..ros2_control import ros2_control_xacro\nfrom ..sdf import to_sdf\n')
    found = _writer_violations(os.path.join('export', 'moveit', 'bad.py'), str(bad))
    assert len(found) == 2 and 'parts' in found[0]
    assert 'writer moveit uses writer sdf' in found[1]


def test_export_holds_the_writers_alone():
    """export/ is the writers and their tools: at most MAX_EXPORT_LINES lines."""
    lines = sum(len(open(path, encoding='utf-8').read().splitlines())
                for relative, path in MODULES if relative.split(os.sep)[0] == 'export')
    assert 0 < lines <= MAX_EXPORT_LINES, lines


def test_the_checker_catches_upward_and_ros_imports(tmp_path):
    bad = tmp_path / 'bad.py'
    bad.write_text('"""A module in the wrong place."""\nfrom ..export.urdf import to_urdf\n'
                   'from . import catalogue\nimport rclpy\n')
    found = _violations(os.path.join('hrdf', 'bad.py'), str(bad))
    assert len(found) == 2
    assert 'hrdf_ros.export.urdf (export)' in found[0] and 'rclpy' in found[1]
    assert _violations(os.path.join('ros', 'bad.py'), str(bad)) == []


def test_the_checker_keeps_the_view_extra_in_view(tmp_path):
    bad = tmp_path / 'bad.py'
    bad.write_text('"""A module in the wrong place."""\nimport trimesh\n'
                   'from ..view.server import start_server\n'
                   'from ament_index_python.packages import get_package_share_directory\n')
    found = _violations(os.path.join('export', 'bad.py'), str(bad))
    assert len(found) == 4 and 'the view extra' in found[0]
    found = _violations(os.path.join('ros', 'bad.py'), str(bad))
    assert len(found) == 2 and 'only' in found[1]
    assert _violations(os.path.join('view', 'bad.py'), str(bad)) == []


def test_only_the_compiled_kernels_import_numba_and_only_when_chosen():
    """numba (the extra hrdf_ros[fast]) is imported by kinematics/compiled.py,
    compiled_ik.py, motion/compiled_sieve.py, compiled_seeds.py, compiled_clearance.py and
    compiled_certified.py alone, and those modules by nothing but each other at module
    level (kinematics/backend.py, ik.py, motion/sieve.py, collision_free_ik.py,
    clearance.py and certified.py load them when the numba path is used); the CLI and
    the node import neither."""
    kernels = {os.path.join('kinematics', f'{name}.py'): name
               for name in ('compiled', 'compiled_ik')}
    for name in ('compiled_sieve', 'compiled_seeds', 'compiled_clearance', 'compiled_certified'):
        kernels[os.path.join('motion', f'{name}.py')] = name
    for relative, path in MODULES:
        if relative not in kernels:
            assert [m for m, _ in _imports(relative, path)
                    if m.split('.')[0] == 'numba'] == [], relative
        for node in ast.parse(open(path, encoding='utf-8').read()).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)) and relative not in kernels:
                names = [getattr(node, 'module', None) or ''] + [a.name for a in node.names]
                assert not any(set(n.split('.')) & set(kernels.values()) for n in names), \
                    relative
    code = ('import sys, io, contextlib\n'
            'import hrdf_ros, hrdf_ros.ros.node\n'
            'from hrdf_ros.cli import main\n'
            'with contextlib.redirect_stdout(io.StringIO()):\n'
            f'    assert main(["fk", {BUNDLED!r}]) == 0\n'
            f'    assert main(["ik", {BUNDLED!r}, "--xyz", "0.4", "0.1", "0.2"]) == 0\n'
            'print(sorted(m for m in sys.modules if m.split(".")[0] == "numba"\n'
            '             or m.startswith("hrdf_ros.kinematics.compiled")))\n')
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            env={k: v for k, v in os.environ.items()
                                 if k != 'HRDF_ROS_KINEMATICS'})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '[]'


@pytest.mark.parametrize('relative', sorted(VIEW_USERS))
def test_view_users_import_view_only_when_they_run(relative):
    path = os.path.join(PACKAGE, relative)
    assert [m for m in _module_level_imports(path)
            if 'view' in m.split('.') or m.split('.')[0] in VIEW_MODULES] == []


def test_core_cli_and_node_run_without_the_view_extra():
    """With viser, yourdfpy and trimesh unimportable, the package, every other ``hrdf``
    command and the node's module load and run, and none of them imports the extra;
    ``hrdf view`` says in one line how to install it (exit 2)."""
    code = f"""
import io, sys, contextlib
for name in {sorted(VIEW_MODULES)!r}:
    sys.modules[name] = None
import hrdf_ros, hrdf_ros.cli, hrdf_ros.ros.node, hrdf_ros.export.moveit
from hrdf_ros.cli import main
arm = {BUNDLED!r}
for argv in (['validate', arm], ['urdf', arm], ['sdf', arm], ['fk', arm], ['jacobian', arm],
             ['info', arm]):
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == 0, argv
loaded = [m for m in sys.modules if m.split('.')[0] in {sorted(VIEW_MODULES)!r}
          and sys.modules[m] is not None]
assert loaded == [], loaded
assert 'hrdf_ros.view' not in sys.modules
err = io.StringIO()
with contextlib.redirect_stderr(err):
    assert main(['view', arm]) == 2
print(err.getvalue(), end='')
"""
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('hrdf view: loading ')
    assert result.stdout.count('\n') == 2
    assert "pip install 'hrdf_ros[view]'" in result.stdout.splitlines()[1]


@pytest.mark.parametrize('relative,path', MODULES, ids=[r for r, _ in MODULES])
def test_modules_and_classes_stay_small(relative, path):
    source = open(path, encoding='utf-8').read()
    assert len(source.splitlines()) <= MAX_MODULE_LINES, relative
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            size = node.end_lineno - node.lineno + 1
            assert size <= MAX_CLASS_LINES, f'{relative}: class {node.name} has {size} lines'


@pytest.mark.parametrize('relative,path', MODULES, ids=[r for r, _ in MODULES])
def test_every_module_says_what_it_does(relative, path):
    docstring = ast.get_docstring(ast.parse(open(path, encoding='utf-8').read()))
    assert docstring and len(docstring) > 40, f'{relative} has no module docstring'


def test_public_api_is_exactly_the_documented_names():
    assert set(hrdf_ros.__all__) == PUBLIC_API
    namespace = {}
    exec('from hrdf_ros import *', namespace)  # noqa: S102 - a fixed statement
    assert set(namespace) - {'__builtins__'} == PUBLIC_API
    for name in PUBLIC_API:
        assert getattr(hrdf_ros, name) is not None


def test_core_imports_without_ros():
    """Every layer below ros/ imports in a process where rclpy cannot be imported."""
    code = ('import sys; sys.modules["rclpy"] = None\n'
            'import importlib\n'
            + ''.join(f'importlib.import_module("hrdf_ros.{m}")\n'
                      for m in ('hrdf.reader', 'model', 'kinematics', 'export.moveit', 'cli')))
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_architecture_page_lists_every_subpackage():
    """doc/explanation/architecture.md's Layout names every subpackage and module."""
    page = open(os.path.join(REPO, 'doc', 'explanation', 'architecture.md'),
                encoding='utf-8').read()
    layout = page[page.index('## Layout'):]
    for name in ('hrdf_ros/hrdf/', 'hrdf_ros/model.py', 'hrdf_ros/kinematics/',
                 'hrdf_ros/parts/', 'hrdf_ros/description/', 'hrdf_ros/export/',
                 'hrdf_ros/ros/'):
        assert name in layout, name
    for relative, _ in MODULES:
        stem = os.path.basename(relative)
        if stem != '__init__.py':
            assert stem[:-3] in layout, f'architecture.md Layout does not mention {relative}'
