"""Make ``ros2 launch`` exit non-zero when a process it started fails.

Include it in a launch file (Python: ``IncludeLaunchDescription``, XML: ``<include
file="$(find-pkg-share hrdf_ros)/launch/exit_code.launch.py"/>``). ``launch`` itself
returns 0 after a process died, even when that process ended the launch with
``on_exit`` Shutdown: ``LaunchService.run`` returns 1 only when an exception reaches its
loop, and 0 or 1 are its only codes. This file registers a handler for every process
exit that raises (logging ``Caught exception in launch ...: hrdf_ros_node-1 exited with
code 1``) when a process exits with a code > 0, or is killed by a signal while the launch
is not shutting down (a crash). Processes stopped by launch's own shutdown (SIGINT,
then SIGTERM/SIGKILL escalation) do not count. The launch then shuts down everything it
started and ``ros2 launch`` exits 1.

On its own this launch file starts nothing (the launch ends at once).
"""
from launch import LaunchDescription
from launch.actions import RegisterEventHandler
from launch.event_handlers import OnProcessExit


def _fail_on_error(event, context):
    code = event.returncode
    if code > 0 or (code < 0 and not context.is_shutdown):
        raise RuntimeError(f'{event.action.name} exited with code {code}')


def generate_launch_description():
    return LaunchDescription([RegisterEventHandler(OnProcessExit(on_exit=_fail_on_error))])
