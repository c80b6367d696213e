"""MoveIt config package export, without ROS: the package layout (Setup Assistant's),
and for every kit, both hexapods and the loadable real files that the SRDF, groups,
states, limits and controllers agree with the URDF (parsed independently with
urdf_parser_py). Loading with MoveIt's own tools is test_moveit_package.py."""
import math
import os
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import yaml
from urdf_parser_py.urdf import URDF

from hrdf_ros import load, loads
from hrdf_ros.cli import main
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.export.moveit import moveit_package, package_name_for, ros_name, \
    write_moveit_package
from hrdf_ros.description.collision_matrix import CollisionChecker
from hrdf_ros.description.collision_shapes import collision_shapes
from hrdf_ros.description.groups import planning_groups
from hrdf_ros.description.limits import DEFAULT_JOINT_VELOCITY, as_joint_limit, read_limits
from hrdf_ros.description.planning_limits import ACCELERATION_TIME
from hrdf_ros.description.link_poses import LinkPoser
from hrdf_ros.description.states import conditioning
from hrdf_ros.export.urdf_structure import parse_urdf, urdf_collisions
from hrdf_ros.hrdf.catalogue import ACTUATORS
from hrdf_ros.numbers import EFFORT, POSITION, VELOCITY, magnitude_limit, rounded

from conftest import BUNDLED_ARM, KITS
from moveit_robots import HEXAPOD, NAMES, ROBOTS, generated

LAUNCH = ['demo', 'move_group', 'moveit_rviz', 'rsp', 'setup_assistant',
          'spawn_controllers', 'static_virtual_joint_tfs', 'warehouse_db']
CONFIG = ['initial_positions.yaml', 'kinematics.yaml', 'joint_limits.yaml',
          'pilz_cartesian_limits.yaml', 'moveit_controllers.yaml', 'ros2_controllers.yaml',
          'moveit.rviz']
MOVABLE = ('revolute', 'continuous', 'prismatic')
#: smallest singular value of the scaled tip Jacobian that counts as non-singular
NON_SINGULAR = 0.05


def layout(name, servo=True):
    """The package's files; ``servo``: it has a planning group, so config/servo.yaml."""
    return ({'config/servo.yaml'} if servo else set()) | (
        {'package.xml', 'CMakeLists.txt', '.setup_assistant', 'launch/bringup.launch.py'}
            | {f'config/{name}.{ext}' for ext in ('urdf', 'macro.xacro', 'urdf.xacro',
                                                  'ros2_control.xacro', 'srdf', 'srdf.xacro')}
            | {f'config/{f}' for f in CONFIG} | {f'launch/{b}.launch.py' for b in LAUNCH})


@pytest.mark.parametrize('path', ROBOTS, ids=NAMES)
def test_package_agrees_with_the_urdf(path):
    model, package = generated(path)
    name = package.robot_name
    files = package.files
    assert set(files) == layout(name, servo=bool(package.groups))
    assert re.fullmatch(r'[a-z][a-z0-9_]*', package.name) and '__' not in package.name
    robot = URDF.from_xml_string(files[f'config/{name}.urdf'].encode())
    moving = {j.name: j for j in robot.joints if j.type in MOVABLE}
    parent_of = {j.child: j.parent for j in robot.joints}
    srdf = ET.fromstring(files[f'config/{name}.srdf'])
    assert srdf.get('name') == robot.name == name
    [virtual] = srdf.findall('virtual_joint')
    assert (virtual.get('parent_frame'), virtual.get('child_link')) == ('world',
                                                                          robot.get_root())

    # groups: chains along URDF joints, disjoint, covering every movable joint but a
    # parallel gripper's, which form the gripper's group (joints)
    chains = {g.get('name'): g.find('chain') for g in srdf.findall('group')
              if g.find('chain') is not None}
    grippers = {g.get('name'): [j.get('name') for j in g.findall('joint')]
                for g in srdf.findall('group') if g.find('joint') is not None}
    in_grippers = {j for joints in grippers.values() for j in joints}
    tree = build_frame_tree(model)
    assert in_grippers == {j for g in tree.grippers for j in g.joints.values()}
    covered = []
    for group, chain in chains.items():
        base, tip = chain.get('base_link'), chain.get('tip_link')
        path_links = robot.get_chain(base, tip, joints=False)
        assert path_links[0] == base and path_links[-1] == tip
        joints = [j for j in robot.get_chain(base, tip, links=False) if j in moving]
        assert joints, f'group {group} has no joint'
        covered += joints
        for state in ('zero', 'home'):
            [node] = [s for s in srdf.findall('group_state')
                      if (s.get('name'), s.get('group')) == (state, group)]
            assert [j.get('name') for j in node] == joints
    assert sorted(covered) == sorted(set(moving) - in_grippers)
    assert bool(chains) == bool(moving)

    # end effectors hang from their URDF parent and tip their group; a gripper's on the
    # tip of the arm it ends, with open/close states of its finger joint
    for effector in srdf.findall('end_effector'):
        if effector.get('group') in grippers:
            name = effector.get('group')
            tip = effector.get('parent_link')
            assert chains[effector.get('parent_group')].get('tip_link') == tip
            [gripper] = [g for g in tree.grippers if g.stem == name]
            finger = moving[gripper.joint]
            states = {s.get('name'): {j.get('name'): float(j.get('value')) for j in s}
                      for s in srdf.findall('group_state') if s.get('group') == name}
            # close: the position hebi_hardware reports at full close, inside the range
            # (12 digits, as every number is written)
            assert states == {'open': {gripper.joint: 0.0},
                              'close': {gripper.joint: rounded(0.365 * math.pi, POSITION)}}
            assert finger.limit.lower == 0.0
            assert finger.limit.upper == pytest.approx(0.37 * math.pi)
            continue
        link = effector.get('name')
        assert effector.get('parent_link') == parent_of[link]
        assert chains[effector.get('parent_group')].get('tip_link') == link
        [group] = [g for g in srdf.findall('group') if g.get('name') == effector.get('group')]
        assert [n.get('name') for n in group.findall('link')] == [link]

    # collision matrix: links of the URDF, unique pairs, every URDF joint's links adjacent
    reasons = {(d.get('link1'), d.get('link2')): d.get('reason')
               for d in srdf.findall('disable_collisions')}
    assert len(reasons) == len(srdf.findall('disable_collisions'))
    assert set(reasons.values()) <= {'Adjacent', 'Default', 'Always', 'Never'}
    geometric = {link.name for link in robot.links if link.collisions}
    assert all(a < b and {a, b} <= geometric for a, b in reasons)
    for joint in robot.joints:
        if {joint.parent, joint.child} <= geometric:
            assert reasons[tuple(sorted((joint.parent, joint.child)))] == 'Adjacent'

    controllers = yaml.safe_load(files['config/ros2_controllers.yaml'])
    moveit = yaml.safe_load(files['config/moveit_controllers.yaml'])
    simple = moveit['moveit_simple_controller_manager']
    kinematics = yaml.safe_load(files['config/kinematics.yaml'])
    assert set(kinematics) == set(chains)
    for group in package.groups:
        assert kinematics[group.name]['kinematics_solver'] == \
            'kdl_kinematics_plugin/KDLKinematicsPlugin'
        assert kinematics[group.name].get('position_only_ik', False) == (len(group.joints) < 6)

    limits = yaml.safe_load(files['config/joint_limits.yaml'])['joint_limits']
    assert set(limits) == set(moving)
    element_of = dict(zip(build_frame_tree(model).dof_names, model.dof_elements))
    for joint, entry in limits.items():
        assert entry['has_velocity_limits'] and entry['has_acceleration_limits']
        assert entry['max_velocity'] > 0 and entry['max_effort'] > 0
        assert entry['max_acceleration'] == pytest.approx(entry['max_velocity']
                                                          / ACCELERATION_TIME)
        if joint in in_grippers:
            assert (entry['max_velocity'], entry['max_effort']) == (
                moving[joint].limit.velocity, moving[joint].limit.effort)
            continue
        spec = ACTUATORS.get(model.elements[element_of[joint]].type)
        if spec is not None:    # the rating as written: rounded toward zero
            assert (entry['max_velocity'], entry['max_effort']) == (
                magnitude_limit(spec.max_speed, VELOCITY),
                magnitude_limit(spec.max_effort, EFFORT)) == (
                moving[joint].limit.velocity, moving[joint].limit.effort)
        bounded = moving[joint].type != 'continuous'
        assert entry['has_position_limits'] == bounded
        assert ('min_position' in entry) == bounded

    assert simple['controller_names'] == [f'{g}_controller' for g in list(chains)
                                          + list(grippers)]
    for gripper in tree.grippers:
        name = f'{gripper.stem}_controller'
        # the default distribution, jazzy: HEBI's documented GripperCommand pair
        assert simple[name] == {'type': 'GripperCommand', 'joints': [gripper.joint],
                                'action_ns': 'gripper_cmd', 'default': True}
        assert controllers['controller_manager']['ros__parameters'][name]['type'] == \
            'position_controllers/GripperActionController'
        assert controllers[name]['ros__parameters']['joint'] == gripper.joint
    assert set(moveit['trajectory_execution']) >= {'allowed_execution_duration_scaling',
                                                   'allowed_goal_duration_margin',
                                                   'allowed_start_tolerance'}
    manager = controllers['controller_manager']['ros__parameters']
    for group in package.groups:
        name = group.controller
        assert manager[name]['type'] == 'joint_trajectory_controller/JointTrajectoryController'
        assert controllers[name]['ros__parameters']['joints'] == group.joints == \
            simple[name]['joints']
        # position with a velocity feed-forward, as hebi_bringup's controllers command
        assert controllers[name]['ros__parameters']['command_interfaces'] == [
            'position', 'velocity']
    if package.groups:     # the servo's forward position controller, on the first group
        arm = package.groups[0]
        assert manager['forward_position_controller']['type'] == \
            'forward_command_controller/ForwardCommandController'
        assert controllers['forward_position_controller']['ros__parameters'] == {
            'joints': arm.joints, 'interface_name': 'position'}
        assert 'forward_position_controller' not in simple['controller_names']
        servo = yaml.safe_load(files['config/servo.yaml'])
        assert servo['/**/hrdf_ros_node']['ros__parameters']['servo'] == {
            'enabled': True, 'command_out_type': 'forward_position',
            'command_out_topic': '/forward_position_controller/commands'}
    else:
        assert 'forward_position_controller' not in manager
    initial = yaml.safe_load(files['config/initial_positions.yaml'])['initial_positions']
    assert set(initial) == set(moving)


@pytest.mark.parametrize('path', ROBOTS, ids=NAMES)
def test_home_is_not_singular_and_collision_free(path):
    model, package = generated(path)
    text = package.files[f'config/{package.robot_name}.urdf']
    urdf = parse_urdf(text)
    poser = LinkPoser(model, build_frame_tree(model), urdf)
    srdf = ET.fromstring(package.files[f'config/{package.robot_name}.srdf'])
    shapes = collision_shapes(urdf_collisions(text))
    checked = [(a, b) for i, a in enumerate(sorted(shapes.links)) for b in
               sorted(shapes.links)[i + 1:] if (a, b) not in package.disabled
               and not {a, b} & set(shapes.opaque)]
    checker = CollisionChecker(shapes, poser)
    values = poser.default_values()       # every group at its home at once
    for group in package.groups:
        [state] = [s for s in srdf.findall('group_state')
                   if (s.get('name'), s.get('group')) == ('home', group.name)]
        for joint in state:
            values[poser.joints.index(joint.get('name'))] = float(joint.get('value'))
    assert np.all(values >= poser.lower) and np.all(values <= poser.upper)
    assert not checker.colliding(values[None, :], checked, False).any()
    for group in package.groups:
        score = conditioning(group, poser, values[None, :])[0]
        if conditioning(group, poser, poser.random_values(np.random.default_rng(1), 64)
                        ).max() < 1e-9:   # a tip on every joint axis: six rows instead
            score = conditioning(group, poser, values[None, :], all_rows=True)[0]
        assert score > NON_SINGULAR, (group.name, score)


def test_package_names_are_ros_names():
    assert package_name_for('A-2085-06') == 'a_2085_06_moveit_config'
    assert ros_name('X-Series--Double Shoulder 7DOF') == 'x_series_double_shoulder_7dof'
    assert ros_name('7dof') == 'robot_7dof' and ros_name('--') == 'robot'
    for path in KITS:
        assert re.fullmatch(r'[a-z][a-z0-9_]*', package_name_for(os.path.basename(path)))


def _groups(text, end_effectors=None):
    model = loads(text)
    tree = build_frame_tree(model)
    from hrdf_ros import to_urdf
    urdf = parse_urdf(to_urdf(model, 'r', tree=tree))
    effectors = tree.end_effector_links if end_effectors is None else end_effectors
    return [(g.name, g.base, g.tip, g.joints) for g in planning_groups(urdf, effectors)]


def test_groups_split_at_branch_points():
    # no end effector: one group per chain below the branch point, to its leaf
    assert _groups('<robot version="1.3.0"><rigid-body mass="1"><output trans="1 0 0">'
                   '<actuator type="X5-1"/><link type="X5" extension="0.3" twist="0"/>'
                   '<actuator type="X5-4"/></output><output><actuator type="X8-3"/>'
                   '</output></rigid-body></robot>') == [
        ('arm1', 'rigid_body1', 'actuator2_output', ['J1', 'J2']),
        ('arm2', 'rigid_body1', 'actuator3_output', ['J3'])]
    # a trunk with joints below the root, then two tools; a tool on the chassis is no group
    assert _groups('<robot version="1.3.0"><actuator type="X8-9"/><bracket '
                   'type="X5LightRight"/><rigid-body mass="1"><output trans="0.1 0 0">'
                   '<actuator type="X5-1"/><end-effector/></output><output>'
                   '<actuator type="X5-4"/><end-effector/></output><output>'
                   '<end-effector/></output></rigid-body></robot>') == [
        ('arm1', 'base_link', 'rigid_body1', ['J1']),
        ('arm2', 'rigid_body1', 'end_effector1', ['J2']),
        ('arm3', 'rigid_body1', 'end_effector2', ['J3'])]


def test_hexapod_legs_are_six_three_joint_groups_from_the_chassis():
    _, package = generated(HEXAPOD)
    assert [(g.name, len(g.joints), g.end_effector) for g in package.groups] == [
        (f'arm{k}', 3, f'end_effector{k}') for k in range(1, 7)]
    assert len({g.base for g in package.groups}) == 1 and package.groups[0].base != \
        'base_link'
    assert all(g.position_only for g in package.groups)


def test_robot_without_joints_has_no_group():
    model = loads('<robot version="1.4.0"><rigid-body mass="7" com_trans="0.01 0 0.13" '
                  'output_trans="0.1 0 0.2"/><end-effector/></robot>')
    package = moveit_package(model, 'chassis', timestamp=0)
    assert package.groups == [] and package.notes
    srdf = package.files['config/chassis.srdf']
    assert '<group' not in srdf and 'No planning group' in srdf
    assert yaml.safe_load(package.files['config/kinematics.yaml']) == {}


def test_limits_file_forms_and_overrides(tmp_path):
    path = tmp_path / 'limits.yaml'
    path.write_text('J2: [-1.5, 2.0]\nJ3: {position: [-2, 2], velocity: 1.5, '
                    'acceleration: 3}\nJ4: {lower: -1, upper: 1, effort: 4}\n')
    overrides = read_limits(str(path))
    model = load(BUNDLED_ARM)
    package = moveit_package(model, 'arm', limits=overrides, timestamp=0)
    limits = yaml.safe_load(package.files['config/joint_limits.yaml'])['joint_limits']
    assert (limits['J2']['min_position'], limits['J2']['max_position']) == (-1.5, 2.0)
    assert (limits['J3']['max_velocity'], limits['J3']['max_acceleration']) == (1.5, 3.0)
    assert limits['J4']['max_effort'] == 4.0 and limits['J1']['has_position_limits'] is False
    urdf = URDF.from_xml_string(package.files['config/arm.urdf'].encode())
    assert urdf.joint_map['J3'].type == 'revolute' and urdf.joint_map['J3'].limit.lower == -2
    # one limits format: the URDF carries the same velocity and effort as joint_limits.yaml
    assert urdf.joint_map['J3'].limit.velocity == 1.5
    assert urdf.joint_map['J4'].limit.effort == 4.0
    for bad in ([1, 0], {'position': [0, 1], 'lower': 0, 'upper': 1}, {'velocity': 0},
                {'speed': 1}, {'acceleration': math.inf}, 'x'):
        with pytest.raises(ValueError):
            as_joint_limit('J1', bad)
    with pytest.raises(ValueError, match='unknown joints'):
        moveit_package(model, 'arm', limits={'J9': [0, 1]})


def test_hrdf_joints_get_default_velocity_and_acceleration():
    model = loads('<robot version="1.5.0"><rigid-body mass="1"/><joint axis="ty"/>'
                  '<joint axis="rx" gear_ratio="2"/><end-effector/></robot>')
    package = moveit_package(model, 'slider', timestamp=0)
    limits = yaml.safe_load(package.files['config/joint_limits.yaml'])['joint_limits']
    for entry in limits.values():
        assert entry['max_velocity'] == DEFAULT_JOINT_VELOCITY
        assert entry['max_acceleration'] == DEFAULT_JOINT_VELOCITY / ACCELERATION_TIME
    assert limits['J1']['has_position_limits'] and not limits['J2']['has_position_limits']


def test_bad_names_and_options():
    model = load(BUNDLED_ARM)
    for name in ('', '../arm', 'a b', '-x'):
        with pytest.raises(ValueError, match='robot name'):
            moveit_package(model, name, samples=0)
    with pytest.raises(ValueError, match='package name'):
        moveit_package(model, 'arm', package_name='Arm-Config', samples=0)
    with pytest.raises(ValueError, match='e-mail'):
        moveit_package(model, 'arm', author_email='nobody', samples=0)
    with pytest.raises(ValueError, match='samples'):
        moveit_package(model, 'arm', samples=-1)


def test_write_and_cli(tmp_path, capsys):
    model = load(BUNDLED_ARM)
    package = moveit_package(model, 'arm', samples=0, timestamp=0)
    paths = write_moveit_package(package, str(tmp_path / 'pkg'))
    assert {os.path.relpath(p, tmp_path / 'pkg') for p in paths} == layout('arm')
    out = tmp_path / 'kit'
    assert main(['moveit', KITS[0], '-o', str(out), '--collision-samples', '200',
                 '--seed', '3']) == 0
    captured = capsys.readouterr()
    stem = os.path.splitext(os.path.basename(KITS[0]))[0]
    assert sorted(captured.out.split()) == sorted(str(out / f) for f in layout(stem))
    assert f'ros2 launch {package_name_for(stem)} bringup.launch.py' in captured.err
    assert main(['moveit', BUNDLED_ARM, '-o', str(tmp_path / 'h'), '--ros2-control',
                 'hebi']) == 2
    assert 'hebi-config' in capsys.readouterr().err
    assert main(['moveit', BUNDLED_ARM, '-o', str(tmp_path / 'h'), '--ros2-control',
                 'gazebo']) == 0
    xacro_text = (tmp_path / 'h' / 'config' / 'x_series_arm_6dof.urdf.xacro').read_text()
    assert 'name="use_mock_hardware" default="false"' in xacro_text
    assert 'name="sim_gazebo" default="true"' in xacro_text
    capsys.readouterr()
    assert main(['moveit', BUNDLED_ARM, '-o', str(tmp_path / 'x'), '--name', 'a/b']) == 2
    assert main(['moveit', '-o', str(tmp_path / 'x')]) == 2
    assert 'give the HRDF FILE' in capsys.readouterr().err
    assert not (tmp_path / 'x').exists()


def test_cli_without_python_fcl(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(__import__('sys').modules, 'fcl', None)
    assert main(['moveit', BUNDLED_ARM, '-o', str(tmp_path / 'p')]) == 2
    assert 'pip install python-fcl' in capsys.readouterr().err
    assert main(['moveit', BUNDLED_ARM, '-o', str(tmp_path / 'p'),
                 '--collision-samples', '0']) == 0
