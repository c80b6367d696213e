"""Helpers shared by the ROS 2 integration tests (node processes over real DDS, and the
MuJoCo arm of ``fjt_mujoco_server.py``)."""
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np

from hrdf_ros.ros.probe import start_node_process, stop_node_process

HERE = os.path.dirname(os.path.abspath(__file__))


def run_node(hrdf_file, namespace='', **parameters):
    """Start hrdf_ros_node as a process with these ROS parameters (stderr captured)."""
    return start_node_process(hrdf_file, parameters, stderr=subprocess.PIPE,
                              namespace=namespace)


def robot_from_text(tmp_path, text, file_name='robot.hrdf'):
    """Write HRDF text to a file; (path, model, URDF joint names, gear ratio per joint)."""
    from hrdf_ros import load
    from hrdf_ros.description.frame_tree import build_frame_tree
    path = tmp_path / file_name
    path.write_text(text)
    model = load(str(path))
    ratios = np.array([model.elements[e].gear_ratio for e in model.dof_elements])
    return str(path), model, build_frame_tree(model).dof_names, ratios


def stop(process, sig=signal.SIGTERM):
    """Stop the node with ``sig``; assert a clean exit (code 0); return its stderr."""
    try:
        code = stop_node_process(process, sig)
    except subprocess.TimeoutExpired:
        code = 'no exit (killed)'
    err = process.stderr.read().decode(errors='replace') if process.stderr else ''
    assert code == 0, f'node exit code {code}; stderr:\n{err[-3000:]}'
    return err


def node_positions(probe, node='/hrdf_ros_node'):
    """The node's latest joint positions (HEBI positions) through ~/get_jacobian."""
    from hrdf_ros_interfaces.srv import GetJacobian
    response = probe.call(GetJacobian, f'{node}/get_jacobian',
                          GetJacobian.Request(use_latest_joint_states=True))
    assert response is not None and response.success, response and response.message
    return np.array(response.positions)


def assert_tf_matches_hebi(probe, names, values, ratios, hebi_model):
    """Publish URDF joint values, then: the end effector from /tf equals hebi-py's FK
    at the HEBI positions (values x gear ratio) to 1e-9, and the node reports exactly
    those positions."""
    stamp = probe.publish_positions(names, values)
    assert probe.spin_until(lambda: probe.has_tf_stamped(stamp), 30.0)
    assert probe.spin_until(lambda: 'end_effector' in probe.buffer, 30.0)
    hebi_positions = np.asarray(values) * ratios
    np.testing.assert_allclose(probe.lookup('base_link', 'end_effector'),
                               hebi_model.get_end_effector(hebi_positions),
                               atol=1e-9, rtol=0)
    np.testing.assert_allclose(node_positions(probe), hebi_positions, atol=1e-15)


def rss_kib(pid: int) -> int:
    """The resident memory of process ``pid``, KiB (/proc)."""
    with open(f'/proc/{pid}/status', encoding='ascii') as handle:
        return int(next(line for line in handle if line.startswith('VmRSS')).split()[1])


def calls_under_joint_states(probe, client, requests, names, pid, checkpoints):
    """Call ``client`` with each request in turn, one at a time, while ``probe``
    publishes joint_states of ``names`` at 50 Hz (values rising by 0.001 a message).

    Returns:
        (sent stamps, error codes, latencies in s, {call number: RSS KiB of ``pid``}) with
        the memory taken after each call numbered in ``checkpoints``.
    """
    sent, codes, latencies, memory = [], [], [], {}
    last = 0.0
    for k, request in enumerate(requests):
        began = time.monotonic()
        future = client.call_async(request)
        while not future.done():
            if time.monotonic() - last >= 0.02:
                last = time.monotonic()
                sent.append(probe.publish_positions(
                    names, np.full(len(names), 0.001 * len(sent))))
            probe.spin_until(future.done, 0.002)
        latencies.append(time.monotonic() - began)
        codes.append(future.result().error_code)
        if k + 1 in checkpoints:
            memory[k + 1] = rss_kib(pid)
    return sent, codes, latencies, memory


class Server:
    """The MuJoCo FollowJointTrajectory server process and the lines it printed."""

    def __init__(self, args):
        self.process = subprocess.Popen([sys.executable, os.path.join(HERE, 'fjt_mujoco_server.py')]
                                        + args, stdout=subprocess.PIPE, text=True)
        self.lines = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line.strip())

    def count(self, prefix):
        return sum(1 for line in self.lines if line.startswith(prefix))

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def simulated_arm_files(model, folder):
    """Write what the MuJoCo arm reads into ``folder``: ``hrdf mjcf
    --gravity-compensation``'s ``scene.xml`` and ``robot.xml`` (primitives) and the
    ``ros2_controllers.yaml`` of ``hrdf moveit``'s package; returns the package."""
    from hrdf_ros.export.mjcf import mjcf_files
    from hrdf_ros.export.moveit.package import moveit_package
    for name, text in mjcf_files(model, 'robot', 'robot.xml', gravity_compensation=True,
                                 meshes='primitives').items():
        (folder / name).write_text(text)
    package = moveit_package(model, 'robot', samples=0, timestamp=0)
    (folder / 'ros2_controllers.yaml').write_text(package.files['config/ros2_controllers.yaml'])
    return package
