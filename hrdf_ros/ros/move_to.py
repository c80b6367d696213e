"""The node's ``~/move_to`` action (hrdf_ros_interfaces/action/MoveTo): plan a motion
from where the robot is and run it on the arm's joint_trajectory_controller.

In: MoveTo goals; the node (its latest joint_states, its :class:`.motion_service.
MotionQueries`, its motion worker, its robot's kinematics); the ``trajectory_action``
parameter. Out: the goal's feedback (state, progress, the end effector's distance and
angle to the goal, from the latest joint_states) and result (MoveIt's error codes, the
controller's own); one ``control_msgs/action/FollowJointTrajectory`` goal to the
controller per planned motion, the trajectory that ``~/plan_motion`` would answer.

The sequence is MoveIt's (move_group's execution, moveit_simple_controller_manager): the
start state must be the robot's (joint_states, within ``allowed_start_tolerance``), the
plan is made in the motion worker (one request after the other, /tf goes on), nothing is
sent unless a whole motion was planned, the controller's goal is watched for
``duration x allowed_execution_duration_scaling + allowed_goal_duration_margin`` (the
values the MoveIt package writes, :data:`~hrdf_ros.export.moveit.config_files.
TRAJECTORY_EXECUTION`) and cancelled past that, and cancelling the MoveTo goal cancels the
controller's. One goal runs at a time: a goal that comes while one runs is aborted with a
message (FAILURE), and so is one that comes while the servo moves the arm
(:class:`~.arm_owner.ArmOwner`). control_msgs is imported when the node starts
(:func:`available`); without it the node runs without ``~/move_to`` and says so.
"""
from __future__ import annotations

import math
import time
from typing import Optional

import numpy as np
from rclpy.action import ActionClient, ActionServer, CancelResponse, GoalResponse
from rclpy.task import Future

from hrdf_ros_interfaces.action import MoveTo

from ..export.moveit.config_files import TRAJECTORY_EXECUTION
from .ik_service import IkError
from .motion_service import FAILURE, trajectory_message

#: rad (m): how far a goal's start_state may be from the last joint_states.
START_TOLERANCE = TRAJECTORY_EXECUTION['allowed_start_tolerance']
#: The controller's goal may run duration x SCALING + MARGIN s (MoveIt's monitoring).
DURATION_SCALING = TRAJECTORY_EXECUTION['allowed_execution_duration_scaling']
DURATION_MARGIN = TRAJECTORY_EXECUTION['allowed_goal_duration_margin']
#: s to wait for the controller's action server before COMMUNICATION_FAILURE.
SERVER_WAIT = 2.0
#: s between feedback messages (and checks of cancel and time) while the arm moves.
FEEDBACK_PERIOD = 0.05
#: GoalStatus values (action_msgs/msg/GoalStatus).
STATUS_SUCCEEDED, STATUS_CANCELED = 4, 5
R = MoveTo.Result


def available() -> Optional[str]:
    """None when control_msgs' FollowJointTrajectory imports, else why not (a line)."""
    try:
        from control_msgs.action import FollowJointTrajectory  # noqa: F401, PLC0415
    except ImportError as exc:
        return (f'control_msgs is not installed ({exc}): ~/move_to is not offered '
                '(make env builds it from ../shared/ros2-extra/interfaces/control_msgs; '
                'on a ROS 2 install: apt install ros-$ROS_DISTRO-control-msgs)')
    return None


class MoveToAction:
    """``~/move_to`` of ``node`` (:class:`~.node.HrdfStatePublisher`), sending to the
    FollowJointTrajectory action ``action_name``."""

    def __init__(self, node, action_name: str):
        from control_msgs.action import FollowJointTrajectory  # noqa: PLC0415
        self.node, self.action_name = node, action_name
        self._follow = FollowJointTrajectory
        self.client = ActionClient(node, FollowJointTrajectory, action_name)
        self.server = ActionServer(node, MoveTo, '~/move_to', execute_callback=self._execute,
                                   goal_callback=lambda goal: GoalResponse.ACCEPT,
                                   cancel_callback=lambda handle: CancelResponse.ACCEPT)
        self._busy = False

    def destroy(self) -> None:
        """Destroy the action server and client."""
        self.server.destroy()
        self.client.destroy()

    # -- waiting on the executor --------------------------------------------------------

    async def _sleep(self, seconds: float) -> None:
        """Resume after ``seconds`` (a one-shot timer; the executor runs on meanwhile)."""
        done = Future()

        def fire():
            timer.cancel()
            if not done.done():
                done.set_result(None)
        timer = self.node.create_timer(seconds, fire)
        try:
            await done
        finally:
            self.node.destroy_timer(timer)

    # -- the goal -----------------------------------------------------------------------

    async def _execute(self, handle):
        if self._busy:
            return self._finish(handle, FAILURE, 'another ~/move_to goal is running; '
                                                 'cancel it first')
        refused = self.node.arm_owner.claim('move_to')
        if refused is not None:
            return self._finish(handle, FAILURE, f'~/move_to refused: {refused}')
        self._busy = True
        try:
            return await self._move(handle)
        finally:
            self._busy = False
            self.node.arm_owner.release('move_to')

    def _finish(self, handle, code: int, message: str = '', result=None):
        result = result or R()
        result.error_code, result.message = int(code), message
        if code == R.SUCCESS:
            handle.succeed()
        elif code == R.PREEMPTED and handle.is_cancel_requested:
            handle.canceled()
        else:
            handle.abort()
        return result

    def _start(self, goal) -> np.ndarray:
        """The robot's state (HEBI positions) after checking the goal's start_state."""
        node = self.node
        latest = node._latest()
        if latest is None:
            raise IkError(R.UNABLE_TO_AQUIRE_SENSOR_DATA,
                          'no joint_states received yet: the motion starts where the robot '
                          'is')
        asked = node.motion_queries.ik.state(goal.start_state, latest, 'start_state')
        away = np.abs(asked - latest) / node.robot.gear_ratios
        if away.size and away.max() > START_TOLERANCE:
            k = int(np.argmax(away))
            raise IkError(R.START_STATE_INVALID,
                          f'start_state {node.robot.joint_names[k]} is {away[k]:.4g} from the '
                          f'last joint_states (at most {START_TOLERANCE:g}): the motion '
                          'starts where the robot is; leave start_state empty')
        return latest

    async def _move(self, handle):
        node, goal, result = self.node, handle.request, R()
        feedback = MoveTo.Feedback(state='PLANNING')
        handle.publish_feedback(feedback)
        queries = node.motion_queries
        try:
            start = self._start(goal)
            plan, index = await node._motion_worker.run(
                node.executor, queries.plan_request, goal, start, goal.cartesian)
        except IkError as exc:
            return self._finish(handle, exc.code, str(exc))
        except ValueError as exc:
            return self._finish(handle, FAILURE, str(exc))
        result.planning_time = float(plan.planning_time)
        if handle.is_cancel_requested:
            return self._finish(handle, R.PREEMPTED, 'cancelled while planning', result)
        if not plan.success:
            return self._finish(handle, plan.error_code, plan.message, result)
        if plan.fraction < 1.0:
            return self._finish(handle, R.PLANNING_FAILED,
                                f'the straight line is possible for {plan.fraction:.1%} of '
                                f'its length only: {plan.message}', result)
        result.trajectory = trajectory_message(plan.trajectory)
        kinematics = queries.robot.kinematics
        target = kinematics.end_effector(plan.path[-1], index)
        return await self._run(handle, result, plan.trajectory.duration,
                               lambda q: kinematics.end_effector(q, index), target)

    async def _run(self, handle, result, duration: float, end_effector, target):
        """Send ``result.trajectory`` to the controller and watch it to its end."""
        waited = 0.0
        while not self.client.server_is_ready():
            if waited >= SERVER_WAIT or handle.is_cancel_requested:
                return self._finish(
                    handle, R.PREEMPTED if handle.is_cancel_requested
                    else R.COMMUNICATION_FAILURE,
                    f'no FollowJointTrajectory server on {self.action_name} '
                    f'(the trajectory_action parameter) within {SERVER_WAIT:g} s', result)
            await self._sleep(FEEDBACK_PERIOD)
            waited += FEEDBACK_PERIOD
        controller_goal = self._follow.Goal(trajectory=result.trajectory)
        progress = {'t': None}

        def on_feedback(message):
            t = message.feedback.desired.time_from_start
            progress['t'] = t.sec + t.nanosec * 1e-9
        controller = await self.client.send_goal_async(controller_goal,
                                                       feedback_callback=on_feedback)
        if controller is None or not controller.accepted:
            result.controller_error_code = self._follow.Result.INVALID_GOAL
            result.controller_error_string = 'the controller rejected the trajectory'
            return self._finish(handle, R.CONTROL_FAILED,
                                'the controller rejected the trajectory (its log says why)',
                                result)
        result.sent = True
        started = time.monotonic()
        deadline = duration * DURATION_SCALING + DURATION_MARGIN
        outcome = controller.get_result_async()
        feedback = MoveTo.Feedback(state='EXECUTING')
        while not outcome.done():
            elapsed = time.monotonic() - started
            if handle.is_cancel_requested or elapsed > deadline:
                await self._cancel(controller, outcome)
                if handle.is_cancel_requested:
                    return self._finish(handle, R.PREEMPTED, 'cancelled; the controller\'s '
                                                             'goal was cancelled', result)
                return self._finish(handle, R.TIMED_OUT,
                                    f'the controller ran {elapsed:.2f} s, longer than the '
                                    f'{duration:.2f} s motion allows ({deadline:.2f} s); '
                                    'its goal was cancelled', result)
            t = progress['t'] if progress['t'] is not None else elapsed
            self._feedback(handle, feedback, min(t / duration, 1.0) if duration > 0 else 1.0,
                           end_effector, target)
            await self._sleep(FEEDBACK_PERIOD)
        answer = outcome.result()
        result.controller_error_code = int(answer.result.error_code)
        result.controller_error_string = answer.result.error_string
        self._feedback(handle, feedback, 1.0, end_effector, target)
        if answer.status == STATUS_SUCCEEDED and answer.result.error_code == 0:
            return self._finish(handle, R.SUCCESS, '', result)
        return self._finish(handle, R.CONTROL_FAILED,
                            f'the controller ended the motion with error_code '
                            f'{answer.result.error_code} (status {answer.status}): '
                            f'{answer.result.error_string}', result)

    async def _cancel(self, controller, outcome) -> None:
        """Cancel the controller's goal and wait (up to SERVER_WAIT) for it to end."""
        await controller.cancel_goal_async()
        waited = 0.0
        while not outcome.done() and waited < SERVER_WAIT:
            await self._sleep(FEEDBACK_PERIOD)
            waited += FEEDBACK_PERIOD

    def _feedback(self, handle, feedback, progress: float, end_effector, target) -> None:
        latest = self.node._latest()
        feedback.progress = float(progress)
        if latest is not None:
            pose = end_effector(latest)
            feedback.distance = float(np.linalg.norm(pose[:3, 3] - target[:3, 3]))
            cosine = (float(np.trace(target[:3, :3].T @ pose[:3, :3])) - 1.0) / 2.0
            feedback.angle = math.acos(max(-1.0, min(1.0, cosine)))
        else:
            feedback.distance = feedback.angle = math.nan
        handle.publish_feedback(feedback)
