"""hrdf.launch.xml through the real ``ros2`` command line (as the README shows it).

One ``ros2 launch hrdf_ros hrdf.launch.xml hrdf_file:=A-2085-06.hrdf publish_frequency:=0
robot_name:=123`` serves the tests up to the SIGINT test: every value is typed in the XML
(``<param type=...>``), so ``0`` is a double and ``123`` a string; then an invalid file
must end the launch with exit code 1 and leave nothing running.
"""
import os

import numpy as np
import pytest
from urdf_parser_py.urdf import URDF

from cli_helpers import (ECHO_DESCRIPTION, KITS, Q, Launch, echoed, pose_from_tf,
                         require_ros2_cli, run_all, wait_for_node)

require_ros2_cli()

KIT = 'A-2085-06.hrdf'
LAUNCH = f'hrdf_ros hrdf.launch.xml hrdf_file:={KIT} publish_frequency:=0 robot_name:=123'


@pytest.fixture(scope='module')
def launch(ros2_daemon):
    launch = Launch(LAUNCH, cwd=KITS)
    try:
        launch.wait_for(r'robot "[^"]*" from ')
        wait_for_node()
        yield launch
    finally:
        launch.close()


def test_parameters_are_typed(launch):
    """Defect: publish_frequency:=0 killed the node (INTEGER, expecting DOUBLE)."""
    assert f'robot "123" from {KIT}' in launch.output()
    description, frequency, name, ignore = run_all([
        ECHO_DESCRIPTION, 'ros2 param get /hrdf_ros_node publish_frequency',
        'ros2 param get /hrdf_ros_node robot_name',
        'ros2 param get /hrdf_ros_node ignore_timestamp'])
    [message] = echoed(description.output)
    assert URDF.from_xml_string(message['data']).name == '123'
    assert frequency.output.strip() == 'Double value is: 0.0', frequency
    assert name.output.strip() == 'String value is: 123', name
    assert ignore.output.strip() == 'Boolean value is: False', ignore


def test_end_effector_pose_from_tf_matches_hebi(launch, hebi_import):
    pose, _ = pose_from_tf(cwd=KITS)
    np.testing.assert_allclose(pose, hebi_import[0](os.path.join(KITS, KIT))
                               .get_end_effector(Q), atol=1e-9, rtol=0)


def test_sigint_ends_everything_with_exit_code_0(launch):
    assert len(launch.started_pids()) == 1
    assert launch.interrupt() == 0, launch.output()
    assert launch.leftovers() == []


def test_invalid_hrdf_file_ends_the_launch_with_exit_code_1(tmp_path):
    launch = Launch('hrdf_ros hrdf.launch.xml hrdf_file:=missing.hrdf', cwd=str(tmp_path))
    try:
        assert launch.wait_exit() == 1, launch.output()
        assert len(launch.started_pids()) == 1 and launch.leftovers() == []
        assert 'missing.hrdf' in launch.output()
        assert 'hrdf_ros_node-1 exited with code 1' in launch.output()
    finally:
        launch.close()
