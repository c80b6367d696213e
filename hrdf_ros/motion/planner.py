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
from typing import Optional, Tuple

import numpy as np

from ..kinematics.ik import default_orientation
from ..kinematics.ik_request import joint_limit_array
from . import cartesian, collision_free_ik, corners, joint_path, timing
from .planner_setup import PlannerSetup
from .requests import (FAILURE, GOAL_IN_COLLISION, GOAL_STATE_INVALID,  # noqa: F401
                       NO_IK_SOLUTION, PLANNING_FAILED, START_STATE_IN_COLLISION,
                       START_STATE_INVALID, SUCCESS, blocked_text, checked_state,
                       scaled_limits, state_problem, stop_text)
from .trajectory import JointTrajectory



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
        path: (K, dof) the collision-free joint path (the corners of a polyline whose
            segments were checked, or a Cartesian path's states), model order; the
            trajectory passes through its first and last state and follows it, or,
            where that was free of collision as played and faster, rounds its corners
            (``MotionPlanner.blend_tolerance``); (0, 0) when not ``success``.
    """

    success: bool
    error_code: int
    message: str = ''
    fraction: float = 0.0
    planning_time: float = 0.0
    trajectory: Optional[JointTrajectory] = None
    path: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))


class MotionPlanner(PlannerSetup):
    """Plans collision-free, timed motions of a robot (module docstring); its robot,
    scene and limits are those of ``PlannerSetup`` (``hrdf_ros.motion.planner_setup``:
    the constructor's arguments, collision checks, grippers, objects)."""

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
                ``joint_limits`` default to this planner's; ``max_attempts``: starts
                per target when ``timeout`` is None (collision-free IK only).

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
            options.pop('max_attempts', None)
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
        return state_problem(q, which, self.position_limits, self.joint_names,
                             self.scene if avoid_collisions else None)

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
        to the scaled limits (``hrdf_ros.motion.timing``), its corners passed without
        stopping where that is free of collision as the controller plays it and faster
        (``hrdf_ros.motion.corners``, within ``blend_tolerance``; not counted in
        ``planning_time``, its work bounded by counts). A revolute joint without limits (URDF
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
            with self.scene.counting_blocks():
                path = joint_path.plan_path(
                    self.scene, self._arms, start, goals, *self.position_limits.T,
                    max(planning_time - (time.perf_counter() - began), 1e-3))
            if path is None:
                return answer(PLANNING_FAILED, f'no collision-free path found in '
                              f'{planning_time:g} s' + blocked_text(self.scene))
        else:
            path = np.stack([start, goal])
        return answer(SUCCESS, path=path, trajectory=self._rounded(path, limits))

    def _rounded(self, path: np.ndarray, limits) -> JointTrajectory:
        """The trajectory along a checked polyline: its corners rounded where that is
        free of collision as played (``hrdf_ros.motion.corners``) when that is faster,
        else stopping at every corner."""
        trajectory = self._timed(path, False, limits)
        if len(path) < 3 or self.blend_tolerance <= 0.0:
            return trajectory
        rounded = corners.rounded_trajectory(
            self.scene, self._arms, path, self.trajectory_joints, np.array(self._columns),
            self._ratios, *limits, self.blend_tolerance)
        if rounded is not None and rounded.duration < trajectory.duration:
            return rounded
        return trajectory

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
