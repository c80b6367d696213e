"""The "Plan a motion" folder of ``hrdf_ros_web_view``: collisions drawn, and "plan and go"
to a handle, through the services of an hrdf_ros_node (as RViz's MotionPlanning display
works through move_group).

In: the web view node (its scene, TF buffer, fixed frame, frame_prefix; with ``gui``, its
sliders), the name of the planning node (the ``planning_node`` parameter). Out, on the
page: the links in collision in :data:`IN_COLLISION` and a line naming the pairs (from the
planning node's ``~/check_state_validity`` at its last joint_states, whenever /tf moved);
a handle (viser's transform controls) at the first end effector; a "plan and go" button
that plans from where the robot is to the handle's pose (a joint motion, or a straight
line of the end effector) with or without collision avoidance, and runs it:

* with ``gui`` (the page's sliders publish joint_states): ``~/plan_motion`` or
  ``~/plan_cartesian_path`` from the sliders' values, then the trajectory played on the
  sliders at its real speed, :data:`FRAME_RATE` frames a second, as
  joint_trajectory_controller interpolates it (:func:`hrdf_ros.motion.trajectory.playback`);
* without (a robot or a simulation publishes joint_states): ``~/move_to``, which runs it
  on the arm's joint_trajectory_controller.

The end effector's path is drawn as a line while it moves (from /tf); the panel says the
duration, or why there is no plan (then nothing moves). Every call runs in a thread of
its own, never on the executor's, and waits at most :data:`CALL_TIMEOUT` s.
"""
from __future__ import annotations

import threading
import time
from typing import List, Optional

import numpy as np
from geometry_msgs.msg import Pose
from sensor_msgs.msg import JointState

from hrdf_ros_interfaces.srv import (GetModelStatus, GetStateValidity, PlanCartesianPath,
                                     PlanMotion)

from ..kinematics.rotations import quaternion_to_rotation, rotation_to_quaternion

#: The colour of links in collision (0..255): magenta, as in ``hrdf view`` (HEBI's
#: actuators are red).
IN_COLLISION = (255, 0, 255)
#: Frames a second of a played trajectory; s to wait for one service answer.
FRAME_RATE, CALL_TIMEOUT = 30.0, 15.0
#: What the end effector does, in the panel.
MOTIONS = ('joint motion', 'straight line')
#: Colour (0..255) and thickness (m) of the drawn path; its scene node; the handle's.
PATH_COLOUR, PATH_THICKNESS, PATH, HANDLE = (30, 160, 60), 0.004, '/planned_path', \
    '/motion_handle'
#: Velocity and acceleration scaling of a plan (the panel's slider starts here).
DEFAULT_SCALING = 0.5


def _call(client, request, timeout: float = CALL_TIMEOUT):
    """The response of ``client`` to ``request`` from a thread that is not the executor's
    (None when the service is not there or does not answer in ``timeout`` s)."""
    if not client.wait_for_service(timeout_sec=min(timeout, 2.0)):
        return None
    done = threading.Event()
    future = client.call_async(request)
    future.add_done_callback(lambda _f: done.set())
    if not done.wait(timeout):
        client.remove_pending_request(future)
        return None
    return future.result()


def _in_thread(work, stop: threading.Event) -> None:
    """``work()`` in a thread of its own; an exception once ``stop`` is set (the node's
    clients destroyed under it) ends it quietly."""
    def run():
        try:
            work()
        except Exception:  # noqa: BLE001 - stopping: the node's clients went away
            if not stop.is_set():
                raise
    threading.Thread(target=run, daemon=True, name='web_motion').start()


def _pose_message(pose, matrix: np.ndarray) -> None:
    x, y, z, w = rotation_to_quaternion(matrix[:3, :3])
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in matrix[:3, 3])
    pose.orientation.x, pose.orientation.y = float(x), float(y)
    pose.orientation.z, pose.orientation.w = float(z), float(w)


class WebMotion:
    """The folder and handle (module docstring) of ``view`` (:class:`.web_view.WebView`),
    planning through the node ``planning_node``."""

    def __init__(self, view, planning_node: str, order: float = 2.0):
        self.view = view
        service = f'{planning_node}/'
        self._status_client = view.create_client(GetModelStatus, service + 'get_model_status')
        self._validity = view.create_client(GetStateValidity, service + 'check_state_validity')
        self._plan = view.create_client(PlanMotion, service + 'plan_motion')
        self._line = view.create_client(PlanCartesianPath, service + 'plan_cartesian_path')
        self._move_to = None
        if not view.gui:
            from rclpy.action import ActionClient  # noqa: PLC0415
            from hrdf_ros_interfaces.action import MoveTo  # noqa: PLC0415
            self._move_to = ActionClient(view, MoveTo, service + 'move_to')
        self._planning_node = planning_node
        self.end_effector: Optional[str] = None       # URDF link of the first end effector
        self.pairs: List[tuple] = []
        self._checking = False
        self._check_again = False
        self._busy = threading.Lock()
        self._stop = threading.Event()
        self._trail: Optional[List[np.ndarray]] = None
        self._path = None
        self._handle = None
        gui = view.server.gui
        with gui.add_folder('Plan a motion', order=order):
            self._collisions = gui.add_markdown('**Collisions**: waiting for '
                                                f'`{planning_node}`')
            self._motion = gui.add_dropdown('motion', MOTIONS, initial_value=MOTIONS[0],
                                            hint='joint motion: a collision-free motion to '
                                                 "the handle's pose; straight line: the end "
                                                 'effector along a straight line to it')
            self._avoid = gui.add_checkbox('avoid collisions', initial_value=True)
            self._scaling = gui.add_number('speed', min=0.05, max=1.0, step=0.05,
                                           initial_value=DEFAULT_SCALING,
                                           hint="share of the joints' velocity and "
                                                'acceleration limits')
            self._go = gui.add_button('plan and go')
            self._reset = gui.add_button('handle to the end effector')
            self._result = gui.add_markdown('')
        self._go.on_click(lambda _e: _in_thread(self._plan_and_go, self._stop))
        self._reset.on_click(lambda _e: _in_thread(self.place_handle, self._stop))
        _in_thread(self._find_end_effector, self._stop)

    # -- the handle ----------------------------------------------------------------------

    def _find_end_effector(self) -> None:
        """Ask the planning node for its end-effector links (until it answers), then put
        the handle there. Ends quietly when the view stops (its client destroyed under it:
        rclpy's InvalidHandle: :func:`_in_thread`)."""
        while self.end_effector is None and not self._stop.is_set():
            answer = _call(self._status_client, GetModelStatus.Request(), 5.0)
            if answer is not None and answer.end_effector_links:
                self.end_effector = answer.end_effector_links[0]
                break
            self._stop.wait(0.5)
        while not self._stop.is_set() and not self.place_handle():
            self._stop.wait(0.2)

    def end_effector_pose(self) -> Optional[np.ndarray]:
        """(4, 4) the end effector in the fixed frame from /tf, or None."""
        if self.end_effector is None:
            return None
        try:
            return self.view.buffer.lookup(self.view.fixed_frame(),
                                           self.view.frame_prefix + self.end_effector)
        except KeyError:
            return None

    def place_handle(self) -> bool:
        """Put the handle on the end effector; False while its pose is unknown."""
        pose = self.end_effector_pose()
        if pose is None:
            return False
        x, y, z, w = rotation_to_quaternion(pose[:3, :3])
        if self._handle is None:
            self._handle = self.view.server.scene.add_transform_controls(
                HANDLE, scale=0.15, depth_test=False, position=pose[:3, 3], wxyz=(w, x, y, z))
        else:
            self._handle.position, self._handle.wxyz = pose[:3, 3], (w, x, y, z)
        return True

    def target(self) -> Optional[np.ndarray]:
        """(4, 4) the handle's pose in the fixed frame, or None before it is placed."""
        if self._handle is None:
            return None
        w, x, y, z = self._handle.wxyz
        target = np.eye(4)
        target[:3, :3] = quaternion_to_rotation(np.array([x, y, z, w]))
        target[:3, 3] = self._handle.position
        return target

    # -- collisions ------------------------------------------------------------------------

    def tf_moved(self) -> None:
        """/tf moved the robot (the view's redraw, on the executor): check it again."""
        if self._trail is not None:
            pose = self.end_effector_pose()
            if pose is not None:
                self._trail.append(pose[:3, 3].copy())
        if self._checking:
            self._check_again = True
            return
        if not self._validity.service_is_ready():
            return
        self._checking, self._check_again = True, False
        future = self._validity.call_async(GetStateValidity.Request())
        future.add_done_callback(self._on_validity)

    def _on_validity(self, future) -> None:
        self._checking = False
        answer = future.result()
        scene = self.view.scene
        if answer is None or scene is None:
            return
        if answer.error_code != 1:
            self._collisions.content = f'**Collisions**: not checked ({answer.message})'
            return
        self.pairs = list(zip(answer.link_a, answer.link_b))
        links = {name for pair in self.pairs for name in pair} & set(scene.links)
        scene.highlight(links, IN_COLLISION)
        self._collisions.content = ('**Collisions**: ' + ', '.join(
            f'`{a}` - `{b}`' for a, b in self.pairs) if self.pairs else '**Collisions**: none')
        if self._check_again:
            self.tf_moved()

    # -- plan and go -------------------------------------------------------------------------

    def _plan_and_go(self) -> None:
        if not self._busy.acquire(blocking=False):
            self._result.content = 'a motion is running; wait for its end'
            return
        try:
            target = self.target()
            if target is None:
                self._result.content = f'waiting for `{self._planning_node}` and /tf'
                return
            self._result.content = 'planning...'
            self._result.content = (self._plan_and_play(target) if self.view.gui
                                    else self._run_on_controller(target))
        finally:
            self._busy.release()
            self.place_handle()

    def _scaled(self, request) -> None:
        request.max_velocity_scaling_factor = float(self._scaling.value)
        request.max_acceleration_scaling_factor = float(self._scaling.value)
        request.avoid_collisions = bool(self._avoid.value)

    def _plan_and_play(self, target: np.ndarray) -> str:
        values = self.view.slider_values()
        start = JointState(name=list(values), position=[float(v) for v in values.values()])
        frame = self.view.fixed_frame()
        if self._motion.value == MOTIONS[1]:
            request = PlanCartesianPath.Request(start_state=start, link_name=self.end_effector)
            request.header.frame_id = frame
            waypoint = Pose()
            _pose_message(waypoint, target)
            request.waypoints = [waypoint]
            self._scaled(request)
            answer = _call(self._line, request)
        else:
            request = PlanMotion.Request(start_state=start, link_name=self.end_effector)
            request.goal_pose.header.frame_id = frame
            _pose_message(request.goal_pose.pose, target)
            self._scaled(request)
            answer = _call(self._plan, request)
        if answer is None:
            return f'**no plan**: `{self._planning_node}` did not answer; nothing moves'
        fraction = getattr(answer, 'fraction', 1.0)
        if answer.error_code != 1 or fraction == 0.0 or not answer.trajectory.points:
            return f'**no plan**: {answer.message or "no part of the line"}; nothing moves'
        trajectory = _trajectory(answer.trajectory)
        self._draw_path_start()
        self._play(trajectory)
        share = '' if fraction == 1.0 else f', {100 * fraction:.0f} % of the line ' \
                                           f'({answer.message})'
        return f'planned: **{trajectory.duration:.2f} s**{share}'

    def _play(self, trajectory) -> None:
        from ..motion.trajectory import playback  # noqa: PLC0415 - numpy only
        times, played = playback(trajectory, FRAME_RATE)
        names = list(trajectory.joint_names)
        began = time.monotonic()
        for t, values in zip(times, played):
            delay = began + t - time.monotonic()
            if delay > 0 and self._stop.wait(delay):
                return
            self.view.set_slider_values(dict(zip(names, (float(v) for v in values))))
        self._stop.wait(0.3)            # the last joint_states reach /tf and the trail
        self._draw_path()

    def _run_on_controller(self, target: np.ndarray) -> str:
        from hrdf_ros_interfaces.action import MoveTo  # noqa: PLC0415
        goal = MoveTo.Goal(link_name=self.end_effector,
                           cartesian=self._motion.value == MOTIONS[1])
        goal.goal_pose.header.frame_id = self.view.fixed_frame()
        _pose_message(goal.goal_pose.pose, target)
        self._scaled(goal)
        if not self._move_to.wait_for_server(timeout_sec=2.0):
            return f'**no plan**: `{self._planning_node}/move_to` is not there; nothing moves'
        done = threading.Event()
        sent = self._move_to.send_goal_async(goal)
        sent.add_done_callback(lambda _f: done.set())
        if not done.wait(CALL_TIMEOUT) or not sent.result().accepted:
            return f'**no plan**: `{self._planning_node}/move_to` did not take the goal'
        self._draw_path_start()
        finished = threading.Event()
        outcome = sent.result().get_result_async()
        outcome.add_done_callback(lambda _f: finished.set())
        while not finished.wait(0.1):
            self._draw_path()
            if self._stop.is_set():
                sent.result().cancel_goal_async()
                return 'stopped'
        self._draw_path()
        result = outcome.result().result
        if result.error_code != 1:
            moved = 'the arm stopped' if result.sent else 'nothing moves'
            return f'**no plan**: {result.message}; {moved}' if not result.sent else \
                f'**the controller stopped**: {result.message}; {moved}'
        duration = result.trajectory.points[-1].time_from_start
        return f'planned and run: **{duration.sec + duration.nanosec * 1e-9:.2f} s**'

    def _draw_path_start(self) -> None:
        pose = self.end_effector_pose()
        self._trail = [] if pose is None else [pose[:3, 3].copy()]

    def _draw_path(self) -> None:
        trail = list(self._trail or [])
        if len(trail) < 2:
            return
        if self._path is not None:
            self._path.remove()
        self._path = self.view.server.scene.add_spline_catmull_rom(
            PATH, np.array(trail), color=PATH_COLOUR, thickness=PATH_THICKNESS)

    def shut_down(self) -> None:
        """Stop a playing trajectory and the waiting threads."""
        self._stop.set()


def _trajectory(message):
    """:class:`hrdf_ros.motion.trajectory.JointTrajectory` of a trajectory_msgs message."""
    from ..motion.trajectory import JointTrajectory  # noqa: PLC0415 - numpy only
    points = message.points
    return JointTrajectory(
        list(message.joint_names),
        np.array([p.time_from_start.sec + p.time_from_start.nanosec * 1e-9 for p in points]),
        np.array([list(p.positions) for p in points]),
        np.array([list(p.velocities) for p in points]),
        np.array([list(p.accelerations) for p in points]))
