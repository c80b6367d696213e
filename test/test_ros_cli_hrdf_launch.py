"""hrdf.launch.py through the real ``ros2`` command line, with the commands of the docs.

One ``ros2 launch hrdf_ros hrdf.launch.py hrdf_file:=A-2085-06.hrdf publish_frequency:=10``
(in a directory holding the kit files, so names are relative) serves the tests up to the
SIGINT test, in file order: robot_description, the typed parameter, TF against hebi-py,
every service with a good and a bad request, ``ros2 param set hrdf_file``. Then
separate launches: a namespace with a frame prefix, an invalid file, ``--show-args``;
then ``ros2 run`` and the package lookup. No test runs a launch file any other way.
"""
import os

import numpy as np
import pytest
from urdf_parser_py.urdf import URDF

from hrdf_ros.kinematics.rotations import quaternion_to_rotation

from cli_helpers import (ECHO_DESCRIPTION, HRDF_URDF, KIT, LAUNCH, LAUNCH_BAD, LAUNCH_LEFT,
                         OTHER_KIT, PACKAGE, PARAM_GET, PARAM_SET, PARAM_SET_BAD, Q, RUN,
                         SERVICES, SHOW_ARGS, VENV, Background, echoed, left, pose_from_tf,
                         require_ros2_cli, run, run_all, service_call, service_responses,
                         service_response, wait_for_node, launched)

require_ros2_cli()


@pytest.fixture(scope='module')
def launch(ros2_daemon, workdir):
    with launched(LAUNCH, workdir) as running:
        yield running


def responses(launch, *calls):
    """Run independent service calls (concurrently); their responses, in order."""
    return service_responses([service_call(*c) for c in calls], launch.output)


def test_robot_description_is_named_after_the_file(launch, workdir):
    """Defect: every robot was named x_series_arm (the params file set robot_name)."""
    assert f'robot "A-2085-06" from {KIT}' in launch.output()
    description, generated = run_all([ECHO_DESCRIPTION, HRDF_URDF], cwd=workdir)
    [message] = echoed(description.output)
    assert URDF.from_xml_string(message['data']).name == 'A-2085-06'
    assert generated.code == 0, generated
    with open(os.path.join(workdir, 'A-2085-06.urdf'), encoding='utf-8') as handle:
        assert message['data'].strip() == handle.read().strip()


def test_publish_frequency_10_is_a_double(launch):
    """Defect: publish_frequency:=10 killed the node (INTEGER, expecting DOUBLE)."""
    result = run(PARAM_GET['publish_frequency'])
    assert result.output.strip() == 'Double value is: 10.0', result
    assert 'InvalidParameterTypeException' not in launch.output()


def test_end_effector_pose_from_tf_matches_hebi(launch, workdir, hebi_import):
    pose, moving = pose_from_tf(cwd=workdir)
    hebi = hebi_import[0](os.path.join(workdir, KIT))
    np.testing.assert_allclose(pose, hebi.get_end_effector(Q), atol=1e-9, rtol=0)
    children = {t['child_frame_id'] for m in moving for t in m['transforms']}
    assert children == {'bracket1', 'link1', 'link2', 'bracket2', 'bracket3',
                        'end_effector_mount1'}


def test_services_good_and_bad_requests(launch, workdir, hebi_import):
    hebi = hebi_import[0](os.path.join(workdir, KIT))
    status, fk, fk_bad, jacobian, jacobian_bad, valid, invalid = responses(launch, *SERVICES[:7])
    assert (status['valid'], status['robot_name'], status['dof'], status['hrdf_file']) == \
        (True, 'A-2085-06', 6, KIT)
    assert status['joint_names'] == ['J1', 'J2', 'J3', 'J4', 'J5', 'J6']

    assert fk['success'] and fk['frame_type'] == 'end_effector'
    pose = fk['poses'][0]['pose']
    expected = hebi.get_end_effector(Q)
    p, r = pose['position'], pose['orientation']
    np.testing.assert_allclose([p['x'], p['y'], p['z']], expected[:3, 3], atol=1e-9, rtol=0)
    np.testing.assert_allclose(quaternion_to_rotation((r['x'], r['y'], r['z'], r['w'])),
                               expected[:3, :3], atol=1e-9, rtol=0)
    assert not fk_bad['success'] and 'positions has 1 values' in fk_bad['message']

    assert jacobian['success'] and (jacobian['rows'], jacobian['cols']) == (6, 6)
    np.testing.assert_allclose(np.reshape(jacobian['data'], (6, 6)),
                               hebi.get_jacobian_end_effector(Q), atol=1e-9, rtol=0)
    assert not jacobian_bad['success'] and 'elbow' in jacobian_bad['message']

    assert valid['valid'] and not valid['errors']
    assert not invalid['valid']
    [error] = invalid['errors']
    assert (error['file'], error['line'], error['element'], error['attribute']) == \
        ('bad.hrdf', 2, 'actuator', 'type')

    [refused] = responses(launch, SERVICES[7])
    assert not refused['success'] and refused['errors'][0]['line'] == 2
    [loaded] = responses(launch, SERVICES[8])
    assert loaded['success'] and loaded['message'].startswith(
        f'loaded robot "A-2085-06" from {KIT}: 6 DoF'), loaded


def test_param_set_hrdf_file_valid_and_invalid(launch):
    result = run(PARAM_SET_BAD)
    assert result.output.startswith('Setting parameter failed: ') and \
        'missing.hrdf' in result.output, result
    result = run(PARAM_SET)
    assert result.output.strip() == 'Set parameter successful', result
    description, status = run_all([ECHO_DESCRIPTION, service_call('get_model_status')])
    [message] = echoed(description.output)
    assert URDF.from_xml_string(message['data']).name == 'A-2099-07'
    status = service_response(status)
    assert (status['dof'], status['hrdf_file']) == (7, OTHER_KIT)


def test_sigint_ends_everything_with_exit_code_0(launch):
    assert len(launch.started_pids()) == 1
    assert launch.interrupt() == 0, launch.output()
    assert launch.leftovers() == []
    assert 'process has finished cleanly' in launch.output()


def test_namespace_and_frame_prefix(ros2_daemon, workdir, hebi_import):
    launch = Background(LAUNCH_LEFT, cwd=workdir)
    try:
        launch.wait_for(r'robot "A-2085-06" from ')
        wait_for_node('/left/hrdf_ros_node')
        description, status = run_all([left(ECHO_DESCRIPTION),
                                       left(service_call('get_model_status'))])
        [message] = echoed(description.output)
        assert URDF.from_xml_string(message['data']).name == 'A-2085-06'
        assert service_response(status)['robot_name'] == 'A-2085-06'
        pose, moving = pose_from_tf(namespace='/left', prefix='left/', cwd=workdir)
        np.testing.assert_allclose(pose, hebi_import[0](os.path.join(workdir, KIT))
                                   .get_end_effector(Q), atol=1e-9, rtol=0)
        assert all(t['child_frame_id'].startswith('left/') and
                   t['header']['frame_id'].startswith('left/')
                   for m in moving for t in m['transforms'])
        assert launch.interrupt() == 0 and launch.leftovers() == []
    finally:
        launch.close()


@pytest.mark.parametrize('name,error', [
    ('bad.hrdf', 'bad.hrdf:2:3: error: <actuator> attribute "type"'),
    ('missing.hrdf', 'missing.hrdf')])
def test_invalid_hrdf_file_ends_the_launch_with_exit_code_1(workdir, name, error):
    """Defects: a dying node did not end the launch, and never with a failing code."""
    launch = Background(LAUNCH_BAD['hrdf.launch.py'].replace('bad.hrdf', name), cwd=workdir)
    try:
        assert launch.wait_exit() == 1, launch.output()
        assert len(launch.started_pids()) == 1 and launch.leftovers() == []
        assert error in launch.output()
        assert 'hrdf_ros_node-1 exited with code 1' in launch.output()
    finally:
        launch.close()


@pytest.mark.parametrize('launch_file', ['hrdf.launch.py', 'hrdf.launch.xml',
                                         'view.launch.py'])
def test_every_launch_argument_has_a_description(launch_file):
    """Defect: --show-args said "no description given" for every argument."""
    result = run(SHOW_ARGS[launch_file])
    assert result.code == 0, result
    arguments = {line.strip().strip("':") for line in result.output.splitlines()
                 if line.startswith("    '")}
    assert {'hrdf_file', 'robot_name', 'namespace', 'frame_prefix', 'publish_frequency',
            'ignore_timestamp', 'missing_joints', 'params_file'} <= arguments
    if launch_file == 'view.launch.py':
        assert {'rviz', 'gui'} <= arguments
    assert 'no description given' not in result.output


def test_package_is_found_and_ros2_run_works(ros2_daemon, workdir):
    """Defect: the editable install was invisible to ros2 (no share/, no lib/hrdf_ros)."""
    prefix, executables, share = run_all(PACKAGE)
    assert prefix.output.strip() == VENV
    assert {'hrdf_ros hrdf', 'hrdf_ros hrdf_ros_node'} <= set(executables.output.splitlines())
    assert share.output.strip() == os.path.join(VENV, 'share', 'hrdf_ros'), share
    node = Background(RUN, cwd=workdir)
    try:
        node.wait_for(f'robot "A-2085-06" from {KIT}')
        wait_for_node()
        assert node.interrupt() == 0, node.output()
        assert node.leftovers() == []
    finally:
        node.close()
