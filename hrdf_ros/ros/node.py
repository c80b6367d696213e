"""``hrdf_ros_node``: HRDF -> ``robot_description`` + TF from ``joint_states``.

Behaves like robot_state_publisher, but reads an HRDF file and computes every transform
with hrdf_ros's own kinematics (:class:`hrdf_ros.Kinematics`).

Parameters (all read-only after start except ``hrdf_file``):
    hrdf_file (string, required): path of the HRDF file. Setting it at run time reloads:
        the new file is validated and prepared completely; on success
        robot_description, /tf_static and the kinematics switch over together, on
        failure the set is rejected with the errors and the running model is kept.
    robot_name (string): URDF robot name; default: the file name without extension.
    frame_prefix (string): prepended to every TF frame id (e.g. ``left/``); the URDF is
        unchanged, as with robot_state_publisher.
    publish_frequency (double, Hz, default 20.0): rate at which the latest moving
        transforms are re-published, stamped with the current time; 0 publishes only on
        ``joint_states``.
    joint_prefix (string, default ``J``): generated joint names are ``J1, J2, ...``.
    joint_names (string array): explicit joint names, in HEBI joint order (default: an
        element's HRDF ``tag``, else ``J1, J2, ...``).
    position_limits_file (string): YAML ``{joint: [lower, upper]}`` (rad or m) written as
        URDF position limits (those joints become ``revolute``).
    hebi_meshes (bool, default false): draw actuators with HEBI's meshes
        (``package://hebi_description/...``).
    missing_joints (string, ``last`` or ``zero``, default ``last``): the position of a
        joint absent from a joint_states message.
    ignore_timestamp (bool, default false): accept joint_states whose stamp is older
        than the newest accepted one (by default they are dropped as out of order).
    robot_description (string, generated): the URDF; only the node sets it.

Topics:
    robot_description (std_msgs/String, reliable, transient local, depth 1): the URDF.
    joint_states (sensor_msgs/JointState, subscribed, best effort, depth 100): positions
        by joint name (rad, m).
    /tf (tf2_msgs/TFMessage, reliable, depth 100): moving joints, stamped with the
        joint_states stamp (or now, when that stamp is zero).
    /tf_static (tf2_msgs/TFMessage, reliable, transient local): fixed joints, once per
        model.

Services (hrdf_ros_interfaces/srv, in the node's private namespace):
    ~/get_model_status (GetModelStatus): the loaded model: file, name, DoF, joint names,
        frame counts, total mass, warnings.
    ~/get_forward_kinematics (GetForwardKinematics): poses of one or all frames of a type
        (input, output, com, end_effector), by index or HRDF tag, for given positions or
        the latest joint_states.
    ~/get_jacobian (GetJacobian): the 6 x dof geometric Jacobian of one frame, rows
        [vx vy vz wx wy wz] in the reference frame, row major.
    ~/load_hrdf (LoadHrdf): replace the model with an HRDF file or text (as a reload).
    ~/validate_hrdf (ValidateHrdf): validate an HRDF file or text (every located error
        and warning, as ``hrdf validate``) without changing the running model.
Bad requests get ``success = False`` and a message, never an exception.

joint_states carry URDF joint values; the node multiplies them by the HRDF ``gear_ratio``
(1 for actuators) to get HEBI positions. Service positions are HEBI positions.

joint_states hygiene (:mod:`hrdf_ros.ros.joint_input`): empty messages, mismatched
name/position lengths, duplicate or non-finite positions and (unless
``ignore_timestamp``) out-of-order stamps are dropped with a throttled warning; unknown
joint names are skipped and reported once each. Every 10 s, a summary of what was
rejected is logged.
"""
from __future__ import annotations

import signal
import sys
import threading
from typing import List, Optional

import numpy as np
import rclpy
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.experimental import EventsExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from rclpy.task import Future
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from hrdf_ros_interfaces.srv import (GetForwardKinematics, GetJacobian, GetModelStatus,
                                     LoadHrdf, ValidateHrdf)

from .joint_input import JointInput
from .loaded_robot import LoadedRobot, LoadError, load_robot
from .model_services import diagnostic_msg, model_status, validate
from .moving_tf import MovingTransforms
from .parameters import StartupError, declare_parameters
from .services import KinematicsQueries
from .tf_messages import TransformMessages

LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
# Best effort, as robot_state_publisher's joint_states subscription (SensorDataQoS): it
# matches both reliable and best-effort publishers (drivers often use the latter); a
# reliable subscription would not match best-effort publishers at all. Depth 100
# absorbs bursts at kHz rates.
JOINT_STATES_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT)
WARN_PERIOD_S = 5.0
SUMMARY_PERIOD_S = 10.0


class HrdfStatePublisher(Node):
    """The hrdf_ros node (see the module docstring for parameters and topics).

    Raises:
        StartupError: when ``hrdf_file`` is missing or the HRDF is invalid; the message
            holds every located diagnostic.
    """

    def __init__(self, **kwargs):
        super().__init__('hrdf_ros_node', **kwargs)
        params = declare_parameters(self)
        self.naming = params.naming
        self.missing_joints = params.missing_joints
        self.ignore_timestamp = params.ignore_timestamp
        try:
            robot = load_robot(self.naming, path=params.hrdf_file)
        except LoadError as exc:
            raise StartupError(str(exc)) from None
        self.declare_parameter('robot_description', robot.urdf,
                               ParameterDescriptor(description='URDF generated from the HRDF'))
        self._setting_description = False
        self._pending: Optional[LoadedRobot] = None
        self._rejected_load: Optional[LoadError] = None
        self._summary_reported = None

        self._description_pub = self.create_publisher(String, 'robot_description', LATCHED_QOS)
        self._tf_pub = self.create_publisher(TFMessage, '/tf', TF_QOS)
        self._tf_static_pub = self.create_publisher(TFMessage, '/tf_static', LATCHED_QOS)
        self._switch_to(robot)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self.add_post_set_parameters_callback(self._on_parameters_set)
        self.create_subscription(JointState, 'joint_states', self._on_joint_states,
                                 JOINT_STATES_QOS)
        self.create_service(GetModelStatus, '~/get_model_status', self._on_model_status)
        self.create_service(GetForwardKinematics, '~/get_forward_kinematics',
                            self._on_forward_kinematics)
        self.create_service(GetJacobian, '~/get_jacobian', self._on_jacobian)
        self.create_service(LoadHrdf, '~/load_hrdf', self._on_load_hrdf)
        self.create_service(ValidateHrdf, '~/validate_hrdf', self._on_validate_hrdf)
        if params.publish_frequency > 0.0:
            self.create_timer(1.0 / params.publish_frequency, self._on_timer)
        self.create_timer(SUMMARY_PERIOD_S, self._log_rejected_summary)

    # -- model switching ---------------------------------------------------------------

    def _switch_to(self, robot: LoadedRobot) -> None:
        """Make ``robot`` the running model: kinematics, joint state, URDF, static TF.

        Positions of joints that keep their name carry over to the new model.
        """
        previous = getattr(self, 'robot', None)
        joint_input = JointInput(robot.joint_names, self.missing_joints, self.ignore_timestamp)
        if previous is not None:
            joint_input.carry_over(self.input)
        self.robot, self.input = robot, joint_input
        self._moving = MovingTransforms(robot) if robot.moving_pairs else None
        self.queries = KinematicsQueries(robot.kinematics, robot.joint_names,
                                         robot.base_frame_id)
        self._stamp = None
        if previous is not None:
            self._setting_description = True
            try:
                self.set_parameters([Parameter('robot_description', value=robot.urdf)])
            finally:
                self._setting_description = False
        self._description_pub.publish(String(data=robot.urdf))
        self._publish_static()
        if self.input.received:
            self._publish_moving(self.get_clock().now().to_msg())
        model = robot.model
        self.get_logger().info(
            f'robot "{robot.name}" from {robot.source}: {model.dof_count} DoF '
            f'[{", ".join(robot.joint_names)}], {len(model.elements)} elements, '
            f'{len(robot.tree.links)} links, frames: '
            + ', '.join(f'{model.frame_count(t)} {t}'
                        for t in ('input', 'output', 'com', 'end_effector'))
            + f', total mass {model.total_mass:.4f} kg')
        for warning in model.warnings:
            self.get_logger().warning(str(warning))

    def _on_set_parameters(self, parameters) -> SetParametersResult:
        """Validate a parameter change; a new ``hrdf_file`` is loaded and prepared here
        and switched to once the set succeeds."""
        self._pending = None
        for parameter in parameters:
            if parameter.name == 'robot_description' and not self._setting_description:
                return SetParametersResult(
                    successful=False,
                    reason='robot_description is generated from the HRDF; set hrdf_file')
            if parameter.name == 'hrdf_file':
                if parameter.type_ != Parameter.Type.STRING or not parameter.value:
                    return SetParametersResult(successful=False,
                                               reason='hrdf_file must be a non-empty path')
                try:
                    self._pending = load_robot(self.naming, path=parameter.value)
                except LoadError as exc:
                    self._report_load_failure(exc)
                    self._rejected_load = exc
                    return SetParametersResult(successful=False, reason=str(exc))
        return SetParametersResult(successful=True)

    def _on_parameters_set(self, parameters) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            self._switch_to(pending)

    def _report_load_failure(self, exc: LoadError) -> None:
        self.get_logger().error(f'HRDF not loaded, keeping robot "{self.robot.name}" from '
                                f'{self.robot.source}:\n{exc}')

    def _on_load_hrdf(self, request, response):
        try:
            if request.hrdf_path and not request.hrdf_text:
                self._rejected_load = None
                result = self.set_parameters([Parameter('hrdf_file', value=request.hrdf_path)])
                if not result[0].successful:
                    raise self._rejected_load or LoadError(result[0].reason)
                robot = self.robot
            else:
                robot = load_robot(self.naming, text=request.hrdf_text,
                                   base_directory=request.base_directory)
                self._switch_to(robot)
        except LoadError as exc:
            if not request.hrdf_path or request.hrdf_text:
                self._report_load_failure(exc)
            response.success, response.message = False, str(exc).splitlines()[0]
            response.errors = [diagnostic_msg(d) for d in exc.diagnostics
                               if d.severity == 'error']
            response.warnings = [diagnostic_msg(d) for d in exc.diagnostics
                                 if d.severity == 'warning']
            return response
        response.success = True
        response.message = (f'loaded robot "{robot.name}" from {robot.source}: '
                            f'{robot.model.dof_count} DoF')
        response.warnings = [diagnostic_msg(w) for w in robot.model.warnings]
        return response

    # -- joint_states and TF -----------------------------------------------------------

    def _on_joint_states(self, msg: JointState):
        stamp = msg.header.stamp
        stamp_ns = stamp.sec * 1_000_000_000 + stamp.nanosec
        unknown = self.input.new_unknown_names(msg.name)
        if unknown:
            self.get_logger().warning(
                'joint_states: ignoring joints this robot does not have: '
                + ', '.join(f'"{n}"' for n in unknown))
        reason = self.input.update(msg.name, msg.position, stamp_ns)
        if reason is not None:
            if reason != 'no known joint':
                total = sum(self.input.rejected.values())
                self.get_logger().warning(f'joint_states dropped: {reason} ({total} so far)',
                                          throttle_duration_sec=WARN_PERIOD_S)
            return
        if stamp_ns == 0:
            stamp = self.get_clock().now().to_msg()
        self._stamp = stamp
        self._publish_moving(stamp)

    def _log_rejected_summary(self):
        counts = dict(self.input.rejected)
        if counts == self._summary_reported:
            return
        previous = self._summary_reported or {}
        delta = {k: v - previous.get(k, 0) for k, v in counts.items() if v > previous.get(k, 0)}
        self._summary_reported = counts
        if delta:
            self.get_logger().info(
                f'joint_states in the last {SUMMARY_PERIOD_S:.0f} s: rejected '
                + ', '.join(f'{v} {k}' for k, v in sorted(delta.items()))
                + f' ({self.input.accepted} accepted since start)')

    def _on_timer(self):
        if self.input.received:
            self._publish_moving(self.get_clock().now().to_msg())

    def _publish_static(self):
        robot = self.robot
        if not robot.fixed_pairs:
            return
        stamp = self.get_clock().now().to_msg()
        message = TransformMessages(robot.fixed_pairs).fill(robot.fixed_transforms, stamp)
        self._tf_static_pub.publish(message)

    def _publish_moving(self, stamp):
        """The hot path's end: the moving transforms of the latest joint values
        (:mod:`.moving_tf`), stamped ``stamp``, published; nothing else."""
        if self._moving is not None:
            self._tf_pub.publish(self._moving.fill(self.input.values, stamp.sec,
                                                   stamp.nanosec))

    # -- services ----------------------------------------------------------------------

    def _hebi_positions(self) -> np.ndarray:
        """The latest joint_states (URDF joint values) as HEBI positions: x gear ratio."""
        return self.input.positions * self.robot.gear_ratios

    def _latest(self) -> Optional[np.ndarray]:
        return self._hebi_positions() if self.input.received else None

    def _on_model_status(self, request, response):
        return model_status(self.robot, response)

    def _on_validate_hrdf(self, request, response):
        """Validate an HRDF file or text without touching the running model."""
        return validate(request, response)

    def _on_forward_kinematics(self, request, response):
        stamp = self._stamp if request.use_latest_joint_states and self._stamp is not None \
            else self.get_clock().now().to_msg()
        return self.queries.forward_kinematics(request, response, self._latest(), stamp)

    def _on_jacobian(self, request, response):
        return self.queries.jacobian(request, response, self._latest())


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
        executor = EventsExecutor()
        executor.add_node(node)
        never = Future()  # spin in 0.1 s slices, handling every event in a slice
        while not stop.is_set() and rclpy.ok():
            executor.spin_until_future_complete(never, timeout_sec=0.1)
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
