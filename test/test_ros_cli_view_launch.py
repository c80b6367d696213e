"""view.launch.py through the real ``ros2`` command line.

This machine has neither rviz2 nor joint_state_publisher(_gui), as many CI machines and
headless hosts: ``view.launch.py rviz:=false gui:=false`` must start hrdf_ros_node alone
and say why, the default ``rviz:=true`` must say rviz2 is missing without leaving the
node orphaned (as it did when the launch aborted half-way), and a failing node must end
the launch with exit code 1. Stand-in *packages* (an ament prefix with executables that
print their arguments and wait for SIGINT, put before the venv on AMENT_PREFIX_PATH)
then show what starts where rviz2 and joint_state_publisher are installed; the launch
file itself runs under the real ``ros2 launch`` in every test.
"""
import os
import signal
import stat

import pytest

from cli_helpers import (ECHO_DESCRIPTION, LAUNCH_BAD, NODE_LIST, VIEW, VIEW_HEADLESS,
                         VENV, Background, echoed, require_ros2_cli, robots, run,
                         wait_for_node)

require_ros2_cli()

STUB = '''#!/bin/sh
trap 'exit 0' INT TERM
trap 'exit 3' USR1
echo "stand-in $0 started with: $*"
while :; do sleep 0.1; done
'''


def test_no_rviz_no_gui_starts_the_node_alone(ros2_daemon):
    launch = Background(VIEW_HEADLESS)
    try:
        launch.wait_for(r'robot "x_series_arm_6dof" from ')
        output = launch.output()
        assert 'joint_state_publisher is not installed either' in output
        assert 'rviz2' not in output
        wait_for_node()
        # (checked by name: another ROS graph on the same domain id may show up here)
        nodes = run(NODE_LIST).output.split()
        assert not [n for n in nodes if 'rviz' in n or 'joint_state_publisher' in n]
        [message] = echoed(run(ECHO_DESCRIPTION).output)
        assert '<robot name="x_series_arm_6dof">' in message['data']
        assert len(launch.started_pids()) == 1
        assert launch.interrupt() == 0, launch.output()
        assert launch.leftovers() == []
    finally:
        launch.close()


def test_without_rviz2_nothing_is_orphaned():
    """Defect: the launch aborted on "package 'rviz2' not found" after starting the node,
    which was left running with parent 1."""
    launch = Background(VIEW)
    try:
        launch.wait_for(r'robot "x_series_arm_6dof" from ')
        assert 'rviz2 is not installed: not starting RViz2' in launch.output()
        assert "package 'rviz2' not found" not in launch.output()
        [pid] = launch.started_pids()
        assert launch.interrupt() == 0, launch.output()
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
    """An ament prefix with stand-ins for rviz2 and joint_state_publisher(_gui)."""
    prefix = tmp_path / 'stand_ins'
    index = prefix / 'share' / 'ament_index' / 'resource_index' / 'packages'
    index.mkdir(parents=True)
    for package in ('rviz2', 'joint_state_publisher', 'joint_state_publisher_gui'):
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
        publisher = 'joint_state_publisher_gui' if gui == 'true' else 'joint_state_publisher'
        launch.wait_for(f'stand-in .*/lib/{publisher}/{publisher} started')
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
        [rviz] = [pid for pid in launch.started_pids()
                  if '/lib/rviz2/rviz2' in open(f'/proc/{pid}/cmdline').read()]
        os.kill(rviz, signal_number)
        assert launch.wait_exit() == code, launch.output()
        assert 'process[rviz2-2] was required: shutting down' in launch.output()
        assert ('rviz2-2 exited with code 3' in launch.output()) == (code == 1)
        assert launch.leftovers() == []
    finally:
        launch.close()
