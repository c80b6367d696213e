"""The "Jog" folder of ``hrdf_ros_web_view``: steer the arm live through an hrdf_ros_node's
servo (``servo.enabled``), with the buttons and keys of :mod:`hrdf_ros.view.jog_controls`.
The folder is there once that node answers that its servo is on (its ``servo.enabled``
parameter, asked through ``<planning_node>/get_parameters``).

In: the web view node (its scene's movable joints, its "Plan a motion" folder's end
effector link), the name of the planning node (the ``planning_node`` parameter). Out, to
that node's servo, as MoveIt Servo's users send them: geometry_msgs/TwistStamped on
``<planning_node>/delta_twist_cmds`` (``frame_id`` empty: the robot's base; or the end
effector's link: its own axes), control_msgs/JointJog on ``<planning_node>/delta_joint_cmds``
(one joint at the folder's speed), and ``<planning_node>/switch_command_type`` called
before the kind of command changes. Each press is streamed at :data:`STREAM_HZ` for
:data:`~hrdf_ros.view.jog_controls.NUDGE` s (the servo stops an arm whose commands stop
for its ``incoming_command_timeout``, 0.1 s), in a thread of its own
(``hrdf_web_jog``). The status line shows ``<planning_node>/status`` (std_msgs/Int8,
MoveIt Servo's codes), red when the servo halts.

The servo drives whatever takes its commands (``servo.command_out_topic``: the arm's
forward position controller or joint_trajectory_controller); the page draws the arm
where /tf puts it.
"""
from __future__ import annotations

import threading
import time
from typing import List, Optional

import numpy as np
from geometry_msgs.msg import TwistStamped
from rcl_interfaces.srv import GetParameters
from std_msgs.msg import Int8

from ..servo import StatusCode
from ..servo.status import MEANINGS
from .web_motion import _call

#: Hz at which a press's command is sent while it counts.
STREAM_HZ = 100.0
#: The joint speeds offered, rad/s (the servo keeps every joint within its limits).
JOINT_SPEEDS = ('0.1', '0.3', '1.0')


class WebJog:
    """The folder (module docstring) of ``view`` (:class:`.web_view.WebView`), steering
    through the node ``planning_node``; ``motion``: the view's
    :class:`~.web_motion.WebMotion` (its end effector link)."""

    def __init__(self, view, planning_node: str, motion, order: float = 2.5):
        from ..view.jog_controls import NUDGE, JogControls  # noqa: PLC0415 - the view extra
        self._nudge = NUDGE
        self.view, self._motion, self._node = view, motion, planning_node
        topic = f'{planning_node}/'
        self._twist = view.create_publisher(TwistStamped, topic + 'delta_twist_cmds', 10)
        self._jog_publisher = self._switch = None
        missing = []
        try:
            from control_msgs.msg import JointJog  # noqa: PLC0415 - not on PyPI
            self._JointJog = JointJog
            self._jog_publisher = view.create_publisher(JointJog, topic + 'delta_joint_cmds',
                                                        10)
        except ImportError:
            missing.append('control_msgs (joint jog)')
        try:
            from moveit_msgs.srv import ServoCommandType  # noqa: PLC0415
            self._ServoCommandType = ServoCommandType
            self._switch = view.create_client(ServoCommandType,
                                              topic + 'switch_command_type')
        except ImportError:
            missing.append('moveit_msgs (switching between twist and joint jog)')
        view.create_subscription(Int8, topic + 'status', self._on_status, 10)
        self._joints: List[str] = []
        self._lock = threading.Lock()
        self._message = None            # what is streamed, and until when (monotonic s)
        self._until = 0.0
        self._kind: Optional[int] = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        note = f'Commands go to `{planning_node}`\'s servo.'
        if missing:
            note += ' Not installed: ' + ', '.join(missing) + '.'
        self.controls = None

        def build():
            self.controls = JogControls(view.server, self._on_twist, self._on_jog, self.stop,
                                        order=order, joint_speeds=JOINT_SPEEDS, note=note)
            self.controls.show(StatusCode.NO_WARNING, f'waiting for {planning_node}/status')
            with self._lock:
                self.controls.set_joints(self._joints)

        self._parameters = view.create_client(GetParameters, topic + 'get_parameters')
        self._build = build
        self._thread = threading.Thread(target=self._run, name='hrdf_web_jog', daemon=True)
        self._thread.start()

    def set_joints(self, names: List[str]) -> None:
        """The robot's movable joints (URDF names, the joint jog's choices)."""
        with self._lock:
            self._joints = list(names)
            if self.controls is not None:
                self.controls.set_joints(names)

    def _servo_enabled(self) -> bool:
        """Ask the planning node for ``servo.enabled`` until it answers (the folder is
        built only when it is true); False when stopping."""
        while not self._stop.is_set():
            answer = _call(self._parameters, GetParameters.Request(names=['servo.enabled']),
                           timeout=2.0)
            if answer is not None and answer.values:
                return bool(answer.values[0].bool_value)
            self._stop.wait(1.0)
        return False

    # -- commands ------------------------------------------------------------------------

    def _on_twist(self, vector: np.ndarray, frame: str) -> None:
        msg = TwistStamped()
        if frame == 'end_effector':
            link = self._motion.end_effector if self._motion is not None else None
            if link is None:
                self.controls.show(StatusCode.INVALID, f'{self._node} has not named its end '
                                                       'effector yet')
                return
            msg.header.frame_id = link        # the node's own link name (no TF prefix)
        t, w = msg.twist.linear, msg.twist.angular
        t.x, t.y, t.z = (float(v) for v in vector[:3])
        w.x, w.y, w.z = (float(v) for v in vector[3:])
        self._send(msg, 'twist')

    def _on_jog(self, k: int, sign: int) -> None:
        with self._lock:
            joint = self._joints[k] if k < len(self._joints) else None
        if joint is None:
            return
        if self._jog_publisher is None:
            self.controls.show(StatusCode.INVALID, 'joint jog needs control_msgs')
            return
        msg = self._JointJog(joint_names=[joint],
                             velocities=[sign * self.controls.joint_speed])
        self._send(msg, 'joint jog')

    def _send(self, msg, kind: str) -> None:
        with self._lock:
            self._message, self._until = (msg, kind), time.monotonic() + self._nudge
        self._wake.set()

    def stop(self) -> None:
        """Stop sending: the servo brings the arm to rest."""
        with self._lock:
            self._message, self._until = None, 0.0

    # -- the stream ----------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._stream()
        except Exception:  # noqa: BLE001 - stopping: the node's clients went away under it
            if not self._stop.is_set():
                raise

    def _stream(self) -> None:
        if not self._servo_enabled():
            return
        self._build()
        period = 1.0 / STREAM_HZ
        while not self._stop.is_set():
            with self._lock:
                current = self._message if time.monotonic() < self._until else None
            if current is None:
                self._wake.wait(0.5)
                self._wake.clear()
                continue
            msg, kind = current
            switched = self._kind
            if not self._switch_to(kind):
                with self._lock:
                    self._message = None
                continue
            if self._kind != switched:      # the press counts from when the servo takes it
                with self._lock:
                    if self._message is current:
                        self._until = time.monotonic() + self._nudge
            msg.header.stamp = self.view.get_clock().now().to_msg()
            (self._twist if kind == 'twist' else self._jog_publisher).publish(msg)
            self._stop.wait(period)

    def _switch_to(self, kind: str) -> bool:
        """Make ``kind`` the servo's command type (a call when it changes); False (and
        the status says why) when the node does not answer."""
        if self._switch is None:
            return kind == 'twist'            # the servo starts on twists
        codes = {'twist': self._ServoCommandType.Request.TWIST,
                 'joint jog': self._ServoCommandType.Request.JOINT_JOG}
        if self._kind == codes[kind]:
            return True
        answer = _call(self._switch, self._ServoCommandType.Request(
            command_type=codes[kind]), timeout=2.0)
        if answer is None or not answer.success:
            self.controls.show(StatusCode.INVALID, f'{self._node}/switch_command_type did '
                                                   f'not switch to {kind}: is its servo on?')
            return False
        self._kind = codes[kind]
        return True

    def _on_status(self, msg: Int8) -> None:
        if self.controls is None:
            return
        try:
            status = StatusCode(int(msg.data))
        except ValueError:
            status = StatusCode.INVALID
        self.controls.show(status, f'{MEANINGS[status]} ({self._node}/status)')

    def shut_down(self) -> None:
        """Stop the stream's thread."""
        self._stop.set()
        self._wake.set()
