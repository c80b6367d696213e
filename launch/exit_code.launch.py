"""Make ``ros2 launch`` exit non-zero when a process it started fails.

Include it in a launch file (Python: ``IncludeLaunchDescription``, XML: ``<include
file="$(find-pkg-share hrdf_ros)/launch/exit_code.launch.py"/>``). ``launch`` itself
returns 0 after a process died, even when that process ended the launch with
``on_exit`` Shutdown: ``LaunchService.run`` returns 1 only when an exception reaches its
loop, and 0 or 1 are its only codes. This file registers a handler for every process
exit that raises (logging ``Caught exception in launch ...: hrdf_ros_node-1 exited with
code 1``) when a process exits with a non-zero code, or is killed by a signal, while the
launch is running. The launch then shuts down everything it started and ``ros2 launch``
exits 1.

Not counted: exits during launch's shutdown (after another process ended the launch),
deaths by SIGINT, and any exit once the launch has received SIGINT. Ctrl-C reaches every
process of the group at once, and third-party nodes stop in their own way: the real
joint_state_publisher 2.4.0 exits 1 with rclpy's ``ExternalShutdownException``
traceback, possibly before launch has read the signal from its wakeup socket. This file
therefore records SIGINT itself, with a Python-level handler that runs before any event
of the loop is processed, and installs it even where SIGINT was ignored (a background
job of a non-interactive shell inherits SIGINT ignored; the rclpy nodes it starts
install their own handlers, so without this they stop on Ctrl-C and launch does not).
The handler only records: launch's own SIGINT handling (its wakeup socket) is unchanged,
and no ``KeyboardInterrupt`` is raised into the loop.

On its own this launch file starts nothing (the launch ends at once).
"""
import signal
import threading

from launch import LaunchDescription
from launch.actions import OpaqueFunction, RegisterEventHandler
from launch.event_handlers import OnProcessExit


class _SigintRecord:
    """SIGINT handler that records the signal (and calls a user's handler, if any)."""

    hrdf_ros_sigint_record = True

    def __init__(self, previous):
        self.received = False
        self._previous = previous

    def __call__(self, signum, frame):
        self.received = True
        if callable(self._previous) and self._previous is not signal.default_int_handler:
            self._previous(signum, frame)


def _sigint_record():
    """The process's SIGINT record, installed once however often this file is included
    (each include loads this module anew, hence the attribute test, not isinstance)."""
    current = signal.getsignal(signal.SIGINT)
    if getattr(current, 'hrdf_ros_sigint_record', False):
        return current
    record = _SigintRecord(current)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, record)
    return record


def _register(context):
    record = _sigint_record()

    def fail_on_error(event, context):
        code = event.returncode
        if code in (0, -signal.SIGINT) or context.is_shutdown or record.received:
            return None
        raise RuntimeError(f'{event.action.name} exited with code {code}')

    return [RegisterEventHandler(OnProcessExit(on_exit=fail_on_error))]


def generate_launch_description():
    return LaunchDescription([OpaqueFunction(function=_register)])
