"""Make ``ros2 launch`` exit non-zero when a process it started fails.

Include it in a launch file (Python: ``IncludeLaunchDescription``, XML: ``<include
file="$(find-pkg-share hrdf_ros)/launch/exit_code.launch.py"/>``). ``launch`` itself
returns 0 after a process died, even when that process ended the launch with
``on_exit`` Shutdown: ``LaunchService.run`` returns 1 only when an exception reaches its
loop, and 0 or 1 are its only codes. This file registers a handler for every process
exit that raises (logging ``Caught exception in launch ...: hrdf_ros_node-1 exited with
code 1``) when a process exits with a non-zero code, or is killed by a signal, while the
launch is running. Not counted: exits during launch's shutdown (after Ctrl-C, or after
another process ended the launch), and deaths by SIGINT (a terminal's Ctrl-C reaches
every process of the group, possibly before launch itself). The launch then shuts down
everything it started and ``ros2 launch`` exits 1.

On its own this launch file starts nothing (the launch ends at once).
"""
import signal

from launch import LaunchDescription
from launch.actions import RegisterEventHandler
from launch.event_handlers import OnProcessExit


def _fail_on_error(event, context):
    code = event.returncode
    if code in (0, -signal.SIGINT) or context.is_shutdown:
        return None
    raise RuntimeError(f'{event.action.name} exited with code {code}')


def generate_launch_description():
    return LaunchDescription([RegisterEventHandler(OnProcessExit(on_exit=_fail_on_error))])
