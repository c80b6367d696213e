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
import stat

import pytest

from cli_helpers import (ECHO_DESCRIPTION, Launch, echoed, require_ros2_cli, run,
                         wait_for_node)

require_ros2_cli()

STUB = '''#!/bin/sh
echo "stand-in $0 started with: $*"
trap 'echo "stand-in $0 stopped"; exit 0' INT TERM
while :; do sleep 0.1; done
'''


def test_no_rviz_no_gui_starts_the_node_alone(ros2_daemon):
    launch = Launch('hrdf_ros view.launch.py rviz:=false gui:=false')
    try:
        launch.wait_for(r'robot "x_series_arm_6dof" from ')
        output = launch.output()
        assert 'joint_state_publisher is not installed either' in output
        assert 'rviz2' not in output
        wait_for_node()
        nodes = run('ros2 node list').output.split()
        assert [n for n in nodes if not n.startswith('/_ros2cli')] == ['/hrdf_ros_node']
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
    launch = Launch('hrdf_ros view.launch.py')
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
    launch = Launch('hrdf_ros view.launch.py hrdf_file:=missing.hrdf', cwd=str(tmp_path))
    try:
        assert launch.wait_exit() == 1, launch.output()
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
    launch = Launch(f'hrdf_ros view.launch.py gui:={gui}', prefixes=[str(stand_ins)])
    try:
        launch.wait_for(r'robot "x_series_arm_6dof" from ')
        publisher = 'joint_state_publisher_gui' if gui == 'true' else 'joint_state_publisher'
        launch.wait_for(f'stand-in .*/lib/{publisher}/{publisher} started')
        launch.wait_for('stand-in .*/lib/rviz2/rviz2 started with: -d '
                        + os.path.join(os.path.realpath(run(
                            'ros2 pkg prefix hrdf_ros').output.strip()),
                                       'share', 'hrdf_ros', 'config', 'view.rviz'))
        assert len(launch.started_pids()) == 3
        assert launch.interrupt() == 0, launch.output()
        assert launch.leftovers() == []
    finally:
        launch.close()


def test_closing_rviz2_ends_the_launch(stand_ins):
    launch = Launch('hrdf_ros view.launch.py gui:=false', prefixes=[str(stand_ins)])
    try:
        launch.wait_for('stand-in .*/lib/rviz2/rviz2 started')
        launch.wait_for(r'robot "x_series_arm_6dof" from ')
        rviz = [pid for pid in launch.started_pids()
                if 'rviz2' in open(f'/proc/{pid}/cmdline').read()]
        os.kill(rviz[0], 2)  # a stand-in "window closed": exit code 0
        assert launch.wait_exit() == 0, launch.output()
        assert 'process[rviz2-2] was required: shutting down' in launch.output()
        assert launch.leftovers() == []
    finally:
        launch.close()
