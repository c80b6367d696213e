"""hrdf.launch.py through the real ``ros2`` command line, as the README shows it.

One ``ros2 launch hrdf_ros hrdf.launch.py hrdf_file:=A-2085-06.hrdf publish_frequency:=10``
(run in the kit directory, so the file name is relative) serves the tests up to the
SIGINT test, in file order: robot_description, the typed parameter, TF against hebi-py,
every service with a good and a bad request, ``ros2 param set hrdf_file``. Then
separate launches: a namespace with a frame prefix, an invalid file, ``--show-args``,
``ros2 run``. No test runs a launch file any other way.
"""
import os
import shlex

import numpy as np
import pytest
from urdf_parser_py.urdf import URDF

from cli_helpers import (ECHO_DESCRIPTION, KITS, Q, VENV, Background, Launch, echoed,
                         pose_from_tf, require_ros2_cli, run, run_all, service_response,
                         wait_for_node)

require_ros2_cli()

KIT = 'A-2085-06.hrdf'
OTHER_KIT = 'A-2099-07.hrdf'          # 7 DoF
LAUNCH = f'hrdf_ros hrdf.launch.py hrdf_file:={KIT} publish_frequency:=10'
BAD_HRDF = '<robot version="1.2.0">\n  <actuator type="X5-77"/>\n</robot>\n'


@pytest.fixture(scope='module')
def launch(ros2_daemon):
    launch = Launch(LAUNCH, cwd=KITS)
    try:
        launch.wait_for(r'robot "[^"]*" from ')
        wait_for_node()
        yield launch
    finally:
        launch.close()


def test_robot_description_is_named_after_the_file(launch):
    """Defect: every robot was named x_series_arm (the params file set robot_name)."""
    assert 'robot "A-2085-06" from A-2085-06.hrdf' in launch.output()
    [message] = echoed(run(ECHO_DESCRIPTION).output)
    urdf = message['data']
    assert URDF.from_xml_string(urdf).name == 'A-2085-06'
    hrdf_urdf = run(f'hrdf urdf {KIT}', cwd=KITS)
    assert hrdf_urdf.code == 0
    assert urdf.strip() == hrdf_urdf.output.strip()


def test_publish_frequency_10_is_a_double(launch):
    """Defect: publish_frequency:=10 killed the node (INTEGER, expecting DOUBLE)."""
    result = run('ros2 param get /hrdf_ros_node publish_frequency')
    assert result.output.strip() == 'Double value is: 10.0', result
    assert 'InvalidParameterTypeException' not in launch.output()


def test_end_effector_pose_from_tf_matches_hebi(launch, hebi_import):
    pose, moving = pose_from_tf(cwd=KITS)
    hebi = hebi_import[0](os.path.join(KITS, KIT))
    np.testing.assert_allclose(pose, hebi.get_end_effector(Q), atol=1e-9, rtol=0)
    children = {t['child_frame_id'] for m in moving for t in m['transforms']}
    assert children == {'bracket1', 'link1', 'link2', 'bracket2', 'bracket3',
                        'end_effector_mount1'}


def service_call(service, values=''):
    """The command ``ros2 service call /hrdf_ros_node/<service> <type> [values]``."""
    kind = ''.join(word.title() for word in service.split('_'))
    command = f'ros2 service call /hrdf_ros_node/{service} hrdf_ros_interfaces/srv/{kind}'
    return command + (' ' + shlex.quote(values) if values else '')


def responses(*calls):
    """Run independent service calls (concurrently); their responses in order."""
    results = run_all([service_call(*c) for c in calls])
    for result in results:
        assert result.code == 0, result
    return [service_response(r.output) for r in results]


def call(service, values=''):
    return responses((service, values))[0]


POSITIONS = '{positions: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}'
BAD_TEXT = '{hrdf_text: \'<robot version="1.2.0"><actuator type="X5-77"/></robot>\'}'


def test_services_good_and_bad_requests(launch, hebi_import):
    from hrdf_ros.kinematics.rotations import quaternion_to_rotation
    hebi = hebi_import[0](os.path.join(KITS, KIT))
    status, fk, fk_bad, jacobian, jacobian_bad, valid, invalid = responses(
        ('get_model_status',),
        ('get_forward_kinematics', POSITIONS),
        ('get_forward_kinematics', '{positions: [0.1]}'),
        ('get_jacobian', POSITIONS),
        ('get_jacobian', '{positions: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], frame_type: elbow}'),
        ('validate_hrdf', f'{{hrdf_path: {OTHER_KIT}}}'),
        ('validate_hrdf', BAD_TEXT))
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
    assert (error['line'], error['element'], error['attribute']) == (1, 'actuator', 'type')


def test_load_hrdf_service_good_and_bad(launch, tmp_path):
    bad_file = tmp_path / 'bad.hrdf'
    bad_file.write_text(BAD_HRDF)
    refused = call('load_hrdf', f'{{hrdf_path: {bad_file}}}')
    assert not refused['success'] and refused['errors'][0]['line'] == 2
    assert call('get_model_status')['hrdf_file'] == KIT          # unchanged
    loaded = call('load_hrdf', f'{{hrdf_path: {KIT}}}')
    assert loaded['success'] and loaded['message'].startswith(
        f'loaded robot "A-2085-06" from {KIT}: 6 DoF'), loaded


def test_param_set_hrdf_file_valid_and_invalid(launch):
    result = run('ros2 param set /hrdf_ros_node hrdf_file missing.hrdf')
    assert result.output.startswith('Setting parameter failed: ') and \
        'missing.hrdf' in result.output, result
    result = run(f'ros2 param set /hrdf_ros_node hrdf_file {OTHER_KIT}')
    assert result.output.strip() == 'Set parameter successful', result
    description, status = run_all([ECHO_DESCRIPTION, service_call('get_model_status')])
    [message] = echoed(description.output)
    assert URDF.from_xml_string(message['data']).name == 'A-2099-07'
    status = service_response(status.output)
    assert (status['dof'], status['hrdf_file']) == (7, OTHER_KIT)


def test_sigint_ends_everything_with_exit_code_0(launch):
    pids = launch.started_pids()
    assert len(pids) == 1
    assert launch.interrupt() == 0, launch.output()
    assert launch.leftovers() == []
    assert 'process has finished cleanly' in launch.output()


def test_namespace_and_frame_prefix(ros2_daemon, hebi_import):
    launch = Launch(f'hrdf_ros hrdf.launch.py hrdf_file:={KIT} namespace:=left '
                    'frame_prefix:=left/', cwd=KITS)
    try:
        launch.wait_for(r'robot "A-2085-06" from ')
        wait_for_node('/left/hrdf_ros_node')
        [message] = echoed(run(ECHO_DESCRIPTION.replace('/robot_description',
                                                        '/left/robot_description')).output)
        assert URDF.from_xml_string(message['data']).name == 'A-2085-06'
        pose, moving = pose_from_tf(namespace='/left', prefix='left/', cwd=KITS)
        np.testing.assert_allclose(pose, hebi_import[0](os.path.join(KITS, KIT))
                                   .get_end_effector(Q), atol=1e-9, rtol=0)
        assert all(t['child_frame_id'].startswith('left/') and
                   t['header']['frame_id'].startswith('left/')
                   for m in moving for t in m['transforms'])
        result = run('ros2 service call /left/hrdf_ros_node/get_model_status '
                     'hrdf_ros_interfaces/srv/GetModelStatus')
        assert service_response(result.output)['robot_name'] == 'A-2085-06'
        assert launch.interrupt() == 0 and launch.leftovers() == []
    finally:
        launch.close()


def test_invalid_hrdf_file_ends_the_launch_with_exit_code_1(tmp_path):
    """Defects: a dying node left the launch running, or ended it with exit code 0."""
    (tmp_path / 'bad.hrdf').write_text(BAD_HRDF)
    for name, error in (('bad.hrdf', 'bad.hrdf:2:3: error: <actuator> attribute "type"'),
                        ('missing.hrdf', 'missing.hrdf')):
        launch = Launch(f'hrdf_ros hrdf.launch.py hrdf_file:={name}', cwd=str(tmp_path))
        try:
            assert launch.wait_exit() == 1, launch.output()
            assert len(launch.started_pids()) == 1 and launch.leftovers() == []
            output = launch.output()
            assert error in output
            assert 'hrdf_ros_node-1 exited with code 1' in output
        finally:
            launch.close()


@pytest.mark.parametrize('launch_file', ['hrdf.launch.py', 'hrdf.launch.xml',
                                         'view.launch.py'])
def test_every_launch_argument_has_a_description(launch_file):
    """Defect: --show-args said "no description given" for every argument."""
    result = run(f'ros2 launch hrdf_ros {launch_file} --show-args')
    assert result.code == 0, result
    arguments = {line.strip().strip("':") for line in result.output.splitlines()
                 if line.startswith("    '")}
    assert {'hrdf_file', 'robot_name', 'namespace', 'frame_prefix', 'publish_frequency',
            'ignore_timestamp', 'missing_joints', 'params_file'} <= arguments
    if launch_file == 'view.launch.py':
        assert {'rviz', 'gui'} <= arguments
    assert 'no description given' not in result.output


def test_package_is_found_and_ros2_run_works(ros2_daemon):
    """Defect: the editable install was invisible to ros2 (no share/, no lib/hrdf_ros)."""
    assert run('ros2 pkg prefix hrdf_ros').output.strip() == VENV
    executables = set(run('ros2 pkg executables hrdf_ros').output.splitlines())
    assert {'hrdf_ros hrdf', 'hrdf_ros hrdf_ros_node'} <= executables
    share = run('python -c "from ament_index_python.packages import '
                'get_package_share_directory as g; print(g(\'hrdf_ros\'))"')
    assert share.output.strip() == os.path.join(VENV, 'share', 'hrdf_ros'), share
    node = Background(f'ros2 run hrdf_ros hrdf_ros_node --ros-args -p hrdf_file:={KIT}',
                      cwd=KITS)
    try:
        node.wait_for(r'robot "A-2085-06" from A-2085-06.hrdf')
        assert '/hrdf_ros_node' in run('ros2 node list').output.split()
        assert node.interrupt() == 0, node.output()
        assert node.leftovers() == []
    finally:
        node.close()
