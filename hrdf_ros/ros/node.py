"""``hrdf_ros_node``: HRDF -> ``robot_description`` + TF from ``joint_states``.

Behaves like robot_state_publisher, but reads an HRDF file and computes every transform
with hrdf_ros's own kinematics (:class:`hrdf_ros.Kinematics`).

Parameters:
    hrdf_file (string, required): path of the HRDF file.
    robot_name (string): URDF robot name; default: the file name without extension.
    frame_prefix (string): prepended to every TF frame id (e.g. ``left/``); the URDF is
        unchanged, as with robot_state_publisher.
    publish_frequency (double, Hz, default 20.0): rate at which the latest moving
        transforms are re-published, stamped with the current time; 0 publishes only on
        ``joint_states``.
    joint_prefix (string, default ``J``): generated joint names are ``J1, J2, ...``.
    joint_names (string array): explicit joint names, in HEBI joint order.
    robot_description (string, read-only): the generated URDF.

Topics:
    robot_description (std_msgs/String, reliable, transient local, depth 1): the URDF.
    joint_states (sensor_msgs/JointState, subscribed): positions by joint name (rad, m).
    /tf (tf2_msgs/TFMessage, reliable, depth 100): moving joints, stamped with the
        joint_states stamp (or now, when that stamp is zero).
    /tf_static (tf2_msgs/TFMessage, reliable, transient local): fixed joints, once.

Services (hrdf_ros_interfaces/srv, in the node's private namespace):
    ~/get_model_status (GetModelStatus): the loaded model: file, name, DoF, joint names,
        frame counts, total mass, warnings.
    ~/get_forward_kinematics (GetForwardKinematics): poses of one or all frames of a type
        (input, output, com, end_effector), by index or HRDF tag, for given positions or
        the latest joint_states.
    ~/get_jacobian (GetJacobian): the 6 x dof geometric Jacobian of one frame, rows
        [vx vy vz wx wy wz] in the reference frame, row major.
Bad requests get ``success = False`` and a message, never an exception.

A joint absent from a message keeps its last position (0 until first received).
Messages whose name and position arrays differ in length, or that carry non-finite
positions, are dropped with a throttled warning.
"""
from __future__ import annotations

import math
import os
import signal
import sys
import threading
from typing import List, Optional

import numpy as np
import rclpy
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from hrdf_ros_interfaces.msg import HrdfDiagnostic
from hrdf_ros_interfaces.srv import GetForwardKinematics, GetJacobian, GetModelStatus

from ..diagnostics import HrdfError
from ..frames import build_frame_tree, joint_origin
from ..kinematics import Kinematics
from ..parser import load
from ..urdf import to_urdf
from .services import KinematicsQueries
from .tf_messages import to_transform_msgs

LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
WARN_PERIOD_S = 5.0


class StartupError(Exception):
    """The node cannot start (missing parameter, unreadable or invalid HRDF)."""


class HrdfStatePublisher(Node):
    """The hrdf_ros node (see the module docstring for parameters and topics).

    Raises:
        StartupError: when ``hrdf_file`` is missing or the HRDF is invalid; the message
            holds every located diagnostic.
    """

    def __init__(self, **kwargs):
        super().__init__('hrdf_ros_node', **kwargs)
        path = self.declare_parameter('hrdf_file', '').value
        frame_prefix = self.declare_parameter('frame_prefix', '').value
        frequency = float(self.declare_parameter('publish_frequency', 20.0).value)
        robot_name = self.declare_parameter('robot_name', '').value
        joint_prefix = self.declare_parameter('joint_prefix', 'J').value
        joint_names = self.declare_parameter(
            'joint_names', [''], ParameterDescriptor(description='joint names, HEBI order')
        ).value
        joint_names = [n for n in (joint_names or []) if n]
        if not path:
            raise StartupError('parameter "hrdf_file" is required '
                               '(--ros-args -p hrdf_file:=/path/to/robot.hrdf)')
        if not math.isfinite(frequency) or frequency < 0.0:
            raise StartupError(f'publish_frequency must be >= 0 Hz, got {frequency}')
        try:
            model = load(path)
        except HrdfError as exc:
            raise StartupError(str(exc)) from None
        for warning in model.warnings:
            self.get_logger().warning(str(warning))
        try:
            tree = build_frame_tree(model, joint_names, joint_prefix)
        except ValueError as exc:
            raise StartupError(str(exc)) from None
        robot_name = robot_name or os.path.splitext(os.path.basename(path))[0]
        self.model = model
        self.tree = tree
        self.kinematics = Kinematics(model)
        self.urdf = to_urdf(model, robot_name, tree=tree)
        self.declare_parameter('robot_description', self.urdf,
                               ParameterDescriptor(read_only=True,
                                                   description='URDF generated from the HRDF'))

        def frame(link: str) -> str:
            return frame_prefix + link

        moving = [j for j in tree.joints if not j.is_fixed]
        moving.sort(key=lambda j: j.dof)
        self._moving_pairs = [(frame(j.parent), frame(j.child)) for j in moving]
        fixed = [j for j in tree.joints if j.is_fixed]
        self._fixed_pairs = [(frame(j.parent), frame(j.child)) for j in fixed]
        self._fixed_transforms = np.array([joint_origin(model, j) for j in fixed]).reshape(
            -1, 4, 4)
        self._dof_index = {name: k for k, name in enumerate(tree.dof_names)}
        self._positions = np.zeros(model.dof_count)
        self._have_positions = False
        self._warned_unknown: set = set()
        self._rejected = 0

        self._description_pub = self.create_publisher(String, 'robot_description', LATCHED_QOS)
        self._tf_pub = self.create_publisher(TFMessage, '/tf', TF_QOS)
        self._tf_static_pub = self.create_publisher(TFMessage, '/tf_static', LATCHED_QOS)
        self._description_pub.publish(String(data=self.urdf))
        self._publish_static()
        self.create_subscription(JointState, 'joint_states', self._on_joint_states, 10)
        self.path, self.robot_name = path, robot_name
        self.queries = KinematicsQueries(self.kinematics, tree.dof_names, frame(tree.links[0]))
        self.create_service(GetModelStatus, '~/get_model_status', self._on_model_status)
        self.create_service(GetForwardKinematics, '~/get_forward_kinematics',
                            self._on_forward_kinematics)
        self.create_service(GetJacobian, '~/get_jacobian', self._on_jacobian)
        if frequency > 0.0:
            self.create_timer(1.0 / frequency, self._on_timer)
        self.get_logger().info(
            f'robot "{robot_name}" from {path}: {model.dof_count} DoF '
            f'[{", ".join(tree.dof_names)}], {len(model.elements)} elements, '
            f'{len(tree.links)} links, total mass {model.total_mass:.4f} kg')

    def _latest(self) -> Optional[np.ndarray]:
        return self._positions if self._have_positions else None

    def _on_model_status(self, request, response):
        model = self.model
        response.valid = True
        response.hrdf_file = self.path
        response.robot_name = self.robot_name
        response.hrdf_version = '.'.join(map(str, model.version))
        response.dof = model.dof_count
        response.joint_names = list(self.tree.dof_names)
        response.input_frames = model.frame_count('input')
        response.output_frames = model.frame_count('output')
        response.com_frames = model.frame_count('com')
        response.end_effector_frames = model.frame_count('end_effector')
        response.total_mass = model.total_mass
        response.warnings = [diagnostic_msg(w) for w in model.warnings]
        return response

    def _on_forward_kinematics(self, request, response):
        stamp = self._stamp if request.use_latest_joint_states and self._have_positions \
            else self.get_clock().now().to_msg()
        return self.queries.forward_kinematics(request, response, self._latest(), stamp)

    def _on_jacobian(self, request, response):
        return self.queries.jacobian(request, response, self._latest())

    def _publish_static(self):
        if not self._fixed_pairs:
            return
        stamp = self.get_clock().now().to_msg()
        msgs = to_transform_msgs(self._fixed_transforms, self._fixed_pairs, stamp)
        self._tf_static_pub.publish(TFMessage(transforms=msgs))

    def _reject(self, reason: str):
        self._rejected += 1
        self.get_logger().warning(f'joint_states dropped: {reason} ({self._rejected} so far)',
                                  throttle_duration_sec=WARN_PERIOD_S)

    def _on_joint_states(self, msg: JointState):
        if len(msg.name) != len(msg.position):
            self._reject(f'{len(msg.name)} names but {len(msg.position)} positions')
            return
        positions = self._positions.copy()
        updated = False
        for name, value in zip(msg.name, msg.position):
            k = self._dof_index.get(name)
            if k is None:
                if name not in self._warned_unknown:
                    self._warned_unknown.add(name)
                    self.get_logger().warning(f'joint_states: ignoring unknown joint "{name}"')
                continue
            if not math.isfinite(value):
                self._reject(f'non-finite position for "{name}"')
                return
            positions[k] = value
            updated = True
        if not updated:
            return
        self._positions = positions
        self._have_positions = True
        stamp = msg.header.stamp
        if stamp.sec == 0 and stamp.nanosec == 0:
            stamp = self.get_clock().now().to_msg()
        self._stamp = stamp
        self._publish_moving(stamp)

    def _on_timer(self):
        if self._have_positions:
            self._publish_moving(self.get_clock().now().to_msg())

    def _publish_moving(self, stamp):
        if not self._moving_pairs:
            return
        transforms = self.kinematics.dof_transforms(self._positions)
        msgs = to_transform_msgs(transforms, self._moving_pairs, stamp)
        self._tf_pub.publish(TFMessage(transforms=msgs))


def diagnostic_msg(diagnostic) -> HrdfDiagnostic:
    """An :class:`hrdf_ros.Diagnostic` as an hrdf_ros_interfaces/msg/HrdfDiagnostic."""
    return HrdfDiagnostic(
        severity=HrdfDiagnostic.WARNING if diagnostic.severity == 'warning'
        else HrdfDiagnostic.ERROR,
        file=diagnostic.path or '', line=max(0, diagnostic.line),
        column=max(0, diagnostic.column), element=diagnostic.element or '',
        attribute=diagnostic.attribute or '', message=diagnostic.message)


def main(argv: Optional[List[str]] = None) -> int:
    """Console entry point ``hrdf_ros_node``; returns the process exit code.

    Exit codes: 0 after a clean shutdown (SIGINT/SIGTERM), 1 when the node cannot start.
    Signals are handled here rather than by rclpy: its handler shuts the context down
    under a running executor, which races (an RCLError, or a wait that never wakes).
    Here a signal only sets a flag; the spin loop polls it every 0.1 s and then shuts
    down in order.
    """
    argv = sys.argv if argv is None else argv
    stop = threading.Event()

    def request_stop(signum, frame):
        stop.set()

    previous = {s: signal.signal(s, request_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    rclpy.init(args=argv, signal_handler_options=SignalHandlerOptions.NO)
    node = None
    code = 0
    try:
        node = HrdfStatePublisher()
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        while not stop.is_set() and rclpy.ok():
            executor.spin_once(timeout_sec=0.1)
    except StartupError as exc:
        for line in str(exc).splitlines():
            print(f'hrdf_ros_node: {line}', file=sys.stderr)
        code = 1
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return code


if __name__ == '__main__':
    sys.exit(main())
