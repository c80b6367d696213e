"""A FollowJointTrajectory action server whose arm is a MuJoCo simulation, for the tests of
``~/move_to`` (joint_trajectory_controller is C++ and cannot run here; MuJoCo plays the
arm instead).

    python fjt_mujoco_server.py SCENE_XML CONTROLLERS_YAML CONTROLLER [--start J=V ...]

The simulation (``hrdf mjcf --gravity-compensation``'s model) runs in real time in its own
thread; its position actuators follow the active goal's trajectory interpolated as
joint_trajectory_controller interpolates it (a quintic per segment through positions,
velocities and accelerations: :func:`hrdf_ros.motion.trajectory.quintic_coefficients`),
and hold the last commanded position otherwise. ``joint_states`` is published at the
controller_manager's update rate (100 Hz), like joint_state_broadcaster.

Goals are checked as joint_trajectory_controller's ``validate_trajectory_msg`` checks them
(ros2_controllers, joint_trajectory_controller.cpp), with CONTROLLER's ``joints`` from the
MoveIt package's ros2_controllers.yaml: partial goals not allowed; joint names present,
known; points present; time_from_start strictly increasing; positions of every joint,
velocities and accelerations empty or of every joint; no efforts (no effort command
interface); a stamped trajectory not ending in the past; and the end velocity zero (as
with ``allow_nonzero_velocity_at_trajectory_end: false``, stricter than the package
writes). A goal that fails is rejected. A goal succeeds once its time has passed and the
joints have stopped (``stopped_velocity_tolerance``, 0.01 rad/s) or 1 s later
(``goal_time``); a cancelled goal holds the position where the arm is.

The arm also follows the two topics the servo commands (hrdf_ros_node's
``servo.command_out_type``): ``/<CONTROLLER>/joint_trajectory`` (trajectory_msgs/
JointTrajectory, joint_trajectory_controller's topic interface: checked as a goal, with
the package's ``allow_nonzero_velocity_at_trajectory_end``, and played from the arm's
state on arrival, replacing what played before), and, with ``--forward NAME`` (a
controller of the same file, forward_command_controller on the position interface),
``/NAME/commands`` (std_msgs/Float64MultiArray: one position per joint of NAME, held
until the next; another length is rejected, as the controller drops it). Those print
``trajectory rejected: ...`` and ``command rejected: ...``; ``--record FILE`` writes
every played state (sim time and joint positions, a row per 1 ms simulation step) there
as it runs, for a test to check the motion as played.

Every goal received and its verdict is printed on stdout (``goal received``, ``goal
rejected: ...``, ``goal accepted``, ``goal cancelled``, ``goal succeeded``), so that a
test can count what reached the controller.
"""
import argparse
import sys
import threading
import time

import mujoco
import numpy as np
import rclpy
import yaml
from control_msgs.action import FollowJointTrajectory
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState

from hrdf_ros.motion.trajectory import quintic_coefficients

STOPPED_VELOCITY = 0.01
GOAL_TIME = 1.0
EPSILON = float(np.finfo(np.float32).eps)


def say(line):
    print(line, flush=True)


def seconds(duration):
    return duration.sec + duration.nanosec * 1e-9


class Simulation:
    """The MuJoCo arm, stepped in real time; ``command(t)`` gives actuator targets."""

    def __init__(self, scene, joints, start, record=None):
        self.record = record
        self.model = mujoco.MjModel.from_xml_path(scene)
        self.data = mujoco.MjData(self.model)
        find = mujoco.mj_name2id
        self.actuators = [find(self.model, mujoco.mjtObj.mjOBJ_ACTUATOR, j) for j in joints]
        ids = [find(self.model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in joints]
        self.qpos = [self.model.jnt_qposadr[j] for j in ids]
        self.qvel = [self.model.jnt_dofadr[j] for j in ids]
        self.data.qpos[self.qpos] = start
        self.data.ctrl[self.actuators] = start
        mujoco.mj_forward(self.model, self.data)
        self.lock = threading.Lock()
        self.command = None       # callable(sim time) -> targets, or None: hold ctrl
        self.time = 0.0

    def positions(self):
        with self.lock:
            return self.data.qpos[self.qpos].copy(), self.data.qvel[self.qvel].copy()

    def run(self, stop):
        step = self.model.opt.timestep
        began = time.monotonic()
        while not stop.is_set():
            with self.lock:
                if self.command is not None:
                    self.data.ctrl[self.actuators] = self.command(self.time)
                mujoco.mj_step(self.model, self.data)
                self.time += step
                if self.record is not None:
                    self.record.write(' '.join(f'{v:.17g}' for v in
                                               [self.time, *self.data.qpos[self.qpos]]) + '\n')
            ahead = began + self.time - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)


class Playback:
    """A trajectory as joint_trajectory_controller samples it, from sim time ``t0``."""

    def __init__(self, trajectory, order, t0, current):
        index = [list(trajectory.joint_names).index(j) for j in order]
        times = [seconds(p.time_from_start) for p in trajectory.points]

        def column(values, n):
            return np.array(values)[index] if len(values) else np.zeros(n)
        n = len(order)
        points = [(column(p.positions, n), column(p.velocities, n), column(p.accelerations, n))
                  for p in trajectory.points]
        if times[0] > 0.0:          # from the state at acceptance, as the controller does
            times.insert(0, 0.0)
            points.insert(0, (current, np.zeros(n), np.zeros(n)))
        self.times, self.points, self.t0 = np.array(times), points, t0
        self.segments = [quintic_coefficients(times[k + 1] - times[k], points[k], points[k + 1])
                         for k in range(len(times) - 1)]
        self.duration = times[-1]

    def __call__(self, now):
        t = now - self.t0
        if t >= self.duration or not self.segments:
            return self.points[-1][0]
        k = max(int(np.searchsorted(self.times, t, side='right')) - 1, 0)
        c, s = self.segments[k], t - self.times[k]
        return c[0] + s * (c[1] + s * (c[2] + s * (c[3] + s * (c[4] + s * c[5]))))


class Controller(Node):
    """FollowJointTrajectory on ``<controller>/follow_joint_trajectory``."""

    def __init__(self, sim, controller, joints, allow_nonzero_end=False, forward=None):
        super().__init__('fjt_mujoco_server')
        self.sim, self.joints = sim, joints
        self.allow_nonzero_end = allow_nonzero_end
        self.active = None
        self.create_subscription(JointTrajectory, f'/{controller}/joint_trajectory',
                                 self.on_trajectory, 10)
        if forward is not None:
            name, self.forward_joints = forward
            self.create_subscription(Float64MultiArray, f'/{name}/commands', self.on_forward,
                                     10)
        self.state_pub = self.create_publisher(JointState, 'joint_states', 10)
        self.create_timer(0.01, self.publish_state)
        ActionServer(self, FollowJointTrajectory, f'{controller}/follow_joint_trajectory',
                     execute_callback=self.execute, goal_callback=self.check,
                     cancel_callback=lambda handle: CancelResponse.ACCEPT)

    def publish_state(self):
        q, v = self.sim.positions()
        message = JointState(name=self.joints, position=q.tolist(), velocity=v.tolist())
        message.header.stamp = self.get_clock().now().to_msg()
        self.state_pub.publish(message)

    def on_trajectory(self, message):
        why = self.problem(message, self.allow_nonzero_end)
        if why:
            say(f'trajectory rejected: {why}')
            return
        current, _ = self.sim.positions()
        with self.sim.lock:
            self.sim.command = Playback(message, self.joints, self.sim.time, current)

    def on_forward(self, message):
        if len(message.data) != len(self.forward_joints):
            say(f'command rejected: {len(message.data)} values for '
                f'{len(self.forward_joints)} joints')
            return
        index = [self.forward_joints.index(j) for j in self.joints]
        targets = np.array(message.data)[index]
        with self.sim.lock:
            self.sim.command = lambda now: targets

    def problem(self, trajectory, allow_nonzero_end=False):
        """Why joint_trajectory_controller would reject ``trajectory``, or None (with
        ``allow_nonzero_end``: a last point that still moves is accepted)."""
        names = list(trajectory.joint_names)
        if len(names) != len(self.joints):
            return "joints on incoming trajectory don't match the controller joints"
        if not names:
            return 'empty joint names'
        if not trajectory.points:
            return 'empty trajectory'
        unknown = [n for n in names if n not in self.joints]
        if unknown:
            return f"incoming joint {unknown[0]} doesn't match the controller's joints"
        if not allow_nonzero_end and any(abs(v) > EPSILON
                                         for v in trajectory.points[-1].velocities):
            return 'velocity of the last trajectory point is not zero'
        stamp = trajectory.header.stamp
        if stamp.sec or stamp.nanosec:
            end = stamp.sec + stamp.nanosec * 1e-9 + seconds(trajectory.points[-1].time_from_start)
            if end < self.get_clock().now().nanoseconds * 1e-9:
                return 'trajectory with non-zero start time ends in the past'
        previous = None
        for i, point in enumerate(trajectory.points):
            t = seconds(point.time_from_start)
            if previous is not None and t <= previous:
                return f'time between points {i - 1} and {i} is not strictly increasing'
            previous = t
            if len(point.positions) != len(names):
                return f'mismatch between joint_names and positions at point #{i}'
            for field in ('velocities', 'accelerations'):
                values = getattr(point, field)
                if len(values) and len(values) != len(names):
                    return f'mismatch between joint_names and {field} at point #{i}'
            if len(point.effort):
                return 'effort fields without an effort command interface'
        return None

    def check(self, goal):
        say('goal received')
        why = self.problem(goal.trajectory)
        if why:
            say(f'goal rejected: {why}')
            return GoalResponse.REJECT
        say('goal accepted')
        return GoalResponse.ACCEPT

    def execute(self, handle):
        sim = self.sim
        current, _ = sim.positions()
        with sim.lock:
            playback = Playback(handle.request.trajectory, self.joints, sim.time, current)
            sim.command = playback
        result = FollowJointTrajectory.Result()
        feedback = FollowJointTrajectory.Feedback(joint_names=self.joints)
        while True:
            time.sleep(0.02)
            q, v = sim.positions()
            t = sim.time - playback.t0
            if handle.is_cancel_requested:
                with sim.lock:            # hold where the arm is
                    sim.command = None
                    sim.data.ctrl[sim.actuators] = sim.data.qpos[sim.qpos]
                handle.canceled()
                say('goal cancelled')
                return result
            feedback.desired.positions = playback(sim.time).tolist()
            feedback.desired.time_from_start.sec = int(min(t, playback.duration))
            feedback.desired.time_from_start.nanosec = int(
                (min(t, playback.duration) % 1.0) * 1e9)
            feedback.actual.positions = q.tolist()
            handle.publish_feedback(feedback)
            if t >= playback.duration and (np.abs(v).max() < STOPPED_VELOCITY
                                           or t >= playback.duration + GOAL_TIME):
                break
        handle.succeed()
        say('goal succeeded')
        return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('scene')
    parser.add_argument('controllers')
    parser.add_argument('controller')
    parser.add_argument('--start', nargs='*', default=[], help='J=value (URDF joint values)')
    parser.add_argument('--forward', help='a forward position controller of CONTROLLERS_YAML')
    parser.add_argument('--record', help='write every played state to this file')
    args = parser.parse_args()
    with open(args.controllers, encoding='utf-8') as handle:
        controllers = yaml.safe_load(handle)
    parameters = controllers[args.controller]['ros__parameters']
    joints = parameters['joints']
    forward = None
    if args.forward:
        forward = (args.forward, controllers[args.forward]['ros__parameters']['joints'])
    start = dict(item.split('=') for item in args.start)
    record = open(args.record, 'w', encoding='utf-8', buffering=1) if args.record else None
    sim = Simulation(args.scene, joints, [float(start.get(j, 0.0)) for j in joints], record)
    rclpy.init()
    node = Controller(sim, args.controller, joints,
                      bool(parameters.get('allow_nonzero_velocity_at_trajectory_end', False)),
                      forward)
    stop = threading.Event()
    thread = threading.Thread(target=sim.run, args=(stop,), daemon=True)
    thread.start()
    executor = MultiThreadedExecutor(num_threads=3)
    executor.add_node(node)
    say('ready')
    try:
        executor.spin()
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        thread.join(timeout=5)
        rclpy.try_shutdown()
        if record is not None:
            record.close()
    return 0


if __name__ == '__main__':
    sys.exit(main())
