"""A motion planner's robot: its description, planning scene, joints and limits.

In: a :class:`~hrdf_ros.model.RobotModel`, collision objects, optional position limits,
grippers' finger positions and the corner tolerance (:class:`PlannerSetup`'s
arguments). Out: what :class:`~.planner.MotionPlanner` plans with (its base class): the
scene's collision checks, the position, velocity and acceleration limits (HEBI positions;
rad/s, rad/s^2 per URDF joint), the trajectory's joints, the lever arms of
:mod:`.resolution`, collision-free IK's state; and the changes of the scene (objects,
grippers).
"""
from __future__ import annotations

import math
from typing import Mapping, Optional, Sequence

import numpy as np

from ..description.planning_limits import joint_limits as planning_limits
from ..description.robot import describe
from ..description.semantics import semantics as robot_semantics
from ..kinematics import Kinematics
from ..model import RobotModel
from . import collision_free_ik
from .requests import collision_objects_list, position_limits
from .resolution import lever_arms
from .scene import PlanningScene

#: m, how far apart planned motions keep the checked pairs by default (proven).
CLEARANCE = 0.001


class PlannerSetup:
    """The robot a :class:`~.planner.MotionPlanner` plans for (module docstring)."""

    def __init__(self, model: RobotModel, collision_objects: Sequence = (),
                 joint_limits=None, *, description=None, kinematics: Optional[str] = None,
                 gripper_positions: Optional[Mapping[str, float]] = None,
                 blend_tolerance: float = math.inf, semantics=None,
                 clearance: float = CLEARANCE):
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
            blend_tolerance: how far a planned motion may pass from its path's corners
                (rad or m of URDF joint values, Euclidean over the trajectory's joints;
                ``hrdf_ros.motion.corners``), >= 0; inf (the default): as far as the
                path's segments allow, every rounding checked as played; 0: stop at
                every corner.
            semantics: the SRDF's content (groups, disabled collision pairs:
                ``hrdf_ros.description.semantics.Semantics`` of ``description``) when
                not the default ``semantics(description)``.
            clearance: m, >= 0: how far apart planned motions keep every checked pair,
                proven along the whole motion (a pair already closer at the start or
                the goal: half as far as it is there); the trajectory as played is then
                proven free of collision with room to spare for rounding.

        Raises:
            ImportError: the motion extra is missing (one message naming it).
            ValueError: a collision object or a limit is wrong.
        """
        if not (isinstance(blend_tolerance, (int, float)) and blend_tolerance >= 0.0):
            raise ValueError(f'blend_tolerance must be a number >= 0, got {blend_tolerance!r}')
        if isinstance(clearance, bool) or not isinstance(clearance, (int, float)) or \
                not 0.0 <= clearance < math.inf:
            raise ValueError(f'clearance must be a number >= 0 m, got {clearance!r}')
        self.clearance = float(clearance)
        self.blend_tolerance = float(blend_tolerance)
        self.model, self.kinematics = model, Kinematics(model, kinematics)
        self.description = description or describe(model, 'robot')
        self.semantics = semantics or robot_semantics(self.description)
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
        self.position_limits = position_limits(limits, self.joint_names, self._ratios,
                                               joint_limits)
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

    def played_proof(self, joint_names, times, positions, velocities=None,
                     accelerations=None, state=None):
        """Whether a trajectory, as joint_trajectory_controller plays it from ``state``, is
        proven free of collision at every instant (``hrdf_ros.motion.certified``; the
        controller's interpolation: quintics with accelerations, cubics with velocities
        only, else straight lines; from ``state`` at rest to the first point when its time
        is > 0).

        Args:
            joint_names: the trajectory's joints (URDF names of this robot's degrees of
                freedom).
            times: (K,) s from the start, strictly increasing, >= 0.
            positions: (K, n) URDF joint values; velocities, accelerations: (K, n) or None.
            state: (dof,) HEBI positions of every joint (those the trajectory does not name
                stay there); default zeros.

        Returns:
            ``(free, time, pair)``: the time (s) where the first refused part of the motion
            begins and the pair (link, link or object) that refused it, or
            ``(True, None, None)``.

        Raises:
            ValueError: an unknown or repeated joint, arrays of other shapes, times not
                increasing, values not finite.
        """
        from .pieces import controller_pieces  # noqa: PLC0415
        names = list(joint_names)
        unknown = [n for n in names if n not in self.joint_names]
        if unknown or len(set(names)) != len(names):
            raise ValueError(f'trajectory joints: {", ".join(unknown) or "a joint twice"}: '
                             f'not the robot\'s joints ({", ".join(self.joint_names)})')
        times = np.asarray(times, dtype=float)
        arrays = [np.asarray(x, dtype=float) for x in (positions, velocities, accelerations)
                  if x is not None]
        if times.ndim != 1 or not len(times) or any(x.shape != (len(times), len(names))
                                                    for x in arrays):
            raise ValueError(f'trajectory: expected {len(names)} values per point at every '
                             'point')
        if not all(np.all(np.isfinite(x)) for x in arrays + [times]) or times[0] < 0 or \
                np.any(np.diff(times) <= 0):
            raise ValueError('trajectory: times must increase strictly from >= 0 and every '
                             'value must be finite')
        full = np.zeros(self.model.dof_count) if state is None else \
            np.asarray(state, dtype=float)
        columns = [self.joint_names.index(n) for n in names]
        if len(times) == 1 and times[0] == 0.0:
            single = full.copy()
            single[columns] = arrays[0][0] * self._ratios[columns]
            pairs = self.scene.colliding_pairs(single)
            return (not pairs, None if not pairs else 0.0, pairs[0] if pairs else None)
        pieces = controller_pieces(times, *arrays[:1], velocities, accelerations, full,
                                   columns, self._ratios)
        proof = self.scene.certify(pieces)
        if proof.free.all():
            return True, None, None
        starts = np.concatenate([[0.0], times]) if times[0] > 0.0 else times
        pair = self.scene.row_pair(proof.row) if proof.row >= 0 else None
        return False, float(starts[proof.refused]), pair

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
        self._ik.prepare()          # the collision-free IK's seeds, now, not in a request
