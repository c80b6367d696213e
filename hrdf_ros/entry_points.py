"""The console programs (``hrdf``, ``hrdf_ros_node``, ``hrdf_ros_web_view``), started so
that a Ctrl-C while they are still importing ends them quietly.

In: the command line. Out: the program's exit code. Importing numpy, rclpy or viser
takes a few tenths of a second, and a ``KeyboardInterrupt`` raised in the middle of it
gives a traceback, or worse, an ``ImportError`` from a C extension whose own import it
broke. This module (standard library only, like the lazy ``hrdf_ros/__init__.py``)
imports each program with a SIGINT handler that only records the signal; once imported,
a program that was interrupted prints one line and exits with the code it gives an
interruption when running (:func:`interrupted_exit_code`), otherwise it runs, installing
its own handling. Before about 30 ms Python is still in its own start-up (``site`` and
the environment's ``.pth`` files), where no program can catch a signal.
"""
import importlib
import signal
import sys
from typing import List, Optional


def interrupted_exit_code(argv: Optional[List[str]] = None) -> int:
    """Exit code of ``hrdf`` interrupted by Ctrl-C: 130, but 0 for ``hrdf view`` (which
    runs until Ctrl-C); ``argv`` without the program name (default ``sys.argv[1:]``)."""
    words = sys.argv[1:] if argv is None else argv
    return 0 if words[:1] == ['view'] else 130


def _run(module: str, interrupted_code: int, name: str) -> int:
    received = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        program = importlib.import_module(module).main
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        print(f'{name}: interrupted while starting', file=sys.stderr)
        return interrupted_code
    return program()


def hrdf() -> int:
    """``hrdf`` (:func:`hrdf_ros.cli.main.main`)."""
    return _run('hrdf_ros.cli.main', interrupted_exit_code(), 'hrdf')


def hrdf_ros_node() -> int:
    """``hrdf_ros_node`` (:func:`hrdf_ros.ros.node.main`)."""
    return _run('hrdf_ros.ros.node', 0, 'hrdf_ros_node')


def hrdf_ros_web_view() -> int:
    """``hrdf_ros_web_view`` (:func:`hrdf_ros.ros.web_view.main`)."""
    return _run('hrdf_ros.ros.web_view', 0, 'hrdf_ros_web_view')
