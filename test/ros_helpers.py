"""Helpers shared by the ROS 2 integration tests (node processes over real DDS)."""
import signal
import subprocess

from hrdf_ros.ros.probe import start_node_process, stop_node_process


def run_node(hrdf_file, namespace='', **parameters):
    """Start hrdf_ros_node as a process with these ROS parameters (stderr captured)."""
    return start_node_process(hrdf_file, parameters, stderr=subprocess.PIPE,
                              namespace=namespace)


def stop(process, sig=signal.SIGTERM):
    """Stop the node with ``sig``; assert a clean exit (code 0); return its stderr."""
    try:
        code = stop_node_process(process, sig)
    except subprocess.TimeoutExpired:
        code = 'no exit (killed)'
    err = process.stderr.read().decode(errors='replace') if process.stderr else ''
    assert code == 0, f'node exit code {code}; stderr:\n{err[-3000:]}'
    return err
