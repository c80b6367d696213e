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
from .pieces import on_segments
from .trajectory import JointTrajectory

#: Collision-free IK of a pose goal: starts, and steps per start (counts, not a time).
GOAL_IK_ATTEMPTS = 64
GOAL_IK_ITERATIONS = 300
#: The largest seed (a uint32; OMPL is seeded with seed + 1, its seeds being > 0).
MAX_SEED = 2 ** 32 - 1
#: s, the default cap on a request's search (MoveIt's default allowed_planning_time); the
#: search itself is bounded by counts (``hrdf_ros.motion.joint_path``).
PLANNING_TIME = 5.0


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
                ``joint_limits`` default to this planner's; ``max_attempts``: most
                starts per target (free IK; default: 200 untimed, unbounded timed).

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

    def _goal_pose(self, pose, index: int, start: np.ndarray, orientation: Optional[str],
                   avoid_collisions: bool):
        target = np.asarray(pose, dtype=float)
        if target.shape != (4, 4) or not np.all(np.isfinite(target)):
            raise ValueError('pose: expected a finite (4, 4) transform')
        if orientation is None:
            orientation = default_orientation(len(self.kinematics.end_effector_joints(index)))
        options = dict(index=index, orientation=orientation, timeout=None,
                       max_iterations=GOAL_IK_ITERATIONS)
        if avoid_collisions:
            options['max_attempts'] = GOAL_IK_ATTEMPTS
        return self.solve_ik(target, start, avoid_collisions=avoid_collisions, **options)

    def plan(self, start, goal=None, *, pose=None, index: int = 0,
             avoid_collisions: bool = True, planning_time: float = PLANNING_TIME,
             max_velocity_scaling_factor: float = 1.0,
             max_acceleration_scaling_factor: float = 1.0,
             orientation: Optional[str] = None, seed: int = 0) -> MotionPlan:
        """A motion from ``start`` to a joint ``goal`` (dof,) or to a ``pose`` (4, 4) of
        end effector ``index`` (collision-free IK seeded at the start, with the
        ``orientation`` objective of :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik`,
        by default the one the end effector's joints give; at most
        ``GOAL_IK_ATTEMPTS`` starts of ``GOAL_IK_ITERATIONS`` steps): the straight
        joint-space line when it is proven free, else a sampling-based plan, shortcut
        (``hrdf_ros.motion.joint_path``: OMPL seeded with ``seed``, its work bounded by
        counts); timed to the scaled limits (``hrdf_ros.motion.timing``), its corners
        passed without stopping where that is proven free of collision as the controller
        plays it and faster (``hrdf_ros.motion.corners``, within ``blend_tolerance``).
        Every motion of the answer, as joint_trajectory_controller plays it, is proven
        free of collision (``hrdf_ros.motion.certified``), not sampled. The same request
        (``seed`` included) gives the same trajectory, bit for bit; ``planning_time``
        (s) only caps the search against a hang, and when it ends the search first the
        answer says so (PLANNING_FAILED). A revolute joint without limits (URDF
        continuous) is an angle, as MoveIt plans continuous joints: it ends at the goal's
        angle, whole turns from the value given, turning the shorter way on a straight
        line and either way on a planned path (``path[-1]`` says where); every other
        joint ends at the value given.

        Raises:
            ValueError: a wrong request (module docstring); neither or both of goal and
                pose; planning_time <= 0; a seed that is no integer in [0, 2^32 - 1].
        """
        self.scene.prepare_proofs()      # a cold cache's compiling is not the search's time
        began = time.perf_counter()
        start = self._state(start, 'start')
        limits = self._scaled_limits(max_velocity_scaling_factor,
                                     max_acceleration_scaling_factor)
        if (goal is None) == (pose is None):
            raise ValueError('give a joint goal or a pose, not both and not neither')
        if not (np.isfinite(planning_time) and planning_time > 0.0):
            raise ValueError(f'planning_time must be > 0 s, got {planning_time}')
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or \
                not 0 <= seed <= MAX_SEED:
            raise ValueError(f'seed must be an integer in [0, {MAX_SEED}], got {seed!r}')

        def answer(code, message='', path=None, trajectory=None):
            return MotionPlan(code == SUCCESS, code, message, 1.0 if code == SUCCESS else 0.0,
                              time.perf_counter() - began, trajectory,
                              np.zeros((0, len(start))) if path is None else path)

        problem = self._problem(start, 'start', avoid_collisions)
        if problem:
            return answer(*problem)
        if pose is not None:
            ik = self._goal_pose(pose, index, start, orientation, avoid_collisions)
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
        if not avoid_collisions:
            path = np.stack([start, goal])
            return answer(SUCCESS, path=path, trajectory=self._rounded(path, limits, False))
        goals = joint_path.turned_goals(start, goal, self._continuous, self._arms)
        # (whole turns change no distance: the start and the goal give the margins)
        margins = self.scene.margins(self.clearance, np.stack([start, goal]))
        outcome = joint_path.Outcome()
        with self.scene.counting_blocks():
            path = joint_path.plan_path(
                self.scene, start, goals, *self.position_limits.T,
                max(planning_time - (time.perf_counter() - began), 1e-3), int(seed), outcome,
                margins)
        if path is None:
            if outcome.timed_out:
                return answer(PLANNING_FAILED, f'planning stopped at its time cap of '
                              f'{planning_time:g} s (planning_time) after '
                              f'{outcome.motion_checks} of {joint_path.MOTION_CHECKS} '
                              'motion checks; give it more time' + blocked_text(self.scene))
            return answer(PLANNING_FAILED, f'no collision-free path found in '
                          f'{joint_path.MOTION_CHECKS} motion checks'
                          + blocked_text(self.scene))
        trajectory = self._rounded(path, limits, True, margins)
        if trajectory is None:
            return answer(PLANNING_FAILED, 'the trajectory along the path found could not be '
                          'proven free as played' + blocked_text(self.scene))
        return answer(SUCCESS, path=path, trajectory=trajectory)

    def played_free(self, trajectory: JointTrajectory, full: np.ndarray) -> bool:
        """True when ``trajectory``, as joint_trajectory_controller plays it (its quintics
        between points), is proven free of collision at every instant, the joints it does
        not name at their values in ``full`` (dof,) (``hrdf_ros.motion.certified``)."""
        return corners.played_free(self.scene, trajectory, full, np.array(self._columns),
                                   self._ratios)

    def _rounded(self, path: np.ndarray, limits, checked: bool, margins=0.0
                 ) -> Optional[JointTrajectory]:
        """The trajectory along a proven polyline: its corners rounded where that is
        proven free as played (``hrdf_ros.motion.corners``) when that is faster, else
        stopping at every corner; with ``checked``, None when even that is not proven
        free as played (its quintics follow the segments to rounding)."""
        trajectory = self._timed(path, False, limits)
        if not checked:
            return trajectory
        if len(path) >= 3 and self.blend_tolerance > 0.0:
            rounded = corners.rounded_trajectory(
                self.scene, path, self.trajectory_joints, np.array(self._columns),
                self._ratios, *limits, self.blend_tolerance, margins)
            if rounded is not None and rounded.duration < trajectory.duration:
                return rounded
        # stopping at every corner, the controller's quintics are the profile's cubics on
        # the proven segments (off them by rounding, ~1e-15, where the proofs' bounds
        # keep 2 um of slack: hrdf_ros.motion.pieces.on_segments); else prove them
        played = corners.played_pieces(trajectory, path[0], np.array(self._columns),
                                       self._ratios)
        if on_segments(played, path) or self.played_free(trajectory, path[0]):
            return trajectory
        return None

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
        states, fraction, stop, progress = cartesian.follow(
            self.kinematics, self.scene, start, poses, index, max_step, avoid_collisions,
            self.position_limits, default_orientation(chain), (1e-5, 1e-5))
        trajectory = self._timed(states, True, limits)
        while avoid_collisions and len(states) > 1:
            # the spline through the states leaves their chords: prove it as played, and
            # where it is refused, end the path before
            proof = self.scene.certify(corners.played_pieces(trajectory, states[0],
                                                             np.array(self._columns),
                                                             self._ratios))
            if proof.free.all():
                break
            # end at the state where the refused piece starts (the trajectory's points are
            # the states, but for repeated ones; 2 states: a line's knots)
            point = trajectory.positions[max(proof.refused, 0)]
            at = int(np.argmin(np.abs(self._trajectory_values(states) - point).sum(axis=1)))
            keep = min(at + 1, len(states) - 1)
            pair = self.scene.row_pair(proof.row) if proof.row >= 0 else None
            states, fraction = states[:keep], float(progress[keep - 1])
            stop = ('played', proof.state, pair)
            trajectory = self._timed(states, True, limits)
        message = '' if stop is None else \
            f'followed {100 * fraction:.1f} % of the path; ' + stop_text(stop, self.scene)
        return MotionPlan(True, SUCCESS, message, fraction, time.perf_counter() - began,
                          trajectory, states)
