"""ros2_controllers_params: a controllers YAML against ros2_controllers' own definitions.

Only the real definition files (data/ros2_controllers/, see its SOURCE.md) are used:
a hand-written valid configuration passes on each distro, and each kind of mistake
gives an error naming its key.
"""
import copy

import pytest
import yaml

from ros2_controllers_params import DISTROS, VALIDATORS, load_definitions, validate

JTC = 'joint_trajectory_controller/JointTrajectoryController'
JSB = 'joint_state_broadcaster/JointStateBroadcaster'
PARALLEL = 'parallel_gripper_action_controller/GripperActionController'

VALID_TEXT = """\
controller_manager:
  ros__parameters:
    update_rate: 100
    arm_controller:
      type: joint_trajectory_controller/JointTrajectoryController
    joint_state_broadcaster:
      type: joint_state_broadcaster/JointStateBroadcaster
    gripper_controller:
      type: parallel_gripper_action_controller/GripperActionController

arm_controller:
  ros__parameters:
    joints:
      - J1
      - J2
      - J3
    command_interfaces:
      - position
      - velocity
    state_interfaces:
      - position
      - velocity
    allow_nonzero_velocity_at_trajectory_end: true
    action_monitor_rate: 20.0
    interpolation_method: splines
    gains:
      J1: {p: 10.0, i: 0.0, d: 0.5, ff_velocity_scale: 1.0}
      J3: {p: 5.0}
    constraints:
      stopped_velocity_tolerance: 0.01
      goal_time: 0.5
      J1: {trajectory: 0.1, goal: 0.05, max_deceleration_on_cancel: 2.0}

joint_state_broadcaster:
  ros__parameters:
    publish_dynamic_joint_states: true

gripper_controller:
  ros__parameters:
    joint: finger_joint
    max_effort: 5.0
    allow_stalling: true
    state_interfaces: [position]
"""
VALID = yaml.safe_load(VALID_TEXT)


def check(distro, edit):
    """Errors of VALID after edit(config) (a deep copy) on distro."""
    config = copy.deepcopy(VALID)
    edit(config)
    return validate(yaml.safe_dump(config), distro)


def arm(config):
    return config['arm_controller']['ros__parameters']


def gripper(config):
    return config['gripper_controller']['ros__parameters']


def one_error(errors, *words):
    assert len(errors) == 1, errors
    assert all(w in errors[0] for w in words), errors[0]


@pytest.mark.parametrize('distro', DISTROS)
def test_valid_configuration_passes(distro):
    assert validate(VALID_TEXT, distro) == []


def test_definitions_know_the_plugin_types():
    forward = 'forward_command_controller/ForwardCommandController'
    assert set(load_definitions('kilted')) == {JTC, JSB, PARALLEL, forward}
    assert set(load_definitions('jazzy')) == {
        JTC, JSB, PARALLEL, forward, 'position_controllers/GripperActionController',
        'effort_controllers/GripperActionController'}
    with pytest.raises(ValueError):
        load_definitions('humble')


def test_jazzy_gripper_controllers():
    """gripper_controllers exists on jazzy only; effort's adapter declares gains.<joint>.*"""
    def position_gripper(config):
        config['controller_manager']['ros__parameters']['gripper_controller']['type'] = \
            'position_controllers/GripperActionController'
        gripper(config).pop('state_interfaces')

    assert check('jazzy', position_gripper) == []
    one_error(check('kilted', position_gripper), 'gripper_controller',
              'unknown controller type', 'position_controllers/GripperActionController')

    def with_gains(kind):
        def edit(config):
            position_gripper(config)
            config['controller_manager']['ros__parameters']['gripper_controller']['type'] = \
                f'{kind}_controllers/GripperActionController'
            gripper(config)['gains'] = {'finger_joint': {'p': 100.0, 'i_clamp': 1.0}}
        return edit

    assert check('jazzy', with_gains('effort')) == []
    errors = check('jazzy', with_gains('position'))
    assert sorted(errors) == [
        "gripper_controller: unknown parameter 'gains.finger_joint.i_clamp' for "
        "position_controllers/GripperActionController",
        "gripper_controller: unknown parameter 'gains.finger_joint.p' for "
        "position_controllers/GripperActionController"]


@pytest.mark.parametrize('distro', DISTROS)
@pytest.mark.parametrize('key', ['joint', 'gains.J9.p', 'constraints.J1.goal_tolerance'])
def test_unknown_key(distro, key):
    def edit(config):
        arm(config)[key] = 1.0
    one_error(check(distro, edit), 'arm_controller', 'unknown parameter', f"'{key}'")


def test_distro_specific_keys():
    def open_loop(config):
        arm(config)['open_loop_control'] = False
    assert check('jazzy', open_loop) == []
    one_error(check('kilted', open_loop), "unknown parameter 'open_loop_control'")

    def legacy(config):
        arm(config)['gains']['J2'] = {'antiwindup_strategy': 'legacy'}
    assert check('jazzy', legacy) == []
    one_error(check('kilted', legacy), 'gains.J2.antiwindup_strategy', 'legacy', 'one_of<>')


@pytest.mark.parametrize('distro', DISTROS)
@pytest.mark.parametrize('key, value, words', [
    ('allow_nonzero_velocity_at_trajectory_end', 'true', ['is not bool']),
    ('action_monitor_rate', 20, ['is not double', '1.0']),
    ('gains.J1.p', 10, ['is not double']),
    ('command_joints', 'J1', ['is not string_array']),
    ('command_joints', ['J1', 2], ['element 2 is not string']),
    ('state_interfaces', [], ['empty list']),
    ('interpolation_method', ['splines'], ['is a list']),
])
def test_wrong_type(distro, key, value, words):
    def edit(config):
        params = arm(config)
        if key.startswith('gains.'):
            params['gains']['J1']['p'] = value
        else:
            params[key] = value
    one_error(check(distro, edit), 'arm_controller', key, *words)


@pytest.mark.parametrize('distro', DISTROS)
@pytest.mark.parametrize('key, value, validator', [
    ('interpolation_method', 'linear', 'one_of<>'),
    ('command_interfaces', ['position', 'torque'], 'subset_of<>'),
    ('command_interfaces', ['velocity', 'effort'],
     'joint_trajectory_controller::command_interface_type_combinations'),
    ('command_interfaces', ['acceleration'],
     'joint_trajectory_controller::command_interface_type_combinations'),
    ('state_interfaces', ['velocity'],
     'joint_trajectory_controller::state_interface_type_combinations'),
    ('state_interfaces', ['position', 'acceleration'],
     'joint_trajectory_controller::state_interface_type_combinations'),
    ('joints', ['J1', 'J2', 'J3', 'J1'], 'unique<>'),
    ('action_monitor_rate', 0.05, 'gt_eq'),
])
def test_validator_violation(distro, key, value, validator):
    def edit(config):
        arm(config)[key] = value
    one_error(check(distro, edit), 'arm_controller', key, validator)


@pytest.mark.parametrize('distro', DISTROS)
def test_allowed_interface_combinations(distro):
    """As validate_jtc_parameters.hpp: effort alone or with position; position first."""
    for command in (['effort', 'position'], ['effort'], ['velocity'],
                    ['position', 'velocity', 'acceleration']):
        def edit(config):
            arm(config)['command_interfaces'] = command
        assert check(distro, edit) == [], command


@pytest.mark.parametrize('distro', DISTROS)
def test_bounds_violation(distro):
    def edit(config):
        arm(config)['constraints']['J1']['max_deceleration_on_cancel'] = -1.0
        arm(config)['constraints']['goal_time'] = -0.5
        gripper(config)['max_effort'] = -2.0
    errors = check(distro, edit)
    assert len(errors) == 3, errors
    for key in ('constraints.J1.max_deceleration_on_cancel', 'constraints.goal_time',
                'max_effort'):
        assert any(key in e and 'gt_eq' in e for e in errors), (key, errors)


@pytest.mark.parametrize('distro', DISTROS)
def test_missing_required_parameter(distro):
    def no_joint(config):
        gripper(config).pop('joint')
    one_error(check(distro, no_joint), 'gripper_controller',
              "missing required parameter 'joint'")

    def no_joints(config):  # JTC's joints has default [] and size_gt<> [0]
        arm(config).pop('joints')
        arm(config).pop('gains')
        arm(config)['constraints'].pop('J1')
    one_error(check(distro, no_joints), 'arm_controller', 'joints', '(default)', 'size_gt<>')


@pytest.mark.parametrize('distro', DISTROS)
def test_unknown_controller_type_and_undeclared_controller(distro):
    def edit(config):
        declared = config['controller_manager']['ros__parameters']
        declared['arm_controller']['type'] = 'joint_trajectory_controller/JointTrajectory'
        config['other_controller'] = {'ros__parameters': {'joints': ['J1']}}
    errors = check(distro, edit)
    assert len(errors) == 2, errors
    assert any('arm_controller' in e and 'unknown controller type' in e for e in errors)
    assert any('other_controller' in e and 'declares no controller' in e for e in errors)


def test_unimplemented_validator_is_an_error(monkeypatch):
    name = 'joint_trajectory_controller::state_interface_type_combinations'
    monkeypatch.delitem(VALIDATORS, name)
    one_error(validate(VALID_TEXT, 'kilted'),
              f'unsupported validator {name} for key state_interfaces')
