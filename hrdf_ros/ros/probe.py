"""A client of hrdf_ros_node for demos and tests: starts the node process, publishes
``joint_states`` and collects ``/tf``, ``/tf_static`` and ``robot_description``."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import List, Optional, Sequence

import numpy as np
import rclpy
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from .qos import LATCHED_QOS, TF_QOS
from .tf_buffer import TfBuffer

STATIC_LISTENER_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                                 durability=DurabilityPolicy.TRANSIENT_LOCAL)


def start_node_process(hrdf_file: str, parameters: Optional[dict] = None,
                       stderr=None, namespace: str = '') -> subprocess.Popen:
    """Start ``hrdf_ros_node`` as its own process (``python -m hrdf_ros.ros.node``).

    Args:
        hrdf_file: HRDF path given as the ``hrdf_file`` parameter (empty: not given).
        parameters: further ``name: value`` ROS parameters.
        stderr: where the node's stderr goes (default: inherited).
        namespace: ROS namespace of the node (e.g. ``/left``); default: none.

    Returns:
        The process; stop it with :func:`stop_node_process`.
    """
    args = [sys.executable, '-m', 'hrdf_ros.ros.node', '--ros-args']
    if hrdf_file:
        args += ['-p', f'hrdf_file:={hrdf_file}']
    for name, value in (parameters or {}).items():
        args += ['-p', f'{name}:={value}']
    if namespace:
        args += ['-r', f'__ns:={namespace}']
    return subprocess.Popen(args, stderr=stderr, env=dict(os.environ))


def stop_node_process(process: subprocess.Popen, sig=signal.SIGTERM,
                      timeout: float = 30.0) -> int:
    """Send ``sig`` to the node process and wait for it; returns its exit code.

    Raises:
        subprocess.TimeoutExpired: when it does not exit within ``timeout`` s (it is
            then killed).
    """
    if process.poll() is None:
        process.send_signal(sig)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise


class NodeProbe(Node):
    """Publishes JointState and records what hrdf_ros_node publishes."""

    def __init__(self, name: str = 'hrdf_ros_probe', namespace: str = ''):
        super().__init__(name, namespace=namespace)
        self.buffer = TfBuffer()
        self.robot_description: Optional[str] = None
        self.tf_messages: List[TFMessage] = []
        self.tf_static_messages: List[TFMessage] = []
        self._tf_stamps = set()
        self.joint_states = self.create_publisher(JointState, 'joint_states', 10)
        self.create_subscription(String, 'robot_description', self._on_description,
                                 LATCHED_QOS)
        self.create_subscription(TFMessage, '/tf', self._on_tf, TF_QOS)
        # depth 100 like tf2's static listener: with depth 1, /tf_static messages of
        # several publishers arriving together would replace one another.
        self.create_subscription(TFMessage, '/tf_static', self._on_tf_static, STATIC_LISTENER_QOS)
        self._clients_by_name = {}

    def _on_description(self, msg: String):
        self.robot_description = msg.data

    def _on_tf(self, msg: TFMessage):
        self.tf_messages.append(msg)
        self._tf_stamps.update((t.header.stamp.sec, t.header.stamp.nanosec)
                               for t in msg.transforms)
        self.buffer.add_message(msg)

    def _on_tf_static(self, msg: TFMessage):
        self.tf_static_messages.append(msg)
        self.buffer.add_message(msg)

    def spin_until(self, predicate, timeout: float) -> bool:
        """Spin this node until ``predicate()`` is true or ``timeout`` s pass."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            rclpy.spin_once(self, timeout_sec=0.02)
        return predicate()

    def wait_for_node(self, timeout: float = 30.0) -> bool:
        """Spin until hrdf_ros_node is fully connected: robot_description received and our
        ``joint_states`` publisher matched to its subscription (so nothing is lost)."""
        return self.spin_until(lambda: self.robot_description is not None
                               and self.joint_states.get_subscription_count() > 0, timeout)

    def publish_positions(self, names: Sequence[str], positions: Sequence[float],
                          stamp=None):
        """Publish one JointState (stamped now unless ``stamp`` is given); returns the
        stamp."""
        msg = JointState()
        msg.header.stamp = self.get_clock().now().to_msg() if stamp is None else stamp
        msg.name = list(names)
        msg.position = [float(p) for p in positions]
        self.joint_states.publish(msg)
        return msg.header.stamp

    def publish_until_tf(self, names: Sequence[str], positions: Sequence[float],
                         stamps=None, timeout: float = 30.0, period: float = 1.0):
        """Publish one JointState every ``period`` s, each with a new stamp (the next of
        the iterator ``stamps``, or now), until a /tf with one of them arrives; returns
        that stamp, or None after ``timeout`` s.

        For the first message to a node just started: the node's /tf publisher may not
        have matched this probe's subscription yet when its first /tf goes out (volatile
        QoS: that one is lost to us), even once :meth:`wait_for_node` is true. Once one
        /tf arrived, both routes are matched and single messages are enough."""
        deadline = time.monotonic() + timeout
        sent = []
        while time.monotonic() < deadline:
            sent.append(self.publish_positions(
                names, positions, None if stamps is None else next(stamps)))
            if self.spin_until(lambda: any(self.has_tf_stamped(s) for s in sent),
                               min(period, max(0.0, deadline - time.monotonic()))):
                return next(s for s in sent if self.has_tf_stamped(s))
        return next((s for s in sent if self.has_tf_stamped(s)), None)

    def has_tf_stamped(self, stamp) -> bool:
        """True once a /tf message with this header stamp has arrived."""
        return (stamp.sec, stamp.nanosec) in self._tf_stamps

    def lookup(self, target: str, source: str) -> np.ndarray:
        """(4, 4) pose of ``source`` in ``target`` from the latest TF received."""
        return self.buffer.lookup(target, source)

    def call(self, service_type, name: str, request, timeout: float = 30.0):
        """Call a service of the node under test; returns the response, or None when the
        service is not available or does not answer within ``timeout`` s.

        A request is sent again when no answer comes within 2 s: right after a node
        restarts, discovery data of the previous process can make the service look
        ready before the new server is matched, and that first request is lost.
        (Use only for requests that are safe to repeat.)
        """
        client = self._clients_by_name.get(name)
        if client is None:
            client = self._clients_by_name[name] = self.create_client(service_type, name)
        deadline = time.monotonic() + timeout
        if not self.spin_until(client.service_is_ready, timeout):
            return None
        while time.monotonic() < deadline:
            future = client.call_async(request)
            if self.spin_until(future.done, min(2.0, deadline - time.monotonic())):
                return future.result()
            client.remove_pending_request(future)
        return None
