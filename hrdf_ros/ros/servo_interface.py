"""The node's servo (``servo.enabled``): MoveIt Servo's topics and services around the
servo core (:class:`hrdf_ros.servo.ServoCore`), stepped in a thread of its own.

In (the node's private namespace, as MoveIt Servo names them): ``~/delta_twist_cmds``
(geometry_msgs/TwistStamped), ``~/delta_joint_cmds`` (control_msgs/JointJog),
``~/pose_target_cmds`` (geometry_msgs/PoseStamped); the services
``~/switch_command_type`` (moveit_msgs/srv/ServoCommandType: which of the three is
followed; TWIST at start) and ``~/pause_servo`` (std_srvs/srv/SetBool); the arm's state
from the node's joint_states. Out: the arm controller's command every step
(``servo.command_out_type``: std_msgs/Float64MultiArray of URDF positions for a forward
position controller, or a one-point trajectory_msgs/JointTrajectory for
joint_trajectory_controller's ``~/joint_trajectory``, on ``servo.command_out_topic``) and
``~/status`` (std_msgs/Int8, moveit_servo's status codes) when it changes, and every
``STATUS_PERIOD`` s while the servo moves the arm.

The loop (thread ``hrdf_ros_servo``) steps every ``servo.publish_period``:

* The servo owns the arm (:class:`~.arm_owner.ArmOwner`) from the first command it takes
  until the arm is at rest again with no command; meanwhile ``~/move_to`` is refused, and
  while a ``~/move_to`` goal runs the servo refuses its commands (status INVALID, -1,
  and a warning with the reason). Taking the arm, the servo starts from the latest
  joint_states (no joint_states yet: the command is refused).
* At rest and without a command, nothing is sent: the controller holds the last
  position.
* ``~/pause_servo`` true: the command is dropped, the arm comes to rest within its
  acceleration limits, and commands are refused until it is resumed (false).
* A new robot (a reload) or new collision objects: the arm comes to rest first, then the
  servo takes them (its own planning scene: the planner of the motion services is used by
  the motion worker alone).
"""
from __future__ import annotations

import math
import threading
import time
from typing import Optional

import numpy as np
from control_msgs.msg import JointJog as JointJogMessage
from geometry_msgs.msg import PoseStamped, TwistStamped
from moveit_msgs.srv import ServoCommandType
from rclpy.qos import QoSProfile
from std_msgs.msg import Float64MultiArray, Int8
from std_srvs.srv import SetBool
from tf2_msgs.msg import TFMessage
from trajectory_msgs.msg import JointTrajectory

from ..servo import ServoCore, StatusCode
from .ik_service import IkError
from .motion_service import build_planner, hold_fingers
from .qos import LATCHED_QOS, TF_QOS
from .servo_messages import (CommandError, Frames, jog_command, pose_command,
                             position_message, trajectory_message, twist_command)
from .servo_settings import ServoSettings
from .tf_buffer import TfBuffer

#: s between two ~/status messages of the same code while the servo moves the arm.
STATUS_PERIOD = 0.1
#: s between two warnings of the same kind (refused commands).
WARN_PERIOD = 2.0
#: Steps the loop may fall behind before it starts its clock again (no catching up).
MAX_LAG_STEPS = 10
#: MoveIt Servo's command queue depth (its subscriptions: 10).
COMMAND_QOS = QoSProfile(depth=10)
COMMAND_TYPES = {ServoCommandType.Request.JOINT_JOG: 'joint jog',
                 ServoCommandType.Request.TWIST: 'twist',
                 ServoCommandType.Request.POSE: 'pose'}


class ServoInterface:
    """The servo of ``node`` (:class:`~.node.HrdfStatePublisher`: its robot, its
    ``ik_queries``, its latest joint_states, its ``arm_owner``); see the module docstring.
    """

    def __init__(self, node, settings: ServoSettings):
        self.node, self.settings = node, settings
        self.period = settings.parameters.publish_period
        self.expected = ServoCommandType.Request.TWIST
        self.tf = TfBuffer()
        self._lock = threading.Lock()
        self._message = None                  # (kind, message) not yet taken
        self._paused = False
        self._robot_changed = True
        self._objects = None                  # new collision objects not yet taken
        self._core: Optional[ServoCore] = None
        self._robot = None
        self._status: Optional[int] = None
        self._status_time = -math.inf
        self._warned = {}
        for kind, message_type, topic in (('twist', TwistStamped, '~/delta_twist_cmds'),
                                          ('joint jog', JointJogMessage,
                                           '~/delta_joint_cmds'),
                                          ('pose', PoseStamped, '~/pose_target_cmds')):
            node.create_subscription(message_type, topic,
                                     lambda m, k=kind: self._take(k, m), COMMAND_QOS)
        node.create_subscription(TFMessage, '/tf', self.tf.add_message, TF_QOS)
        node.create_subscription(TFMessage, '/tf_static', self.tf.add_message, LATCHED_QOS)
        self._status_pub = node.create_publisher(Int8, '~/status', COMMAND_QOS)
        if settings.command_out_type == 'forward_position':
            self._out = node.create_publisher(Float64MultiArray, settings.topic, COMMAND_QOS)
        else:
            self._out = node.create_publisher(JointTrajectory, settings.topic, COMMAND_QOS)
        node.create_service(ServoCommandType, '~/switch_command_type', self._on_switch)
        node.create_service(SetBool, '~/pause_servo', self._on_pause)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name='hrdf_ros_servo', daemon=True)
        self._thread.start()

    def describe(self) -> str:
        """The line the node logs at start."""
        return (f'servo: {self.settings.command_out_type} commands on {self.settings.topic} '
                f'every {self.period * 1000:g} ms; commands on ~/delta_twist_cmds, '
                '~/delta_joint_cmds, ~/pose_target_cmds (following twists: '
                '~/switch_command_type to change)')

    def shutdown(self) -> None:
        """Stop the loop and wait for it (at most 2 s)."""
        self._stop.set()
        self._thread.join(timeout=2.0)

    # -- from the executor -------------------------------------------------------------

    def robot_changed(self) -> None:
        """The node runs another robot: taken once the arm is at rest."""
        with self._lock:
            self._robot_changed = True

    def objects_changed(self, objects) -> None:
        """The collision objects are now ``objects`` (the schema's mappings)."""
        with self._lock:
            self._objects = list(objects)

    def _take(self, kind: str, message) -> None:
        with self._lock:
            self._message = (kind, message)

    def _on_switch(self, request, response):
        kind = COMMAND_TYPES.get(request.command_type)
        response.success = kind is not None
        if kind is None:
            self.node.get_logger().warning(
                f'servo: unknown command type {request.command_type} (JOINT_JOG 0, TWIST 1, '
                'POSE 2); still following ' + COMMAND_TYPES[self.expected] + ' commands')
            return response
        with self._lock:
            self.expected = request.command_type
            self._message = None
        self.node.get_logger().info(f'servo: following {kind} commands')
        return response

    def _on_pause(self, request, response):
        with self._lock:
            self._paused = bool(request.data)
            self._message = None
        response.success = True
        response.message = ('servo paused: the arm comes to rest' if request.data
                            else 'servo resumed')
        return response

    # -- the loop --------------------------------------------------------------------------

    def _loop(self) -> None:
        next_time = time.monotonic()
        while not self._stop.is_set():
            next_time += self.period
            wait = next_time - time.monotonic()
            if wait > 0:
                self._stop.wait(wait)
            elif -wait > MAX_LAG_STEPS * self.period:
                next_time = time.monotonic()
            try:
                self._tick()
            except Exception as exc:  # noqa: BLE001 - the loop must not die silently
                self._warn('error', f'servo: step failed ({type(exc).__name__}: {exc}); '
                                    'the arm is brought to rest')
                self._halt()

    def _tick(self) -> None:
        with self._lock:
            message, self._message = self._message, None
            paused = self._paused
            changed, objects = self._robot_changed, self._objects
        core = self._core
        moving = core is not None and self.node.arm_owner.owner == 'servo'
        if not moving and (changed or objects is not None):
            self._rebuild(changed, objects)
            core = self._core
        elif moving and (changed or objects is not None):
            core.stop()                       # at rest first, then the new scene
            message = None
        if core is None:
            return
        if message is not None:
            self._command(core, message, paused)
        if self.node.arm_owner.owner != 'servo':
            return
        core.paused = paused
        output = core.step()
        self._send(output)
        self._publish_status(int(output.status), output.message)
        if core.at_rest:
            self.node.arm_owner.release('servo')

    def _rebuild(self, changed: bool, objects) -> None:
        """A core for the running robot and collision objects (built here, in the loop)."""
        with self._lock:
            self._robot_changed = False
            self._objects = None
        node = self.node
        robot = node.robot
        if objects is None:
            objects = node.motion_queries.objects
        try:
            if changed or self._core is None:
                planner = build_planner(robot, objects)
            else:
                planner = self._core.setup
                planner.set_collision_objects(objects)
            self._core = ServoCore(planner, self.settings.parameters,
                                   positions=self._start_state(planner, robot))
        except (IkError, ValueError) as exc:
            self._core = None
            self._warn('build', f'servo: not running for robot "{robot.name}": {exc}')
            return
        self._robot = robot
        self._frames = Frames(node.ik_queries, self.tf)
        node.get_logger().info(f'servo: ready for robot "{robot.name}" '
                               f'({len(robot.joint_names)} joints)')
        self._publish_status(int(StatusCode.NO_WARNING), 'ready')

    def _start_state(self, planner, robot) -> np.ndarray:
        """The arm's latest joint_states (HEBI), clipped into the limits; the middle of
        the limits before any arrived."""
        latest = self.node._latest()
        lower, upper = planner.position_limits[:, 0], planner.position_limits[:, 1]
        if latest is None:
            middle = np.where(np.isfinite(lower) & np.isfinite(upper), (lower + upper) / 2,
                              0.0)
            return np.clip(middle, lower, upper)
        return np.clip(latest, lower, upper)

    def _command(self, core: ServoCore, message, paused: bool) -> None:
        kind, payload = message
        expected = COMMAND_TYPES[self.expected]
        if kind != expected:
            self._refuse(f'servo: a {kind} command while following {expected} commands is '
                         'ignored (~/switch_command_type changes that)')
            return
        if paused:
            self._refuse('servo: paused (~/pause_servo false resumes it); command ignored')
            return
        owner = self.node.arm_owner
        if owner.owner != 'servo':
            latest = self.node._latest()
            if latest is None:
                self._refuse('servo: no joint_states received yet: the servo starts where '
                             'the arm is')
                return
            reason = owner.claim('servo')
            if reason is not None:
                self._refuse(f'servo: command refused: {reason}')
                return
            try:
                hold_fingers(core.setup, self.node.input.values[len(self._robot.joint_names):])
                core.reset(core.clip(latest))
            except ValueError as exc:
                owner.release('servo')
                self._refuse(f'servo: command refused: {exc}', key='command error')
                return
        robot = self._robot
        try:
            if kind == 'twist':
                command = twist_command(payload, self._frames, core.positions,
                                        core.end_effector)
            elif kind == 'joint jog':
                command = jog_command(payload, robot.joint_names, robot.gear_ratios)
            else:
                command = pose_command(payload, self._frames, core.positions)
            core.command(command)
        except (CommandError, ValueError, TypeError) as exc:
            self._refuse(f'servo: command refused: {exc}', key='command error')

    def _send(self, output) -> None:
        robot = self._robot
        if self.settings.command_out_type == 'forward_position':
            self._out.publish(position_message(output.positions, robot.gear_ratios))
        else:
            self._out.publish(trajectory_message(output.positions, output.velocities,
                                                 robot.joint_names, robot.gear_ratios,
                                                 self.period))

    def _publish_status(self, code: int, text: str) -> None:
        now = time.monotonic()
        if code == self._status and now - self._status_time < STATUS_PERIOD:
            return
        if code != self._status and code != int(StatusCode.NO_WARNING):
            self.node.get_logger().info(f'servo: {text}', throttle_duration_sec=WARN_PERIOD)
        self._status, self._status_time = code, now
        self._status_pub.publish(Int8(data=code))

    def _refuse(self, reason: str, key: Optional[str] = None) -> None:
        """Status INVALID and a warning, at most one per ``key`` (default: the reason
        itself; reasons that carry an exception's text share one key) per WARN_PERIOD."""
        self._publish_status(int(StatusCode.INVALID), reason.removeprefix('servo: '))
        self._warn(reason if key is None else key, reason)

    def _warn(self, key: str, text: str) -> None:
        now = time.monotonic()
        if now - self._warned.get(key, -math.inf) >= WARN_PERIOD:
            self._warned[key] = now
            self.node.get_logger().warning(text)

    def _halt(self) -> None:
        """After a failed step: no command, the arm to rest from where it was sent."""
        core = self._core
        if core is not None:
            core.stop()
