"""Request handling of the node's kinematics services (hrdf_ros_interfaces/srv); the
inverse kinematics requests are :mod:`.ik_service`'s.

The handlers fill a response and never raise on bad requests: a wrong number of
positions, a non-finite position, an unknown frame type, tag or index, or a request
for the latest joint_states before any arrived give ``success = False`` and a message
saying what was wrong. Poses and Jacobians are in the robot's reference frame (the
prefixed base link), as :class:`hrdf_ros.Kinematics` computes them.

:data:`SERVICES` is the node's services: the node creates them from it, and the
documentation's node reference renders it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np
from geometry_msgs.msg import PoseStamped

from hrdf_ros_interfaces.srv import (GetForwardKinematics, GetGravityEfforts, GetJacobian,
                                     GetModelStatus, GetStateValidity, LoadHrdf,
                                     PlanCartesianPath, PlanMotion,
                                     SetCollisionObjects, SolveIk, ValidateHrdf)

from ..kinematics import FRAME_TYPES, HEBI_GRAVITY, Kinematics
from ..kinematics.rotations import rotation_to_quaternion


@dataclass(frozen=True)
class Service:
    """One service of ``hrdf_ros_node``.

    Attributes:
        name: service name, in the node's private namespace (``~/``).
        srv_type: the generated service class (hrdf_ros_interfaces/srv).
        handler: name of the node's method that answers it.
        description: what it does (inline Markdown).
    """

    name: str
    srv_type: type
    handler: str
    description: str


#: Every service of ``hrdf_ros_node`` (besides rclpy's parameter services).
SERVICES = (
    Service('~/get_model_status', GetModelStatus, '_on_model_status',
            'File, robot name, HRDF version, DoF, joint names, frame counts, total mass, '
            'warnings.'),
    Service('~/get_forward_kinematics', GetForwardKinematics, '_on_forward_kinematics',
            '`geometry_msgs/PoseStamped` of one frame, or of all frames of a type '
            '(`frame_index: -1`).'),
    Service('~/get_jacobian', GetJacobian, '_on_jacobian',
            '6 x dof geometric Jacobian of one frame, row major, rows `vx vy vz wx wy wz`, '
            'in the reference frame.'),
    Service('~/solve_ik', SolveIk, '_on_solve_ik',
            'Joint positions that put an end effector at a pose (inverse kinematics), with '
            "MoveIt's error codes; solved off the executor, so /tf keeps its rate; "
            '`avoid_collisions` (default true: a request that leaves it out is answered '
            'free of collision; the `motion` extra) as MoveIt\'s.'),
    Service('~/get_gravity_efforts', GetGravityEfforts, '_on_gravity_efforts',
            'Joint efforts that hold the robot still against gravity at given (or the '
            "latest) positions, as HEBI's `get_grav_comp_efforts`."),
    Service('~/load_hrdf', LoadHrdf, '_on_load_hrdf',
            'Replace the model with an HRDF file or HRDF text (a reload).'),
    Service('~/validate_hrdf', ValidateHrdf, '_on_validate_hrdf',
            'Every located error and warning of an HRDF file or text, as `hrdf validate` '
            '(`strict: true` as `--strict`); the running model is untouched.'),
    Service('~/plan_motion', PlanMotion, '_on_plan_motion',
            'A collision-free motion to a joint goal or an end-effector pose, timed within '
            "the joints' limits for joint_trajectory_controller (`hrdf_ros.MotionPlanner.plan`"
            "), with MoveIt's error codes; planned off the executor (the `motion` extra)."),
    Service('~/plan_cartesian_path', PlanCartesianPath, '_on_plan_cartesian_path',
            'The end effector along straight lines through poses, as MoveIt\'s '
            '`GetCartesianPath` (`fraction` < 1 for a part), timed as `~/plan_motion`.'),
    Service('~/check_state_validity', GetStateValidity, '_on_check_state_validity',
            'The pairs of links (or a link and a collision object) in collision at a '
            'state, as MoveIt\'s `/check_state_validity` (the `motion` extra).'),
    Service('~/set_collision_objects', SetCollisionObjects, '_on_set_collision_objects',
            'Replace the collision objects the planning services avoid (boxes, spheres, '
            'cylinders as `shape_msgs/SolidPrimitive`, floors).'),
)


class QueryError(Exception):
    """A request that cannot be answered; the message goes into the response."""


def _frame_type(requested: str) -> str:
    frame_type = requested or 'end_effector'
    if frame_type not in FRAME_TYPES:
        raise QueryError(f"unknown frame_type '{requested}'; expected one of "
                         + ', '.join(FRAME_TYPES))
    return frame_type


class KinematicsQueries:
    """Answers GetForwardKinematics, GetJacobian and GetGravityEfforts requests for one
    robot.

    Args:
        kinematics: the robot's kinematics.
        joint_names: joint name per degree of freedom (Jacobian column order).
        frame_id: TF frame the results are expressed in (the prefixed base link).
    """

    def __init__(self, kinematics: Kinematics, joint_names: List[str], frame_id: str):
        self.kinematics = kinematics
        self.model = kinematics.model
        self.joint_names = list(joint_names)
        self.frame_id = frame_id

    def _positions(self, request, latest: Optional[np.ndarray]) -> np.ndarray:
        dof = self.model.dof_count
        if request.use_latest_joint_states:
            if len(request.positions):
                raise QueryError('give either positions or use_latest_joint_states, not both')
            if latest is None:
                raise QueryError('use_latest_joint_states: no joint_states received yet')
            return np.array(latest, dtype=float)
        q = np.array(request.positions, dtype=float)
        if q.shape != (dof,):
            raise QueryError(f'positions has {len(q)} values; the robot has {dof} '
                             f'degrees of freedom ({", ".join(self.joint_names)})')
        bad = [self.joint_names[k] for k in np.flatnonzero(~np.isfinite(q))]
        if bad:
            raise QueryError(f'positions must be finite; not finite for {", ".join(bad)}')
        return q

    def _frames(self, request, allow_all: bool) -> Tuple[str, List[int]]:
        frame_type = _frame_type(request.frame_type)
        count = self.model.frame_count(frame_type)
        if request.tag:
            try:
                element = self.model.element_index(request.tag)
                return frame_type, [self.model.frame_index(element, frame_type)]
            except KeyError as exc:
                raise QueryError(exc.args[0]) from None
        index = request.frame_index
        if index == -1 and allow_all:
            return frame_type, list(range(count))
        if not 0 <= index < count:
            allowed = f'0..{count - 1}' if count else 'none'
            extra = ' or -1 for all' if allow_all else ''
            raise QueryError(f'frame_index {index} out of range for {frame_type} frames '
                             f'(valid: {allowed}{extra})')
        return frame_type, [index]

    def forward_kinematics(self, request, response, latest: Optional[np.ndarray], stamp):
        """Fill a GetForwardKinematics response; ``latest`` is the last joint_states
        position vector (or None) and ``stamp`` the stamp to put on the poses."""
        try:
            q = self._positions(request, latest)
            frame_type, indices = self._frames(request, allow_all=True)
        except QueryError as exc:
            response.success, response.message = False, str(exc)
            return response
        if len(indices) == 1:
            frames = self.kinematics.frame(frame_type, indices[0], q)[None]
        else:
            frames = self.kinematics.frames(frame_type, q)
        quaternions = rotation_to_quaternion(frames[:, :3, :3]) if len(frames) else []
        poses = []
        for frame, quaternion in zip(frames, quaternions):
            pose = PoseStamped()
            pose.header.frame_id = self.frame_id
            pose.header.stamp = stamp
            p = pose.pose.position
            p.x, p.y, p.z = (float(v) for v in frame[:3, 3])
            o = pose.pose.orientation
            o.x, o.y, o.z, o.w = (float(v) for v in quaternion)
            poses.append(pose)
        response.success, response.message = True, ''
        response.frame_type = frame_type
        response.frame_indices = indices
        response.poses = poses
        response.positions = q.tolist()
        return response

    def gravity_efforts(self, request, response, latest: Optional[np.ndarray]):
        """Fill a GetGravityEfforts response: the efforts at the positions (HEBI's, per
        unit of HEBI position), for the request's gravity (all zero: HEBI's 9.81 along
        -z)."""
        try:
            q = self._positions(request, latest)
        except QueryError as exc:
            response.success, response.message = False, str(exc)
            return response
        g = request.gravity
        gravity = np.array([g.x, g.y, g.z]) if (g.x, g.y, g.z) != (0.0, 0.0, 0.0) \
            else np.array(HEBI_GRAVITY)
        if not np.isfinite(gravity).all():
            response.success, response.message = False, 'gravity must be finite'
            return response
        efforts = self.kinematics.gravity_efforts(q, gravity)
        response.success, response.message = True, ''
        response.joint_names = self.joint_names
        response.efforts = efforts.tolist()
        response.positions = q.tolist()
        response.gravity.x, response.gravity.y, response.gravity.z = map(float, gravity)
        return response

    def jacobian(self, request, response, latest: Optional[np.ndarray]):
        """Fill a GetJacobian response (see GetJacobian.srv for the layout)."""
        try:
            q = self._positions(request, latest)
            frame_type, (index,) = self._frames(request, allow_all=False)
        except QueryError as exc:
            response.success, response.message = False, str(exc)
            return response
        jacobian = self.kinematics.frame_jacobian(frame_type, index, q)
        response.success, response.message = True, ''
        response.frame_type = frame_type
        response.frame_index = index
        response.rows, response.cols = jacobian.shape
        response.data = np.ascontiguousarray(jacobian).ravel().tolist()
        response.frame_id = self.frame_id
        response.joint_names = self.joint_names
        response.positions = q.tolist()
        return response

