"""hrdf_ros_web_view refuses bad parameters at start with one line, like hrdf_ros_node.

Defects: ``-p port:=abc`` (a string for an integer) ended in rclpy's traceback, and
``-p port:=99999`` never returned: viser tried the next port for ever, and the node
never got back to look at its stop flag, so Ctrl-C and SIGTERM did nothing.
"""
import subprocess
import sys

import pytest

pytest.importorskip('viser')


@pytest.mark.parametrize('value,expected', [
    ('abc', "Trying to set parameter 'port' to 'abc' of type 'STRING', expecting type "
            "'INTEGER'"),
    ('99999', 'Parameter port out of range'),
    ('-1', 'Parameter port out of range'),
])
def test_bad_port_exits_1_with_one_line(value, expected):
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.ros.web_view', '--ros-args',
                             '-p', f'port:={value}'],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert expected in result.stderr and 'Traceback' not in result.stderr, result.stderr
    assert result.stderr.strip().count('\n') == 0, result.stderr
    assert result.stderr.startswith('hrdf_ros_web_view: '), result.stderr
