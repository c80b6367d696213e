"""view.launch.py through the real ``ros2`` command line.

This machine has the real joint_state_publisher (2.4.0, from ../shared/ros2-extra) but
neither rviz2 nor joint_state_publisher_gui, as many CI machines and headless hosts:
``view.launch.py rviz:=false gui:=false`` starts hrdf_ros_node and joint_state_publisher,
which reads the node's robot_description and publishes every joint at 0, which the node
turns into /tf; the default ``rviz:=true`` starts the web view instead of RViz2, without
leaving the node orphaned (as it did when the launch aborted half-way); Ctrl-C ends the launch with
exit code 0 and nothing left running, whatever joint_state_publisher prints while it
stops (it exits 1 with rclpy's ExternalShutdownException traceback); a failing node
ends the launch with exit code 1. Stand-in *packages* for the two programs that are not
installed (an ament prefix with executables that print their arguments and wait for
SIGINT, put before the venv on AMENT_PREFIX_PATH) then show what starts where they are;
the launch file itself runs under the real ``ros2 launch`` in every test.
"""
import os
import signal
import stat

import numpy as np
import pytest

from cli_helpers import (ECHO_DESCRIPTION, ECHO_TF_STATIC, LAUNCH_BAD, NODE_LIST, VIEW,
                         VIEW_HEADLESS, VENV, Background, chain, echoed, require_ros2_cli,
                         robots, run, run_all, transforms, wait_for_node)

require_ros2_cli()

BUNDLED = os.path.join(VENV, 'share', 'hrdf_ros', 'config', 'x_series_arm_6dof.hrdf')
ECHO_TF_ANY = 'ros2 topic echo /tf tf2_msgs/msg/TFMessage --once --full-length --timeout 20'

STUB = '''#!/bin/sh
trap 'exit 0' INT TERM
trap 'exit 3' USR1
echo "stand-in $0 started with: $*"
while :; do sleep 0.1; done
'''


def program(pid: int) -> str:
    """The executable path a started PID runs (its command line's first script)."""
    with open(f'/proc/{pid}/cmdline') as handle:
        return handle.read()


def test_no_rviz_no_gui_starts_the_node_and_joint_state_publisher(ros2_daemon, hebi_import):
    """The real joint_state_publisher reads robot_description and publishes all six
    joints at 0; the node's /tf then gives hebi-py's end-effector pose at q = 0."""
    launch = Background(VIEW_HEADLESS)
    try:
        launch.wait_for(r'robot "x_series_arm_6dof" from ')
        launch.wait_for(r'starting joint_state_publisher \(all joints at 0\)')
        assert 'rviz2' not in launch.output()
        wait_for_node()
        wait_for_node('/joint_state_publisher')
        nodes = run(NODE_LIST).output.split()
        assert not [n for n in nodes if 'rviz' in n]
        description, moving, static = run_all([ECHO_DESCRIPTION, ECHO_TF_ANY,
                                               ECHO_TF_STATIC])
        [message] = echoed(description.output)
        assert '<robot name="x_series_arm_6dof">' in message['data']
        tree = transforms(echoed(static.output) + echoed(moving.output))
        pose = chain(tree, 'base_link', 'end_effector')
        expected = hebi_import[0](BUNDLED).get_end_effector(np.zeros(6))
        np.testing.assert_allclose(pose, expected, atol=1e-9, rtol=0)
        pids = launch.started_pids()
        assert len(pids) == 2
        assert [p for p in pids if '/lib/joint_state_publisher/' in program(p)]
        assert launch.interrupt() == 0, launch.output()
        assert launch.leftovers() == []
    finally:
        launch.close()


def test_without_rviz2_the_web_view_runs_and_nothing_is_orphaned():
    """Defect: the launch aborted on "package 'rviz2' not found" after starting the node,
    which was left running with parent 1. Without rviz2 (and without
    joint_state_publisher_gui) the launch now offers the robot in the browser: the web
    view, whose sliders publish joint_states (so no joint_state_publisher)."""
    launch = Background(VIEW)
    try:
        launch.wait_for(r'robot "x_series_arm_6dof" from ')
        launch.wait_for(r'hrdf_ros_web_view-2\] http://127\.0\.0\.1:\d+/')
        assert 'rviz2 is not installed: the robot in the browser instead' in launch.output()
        assert "package 'rviz2' not found" not in launch.output()
        assert ('joint_state_publisher_gui is not installed: the web view\'s sliders '
                'publish joint_states') in launch.output()
        pids = launch.started_pids()
        assert len(pids) == 2
        assert [p for p in pids if '/lib/hrdf_ros/hrdf_ros_web_view' in program(p)]
        assert launch.interrupt() == 0, launch.output()
        assert launch.leftovers() == []
    finally:
        launch.close()


@pytest.mark.parametrize('moment', ['at_start', 'publishing'])
@pytest.mark.parametrize('sigint', ['default', 'ignored'])
def test_ctrl_c_with_the_real_joint_state_publisher_exits_0(moment, sigint):
    """Defect: Ctrl-C ended ``view.launch.py`` with exit code 1 when joint_state_publisher
    (2.4.0) exited 1 with its ExternalShutdownException traceback before launch had
    handled the signal, always so when launch was started with SIGINT ignored (a
    background job of a non-interactive shell), while its nodes install their own
    handlers and stop. Ctrl-C is SIGINT to the process group, sent as joint_state_publisher
    starts and once it publishes."""
    launch = Background(VIEW_HEADLESS, sigint_ignored=(sigint == 'ignored'))
    try:
        launch.wait_for(r'joint_state_publisher-2.*process started with pid')
        if moment == 'publishing':
            launch.wait_for(r'robot "x_series_arm_6dof" from ')
            # joint_state_publisher logs nothing once it has the description: wait for the
            # node to receive its joint_states (the /tf echo sees the moving transforms)
            assert echoed(run(ECHO_TF_ANY).output), launch.output()
        assert launch.interrupt() == 0, launch.output()
        assert 'Caught exception in launch' not in launch.output()
        assert launch.leftovers() == []
    finally:
        launch.close()


def test_failing_node_ends_the_view_launch_with_exit_code_1(tmp_path):
    launch = Background(LAUNCH_BAD['view.launch.py'], cwd=robots(tmp_path))
    try:
        assert launch.wait_exit() == 1, launch.output()
        assert 'bad.hrdf:2:3: error: <actuator> attribute "type"' in launch.output()
        assert 'hrdf_ros_node-1 exited with code 1' in launch.output()
        assert launch.leftovers() == []
    finally:
        launch.close()


@pytest.fixture
def stand_ins(tmp_path):
    """An ament prefix with stand-ins for rviz2 and joint_state_publisher_gui (the real
    joint_state_publisher is installed)."""
    prefix = tmp_path / 'stand_ins'
    index = prefix / 'share' / 'ament_index' / 'resource_index' / 'packages'
    index.mkdir(parents=True)
    for package in ('rviz2', 'joint_state_publisher_gui'):
        (index / package).touch()
        (prefix / 'share' / package).mkdir()
        (prefix / 'share' / package / 'package.xml').write_text(
            f'<package format="3"><name>{package}</name><version>0.0.0</version>'
            '<description>stand-in</description><maintainer email="a@b.cd">x</maintainer>'
            '<license>none</license></package>')
        executable = prefix / 'lib' / package / package
        executable.parent.mkdir(parents=True)
        executable.write_text(STUB)
        executable.chmod(executable.stat().st_mode | stat.S_IXUSR)
    return prefix


@pytest.mark.parametrize('gui', ['true', 'false'])
def test_with_rviz2_and_joint_state_publishers_installed(stand_ins, gui):
    launch = Background(f'{VIEW} gui:={gui}', prefixes=[str(stand_ins)])
    try:
        launch.wait_for(r'robot "x_series_arm_6dof" from ')
        if gui == 'true':
            launch.wait_for('stand-in .*/lib/joint_state_publisher_gui/'
                            'joint_state_publisher_gui started')
        else:
            launch.wait_for(r'joint_state_publisher-3.*process started with pid')
            real = os.path.join(VENV, 'lib', 'joint_state_publisher', 'joint_state_publisher')
            assert [p for p in launch.started_pids() if real in program(p)]
        launch.wait_for('stand-in .*/lib/rviz2/rviz2 started with: -d '
                        + os.path.join(VENV, 'share', 'hrdf_ros', 'config', 'view.rviz'))
        assert len(launch.started_pids()) == 3
        assert launch.interrupt() == 0, launch.output()
        assert launch.leftovers() == []
    finally:
        launch.close()


@pytest.mark.parametrize('signal_number,code', [(signal.SIGINT, 0), (signal.SIGUSR1, 1)])
def test_rviz2_exiting_ends_the_launch(stand_ins, signal_number, code):
    """Closing RViz2 (its stand-in exits 0 on SIGINT) ends the launch with 0; RViz2
    failing (exit code 3 on SIGUSR1) ends it with 1; nothing is left either way."""
    launch = Background(f'{VIEW} gui:=false', prefixes=[str(stand_ins)])
    try:
        launch.wait_for('stand-in .*/lib/rviz2/rviz2 started')
        launch.wait_for(r'robot "x_series_arm_6dof" from ')
        [rviz] = [pid for pid in launch.started_pids() if '/lib/rviz2/rviz2' in program(pid)]
        os.kill(rviz, signal_number)
        assert launch.wait_exit() == code, launch.output()
        assert 'process[rviz2-2] was required: shutting down' in launch.output()
        assert ('rviz2-2 exited with code 3' in launch.output()) == (code == 1)
        assert launch.leftovers() == []
    finally:
        launch.close()
