"""Request handling of the node's motion services: ``~/plan_motion``
(hrdf_ros_interfaces/srv/PlanMotion), ``~/plan_cartesian_path`` (PlanCartesianPath),
``~/set_collision_objects`` (SetCollisionObjects), ``~/check_state_validity``
(GetStateValidity) and ``~/solve_ik`` with ``avoid_collisions``.

In: requests, the running :class:`~hrdf_ros.ros.loaded_robot.LoadedRobot` (its names, its
frames), the latest joint_states as HEBI positions (or None) and the node's motion
parameters (:class:`MotionDefaults`). Out: filled responses, answered with MoveIt's
MoveItErrorCodes numbers as :class:`hrdf_ros.MotionPlanner` returns them; never raises on
a bad request. The planner (:class:`hrdf_ros.MotionPlanner`, the ``motion`` extra) is
built on first use, in the caller's thread (the node's motion worker); without the extra,
every motion request is answered FAILURE (99999) with the ImportError's message, which
names the extra.

Joint values in requests and responses are URDF joint values (as joint_states carry
them); the planner's are HEBI positions (x gear ratio). Poses are in the robot's reference
frame unless ``frame_id`` names another of its links, taken at the start state.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence

import numpy as np
from builtin_interfaces.msg import Duration
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from hrdf_ros_interfaces.srv import PlanMotion

from ..description.robot import describe
from .ik_service import IkError, IkQueries
from .loaded_robot import LoadedRobot

#: The longest cap on a search a request may ask for, s (the services' bound).
MAX_PLANNING_TIME = 60.0
#: shape_msgs/SolidPrimitive type -> the schema's type.
PRIMITIVES = {1: 'box', 2: 'sphere', 3: 'cylinder'}
FAILURE = PlanMotion.Response.FAILURE
#: MoveIt's INVALID_GOAL_CONSTRAINTS (hrdf_ros_interfaces/action/MoveTo).
INVALID_GOAL_CONSTRAINTS = -16


@dataclass(frozen=True)
class MotionDefaults:
    """The node's motion parameters: scaling factors in (0, 1] for a request's 0
    (MoveIt's default_velocity_scaling_factor / default_acceleration_scaling_factor),
    the cap on a search in s for a request's 0, the collision objects the node starts with
    (the schema's mappings, from the ``collision_objects`` file) and the arm
    controller's FollowJointTrajectory action that ``~/move_to`` uses."""

    velocity_scaling: float = 0.1
    acceleration_scaling: float = 0.1
    planning_time: float = 5.0
    collision_objects: tuple = ()
    trajectory_action: str = 'arm_controller/follow_joint_trajectory'


def duration_of(seconds: float) -> Duration:
    """builtin_interfaces/Duration of ``seconds`` (>= 0), to the nanosecond."""
    nanoseconds = int(round(seconds * 1e9))
    return Duration(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def trajectory_message(trajectory) -> JointTrajectory:
    """trajectory_msgs/JointTrajectory of a :class:`hrdf_ros.motion.JointTrajectory`
    (URDF joint values; header stamp zero: start when received)."""
    message = JointTrajectory()
    if trajectory is None:
        return message
    message.joint_names = list(trajectory.joint_names)
    for k, t in enumerate(trajectory.time_from_start):
        message.points.append(JointTrajectoryPoint(
            positions=trajectory.positions[k].tolist(),
            velocities=trajectory.velocities[k].tolist(),
            accelerations=trajectory.accelerations[k].tolist(),
            time_from_start=duration_of(float(t))))
    return message


def objects_of_request(request) -> List[dict]:
    """The schema's mappings of a SetCollisionObjects request.

    Raises:
        ValueError: lists of different lengths, an unsupported primitive type.
    """
    if not len(request.names) == len(request.primitives) == len(request.poses):
        raise ValueError(f'names, primitives and poses must have one entry per object; '
                         f'got {len(request.names)}, {len(request.primitives)} and '
                         f'{len(request.poses)}')
    objects = []
    for name, primitive, pose in zip(request.names, request.primitives, request.poses):
        kind = PRIMITIVES.get(primitive.type)
        if kind is None:
            raise ValueError(f'collision object {name!r}: primitive type {primitive.type} is '
                             'not BOX (1), SPHERE (2) or CYLINDER (3)')
        p, o = pose.position, pose.orientation
        objects.append({'name': name, 'type': kind,
                        'dimensions': [float(v) for v in primitive.dimensions],
                        'pose': {'position': [p.x, p.y, p.z],
                                 'orientation': [o.x, o.y, o.z, o.w]}})
    for k, z in enumerate(request.floors):
        objects.append({'name': f'floor{k}' if len(request.floors) > 1 else 'floor',
                        'type': 'floor', 'pose': {'position': [0.0, 0.0, float(z)]}})
    return objects


def _failed(response, exc: Exception):
    """``response`` answering ``exc``: an IkError's code, FAILURE for a ValueError (the
    planner's own checks: limits, lengths), and its message."""
    response.error_code = exc.code if isinstance(exc, IkError) else FAILURE
    response.message = str(exc)
    return response


def build_planner(robot: LoadedRobot, objects: Sequence):
    """A warmed-up :class:`hrdf_ros.MotionPlanner` of ``robot`` among ``objects`` (the
    schema's mappings), on the compiled kinematics path where installed, whatever the node's
    ``kinematics`` parameter: collision-free IK restarts within a pose goal's 0.1 s (30 us
    a step on the numpy path, 1 us compiled; a 7-DoF kit's pose behind the base was missed
    on numpy).

    Raises:
        IkError: FAILURE, the motion extra is missing (its message names it), or a bad
            object.
    """
    description = describe(robot.model, robot.name, tree=robot.tree,
                           position_limits=robot.position_limits)
    try:
        from ..motion import MotionPlanner  # noqa: PLC0415 - the motion extra
        from ..motion.warm_up import warm_up  # noqa: PLC0415
        planner = MotionPlanner(robot.model, list(objects), description=description,
                                kinematics='auto')
    except (ImportError, ValueError) as exc:   # the extra missing; a bad object
        raise IkError(FAILURE, str(exc)) from None
    warm_up(planner)
    return planner


def hold_fingers(planner, values: Sequence[float]) -> None:
    """Hold the scene's parallel grippers where ``values`` (the finger joints' latest
    joint_states values, URDF, the robot's gripper order) put them, clipped into the finger
    joints' limits (a driver may report a hair beyond them); nothing when the counts
    differ (no joint_states yet)."""
    values = list(values)
    names = list(planner.scene.gripper_positions)
    if not names or len(values) != len(names):
        return
    limits = planner.scene.gripper_limits
    planner.set_gripper_positions({name: min(max(float(value), limits[name][0]),
                                             limits[name][1])
                                   for name, value in zip(names, values)
                                   if math.isfinite(value)})


class MotionQueries:
    """Answers the motion requests for one robot (module docstring). Not thread-safe:
    the node calls it from its one motion worker.

    Args:
        robot: the running robot.
        ik: its IK queries (for the requests' states, end effectors and poses).
        defaults: the node's motion parameters.
        fingers: gives the parallel grippers' finger joints' latest joint_states values
            (URDF, rad, the robot's gripper order); the scene holds them there for every
            request, as MoveIt checks an arm with its gripper where the robot state has it.
    """

    def __init__(self, robot: LoadedRobot, ik: IkQueries, defaults: MotionDefaults,
                 fingers: Callable[[], Sequence[float]] = tuple):
        self.robot, self.ik, self.defaults = robot, ik, defaults
        self._objects = list(defaults.collision_objects)
        self._planner = None
        self._fingers = fingers

    @property
    def object_count(self) -> int:
        """The collision objects of the scene (floors included)."""
        return len(self._objects)

    @property
    def objects(self) -> list:
        """The collision objects of the scene (schema mappings or CollisionObject)."""
        return list(self._objects)

    def planner(self):
        """The robot's :class:`hrdf_ros.MotionPlanner`, built and warmed up on first use
        (before the request's own clock starts: its planning time goes to its search).
        Not at start: building it holds the interpreter for a second or more, which
        would starve ``~/solve_ik`` and /tf of a node that may never plan.

        Raises:
            IkError: FAILURE, the motion extra is missing (its message names it).
        """
        if self._planner is None:
            self._planner = build_planner(self.robot, self._objects)
        hold_fingers(self._planner, self._fingers())
        return self._planner

    # -- requests ---------------------------------------------------------------------

    def _scaling(self, request):
        factors = []
        for name, default in (('max_velocity_scaling_factor', self.defaults.velocity_scaling),
                              ('max_acceleration_scaling_factor',
                               self.defaults.acceleration_scaling)):
            value = getattr(request, name)
            if not (math.isfinite(value) and 0.0 <= value <= 1.0):
                raise IkError(FAILURE, f'{name} must be in (0, 1], or 0 for the node\'s '
                                       f'default ({default:g}); got {value}')
            factors.append(value or default)
        return {'max_velocity_scaling_factor': factors[0],
                'max_acceleration_scaling_factor': factors[1]}

    def _planning_time(self, request) -> float:
        value = request.planning_time
        if not (math.isfinite(value) and 0.0 <= value <= MAX_PLANNING_TIME):
            raise IkError(FAILURE, f'planning_time must be in (0, {MAX_PLANNING_TIME:g}] s, '
                                   f'or 0 for the node\'s default; got {value}')
        return value or self.defaults.planning_time

    def _answer(self, response, plan):
        response.error_code = int(plan.error_code)
        response.message = plan.message
        response.planning_time = float(plan.planning_time)
        response.trajectory = trajectory_message(plan.trajectory if plan.success else None)
        return response

    def plan_request(self, request, start: np.ndarray, cartesian: bool = False):
        """``(plan, index)``: the :class:`hrdf_ros.motion.MotionPlan` of a PlanMotion
        request (or a MoveTo goal) from HEBI positions ``start``, and the end effector it
        moves. ``cartesian``: the end effector on the line to ``goal_pose`` (MoveIt's
        Cartesian path, 1 cm steps).

        Raises:
            IkError: the request's codes (states, link, frame, pose, scaling;
                INVALID_GOAL_CONSTRAINTS for a Cartesian motion to a joint goal).
            ValueError: the planner's own checks (limits, lengths).
        """
        options = self._scaling(request)
        planning_time = self._planning_time(request)
        if request.goal_state.name or request.goal_state.position:
            if cartesian:
                raise IkError(INVALID_GOAL_CONSTRAINTS, 'a Cartesian motion needs a goal_pose; '
                                                        'goal_state is a joint goal')
            goal = self.ik.state(request.goal_state, start, 'goal_state')
            goal_pose, index = None, 0
        else:
            index = self.ik.end_effector(request.link_name, 0)
            goal = None
            goal_pose = self.ik.pose(request.goal_pose.pose,
                                     request.goal_pose.header.frame_id, start, 'goal')
        planner = self.planner()
        if cartesian:
            return planner.cartesian_path(start, [goal_pose], index=index,
                                          avoid_collisions=request.avoid_collisions,
                                          **options), index
        return planner.plan(start, goal, pose=goal_pose, index=index,
                            avoid_collisions=request.avoid_collisions,
                            planning_time=planning_time, seed=int(request.seed),
                            **options), index

    def plan_motion(self, request, response, latest: Optional[np.ndarray]):
        """Fill a PlanMotion response; ``latest``: the last joint_states (HEBI), or None."""
        response.planning_time = 0.0
        try:
            start = self.ik.state(request.start_state, latest, 'start_state')
            plan, _ = self.plan_request(request, start)
        except (IkError, ValueError) as exc:   # the request's codes; the planner's checks
            return _failed(response, exc)
        return self._answer(response, plan)

    def plan_cartesian_path(self, request, response, latest: Optional[np.ndarray]):
        """Fill a PlanCartesianPath response (``fraction`` 0 unless SUCCESS)."""
        response.fraction, response.planning_time = 0.0, 0.0
        try:
            start = self.ik.state(request.start_state, latest, 'start_state')
            options = self._scaling(request)
            index = self.ik.end_effector(request.link_name, 0)
            if not request.waypoints:
                raise IkError(FAILURE, 'waypoints is empty: give at least one pose')
            if not (math.isfinite(request.max_step) and request.max_step >= 0.0):
                raise IkError(FAILURE, f'max_step must be > 0 m, or 0 for 0.01 m; '
                                       f'got {request.max_step}')
            waypoints = [self.ik.pose(w, request.header.frame_id, start, f'waypoint {k}')
                         for k, w in enumerate(request.waypoints)]
            planner = self.planner()
            plan = planner.cartesian_path(start, waypoints, index=index,
                                          max_step=request.max_step or 0.01,
                                          avoid_collisions=request.avoid_collisions,
                                          **options)
        except (IkError, ValueError) as exc:   # the request's codes; the planner's checks
            return _failed(response, exc)
        response.fraction = float(plan.fraction)
        return self._answer(response, plan)

    def set_collision_objects(self, request, response):
        """Fill a SetCollisionObjects response; the scene keeps its objects on failure."""
        response.count = self.object_count
        try:
            objects = objects_of_request(request)
            if self._planner is not None:
                self._planner.set_collision_objects(objects)
            else:
                from ..motion.objects import collision_objects  # noqa: PLC0415
                collision_objects(objects)                      # checked now, used later
        except (ValueError, ImportError) as exc:   # a bad object; the extra missing
            response.success, response.message = False, str(exc)
            return response
        self._objects = objects
        response.success, response.count, response.message = True, len(objects), ''
        return response

    def state_validity(self, request, response, latest: Optional[np.ndarray]):
        """Fill a GetStateValidity response: the pairs in collision at the request's
        state (URDF link names, or a collision object's name)."""
        response.valid = False
        try:
            q = self.ik.state(request.robot_state, latest, 'robot_state')
            if request.trajectory.points:
                return self._trajectory_validity(request.trajectory, q, response)
            pairs = self.planner().colliding_pairs(q)
        except (IkError, ValueError) as exc:   # the request's codes; the planner's checks
            return _failed(response, exc)
        response.error_code, response.valid = 1, not pairs
        response.link_a = [a for a, _ in pairs]
        response.link_b = [b for _, b in pairs]
        return response

    def _trajectory_validity(self, trajectory, state: np.ndarray, response):
        """A GetStateValidity response for a trajectory played from ``state`` (HEBI)."""
        points = trajectory.points
        times = [p.time_from_start.sec + p.time_from_start.nanosec * 1e-9 for p in points]
        fields = []
        for name in ('positions', 'velocities', 'accelerations'):
            given = [len(getattr(p, name)) for p in points]
            if name != 'positions' and not any(given):
                fields.append(None)
                continue
            if any(n != len(trajectory.joint_names) for n in given):
                raise ValueError(f'trajectory: every point needs {len(trajectory.joint_names)} '
                                 f'{name} (one per joint name)')
            fields.append([list(getattr(p, name)) for p in points])
        if fields[1] is None:
            fields[2] = None            # accelerations without velocities: not played
        free, when, pair = self.planner().played_proof(trajectory.joint_names, times,
                                                       *fields, state=state)
        response.error_code, response.valid = 1, free
        if not free:
            response.link_a, response.link_b = ([pair[0]], [pair[1]]) if pair else ([], [])
            response.message = (f'the motion from {when:.6g} s on is not proven free of '
                                'collision' + (f': {pair[0]} - {pair[1]}' if pair else ''))
        return response

    def solve_ik(self, request, response, latest: Optional[np.ndarray]):
        """A SolveIk request with ``avoid_collisions``: as :meth:`IkQueries.solve`, with
        success only for a solution free of collision."""
        return self.ik.solve(request, response, latest, solver=self._free_ik)

    def _free_ik(self, target, seed, **options):
        return self.planner().solve_ik(target, seed, avoid_collisions=True, **options)

