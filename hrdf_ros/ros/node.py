"""``hrdf_ros_node``: HRDF -> ``robot_description`` + TF from ``joint_states``.

Behaves like robot_state_publisher, but reads an HRDF file and computes every transform
with hrdf_ros's own kinematics (:class:`hrdf_ros.Kinematics`). Parameters and topics
that robot_state_publisher also has mean the same here (doc/explanation/node.md
compares the two).

Parameters: :data:`.parameter_table.PARAMETERS`; topics and their QoS (robot_state_publisher's,
same ``qos_overrides.*`` parameters): :data:`.qos.TOPICS`; services
(hrdf_ros_interfaces/srv, private namespace): :data:`.services.SERVICES`. The node is
built from these tables, and the documentation's node reference renders them. Bad
service requests get ``success = False`` and a message, never an exception.

joint_states carry URDF joint values; the node multiplies them by the HRDF ``gear_ratio``
(1 for actuators) to get HEBI positions. Service positions are HEBI positions. A parallel
gripper's finger joint (``gripper_joint``) moves its parts on /tf, its mimic joints
computed from it as robot_state_publisher does; the services answer for the HRDF's
joints (the arm).

joint_states hygiene (:mod:`hrdf_ros.ros.joint_input`): empty messages, mismatched
name/position lengths, duplicate or non-finite positions and (unless
``ignore_timestamp``) out-of-order stamps are dropped with a throttled warning; unknown
joint names are skipped and reported once each. Every 10 s, a summary of what was
rejected is logged.
"""
from __future__ import annotations

import signal
import sys
from dataclasses import replace
from typing import List, Optional

import rclpy
from rcl_interfaces.msg import SetParametersResult
from rclpy.clock import ClockChange, JumpThreshold
from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.signals import SignalHandlerOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from ..kinematics import backend
from ..stop_signals import stop_on_signals
from .arm_owner import ArmOwner
from .background import Background, SpinSlices
from .executor import NodeExecutor
from .ik_service import IkQueries
from .motion_service import MotionQueries
from .move_to import MoveToAction, available
from .joint_input import JointInput
from .loaded_robot import LoadedRobot, LoadError, load_robot
from .model_loading import ModelLoader
from .model_services import load_result
from .moving_tf import MovingTransforms
from .parameters import (StartupError, declare, declare_parameters, publish_limits,
                         throttle_interval_ns)
from .qos import JOINT_STATES, ROBOT_DESCRIPTION, TF, TF_STATIC
from .service_callbacks import ServiceCallbacks
from .servo_settings import start_servo
from .services import SERVICES, KinematicsQueries
from .tf_messages import TransformMessages

WARN_PERIOD_S = 5.0
#: "no /tf published yet": any stamp passes the publish_frequency limit.
NEVER_NS = -(1 << 62)
#: Parameters that change how joint_states are published, settable at run time.
PUBLISH_PARAMETERS = ('publish_frequency', 'ignore_timestamp')
SUMMARY_PERIOD_S = 10.0


def kinematics_path(requested: str) -> str:
    """Resolve the ``kinematics`` parameter and make it the process default (the
    Kinematics of every loaded robot uses it); numba is imported here, at start, not at
    the first service call. Returns the line the node logs.

    Raises:
        StartupError: an unknown value (or ``HRDF_ROS_KINEMATICS``), or numba asked for
            and not installed.
    """
    try:
        path = backend.resolve(requested)
    except (ValueError, ImportError) as exc:
        raise StartupError(f'kinematics: {exc}') from None
    backend.set_default(requested)
    if path == 'numba':
        backend.kernels()
    return backend.describe(path)


class HrdfStatePublisher(ServiceCallbacks, Node):
    """The hrdf_ros node (see the module docstring for parameters and topics).

    Raises:
        StartupError: when ``hrdf_file`` is missing or the HRDF is invalid; the message
            holds every located diagnostic.
    """

    def __init__(self, **kwargs):
        super().__init__('hrdf_ros_node', **kwargs)
        params = declare_parameters(self)
        self.get_logger().info(kinematics_path(params.kinematics))
        self.missing_joints = params.missing_joints
        self.ignore_timestamp = params.ignore_timestamp
        self.ik_timeout = params.ik_timeout
        self.motion_defaults = params.motion
        self.arm_owner = ArmOwner()
        self.servo = None                 # started below, once the robot runs
        self.slices = SpinSlices()
        self._ik_worker = Background('hrdf_ros_ik', self.slices.wake)
        self._motion_worker = Background('hrdf_ros_motion', self.slices.wake)
        self.loader = ModelLoader(params.naming, params.strict, params.access,
                                  params.allow_load, self.slices.wake)
        self.get_logger().info(self.loader.describe())
        # publish_frequency: /tf once a stamp reaches _next_publish_ns (one comparison)
        self._throttle_ns = throttle_interval_ns(params.publish_frequency,
                                                 params.ignore_timestamp)
        self._last_published_ns = self._next_publish_ns = NEVER_NS
        try:
            robot = load_robot(params.naming, path=params.hrdf_file, strict=params.strict)
        except LoadError as exc:
            raise StartupError(str(exc)) from None
        declare(self, 'robot_description', robot.urdf)
        self._setting_description = False
        self._pending: Optional[LoadedRobot] = None
        self._rejected_load: Optional[LoadError] = None
        self._summary_reported = None

        self._description_pub = self.create_publisher(String, ROBOT_DESCRIPTION.name,
                                                      ROBOT_DESCRIPTION.qos)
        self._tf_pub = self.create_publisher(TFMessage, TF.name, TF.qos,
                                             qos_overriding_options=TF.overrides)
        self._tf_static_pub = self.create_publisher(
            TFMessage, TF_STATIC.name, TF_STATIC.qos, qos_overriding_options=TF_STATIC.overrides)
        self._switch_to(robot)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self.add_post_set_parameters_callback(self._on_parameters_set)
        self.create_subscription(JointState, JOINT_STATES.name, self._on_joint_states,
                                 JOINT_STATES.qos, qos_overriding_options=JOINT_STATES.overrides)
        # as robot_state_publisher: time going backwards (a bag replayed) resets stamps
        self._time_jump = self.get_clock().create_jump_callback(
            JumpThreshold(min_forward=None, min_backward=Duration(nanoseconds=-1)),
            post_callback=self._on_time_jump)
        for service in SERVICES:
            self.create_service(service.srv_type, service.name, getattr(self, service.handler))
        missing = available()
        if missing:
            self.get_logger().warning(missing)
        self.move_to = None if missing else MoveToAction(self, params.motion.trajectory_action)
        self.servo = start_servo(self, params.servo) if params.servo.enabled else None
        if params.republish_frequency > 0.0:
            self.create_timer(1.0 / params.republish_frequency, self._on_timer)
        self.create_timer(SUMMARY_PERIOD_S, self._log_rejected_summary)

    def destroy_node(self):
        """Drop pending file and IK requests, then destroy the node."""
        self.loader.shutdown()
        self._ik_worker.shutdown()
        self._motion_worker.shutdown()
        if getattr(self, 'move_to', None) is not None:    # None: failed before it
            self.move_to.destroy()
        if getattr(self, 'servo', None) is not None:
            self.servo.shutdown()
        return super().destroy_node()

    # -- model switching ---------------------------------------------------------------

    def _switch_to(self, robot: LoadedRobot) -> None:
        """Make ``robot`` the running model: kinematics, joint state, URDF, static TF.

        Positions of joints that keep their name carry over to the new model.
        """
        previous = getattr(self, 'robot', None)
        joint_input = JointInput(robot.input_joint_names, self.missing_joints,
                                 self.ignore_timestamp, kept=len(robot.gripper_joint_names),
                                 ignored=robot.mimic_joint_names)
        if previous is not None:
            joint_input.carry_over(self.input)
        self.robot, self.input = robot, joint_input
        self._moving = (MovingTransforms(robot) if robot.moving_pairs or robot.gripper_moving
                        else None)
        self.queries = KinematicsQueries(robot.kinematics, robot.joint_names,
                                         robot.base_frame_id)
        self.ik_queries = IkQueries(robot, self.ik_timeout)
        if previous is not None:        # the collision objects stay over a reload
            self.motion_defaults = replace(self.motion_defaults, collision_objects=tuple(
                self.motion_queries.objects))
        dof = len(robot.joint_names)
        self.motion_queries = MotionQueries(robot, self.ik_queries, self.motion_defaults,
                                            fingers=lambda: self.input.values[dof:])
        self._stamp = None
        if self.servo is not None:
            self.servo.robot_changed()
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
            f'robot "{robot.name}" from {robot.source}: {model.dof_count} DoF [' + ', '.join(
                robot.joint_names + [f'{g} (gripper)' for g in robot.gripper_joint_names])
            + f'], {len(model.elements)} elements, '
            f'{len(robot.tree.links)} links, frames: '
            + ', '.join(f'{model.frame_count(t)} {t}'
                        for t in ('input', 'output', 'com', 'end_effector'))
            + f', total mass {model.total_mass:.4f} kg')
        for warning in model.warnings:
            self.get_logger().warning(str(warning))
        for note in robot.export_notes:
            self.get_logger().info(f'robot_description: {note}')

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
                    self._pending = self.loader.for_parameter(parameter.value)
                except LoadError as exc:
                    self._report_load_failure(exc)
                    self._rejected_load = exc
                    return SetParametersResult(successful=False, reason=str(exc))
        return SetParametersResult(successful=True)

    def _on_parameters_set(self, parameters) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            self._switch_to(pending)
        if any(p.name in PUBLISH_PARAMETERS for p in parameters):
            self._apply_publish_parameters()

    def _apply_publish_parameters(self) -> None:
        """A run-time ``publish_frequency``/``ignore_timestamp`` (type, range: rclpy)."""
        self.ignore_timestamp, self._throttle_ns = publish_limits(self)
        self.input.ignore_timestamp = self.ignore_timestamp
        self._next_publish_ns = (self._last_published_ns + self._throttle_ns
                                 if self._throttle_ns else NEVER_NS)

    def _report_load_failure(self, exc: LoadError) -> None:
        self.get_logger().error(f'HRDF not loaded, keeping robot "{self.robot.name}" from '
                                f'{self.robot.source}:\n{exc}')

    async def _on_load_hrdf(self, request, response):
        """Read a file or text off the executor, then switch to it (a path through the
        ``hrdf_file`` parameter, so that it shows the running file)."""
        try:
            robot = await self.loader.for_request(self.executor, request)
            if robot.source != '<text>':
                self.loader.prepared, self._rejected_load = robot, None
                result = self.set_parameters([Parameter('hrdf_file', value=robot.source)])
                if not result[0].successful:
                    raise self._rejected_load or LoadError(result[0].reason)
            else:
                self._switch_to(robot)
        except LoadError as exc:
            self._report_load_failure(exc)
            return load_result(response, error=exc)
        return load_result(response, robot=self.robot)

    # -- joint_states and TF -----------------------------------------------------------

    def _on_joint_states(self, msg: JointState):
        if self._moving is None:
            return  # nothing moves: every message is for others
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
            now = self.get_clock().now()
            stamp, stamp_ns = now.to_msg(), now.nanoseconds
        self._stamp = stamp
        if stamp_ns < self._next_publish_ns:
            return  # publish_frequency: the joint state is updated, /tf waits
        self._last_published_ns = stamp_ns
        self._next_publish_ns = stamp_ns + self._throttle_ns if self._throttle_ns else NEVER_NS
        self._publish_moving(stamp)

    def _on_time_jump(self, jump) -> None:
        """Time went backwards or changed type: forget the stamps of the old time line."""
        if jump.clock_change == ClockChange.ROS_TIME_NO_CHANGE:
            self.get_logger().warning('Moved backwards in time, re-publishing joint transforms')
        self._last_published_ns = self._next_publish_ns = NEVER_NS
        self.input.last_stamp_ns = -1

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


def main(argv: Optional[List[str]] = None) -> int:
    """Console entry point ``hrdf_ros_node``; returns the process exit code.

    Exit codes: 0 after a clean shutdown (SIGINT/SIGTERM), 1 when the node cannot start.
    Signals are handled here rather than by rclpy: its handler shuts the context down
    under a running executor, which races (an RCLError, or a wait that never wakes).
    Here a signal only sets a flag; the spin loop polls it every 0.1 s and then shuts
    down in order. Once a stop was asked for, further SIGINT/SIGTERM are ignored until
    the process exits: ``ros2 launch`` may send its own SIGINT right after one reached the
    whole group, and Python's handlers (restored at interpreter exit to the default
    action) would end a clean shutdown with a traceback or exit code -2.
    """
    argv = sys.argv if argv is None else argv
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    stop = stop_on_signals()    # takes no lock in the handler (see hrdf_ros.stop_signals)
    rclpy.init(args=argv, signal_handler_options=SignalHandlerOptions.NO)
    node = executor = None
    code = 0
    try:
        node = HrdfStatePublisher()
        executor = NodeExecutor(node)   # a task that raises is logged (see .executor)
        while not stop.is_set() and rclpy.ok():  # 0.1 s slices, every event in a slice
            executor.spin(node.slices, 0.1)
    except StartupError as exc:
        for line in str(exc).splitlines():
            print(f'hrdf_ros_node: {line}', file=sys.stderr)
        code = 1
    finally:
        if executor is not None:
            executor.destroy()
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_IGN if stop.is_set() else handler)
    return code


if __name__ == '__main__':
    sys.exit(main())
