"""A bare rclpy relay, the floor of a Python joint_states -> /tf node (``make bench-node``).

In: an HRDF file (only to know the transforms hrdf_ros_node would publish) and
``joint_states`` messages. Out: for every joint_states message, one ``/tf`` message with
the same parent/child frame ids as hrdf_ros_node's moving transforms, constant poses,
stamped with the joint_states stamp.

Same QoS as the node (:data:`hrdf_ros.ros.qos.JOINT_STATES`,
:data:`~hrdf_ros.ros.qos.TF`), same executor (``EventsExecutor`` spun in 0.1 s
slices, signals handled as in :func:`hrdf_ros.ros.node.main`), the TFMessage built once
with one shared stamp object. Per message it only copies the stamp (two integers) and
publishes: what is left is the cost of rclpy receiving and sending, the physical limit
of a Python node. Run: ``python benchmarks/tf_relay.py robot.hrdf [--ros-args ...]``.
"""
from __future__ import annotations

import argparse
import signal
import sys
import threading

import rclpy
from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
from rclpy.experimental import EventsExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions
from rclpy.task import Future
from sensor_msgs.msg import JointState
from std_msgs.msg import Header
from tf2_msgs.msg import TFMessage

from hrdf_ros.ros.loaded_robot import RobotOptions, load_robot
from hrdf_ros.ros.qos import JOINT_STATES, TF


class Relay(Node):
    """joint_states in, a constant TFMessage with the joint_states stamp out."""

    def __init__(self, pairs):
        super().__init__('hrdf_tf_relay')
        self.stamp = Time()
        self.message = TFMessage(transforms=[
            TransformStamped(header=Header(frame_id=parent, stamp=self.stamp),
                             child_frame_id=child) for parent, child in pairs])
        for t in self.message.transforms:
            t.transform.rotation.w = 1.0
        self.publisher = self.create_publisher(TFMessage, '/tf', TF.qos)
        self.create_subscription(JointState, 'joint_states', self._on_joint_states,
                                 JOINT_STATES.qos)

    def _on_joint_states(self, msg: JointState):
        stamp = msg.header.stamp
        self.stamp.sec = stamp.sec
        self.stamp.nanosec = stamp.nanosec
        self.publisher.publish(self.message)


def main(argv=None) -> int:
    argv = sys.argv if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('hrdf_file')
    args, _ = parser.parse_known_args(argv[1:])
    pairs = load_robot(RobotOptions(), path=args.hrdf_file).moving_pairs
    stop = threading.Event()
    previous = {s: signal.signal(s, lambda *_: stop.set())
                for s in (signal.SIGINT, signal.SIGTERM)}
    rclpy.init(args=argv, signal_handler_options=SignalHandlerOptions.NO)
    node = Relay(pairs)
    try:
        executor = EventsExecutor()
        executor.add_node(node)
        never = Future()
        while not stop.is_set() and rclpy.ok():
            executor.spin_until_future_complete(never, timeout_sec=0.1)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


if __name__ == '__main__':
    sys.exit(main())
