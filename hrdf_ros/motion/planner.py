"""The motion planner: collision-free IK, joint and Cartesian motions, timed for the arm's
joint_trajectory_controller.

In: a :class:`~hrdf_ros.model.RobotModel`, collision objects (``hrdf_ros.motion.objects``) and
optional position limits. Out: :class:`MotionPlan` values, MoveIt's error codes in them.
States are (dof,) joint positions in the model's (HEBI's) order (rad or m); poses (4, 4)
of an end-effector frame in the reference frame (m), as
:meth:`~hrdf_ros.kinematics.Kinematics.end_effector` gives them. A trajectory is in the
arm controller's terms (:class:`~.trajectory.JointTrajectory`): the planning groups'
joints in the order of the MoveIt package's controllers.yaml, URDF joint values.

Velocity and acceleration limits are the MoveIt package's
(:mod:`hrdf_ros.description.planning_limits`: rated speed, reached in 0.5 s), scaled by
``max_velocity_scaling_factor`` and ``max_acceleration_scaling_factor`` in (0, 1] as
MoveIt scales them. Python errors (``ValueError``) are for requests that are wrong: NaN,
the wrong length, unknown joints, a factor outside (0, 1]. A start or goal in collision,
an unreachable pose or no path in time are answers: ``success`` False, a code and why.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence, Tuple

import numpy as np

from ..description.planning_limits import joint_limits as planning_limits
from ..description.robot import describe
from ..description.semantics import semantics
from ..kinematics import Kinematics
from ..kinematics.ik import default_orientation
from ..kinematics.ik_request import joint_limit_array
from ..model import RobotModel
from . import cartesian, collision_free_ik, joint_path, timing
from .objects import collision_objects
from .resolution import lever_arms
from .scene import PlanningScene
from .trajectory import JointTrajectory

#: MoveIt's MoveItErrorCodes values the planner answers with.
SUCCESS, FAILURE, PLANNING_FAILED = 1, 99999, -1
START_STATE_IN_COLLISION, GOAL_IN_COLLISION = -10, -12
START_STATE_INVALID, GOAL_STATE_INVALID, NO_IK_SOLUTION = -26, -27, -31
#: Slack on position limits when a given state is checked against them (rad or m).
LIMIT_SLACK = 1e-9


@dataclass
class MotionPlan:
    """What a planning request gave.

    Attributes:
        success: a trajectory was planned (a Cartesian path: possibly a part of it).
        error_code: MoveIt's MoveItErrorCodes value: 1 success, -10 start in collision,
            -12 goal in collision, -26 start / -27 goal outside the limits, -31 no IK
            solution for a pose goal, -1 no path found in time.
        message: why not, in words ('' on success).
        fraction: the share of the path covered (1.0 for :meth:`MotionPlanner.plan`).
        planning_time: s.
        trajectory: the timed trajectory (None when not ``success``).
        path: (K, dof) the collision-free joint path the trajectory follows (its
            corners, or a Cartesian path's states), model order; (0, 0) when not
            ``success``.
    """

    success: bool
    error_code: int
    message: str = ''
    fraction: float = 0.0
    planning_time: float = 0.0
    trajectory: Optional[JointTrajectory] = None
    path: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))


class MotionPlanner:
    """Plans collision-free, timed motions of a robot (module docstring)."""

    def __init__(self, model: RobotModel, collision_objects: Sequence = (),
                 joint_limits=None, *, description=None, kinematics: Optional[str] = None,
                 gripper_positions: Optional[Mapping[str, float]] = None):
        """Build the planning scene (the robot's collision geometry and the SRDF's
        disabled pairs: computed once per robot and process, a fraction of a second).

        Args:
            model: the robot.
            collision_objects: :class:`~.objects.CollisionObject` values or mappings of
                their schema.
            joint_limits: position limits as :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik`
                takes them ((dof, 2), or by joint name); they bound the IK, the plans and
                the checks of given states.
            description: the robot as its URDF describes it (names, limits: a
                ``hrdf_ros.description.robot.RobotDescription``), when it is
                not the default of ``hrdf urdf`` (joints J1, J2, ..., HEBI's limits):
                a node's, built with its joint names and limits.
            kinematics: its Kinematics path (``'auto'``, ``'numpy'``, ``'numba'``; None: default).
            gripper_positions: where the parallel grippers' fingers are held
                (:meth:`set_gripper_positions`); default open.

        Raises:
            ImportError: the motion extra is missing (one message naming it).
            ValueError: a collision object or a limit is wrong.
        """
        self.model, self.kinematics = model, Kinematics(model, kinematics)
        self.description = description or describe(model, 'robot')
        self.semantics = semantics(self.description)
        self.scene = PlanningScene(self.description, self.semantics,
                                   collision_objects_list(collision_objects), self.kinematics)
        if gripper_positions:
            self.scene.set_gripper_positions(gripper_positions)
        tree = self.description.tree
        self.joint_names = list(tree.dof_names)
        dof = model.dof_count
        ratios = np.array([float(model.elements[e].gear_ratio) for e in model.dof_elements])
        self._ratios = ratios if dof else np.ones(0)
        limits = planning_limits(model, tree, self.semantics.urdf)
        position = np.array([[limits[n].lower if limits[n].lower is not None else -np.inf,
                              limits[n].upper if limits[n].upper is not None else np.inf]
                             for n in self.joint_names]).reshape(-1, 2) \
            * self._ratios[:, None]
        if joint_limits is not None:
            user = joint_limit_array(joint_limits, self.joint_names)
            position = np.stack([np.maximum(position[:, 0], user[:, 0]),
                                 np.minimum(position[:, 1], user[:, 1])], axis=1)
        self.position_limits = position
        self.velocity_limits = np.array([limits[n].velocity for n in self.joint_names])
        self.acceleration_limits = np.array([limits[n].acceleration for n in self.joint_names])
        self._prismatic = np.array([model.elements[e].motion[0] == 't'
                                    for e in model.dof_elements], dtype=bool)
        #: revolute joints without limits (URDF continuous): angles, reached either way
        self._continuous = ~self._prismatic & ~np.isfinite(self.position_limits).any(axis=1)
        self._arms = lever_arms(self.semantics.poser, self.description.collision_geometry(),
                                self.joint_names, self._ratios)
        self._ik = collision_free_ik.CollisionFreeIk(self.kinematics, self.scene,
                                                     self.position_limits, self._prismatic)
        joints = [j for g in self.semantics.groups for j in g.joints if j in self.joint_names]
        #: The joints of every trajectory (the planning groups' joints, controllers.yaml order).
        self.trajectory_joints = list(dict.fromkeys(joints)) or list(self.joint_names)
        self._columns = [self.joint_names.index(j) for j in self.trajectory_joints]

    # -- collision checks ------------------------------------------------------------
    def in_collision(self, positions) -> bool:
        """True when a (dof,) state is in collision (``hrdf_ros.motion.scene.PlanningScene``).

        Raises:
            ValueError: the wrong length or not finite.
        """
        return self.scene.in_collision(positions)

    def colliding_pairs(self, positions):
        """``[(link, link or object)]`` in collision at a (dof,) state."""
        return self.scene.colliding_pairs(positions)

    def set_gripper_positions(self, positions: Mapping[str, float]) -> None:
        """Hold the parallel grippers' fingers at ``positions`` (``{finger joint: URDF
        value}``, rad; the finger joints are ``description.tree.gripper_joint_names``,
        ``gripper_joint`` for one gripper: 0 open,
        :data:`~hrdf_ros.kinematics.gripper.GRIPPER_UPPER` closed) in every later check,
        IK answer and plan: the arm moves, the fingers stay
        (:meth:`~hrdf_ros.motion.scene.PlanningScene.set_gripper_positions`).

        Raises:
            ValueError: a name that is no finger joint, or a value outside its limits.
        """
        self.scene.set_gripper_positions(positions)

    def set_collision_objects(self, objects: Sequence) -> None:
        """Replace the collision objects (schema of ``hrdf_ros.motion.objects``).

        Raises:
            ValueError: a wrong object.
        """
        self.scene.set_objects(collision_objects_list(objects))

    # -- IK ---------------------------------------------------------------------------
    def solve_ik(self, target, seed=None, *, avoid_collisions: bool = True, **options):
        """Joint positions for a pose that are free of collision
        (``hrdf_ros.motion.collision_free_ik``); without ``avoid_collisions``,
        :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik` itself.

        Args:
            target: (4, 4) pose, or (N, 4, 4).
            seed: (dof,) or (N, dof), or None (zeros).
            options: :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik`'s (``index``,
                ``orientation``, tolerances, ``timeout`` (per target), ...); its
                ``joint_limits`` default to this planner's.

        Returns:
            :class:`~hrdf_ros.kinematics.ik.IkResult` (batched as ``target`` is).

        Raises:
            ValueError: as :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik`.
        """
        limits = options.pop('joint_limits', None)
        solver = self._ik
        if limits is not None:
            limits = joint_limit_array(limits, self.joint_names)
            solver = collision_free_ik.CollisionFreeIk(self.kinematics, self.scene, limits,
                                                       self._prismatic)
        if not avoid_collisions:
            return self.kinematics.solve_ik(
                target, seed, joint_limits=self.position_limits if limits is None else limits,
                **options)
        return solver.solve_all(target, seed, options)

    # -- motions ------------------------------------------------------------------------
    def _state(self, positions, what: str) -> np.ndarray:
        return checked_state(positions, self.joint_names, what)

    def _scaled_limits(self, velocity_scaling: float, acceleration_scaling: float):
        return scaled_limits(self.velocity_limits[self._columns],
                             self.acceleration_limits[self._columns], velocity_scaling,
                             acceleration_scaling)

    def _problem(self, q: np.ndarray, which: str, avoid_collisions: bool
                 ) -> Optional[Tuple[int, str]]:
        """(MoveIt error code, message) when the start or goal state ``q`` is outside the
        limits or (``avoid_collisions``) in collision; None when it can be planned from."""
        outside = outside_limits(q, self.position_limits, self.joint_names)
        if outside:
            return (START_STATE_INVALID if which == 'start' else GOAL_STATE_INVALID,
                    f'the {which} is outside the limits: {outside}')
        if avoid_collisions and self.scene.in_collision(q):
            return (START_STATE_IN_COLLISION if which == 'start' else GOAL_IN_COLLISION,
                    f'the {which} is in collision: '
                    + pair_text(self.scene.colliding_pairs(q)))
        return None

    def _trajectory_values(self, path: np.ndarray) -> np.ndarray:
        """(K, n) URDF joint values of the trajectory's joints for (K, dof) states."""
        return (path / self._ratios)[:, self._columns]

    def _timed(self, path: np.ndarray, smooth: bool, limits) -> JointTrajectory:
        values = self._trajectory_values(path)
        if smooth:
            return timing.smooth_path_trajectory(self.trajectory_joints, values, *limits)
        return timing.polyline_trajectory(self.trajectory_joints, values, *limits)

    def _goal_pose(self, pose, index: int, start: np.ndarray, timeout: float,
                   orientation: Optional[str], avoid_collisions: bool):
        target = np.asarray(pose, dtype=float)
        if target.shape != (4, 4) or not np.all(np.isfinite(target)):
            raise ValueError('pose: expected a finite (4, 4) transform')
        if orientation is None:
            orientation = default_orientation(len(self.kinematics.end_effector_joints(index)))
        return self.solve_ik(target, start, index=index, orientation=orientation,
                             timeout=timeout, avoid_collisions=avoid_collisions)

    def plan(self, start, goal=None, *, pose=None, index: int = 0,
             avoid_collisions: bool = True, planning_time: float = 1.0,
             max_velocity_scaling_factor: float = 1.0,
             max_acceleration_scaling_factor: float = 1.0,
             orientation: Optional[str] = None) -> MotionPlan:
        """A motion from ``start`` to a joint ``goal`` (dof,) or to a ``pose`` (4, 4) of
        end effector ``index`` (collision-free IK seeded at the start, with the
        ``orientation`` objective of :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik`,
        by default the one the end effector's joints give): the straight joint-space line
        when it is free, else a sampling-based plan, shortcut (``hrdf_ros.motion.joint_path``); timed
        to the scaled limits (``hrdf_ros.motion.timing``). A revolute joint without limits (URDF
        continuous) is an angle, as MoveIt plans continuous joints: it ends at the goal's
        angle, whole turns from the value given, turning the shorter way on a straight
        line and either way on a planned path (``path[-1]`` says where); every other
        joint ends at the value given.

        Raises:
            ValueError: a wrong request (module docstring); neither or both of goal and
                pose; planning_time <= 0.
        """
        began = time.perf_counter()
        start = self._state(start, 'start')
        limits = self._scaled_limits(max_velocity_scaling_factor,
                                     max_acceleration_scaling_factor)
        if (goal is None) == (pose is None):
            raise ValueError('give a joint goal or a pose, not both and not neither')
        if not (np.isfinite(planning_time) and planning_time > 0.0):
            raise ValueError(f'planning_time must be > 0 s, got {planning_time}')

        def answer(code, message='', path=None, trajectory=None):
            return MotionPlan(code == SUCCESS, code, message, 1.0 if code == SUCCESS else 0.0,
                              time.perf_counter() - began, trajectory,
                              np.zeros((0, len(start))) if path is None else path)

        problem = self._problem(start, 'start', avoid_collisions)
        if problem:
            return answer(*problem)
        if pose is not None:
            ik = self._goal_pose(pose, index, start, min(0.1, planning_time / 2), orientation,
                                 avoid_collisions)
            if not ik.success:
                return answer(NO_IK_SOLUTION, 'no collision-free IK solution for the pose: '
                              f'the best is {ik.position_error:.3g} m and '
                              f'{ik.orientation_error:.3g} rad from it' if avoid_collisions
                              else 'no IK solution for the pose')
            goal = ik.positions
        goal = self._state(goal, 'goal')
        turns = np.round((goal - start) / (2 * math.pi)) * self._continuous
        goal = goal - 2 * math.pi * turns          # the shorter way for an angle
        problem = self._problem(goal, 'goal', avoid_collisions)
        if problem:
            return answer(*problem)
        if avoid_collisions:
            goals = joint_path.turned_goals(start, goal, self._continuous, self._arms)
            path = joint_path.plan_path(self.scene, self._arms, start, goals,
                                        *self.position_limits.T,
                                        max(planning_time - (time.perf_counter() - began), 1e-3))
            if path is None:
                return answer(PLANNING_FAILED, f'no collision-free path found in '
                              f'{planning_time:g} s')
        else:
            path = np.stack([start, goal])
        return answer(SUCCESS, path=path, trajectory=self._timed(path, False, limits))

    def cartesian_path(self, start, waypoints, *, index: int = 0, max_step: float = 0.01,
                       avoid_collisions: bool = True, max_velocity_scaling_factor: float = 1.0,
                       max_acceleration_scaling_factor: float = 1.0) -> MotionPlan:
        """The end effector along straight lines through ``waypoints`` ((4, 4) poses), as
        MoveIt's ``computeCartesianPath`` (``hrdf_ros.motion.cartesian``); ``fraction`` < 1 when only
        a part could be followed (still a success, as in MoveIt), timed by TOPP-RA.

        Raises:
            ValueError: a wrong request; max_step <= 0; a waypoint not a finite (4, 4).
        """
        began = time.perf_counter()
        start = self._state(start, 'start')
        limits = self._scaled_limits(max_velocity_scaling_factor,
                                     max_acceleration_scaling_factor)
        if not (np.isfinite(max_step) and max_step > 0.0):
            raise ValueError(f'max_step must be > 0 m, got {max_step}')
        poses = [np.asarray(w, dtype=float) for w in waypoints]
        if not poses or any(p.shape != (4, 4) or not np.all(np.isfinite(p)) for p in poses):
            raise ValueError('waypoints: expected one or more finite (4, 4) poses')
        problem = self._problem(start, 'start', avoid_collisions)
        if problem:
            return MotionPlan(False, *problem, planning_time=time.perf_counter() - began)
        chain = len(self.kinematics.end_effector_joints(index))
        states, fraction, stop = cartesian.follow(
            self.kinematics, self.scene, self._arms, start, poses, index, max_step,
            avoid_collisions, self.position_limits, default_orientation(chain), (1e-5, 1e-5))
        trajectory = self._timed(states, True, limits)
        message = '' if stop is None else \
            f'followed {100 * fraction:.1f} % of the path; ' + stop_text(stop, self.scene)
        return MotionPlan(True, SUCCESS, message, fraction, time.perf_counter() - began,
                          trajectory, states)


def stop_text(stop: tuple, scene) -> str:
    """Why a Cartesian path stopped (:data:`.cartesian.STOPS`), in words."""
    kind, state = stop
    if kind == 'collision':
        return 'the next step collides: ' + pair_text(scene.colliding_pairs(state))
    if kind == 'line':
        return (f'the joints leave the line there (by more than '
                f'{1000 * cartesian.POSITION_PRECISION:g} mm or '
                f'{cartesian.ORIENTATION_PRECISION:g} rad, the step halved '
                f'{cartesian.SUBDIVISIONS} times)')
    return 'the next step has no IK solution from the one before (out of reach, at a ' \
        'joint limit or a singularity)'


def checked_state(positions, joint_names: Sequence[str], what: str) -> np.ndarray:
    """(dof,) float positions.

    Raises:
        ValueError: the wrong length, or not finite (naming ``what``).
    """
    q = np.asarray(positions, dtype=float)
    if q.shape != (len(joint_names),):
        raise ValueError(f'{what}: expected {len(joint_names)} joint positions '
                         f'({", ".join(joint_names)}), got shape {q.shape}')
    if not np.all(np.isfinite(q)):
        raise ValueError(f'{what}: joint positions must be finite')
    return q


def scaled_limits(velocity: np.ndarray, acceleration: np.ndarray, velocity_scaling: float,
                  acceleration_scaling: float):
    """(velocity, acceleration) limits times MoveIt's scaling factors.

    Raises:
        ValueError: a factor outside (0, 1].
    """
    for name, value in (('max_velocity_scaling_factor', velocity_scaling),
                        ('max_acceleration_scaling_factor', acceleration_scaling)):
        if not (np.isfinite(value) and 0.0 < value <= 1.0):
            raise ValueError(f'{name} must be in (0, 1], got {value}')
    return velocity * velocity_scaling, acceleration * acceleration_scaling


def outside_limits(q: np.ndarray, limits: np.ndarray, joint_names: Sequence[str]
                   ) -> Optional[str]:
    """Which joints of a state are outside (dof, 2) position limits, in words, or None."""
    low, high = limits[:, 0], limits[:, 1]
    bad = np.flatnonzero((q < low - LIMIT_SLACK) | (q > high + LIMIT_SLACK))
    if not len(bad):
        return None
    return ', '.join(f'{joint_names[k]} {q[k]:.6g} not in [{low[k]:.6g}, {high[k]:.6g}]'
                     for k in bad)


def pair_text(pairs) -> str:
    """``a - b, c - d`` of colliding pairs."""
    return ', '.join(f'{a} - {b}' for a, b in pairs)


def collision_objects_list(objects: Sequence):
    """Objects of ``hrdf_ros.motion.objects``' schema (or already built) as a list."""
    return collision_objects(list(objects) if not isinstance(objects, Mapping) else objects)
