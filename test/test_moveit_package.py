"""The generated MoveIt config packages with MoveIt's own tools, for every kit, both
hexapods and the loadable real files: ``colcon build`` (colcon-common-extensions,
ament_cmake from the wheels) installs one package of each build shape
(moveit_workspace.py), the others are linked where an ament prefix shows them;
``MoveItConfigsBuilder(robot,
package_name=...).to_moveit_configs()`` loads each with no warning; every
``moveit_configs_utils.launches.generate_*_launch`` builds; srdfdom parses each SRDF and
every name in it is in the URDF; the ros2_control block names exactly the URDF's
movable joints, with each hardware. Needs ../shared/ros2-extra installed into .venv
(``make test`` does it); .ci/run fails if these tests were skipped."""
import json
import os
import shutil
import subprocess
import sys

import pytest
import xacro
from urdf_parser_py.urdf import URDF

from hrdf_ros.export.moveit import write_moveit_package

import moveit_workspace
from moveit_robots import NAMES, ROBOTS, generated

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)
VENV = os.path.dirname(BIN)
COLCON = os.path.join(BIN, 'colcon')
BUNDLES = ['demo', 'move_group', 'moveit_rviz', 'rsp', 'setup_assistant',
           'spawn_controllers', 'static_virtual_joint_tfs', 'warehouse_db']
MOVABLE = ('revolute', 'continuous', 'prismatic')


def _moveit_tools():
    """Why the MoveIt tools cannot run here, or ''."""
    if not os.path.isfile(COLCON):
        return 'colcon is not installed in the venv (scripts/requirements-dev.txt)'
    if not os.path.isdir(os.path.join(VENV, 'share', 'moveit_configs_utils')):
        return 'moveit_configs_utils is not installed (bash ../shared/ros2-extra/install.sh .venv)'
    if shutil.which('cmake') is None:
        return 'cmake is not installed'
    return ''


pytestmark = pytest.mark.skipif(bool(_moveit_tools()), reason=_moveit_tools() or 'ok')


def colcon_build(root, packages=None):
    """``colcon build`` the packages under ``root/src`` (those named in ``packages``, or
    all) into ``root/install`` (merged), as a user's workspace is built; the test fails with
    colcon's output if it fails. No C or C++ compiler is given (CC and CXX name none): a
    package without code needs none."""
    env = dict(os.environ, AMENT_PREFIX_PATH=VENV, PATH=BIN + os.pathsep + os.environ['PATH'],
               CC='/nonexistent/cc', CXX='/nonexistent/c++')
    result = subprocess.run(
        [COLCON, '--log-base', str(root / 'log'), 'build', '--base-paths', str(root / 'src'),
         '--build-base', str(root / 'build'), '--install-base', str(root / 'install'),
         '--merge-install', '--parallel-workers', '2', '--event-handlers',
         'console_direct-', 'console_cohesion-', 'console_start_end-',
         *(['--packages-select', *packages] if packages is not None else []),
         '--cmake-args', '-DBUILD_TESTING=OFF'],
        cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


@pytest.fixture(scope='module')
def workspace(tmp_path_factory):
    """(root, {path: package}, {package name: share folder}): every package generated
    into one workspace, one of each build shape built by colcon (moveit_workspace.py)."""
    root = tmp_path_factory.mktemp('moveit_ws')
    packages = {}
    for path in ROBOTS:
        _, package = generated(path)
        write_moveit_package(package, str(root / 'src' / package.name))
        packages[path] = package
    return root, packages, moveit_workspace.build(root, colcon_build)


@pytest.fixture(scope='module')
def loaded(workspace):
    """MoveItConfigsBuilder's view of every installed package (moveit_loader.py)."""
    root, packages, _ = workspace
    request = [[p.robot_name, p.name] for p in packages.values()]
    env = dict(os.environ, AMENT_PREFIX_PATH=os.pathsep.join(
        moveit_workspace.prefixes(root) + [VENV]),
               PATH=BIN + os.pathsep + os.environ['PATH'])
    result = subprocess.run([sys.executable, os.path.join(HERE, 'moveit_loader.py')],
                            input=json.dumps(request), env=env, capture_output=True,
                            text=True, timeout=900, cwd=str(root))
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


def test_colcon_installs_a_package_of_each_build_shape(workspace):
    root, packages, shares = workspace
    built = moveit_workspace.built(shares)
    shapes = {moveit_workspace.build_shape(root / 'src' / p.name) for p in packages.values()}
    assert len(shapes) >= 2 and len(built) >= len(shapes)       # arms, arms with a gripper
    assert {moveit_workspace.build_shape(root / 'src' / n) for n in built} == shapes
    for package in (p for p in packages.values() if p.name in built):
        share = root / 'install' / 'share' / package.name
        for relative in set(package.files) - {'CMakeLists.txt'}:   # as Setup Assistant's
            assert (share / relative).is_file(), relative
        assert (root / 'install' / 'share' / 'ament_index' / 'resource_index' / 'packages'
                / package.name).is_file()


@pytest.mark.parametrize('path', ROBOTS, ids=NAMES)
def test_moveit_loads_the_package_without_warnings(path, workspace, loaded):
    package = workspace[1][path]
    result = loaded[package.name]
    assert result['error'] is None
    assert result['warnings'] == []
    assert result['launches'] == {f'generate_{b}_launch': result['launches'][
        f'generate_{b}_launch'] for b in BUNDLES}
    assert all(isinstance(n, int) and n > 0 for n in result['launches'].values()), \
        result['launches']
    assert set(result['kinematics']) == {g.name for g in package.groups}
    limits = result['planning']['joint_limits']
    for entry in limits.values():
        assert entry['has_acceleration_limits'] and entry['max_acceleration'] > 0


@pytest.mark.parametrize('path', ROBOTS, ids=NAMES)
def test_srdf_names_exist_and_ros2_control_is_the_movable_joints(path, workspace, loaded):
    from srdfdom.srdf import SRDF
    import urdf_parser_py.xml_reflection.core as reflection
    package = workspace[1][path]
    result = loaded[package.name]
    robot = URDF.from_xml_string(result['robot_description'].encode())
    links, joints = set(robot.link_map), set(robot.joint_map)
    movable = [j.name for j in robot.joints if j.type in MOVABLE]

    def strict(message):
        raise AssertionError(message)
    saved, reflection.on_error = reflection.on_error, strict
    try:
        srdf = SRDF.from_xml_string(result['srdf'])
    finally:
        reflection.on_error = saved
    assert srdf.name == robot.name
    groups = {g.name for g in srdf.groups}
    for group in srdf.groups:
        for chain in group.chains:
            assert {chain.base_link, chain.tip_link} <= links
        assert {link.name for link in group.links} <= links
        assert {joint.name for joint in group.joints} <= joints
    for state in srdf.group_states:
        assert state.group in groups and {j.name for j in state.joints} <= joints
    for effector in srdf.end_effectors:
        assert effector.parent_link in links and {effector.group,
                                                  effector.parent_group} <= groups
    for virtual in srdf.virtual_joints:
        assert virtual.child_link in links
    geometric = [link.name for link in robot.links if link.collisions]
    assert srdf.disable_collisionss or len(geometric) < 2
    for pair in srdf.disable_collisionss:
        assert {pair.link1, pair.link2} <= links
    systems = _ros2_control(result['robot_description'])
    assert len(systems) == 1
    assert [j.get('name') for j in systems[0].findall('joint')] == movable


def _ros2_control(text):
    import xml.etree.ElementTree as ET
    return ET.fromstring(text).findall('ros2_control')


#: The package xacro's arguments per hardware, as hebi_bringup switches HEBI's kits.
SWITCHES = {'mock': {'use_mock_hardware': 'true'},
            'gazebo': {'use_mock_hardware': 'false', 'sim_gazebo': 'true'},
            'hebi': {'use_mock_hardware': 'false', 'config_pkg': 'hebi_description',
                     'config_file': 'config/arms/A-2085-06.cfg.yaml'}}


@pytest.mark.parametrize('hardware,plugin', [
    ('mock', 'mock_components/GenericSystem'),
    ('gazebo', 'gz_ros2_control/GazeboSimSystem'),
    ('hebi', 'hebi_hardware/HEBIHardwareInterface')])
def test_ros2_control_hardware_by_xacro_argument(hardware, plugin, workspace):
    import xml.etree.ElementTree as ET
    _, packages, shares = workspace
    built = [p for p in packages.values() if p.name in moveit_workspace.built(shares)]
    for package in (built[0], built[-1]):          # installed by colcon
        share = shares[package.name] / 'config'
        text = xacro.process_file(str(share / f'{package.robot_name}.urdf.xacro'),
                                  mappings=SWITCHES[hardware]).toxml()
        robot = ET.fromstring(text)
        [system] = robot.findall('ros2_control')
        assert system.find('hardware/plugin').text == plugin
        params = {p.get('name'): p.text for p in system.findall('hardware/param')}
        gripper = bool(package.grippers)
        assert params == ({'config_pkg': 'hebi_description',
                           'config_file': 'config/arms/A-2085-06.cfg.yaml',
                           **({'gripper_joint_name': 'gripper_joint'} if gripper else {})}
                          if hardware == 'hebi' else {})
        mimic = {j.get('name') for j in robot.findall('joint')
                 if j.find('mimic') is not None}      # a gripper's fingers: not commanded
        for joint in system.findall('joint'):
            assert [c.get('name') for c in joint.findall('command_interface')] == (
                [] if joint.get('name') in mimic else ['position', 'velocity'])
            if joint.get('name') not in mimic:
                assert [c.get('name') for c in joint.findall('state_interface')] == \
                    ['position', 'velocity', 'effort']
        gazebo = robot.findall('gazebo/plugin')
        if hardware == 'gazebo':
            [plugin_node] = gazebo
            assert plugin_node.get('filename') == 'gz_ros2_control-system'
            assert plugin_node.find('parameters').text == str(share / 'ros2_controllers.yaml')
        else:
            assert gazebo == []
    with pytest.raises(xacro.XacroException, match='needs a HEBI arm config'):
        xacro.process_file(str(share / f'{package.robot_name}.urdf.xacro'),
                           mappings={'use_mock_hardware': 'false'})


G_KITS = [p for p in ROBOTS if os.path.basename(p).endswith('G.hrdf')]


@pytest.mark.parametrize('path', G_KITS, ids=[os.path.basename(p)[:-5] for p in G_KITS])
def test_gripper_group_end_effector_and_controllers(path, workspace, loaded):
    """Every G kit: srdfdom finds the gripper group (open and close states) and its end
    effector on the arm's tip; MoveIt's loaded controller configuration and the
    installed ros2_controllers.yaml both drive gripper_joint."""
    import yaml
    from srdfdom.srdf import SRDF
    _, packages, shares = workspace
    package = packages[path]
    result = loaded[package.name]
    assert result['error'] is None and result['warnings'] == []
    srdf = SRDF.from_xml_string(result['srdf'])
    [group] = [g for g in srdf.groups if g.name == 'gripper']
    assert 'gripper_joint' in {j.name for j in group.joints}
    [effector] = [e for e in srdf.end_effectors if e.group == 'gripper']
    assert (effector.name, effector.parent_link, effector.parent_group) == (
        'gripper', 'end_effector', 'arm')
    states = {s.name: {j.name: j.value for j in s.joints} for s in srdf.group_states
              if s.group == 'gripper'}
    assert set(states) == {'open', 'close'} and states['open'] == {'gripper_joint': [0.0]}
    moveit = result['controllers']['gripper_controller']
    assert moveit['type'] == 'GripperCommand' and moveit['joints'] == ['gripper_joint']
    installed = shares[package.name] / 'config' / 'ros2_controllers.yaml'
    controllers = yaml.safe_load(installed.read_text())
    assert controllers['gripper_controller']['ros__parameters']['joint'] == 'gripper_joint'
    assert controllers['controller_manager']['ros__parameters']['gripper_controller'][
        'type'] == 'position_controllers/GripperActionController'
