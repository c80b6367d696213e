"""MoveIt config export: the SRDF, YAML files and controllers agree with the URDF
(parsed independently with urdf_parser_py) for every kit and both hexapods."""
import os
import xml.etree.ElementTree as ET

import pytest
import yaml
from urdf_parser_py.urdf import URDF

from hrdf_ros import load, loads, to_urdf
from hrdf_ros.cli import main
from hrdf_ros.export.frame_tree import build_frame_tree
from hrdf_ros.export.limits import DEFAULT_JOINT_VELOCITY
from hrdf_ros.export.moveit import moveit_config, write_moveit_config
from hrdf_ros.export.srdf import disabled_collision_pairs, planning_groups
from hrdf_ros.export.urdf_structure import parse_urdf

from conftest import BUNDLED_ARM, KITS, REPO, kit_id

HEXAPOD = os.path.join(REPO, 'test', 'data', 'hexapod', 'hexapod.hrdf')
HEXAPOD_18 = os.path.join(REPO, 'benchmarks', 'data', 'hexapod_18dof.hrdf')
ROBOTS = KITS + [BUNDLED_ARM, HEXAPOD, HEXAPOD_18]
FILES = ['kinematics.yaml', 'joint_limits.yaml', 'ros2_controllers.yaml',
         'moveit_controllers.yaml']


def movable(robot):
    return {j.name: j for j in robot.joints if j.type in ('revolute', 'continuous',
                                                            'prismatic')}


def check_config(files, name, end_effector_links):
    """Every cross-file invariant of one generated config; returns the SRDF root."""
    assert set(files) == {f'{name}.urdf', f'{name}.srdf'} | set(FILES)
    robot = URDF.from_xml_string(files[f'{name}.urdf'].encode())
    links, joints = set(robot.link_map), set(robot.joint_map)
    moving = movable(robot)
    srdf = ET.fromstring(files[f'{name}.srdf'])
    assert srdf.tag == 'robot' and srdf.get('name') == robot.name

    # every link and joint the SRDF names exists in the URDF
    [virtual] = srdf.findall('virtual_joint')
    assert (virtual.get('type'), virtual.get('parent_frame'), virtual.get('child_link')) \
        == ('fixed', 'world', robot.get_root())
    named_links = [n.get(a) for n in srdf.iter() for a in
                   ('base_link', 'tip_link', 'parent_link', 'link1', 'link2')
                   if n.get(a) is not None]
    named_links += [n.get('name') for g in srdf.findall('group') for n in g.findall('link')]
    assert named_links and set(named_links) <= links
    state_joints = [j.get('name') for s in srdf.findall('group_state') for j in s]
    assert set(state_joints) <= joints

    # arm groups: a connected URDF path base_link -> tip; its movable joints
    chains = {g.get('name'): g.find('chain') for g in srdf.findall('group')
              if g.find('chain') is not None}
    tips = [c.get('tip_link') for c in chains.values()]
    assert tips == (end_effector_links or tips) and len(tips) >= 1
    group_joints = {}
    for group, chain in chains.items():
        assert chain.get('base_link') == 'base_link' == robot.get_root()
        path = robot.get_chain('base_link', chain.get('tip_link'))
        assert path[0] == 'base_link' and path[-1] == chain.get('tip_link')
        for parent, joint, child in zip(path[0::2], path[1::2], path[2::2]):
            assert robot.joint_map[joint].parent == parent
            assert robot.joint_map[joint].child == child
        group_joints[group] = [j for j in path[1::2] if j in moving]
        assert group_joints[group]
        [state] = [s for s in srdf.findall('group_state') if s.get('group') == group]
        assert state.get('name') == 'zero'
        assert [(j.get('name'), float(j.get('value'))) for j in state] == \
            [(j, 0.0) for j in group_joints[group]]

    # end effectors: one per end-effector link, hanging from its URDF parent
    effectors = srdf.findall('end_effector')
    assert [e.get('name') for e in effectors] == end_effector_links
    parent_of = {j.child: j.parent for j in robot.joints}
    for effector in effectors:
        group = [g for g in srdf.findall('group') if g.get('name') == effector.get('group')]
        assert [n.get('name') for n in group[0].findall('link')] == [effector.get('name')]
        assert effector.get('parent_link') == parent_of[effector.get('name')]
        assert chains[effector.get('parent_group')].get('tip_link') == effector.get('name')

    # disabled pairs: every URDF joint's two links at least, all "Adjacent", unique
    pairs = [(d.get('link1'), d.get('link2')) for d in srdf.findall('disable_collisions')]
    assert {d.get('reason') for d in srdf.findall('disable_collisions')} == {'Adjacent'}
    unordered = {frozenset(p) for p in pairs}
    assert len(unordered) == len(pairs) and all(len(p) == 2 for p in unordered)
    assert {frozenset((j.parent, j.child)) for j in robot.joints} <= unordered

    kinematics = yaml.safe_load(files['kinematics.yaml'])
    assert set(kinematics) == set(chains)
    for entry in kinematics.values():
        assert entry == {'kinematics_solver': 'kdl_kinematics_plugin/KDLKinematicsPlugin',
                         'kinematics_solver_search_resolution': 0.005,
                         'kinematics_solver_timeout': 0.005}

    limits = yaml.safe_load(files['joint_limits.yaml'])
    assert limits['default_velocity_scaling_factor'] == 0.1
    assert limits['default_acceleration_scaling_factor'] == 0.1
    assert set(limits['joint_limits']) == set(moving)
    for name, entry in limits['joint_limits'].items():
        limit = moving[name].limit
        velocity = limit.velocity if limit is not None else None
        assert entry['has_velocity_limits'] == bool(velocity and velocity > 0)
        if entry['has_velocity_limits']:
            assert entry['max_velocity'] == velocity
        assert entry['has_acceleration_limits'] is False
        bounded = moving[name].type in ('revolute', 'prismatic')
        assert entry['has_position_limits'] == bounded
        if bounded:
            assert (entry['min_position'], entry['max_position']) == (limit.lower, limit.upper)

    controllers = yaml.safe_load(files['ros2_controllers.yaml'])
    manager = controllers['controller_manager']['ros__parameters']
    assert manager['update_rate'] == 100
    assert manager['joint_state_broadcaster']['type'] == \
        'joint_state_broadcaster/JointStateBroadcaster'
    moveit = yaml.safe_load(files['moveit_controllers.yaml'])
    simple = moveit['moveit_simple_controller_manager']
    assert moveit['moveit_controller_manager'] == \
        'moveit_simple_controller_manager/MoveItSimpleControllerManager'
    assert simple['controller_names'] == [f'{g}_controller' for g in chains]
    for group, joint_list in group_joints.items():
        name = f'{group}_controller'
        assert manager[name]['type'] == 'joint_trajectory_controller/JointTrajectoryController'
        params = controllers[name]['ros__parameters']
        assert params['joints'] == joint_list
        assert params['command_interfaces'] == ['position']
        assert simple[name]['joints'] == joint_list
        assert simple[name]['type'] == 'FollowJointTrajectory'
        assert simple[name]['action_ns'] == 'follow_joint_trajectory'
    assert sum(simple[f'{g}_controller']['default'] for g in chains) == 1
    return srdf


@pytest.mark.parametrize('path', ROBOTS, ids=kit_id)
def test_config_agrees_with_the_urdf(path):
    model = load(path)
    tree = build_frame_tree(model)
    files = moveit_config(model, 'robot', tree=tree)
    assert files['robot.urdf'] == to_urdf(model, 'robot', tree=tree)
    srdf = check_config(files, 'robot', tree.end_effector_links)
    groups = [g.get('name') for g in srdf.findall('group') if g.find('chain') is not None]
    n = len(tree.end_effector_links)
    assert groups == (['arm'] if n == 1 else [f'arm{k}' for k in range(1, n + 1)])


def test_hexapod_legs_are_six_disjoint_three_joint_groups():
    files = moveit_config(load(HEXAPOD), 'hexapod')
    joints = yaml.safe_load(files['moveit_controllers.yaml'])[
        'moveit_simple_controller_manager']
    legs = [joints[f'arm{k}_controller']['joints'] for k in range(1, 7)]
    assert [len(leg) for leg in legs] == [3] * 6
    assert sorted(sum(legs, [])) == sorted(f'J{k}' for k in range(1, 19))


def test_robot_without_end_effector_plans_its_first_chain():
    """No end effector: one group to the last link of the first chain (depth first)."""
    model = loads('<robot version="1.3.0"><rigid-body mass="1"><output trans="1 0 0">'
                  '<actuator type="X5-1"/><link type="X5" extension="0.3" twist="0"/>'
                  '<actuator type="X5-4"/></output>'
                  '<output><actuator type="X8-3"/></output></rigid-body></robot>')
    files = moveit_config(model, 'bare')
    srdf = check_config(files, 'bare', [])
    [chain] = srdf.iter('chain')
    assert chain.get('tip_link') == 'actuator2_output'
    assert yaml.safe_load(files['ros2_controllers.yaml'])['arm_controller'][
        'ros__parameters']['joints'] == ['J1', 'J2']
    assert srdf.find('end_effector') is None


def test_tree_with_prismatic_and_revolute_limits_from_the_urdf():
    """Position limits come from the URDF given (here a revolute joint edited in)."""
    model = loads('<robot version="1.5.0"><rigid-body mass="1"><output trans="1 0 0">'
                  '<actuator type="X5-1"/><joint axis="ty"/><end-effector/></output>'
                  '<output><joint axis="rx" gear_ratio="2"/><end-effector tag="tool"/>'
                  '</output></rigid-body></robot>')
    tree = build_frame_tree(model, ['a', 'slide', 'roll'])
    urdf = to_urdf(model, 'tree', tree=tree).replace(
        '<joint name="roll" type="continuous">', '<joint name="roll" type="revolute">'
    ).replace('<axis xyz="1 0 0" />', '<axis xyz="1 0 0" />\n    '
              '<limit lower="-0.5" upper="1.25" effort="2" velocity="3" />')
    files = moveit_config(model, 'tree', urdf_text=urdf, tree=tree)
    check_config(files, 'tree', ['end_effector1', 'end_effector2'])
    limits = yaml.safe_load(files['joint_limits.yaml'])['joint_limits']
    assert limits['roll'] == {'has_velocity_limits': True, 'max_velocity': 3.0,
                              'has_acceleration_limits': False, 'max_acceleration': 0.0,
                              'has_position_limits': True, 'min_position': -0.5,
                              'max_position': 1.25}
    assert limits['slide']['has_position_limits'] and limits['slide']['min_position'] == -1
    # HRDF joints have no rated speed: the documented default, never 0
    assert limits['slide']['max_velocity'] == DEFAULT_JOINT_VELOCITY > 0
    assert limits['a']['has_position_limits'] is False          # continuous


def test_disabled_pairs_rigid_bodies_and_links_without_geometry():
    """Rigidly attached links are never checked against each other; two rigid bodies
    joined by one moving joint are adjacent as wholes; links with collision geometry
    joined only through geometry-less links count as adjacent."""
    box = '<collision><geometry><box size="1 1 1"/></geometry></collision>'
    urdf = parse_urdf(
        '<robot name="r"><link name="a">' + box + '</link><link name="b"/>'
        '<link name="c">' + box + '</link><link name="d">' + box + '</link>'
        '<link name="e">' + box + '</link><link name="f"/>'
        '<joint name="j1" type="continuous"><parent link="a"/><child link="b"/></joint>'
        '<joint name="j2" type="continuous"><parent link="b"/><child link="c"/></joint>'
        '<joint name="j3" type="revolute"><parent link="c"/><child link="d"/>'
        '<limit lower="0" upper="1" effort="1" velocity="1"/></joint>'
        '<joint name="f1" type="fixed"><parent link="d"/><child link="e"/></joint>'
        '<joint name="f2" type="fixed"><parent link="e"/><child link="f"/></joint>'
        '</robot>')
    pairs = disabled_collision_pairs(urdf)
    assert pairs == [('a', 'b'), ('a', 'c'), ('b', 'c'), ('c', 'd'), ('c', 'e'), ('c', 'f'),
                     ('d', 'e'), ('d', 'f'), ('e', 'f')]
    assert ('a', 'd') not in pairs                      # a real collision to check


def test_bad_urdf_and_names_are_value_errors():
    model = load(BUNDLED_ARM)
    with pytest.raises(ValueError, match='not XML'):
        moveit_config(model, 'arm', urdf_text='<robot')
    with pytest.raises(ValueError, match='single tree'):
        parse_urdf('<robot name="r"><link name="a"/><link name="b"/></robot>')
    with pytest.raises(ValueError, match='single tree'):      # a detached loop
        parse_urdf('<robot name="r"><link name="a"/><link name="b"/><link name="c"/>'
                   '<joint name="j" type="fixed"><parent link="b"/><child link="c"/></joint>'
                   '<joint name="k" type="fixed"><parent link="c"/><child link="b"/></joint>'
                   '</robot>')
    with pytest.raises(ValueError, match='unknown link'):
        parse_urdf('<robot name="r"><link name="a"/><joint name="j" type="fixed">'
                   '<parent link="a"/><child link="x"/></joint></robot>')
    with pytest.raises(ValueError, match='not in the URDF'):
        planning_groups(parse_urdf('<robot name="r"><link name="a"/></robot>'), ['tool'])
    with pytest.raises(ValueError, match='file name'):
        moveit_config(model, '../arm')


def test_write_moveit_config_writes_every_file(tmp_path):
    model = load(BUNDLED_ARM)
    paths = write_moveit_config(model, str(tmp_path / 'new' / 'dir'), 'arm')
    assert [os.path.basename(p) for p in paths] == ['arm.urdf', 'arm.srdf'] + FILES
    expected = moveit_config(model, 'arm')
    for path in paths:
        assert open(path, encoding='utf-8').read() == expected[os.path.basename(path)]


def test_cli_moveit_writes_the_config(tmp_path, capsys):
    out = tmp_path / 'cfg'
    assert main(['moveit', HEXAPOD, '-o', str(out), '--name', 'hex',
                 '--joint-prefix', 'leg']) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(out / f) for f in ['hex.urdf', 'hex.srdf'] + FILES]
    files = {f: (out / f).read_text() for f in os.listdir(out)}
    check_config(files, 'hex', [f'end_effector{k}' for k in range(1, 7)])
    assert 'leg18' in files['joint_limits.yaml']
    assert main(['moveit', BUNDLED_ARM, '-o', str(tmp_path / 'arm')]) == 0
    assert (tmp_path / 'arm' / 'x_series_arm_6dof.srdf').exists()


def test_cli_moveit_errors(tmp_path, capsys):
    bad = tmp_path / 'bad.hrdf'
    bad.write_text('<robot version="1.2.0"><actuator type="X5-99"/></robot>')
    assert main(['moveit', str(bad), '-o', str(tmp_path / 'out')]) == 1
    assert 'X5-99' in capsys.readouterr().err
    assert not (tmp_path / 'out').exists()
    assert main(['moveit', str(tmp_path / 'missing.hrdf'), '-o', str(tmp_path)]) == 2
    assert main(['moveit', BUNDLED_ARM]) == 2                      # -o is required
    assert main(['moveit', BUNDLED_ARM, '-o', str(tmp_path), '--name', 'a/b']) == 2
    assert 'file name' in capsys.readouterr().err
