"""hrdf.launch.xml through the real ``ros2`` command line, with the commands of the docs.

One ``ros2 launch hrdf_ros hrdf.launch.xml hrdf_file:=A-2085-06.hrdf publish_frequency:=0
robot_name:=123`` serves the tests up to the SIGINT test: every value is typed in the XML
(``<param type=...>``), so ``0`` is a double and ``123`` a string; then an invalid file
must end the launch with exit code 1 and leave nothing running.
"""
import os

import numpy as np
import pytest
from urdf_parser_py.urdf import URDF

from cli_helpers import (ECHO_DESCRIPTION, KIT, LAUNCH_BAD, LAUNCH_XML, PARAM_GET, Q,
                         Background, echoed, launched, pose_from_tf, require_ros2_cli, run_all)

require_ros2_cli()


@pytest.fixture(scope='module')
def launch(ros2_daemon, workdir):
    with launched(LAUNCH_XML, workdir) as running:
        yield running


def test_parameters_are_typed(launch):
    """Defect: publish_frequency:=0 killed the node (INTEGER, expecting DOUBLE)."""
    assert f'robot "123" from {KIT}' in launch.output()
    description, frequency, name, ignore = run_all([ECHO_DESCRIPTION]
                                                   + list(PARAM_GET.values()))
    [message] = echoed(description.output)
    assert URDF.from_xml_string(message['data']).name == '123'
    assert frequency.output.strip() == 'Double value is: 0.0', frequency
    assert name.output.strip() == 'String value is: 123', name
    assert ignore.output.strip() == 'Boolean value is: False', ignore


def test_end_effector_pose_from_tf_matches_hebi(launch, workdir, hebi_import):
    pose, _ = pose_from_tf(cwd=workdir)
    np.testing.assert_allclose(pose, hebi_import[0](os.path.join(workdir, KIT))
                               .get_end_effector(Q), atol=1e-9, rtol=0)


def test_sigint_ends_everything_with_exit_code_0(launch):
    assert len(launch.started_pids()) == 1
    assert launch.interrupt() == 0, launch.output()
    assert launch.leftovers() == []


def test_invalid_hrdf_file_ends_the_launch_with_exit_code_1(workdir):
    launch = Background(LAUNCH_BAD['hrdf.launch.xml'], cwd=workdir)
    try:
        assert launch.wait_exit() == 1, launch.output()
        assert len(launch.started_pids()) == 1 and launch.leftovers() == []
        assert 'bad.hrdf:2:3: error: <actuator> attribute "type"' in launch.output()
        assert 'hrdf_ros_node-1 exited with code 1' in launch.output()
    finally:
        launch.close()
