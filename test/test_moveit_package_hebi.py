"""Drive the real arm: for every HEBI arm config in hebi_description (config/arms/A-*),
the MoveIt package made from the config alone (``hrdf moveit --hebi-config CFG``),
checked by the programs that consume it: ``colcon build`` installs one of each build
shape, the others are linked where an ament prefix shows them (moveit_workspace.py),
``MoveItConfigsBuilder`` loads each with no warning, the controllers files pass
ros2_controllers' own parameter definitions (Jazzy and Kilted), the hebi_hardware block
is what hebi_hardware's source reads (its parameters, its joint count, the config found
through the ament index as it finds it), the real ``ros2 launch`` shows and builds the
bring-up launch file, and launch itself evaluates it for both hardware switches and a
prefix. ros2_control_node, the controllers and move_group are not on PyPI and are not
run here."""
import contextlib
import glob
import io
import json
import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
import xacro
import yaml
from urdf_parser_py.urdf import URDF

from hrdf_ros import load
from hrdf_ros.cli import main
from hrdf_ros.description.gripper import HEBI_GRIPPER_JOINT
from hrdf_ros.description.hebi_arm import hebi_arm
from hrdf_ros.export.moveit import moveit_package, package_name_for
from hrdf_ros.hrdf.arm_config import read_arm_config
from hrdf_ros.numbers import EFFORT, POSITION, VELOCITY, magnitude_limit, rounded
from hrdf_ros.hrdf.catalogue import ACTUATORS

from cli_helpers import require_ros2_cli, run
from conftest import REPO
from hebi_description import HEBI_DESCRIPTION, ament_prefix, require_hebi_description
from ros2_controllers_params import validate
from test_hebi_arm import gains_bounds
from test_moveit_package import BIN, HERE, VENV, _moveit_tools, colcon_build
import moveit_workspace

require_hebi_description()
require_ros2_cli()
pytestmark = pytest.mark.skipif(bool(_moveit_tools()), reason=_moveit_tools() or 'ok')

ARMS = os.path.join(HEBI_DESCRIPTION, 'config', 'arms')
CONFIGS = sorted(glob.glob(os.path.join(ARMS, 'A-*.cfg.yaml')))
IDS = [os.path.basename(p)[:-len('.cfg.yaml')] for p in CONFIGS]
G_CONFIGS = [p for p in CONFIGS if read_arm_config(p).has_gripper]
HEBI_HARDWARE = os.path.join(REPO, '..', 'shared', 'hebi_ros2', 'hebi_hardware', 'src',
                             'hebi_hardware_interface.cpp')
MOVABLE = ('revolute', 'continuous', 'prismatic')


def package_of(path):
    return package_name_for(os.path.basename(read_arm_config(path).hrdf)[:-len('.hrdf')])


@pytest.fixture(scope='module')
def workspace(tmp_path_factory):
    """Every config's package, made by ``hrdf moveit --hebi-config CFG -o DIR`` and
    nothing else; one of each build shape built by colcon (moveit_workspace.py)."""
    root = tmp_path_factory.mktemp('hebi_ws')
    for path in CONFIGS:
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            code = main(['moveit', '--hebi-config', path, '-o',
                         str(root / 'src' / package_of(path))])
        assert code == 0, path
    moveit_workspace.build(root, colcon_build)
    return root


def prefixes(root):
    """The workspace's prefixes and hebi_description's: what a HEBI user's workspace
    has."""
    return moveit_workspace.prefixes(root) + [ament_prefix()]


@pytest.fixture(scope='module')
def loaded(workspace):
    """MoveItConfigsBuilder's view of every installed package (moveit_loader.py)."""
    request = [[os.path.basename(read_arm_config(p).hrdf)[:-len('.hrdf')], package_of(p)]
               for p in CONFIGS]
    env = dict(os.environ, AMENT_PREFIX_PATH=os.pathsep.join(prefixes(workspace) + [VENV]),
               PATH=BIN + os.pathsep + os.environ['PATH'])
    result = subprocess.run([sys.executable, os.path.join(HERE, 'moveit_loader.py')],
                            input=json.dumps(request), env=env, capture_output=True,
                            text=True, timeout=900, cwd=str(workspace))
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


def installed(root, path, relative):
    """A file of the package of ``path`` where the workspace's prefixes show it."""
    for prefix in moveit_workspace.prefixes(root):
        share = os.path.join(prefix, 'share', package_of(path))
        if os.path.isdir(share):
            return type(root)(share) / relative
    raise AssertionError(f'{package_of(path)} is in no prefix of the workspace')


def expand(root, path, **mappings):
    """The installed URDF xacro, expanded by xacro with these arguments."""
    config = read_arm_config(path)
    name = os.path.basename(config.hrdf)[:-len('.hrdf')]
    source = installed(root, path, f'config/{name}.urdf.xacro')
    return xacro.process_file(str(source), mappings=mappings).toxml()


@pytest.mark.parametrize('path', CONFIGS, ids=IDS)
def test_moveit_loads_the_config_package_without_warnings(path, loaded):
    result = loaded[package_of(path)]
    assert result['error'] is None
    assert result['warnings'] == []
    assert all(isinstance(n, int) and n > 0 for n in result['launches'].values())


@pytest.mark.parametrize('path', CONFIGS, ids=IDS)
def test_the_configs_names_are_the_joint_names_everywhere(path, loaded, workspace):
    """URDF, SRDF groups and states, ros2_control, both controllers files and the
    initial positions all name the config's modules (and HEBI's gripper joint)."""
    from srdfdom.srdf import SRDF
    config = read_arm_config(path)
    names = list(config.names)
    finger = [HEBI_GRIPPER_JOINT] if config.has_gripper else []
    result = loaded[package_of(path)]
    robot = URDF.from_xml_string(result['robot_description'].encode())
    active = [j.name for j in robot.joints if j.type in MOVABLE and j.mimic is None]
    assert active == names + finger
    srdf = SRDF.from_xml_string(result['srdf'])
    [arm] = [g for g in srdf.groups if g.chains]
    chain = robot.get_chain(arm.chains[0].base_link, arm.chains[0].tip_link, links=False)
    assert [j for j in chain if j in names] == names
    for state in srdf.group_states:
        assert [j.name for j in state.joints] == (names if state.group == arm.name
                                                  else finger)
    [system] = ET.fromstring(result['robot_description']).findall('ros2_control')
    listed = [j.get('name') for j in system.findall('joint')]
    assert listed[:len(names) + len(finger)] == names + finger
    controllers = yaml.safe_load(installed(workspace, path,
                                           'config/ros2_controllers.yaml').read_text())
    assert controllers['arm_controller']['ros__parameters']['joints'] == names
    assert result['controllers']['arm_controller']['joints'] == names
    if finger:
        assert controllers['gripper_controller']['ros__parameters']['joint'] == finger[0]
        assert result['controllers']['gripper_controller']['joints'] == finger
    initial = yaml.safe_load(installed(workspace, path, 'config/initial_positions.yaml')
                             .read_text())['initial_positions']
    assert set(names + finger) <= set(initial)


def _hebi_hardware_source():
    """What hebi_hardware's on_init/on_activate read and check, from its source."""
    text = open(HEBI_HARDWARE, encoding='utf-8').read()
    params = set(re.findall(r'i->first == "(\w+)"', text))
    required = set(re.findall(r'(\w+)_\.empty\(\) \|\|', text)) | set(
        re.findall(r'\|\| (\w+)_\.empty\(\)', text))
    # the joint-count rule: the config's modules, plus one joint with a gripper
    count_rule = 'arm_->size() + (has_gripper_ ? 1 : 0) != info_.joints.size()' in text
    [closed] = re.findall(r'getState\(\) \* ([0-9.]+) \* M_PI', text)
    return params, required, count_rule, float(closed) * math.pi


@pytest.mark.parametrize('path', CONFIGS, ids=IDS)
def test_the_hebi_block_is_what_hebi_hardware_reads(path, workspace):
    params_read, required, count_rule, _ = _hebi_hardware_source()
    assert params_read == {'config_pkg', 'config_file', 'gripper_joint_name'}
    assert required == {'config_pkg', 'config_file'} and count_rule
    config = read_arm_config(path)
    [system] = ET.fromstring(expand(workspace, path, use_mock_hardware='false')).findall(
        'ros2_control')
    assert system.find('hardware/plugin').text == 'hebi_hardware/HEBIHardwareInterface'
    params = {p.get('name'): p.text for p in system.findall('hardware/param')}
    assert required <= set(params) <= params_read
    # hebi_hardware: get_package_share_directory(config_pkg) + "/" + config_file
    share = os.path.join(ament_prefix(), 'share', params['config_pkg'])
    assert os.path.samefile(os.path.join(share, params['config_file']), path)
    joints = [j.get('name') for j in system.findall('joint')]
    gripper = 'gripper_joint_name' in params
    assert gripper == bool(config.has_gripper)
    assert len(joints) == len(config.names) + (1 if gripper else 0)
    if gripper:
        assert params['gripper_joint_name'] in joints
    # the mock has the same joints and interfaces, and mirrors the mimic joints
    [mock] = ET.fromstring(expand(workspace, path)).findall('ros2_control')
    assert mock.find('hardware/plugin').text == 'mock_components/GenericSystem'
    assert [j.get('name') for j in mock.findall('joint')][:len(joints)] == joints


@pytest.mark.parametrize('distro', ['jazzy', 'kilted'])
@pytest.mark.parametrize('path', CONFIGS, ids=IDS)
def test_controllers_pass_ros2_controllers_definitions(path, distro, workspace):
    """Jazzy: the installed package's file; Kilted: the same package made with
    --ros-distro kilted. Every key known, every type and validator met."""
    if distro == 'jazzy':
        text = installed(workspace, path, 'config/ros2_controllers.yaml').read_text()
    else:
        config = read_arm_config(path)
        model = load(config.hrdf)
        text = moveit_package(model, 'r', hebi=hebi_arm(model, config), samples=0,
                              timestamp=0, ros_distro=distro).files[
                                  'config/ros2_controllers.yaml']
    assert validate(text, distro) == []
    data = yaml.safe_load(text)
    arm = data['arm_controller']['ros__parameters']
    assert (arm['command_interfaces'], arm['state_interfaces']) == (
        ['position', 'velocity'], ['position', 'velocity'])


@pytest.mark.parametrize('path', CONFIGS, ids=IDS)
def test_limits_are_at_most_the_gains_bounds(path, loaded, workspace):
    config = read_arm_config(path)
    model = load(config.hrdf)
    robot = URDF.from_xml_string(loaded[package_of(path)]['robot_description'].encode())
    planning = loaded[package_of(path)]['planning']['joint_limits']
    header = installed(workspace, path, 'config/joint_limits.yaml').read_text()
    bounds = gains_bounds(config.gains.path) if config.gains else None
    for k, name in enumerate(config.names):
        rated = ACTUATORS[model.elements[model.dof_elements[k]].type]
        velocity, effort = rated.max_speed, rated.max_effort
        if bounds:
            velocity, effort = min(velocity, bounds[0][k]), min(effort, bounds[1][k])
        # written toward zero (hrdf_ros.numbers): never above the bound
        written = magnitude_limit(velocity, VELOCITY), magnitude_limit(effort, EFFORT)
        limit = robot.joint_map[name].limit
        assert (limit.velocity, limit.effort) == written
        assert (planning[name]['max_velocity'], planning[name]['max_effort']) == written
        assert limit.velocity <= rated.max_speed and limit.effort <= rated.max_effort
        if bounds:
            assert limit.velocity <= bounds[0][k] and limit.effort <= bounds[1][k]
        # acceleration: the module's rated speed reached in 0.5 s, as without a config
        assert planning[name]['max_acceleration'] == pytest.approx(rated.max_speed / 0.5)
        if bounds and velocity < rated.max_speed:
            assert f'{name}: {os.path.basename(config.gains.path)} target bounds' in header
    if bounds is None:   # HEBI's A-2099-07G names a gains file that does not exist
        assert os.path.basename(path) == 'A-2099-07G.cfg.yaml'


@pytest.mark.parametrize('path', G_CONFIGS, ids=[os.path.basename(p)[:-9] for p in G_CONFIGS])
def test_gripper_in_hebi_hardwares_terms(path, loaded, workspace):
    """open = 0, close = what hebi_hardware reports at full close; Jazzy: HEBI's
    GripperCommand pair; Kilted: the parallel gripper controller."""
    from srdfdom.srdf import SRDF
    _, _, _, closed = _hebi_hardware_source()
    result = loaded[package_of(path)]
    states = {s.name: {j.name: j.value[0] for j in s.joints}
              for s in SRDF.from_xml_string(result['srdf']).group_states
              if s.group == 'gripper'}
    # as written: 12 significant digits (hrdf_ros.numbers)
    assert states == {'open': {HEBI_GRIPPER_JOINT: 0.0},
                      'close': {HEBI_GRIPPER_JOINT: rounded(closed, POSITION)}}
    assert result['controllers']['gripper_controller']['type'] == 'GripperCommand'
    controllers = yaml.safe_load(installed(workspace, path,
                                           'config/ros2_controllers.yaml').read_text())
    assert controllers['controller_manager']['ros__parameters']['gripper_controller'][
        'type'] == 'position_controllers/GripperActionController'
    manifest = installed(workspace, path, 'package.xml').read_text()
    assert '<exec_depend>gripper_controllers</exec_depend>' in manifest
    assert '<exec_depend>hebi_hardware</exec_depend>' in manifest
    config = read_arm_config(path)
    model = load(config.hrdf)
    kilted = moveit_package(model, 'r', hebi=hebi_arm(model, config), samples=0,
                            timestamp=0, ros_distro='kilted').files
    assert yaml.safe_load(kilted['config/moveit_controllers.yaml'])[
        'moveit_simple_controller_manager']['gripper_controller']['type'] == \
        'ParallelGripperCommand'
    assert '<exec_depend>parallel_gripper_controller</exec_depend>' in kilted['package.xml']


def test_bringup_arguments_with_the_real_ros2_launch(workspace):
    package = package_of(CONFIGS[0])
    shown = run(f'ros2 launch {package} bringup.launch.py --show-args', timeout=60,
                prefixes=prefixes(workspace))
    assert shown.code == 0, shown
    arguments = {line.strip().strip("':") for line in shown.output.splitlines()
                 if line.startswith("    '")}
    assert {'use_mock_hardware', 'prefix', 'use_rviz'} <= arguments
    assert "(default: 'true')" in shown.output.split("'use_mock_hardware'")[1].split(
        "'prefix'")[0]
    for value in ('true', 'false'):
        printed = run(f'ros2 launch {package} bringup.launch.py use_mock_hardware:={value} '
                      '--print', timeout=60, prefixes=prefixes(workspace))
        assert printed.code == 0 and 'OpaqueFunction' in printed.output, printed
    # launched for real, an unknown value stops it before anything starts
    refused = run(f'ros2 launch {package} bringup.launch.py use_mock_hardware:=maybe',
                  timeout=60, prefixes=prefixes(workspace))
    assert refused.code == 1 and 'Valid options are: [\'true\', \'false\']' in \
        refused.output, refused


def _bringup(root, path, use_mock_hardware, prefix):
    env = dict(os.environ, AMENT_PREFIX_PATH=os.pathsep.join(prefixes(root) + [VENV]),
               PATH=BIN + os.pathsep + os.environ['PATH'])
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, 'bringup_probe.py')], input=json.dumps(
            {'package': package_of(path), 'use_mock_hardware': use_mock_hardware,
             'prefix': prefix}), env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.mark.parametrize('use_mock_hardware,prefix', [('true', ''), ('false', 'left_')])
def test_bringup_launch_evaluated_by_launch(use_mock_hardware, prefix, workspace):
    """What the bring-up would start, and that every name it hands out carries the
    prefix: robot_description, SRDF (srdfdom), ros2_control_node's controllers file,
    MoveIt's controllers and joint limits."""
    from srdfdom.srdf import SRDF
    path = os.path.join(ARMS, 'A-2085-06G.cfg.yaml')
    out = _bringup(workspace, path, use_mock_hardware, prefix)
    assert out['arguments'] == ['use_mock_hardware', 'prefix', 'use_rviz']
    robot = URDF.from_xml_string(out['robot_description'].encode())
    [system] = ET.fromstring(out['robot_description']).findall('ros2_control')
    plugin = system.find('hardware/plugin').text
    assert plugin == ('mock_components/GenericSystem' if use_mock_hardware == 'true'
                      else 'hebi_hardware/HEBIHardwareInterface')
    names = [prefix + n for n in read_arm_config(path).names]
    finger = prefix + HEBI_GRIPPER_JOINT
    assert all(j.name.startswith(prefix) for j in robot.joints)
    assert all(link.name.startswith(prefix) for link in robot.links)
    listed = [j.get('name') for j in system.findall('joint')]
    assert listed[:7] == names + [finger]
    if use_mock_hardware == 'false':
        params = {p.get('name'): p.text for p in system.findall('hardware/param')}
        assert params['gripper_joint_name'] == finger
    srdf = SRDF.from_xml_string(out['srdf'])
    links, joints = set(robot.link_map), set(robot.joint_map)
    for group in srdf.groups:
        assert {c.base_link for c in group.chains} | {c.tip_link for c in group.chains} | \
            {link.name for link in group.links} <= links
        assert {j.name for j in group.joints} <= joints
    assert all({j.name for j in s.joints} <= joints for s in srdf.group_states)
    assert all({d.link1, d.link2} <= links for d in srdf.disable_collisionss)
    assert [v.child_link for v in srdf.virtual_joints] == [prefix + 'base_link']
    controllers = out['controllers']
    assert controllers['arm_controller']['ros__parameters']['joints'] == names
    assert controllers['gripper_controller']['ros__parameters']['joint'] == finger
    assert validate(yaml.safe_dump(controllers), 'jazzy') == []
    assert out['moveit_controllers']['arm_controller']['joints'] == names
    assert out['moveit_controllers']['gripper_controller']['joints'] == [finger]
    assert set(out['joint_limits']) <= joints and set(names) <= set(out['joint_limits'])
    started = {tuple(n) for n in out['nodes']}
    assert {('controller_manager', 'ros2_control_node'),
            ('robot_state_publisher', 'robot_state_publisher'),
            ('controller_manager', 'spawner'), ('moveit_ros_move_group', 'move_group'),
            ('rviz2', 'rviz2'), ('tf2_ros', 'static_transform_publisher')} == started
    # the arm's, the gripper's, joint_state_broadcaster and the servo's forward position
    # controller (loaded inactive)
    assert sum(n == ['controller_manager', 'spawner'] for n in out['nodes']) == 4
    assert controllers['forward_position_controller']['ros__parameters']['joints'] == names
