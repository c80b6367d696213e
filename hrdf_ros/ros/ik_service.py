"""Request handling of the node's ``~/solve_ik`` service (hrdf_ros_interfaces/srv/SolveIk):
inverse kinematics, answered with MoveIt's error codes.

In: a SolveIk request, the running :class:`~hrdf_ros.ros.loaded_robot.LoadedRobot`, the
latest joint_states as HEBI positions (or None) and the node's default timeout. Out: the
filled response; never raises on a bad request. What the codes mean (MoveIt's
MoveItErrorCodes numbers, as MoveIt's kinematics plugins answer GetPositionIK):

* ``SUCCESS`` (1): the solution is within both tolerances;
* ``NO_IK_SOLUTION`` (-31): none found within the timeout (the best found is returned);
* ``INVALID_LINK_NAME`` (-18): ``link_name`` is not an end-effector link of the robot, or
  ``end_effector_index`` is out of range;
* ``FRAME_TRANSFORM_FAILURE`` (-21): ``header.frame_id`` is not a frame of the robot;
* ``INVALID_ROBOT_STATE`` (-17): the seed names a joint the robot does not have, has
  names and positions of different lengths, or a position that is not finite;
* ``FAILURE`` (99999): the target is not a pose (a NaN, a zero quaternion), or the
  orientation, a tolerance or the timeout is not valid.

Poses are in the robot's reference frame (the prefixed base link) unless ``frame_id``
names another of its links, which is then taken at the seed configuration. Seeds and
solutions are URDF joint values (as joint_states carry them): a joint with a
``gear_ratio`` g has HEBI position g times its value.
"""
from __future__ import annotations

import math
from typing import Callable, Optional

import numpy as np
from sensor_msgs.msg import JointState

from hrdf_ros_interfaces.srv import SolveIk

from ..description.frame_tree import link_frames
from ..kinematics.ik import ORIENTATIONS
from ..kinematics.rotations import quaternion_to_rotation
from .loaded_robot import LoadedRobot

#: The longest search a request may ask for, s.
MAX_TIMEOUT = 1.0
#: The solver's default tolerances (m, rad), for a request's 0.
DEFAULT_TOLERANCE = 1e-5


class IkError(Exception):
    """A request answered with ``code`` and this message."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def pose_matrix(pose, what: str) -> np.ndarray:
    """(4, 4) of a geometry_msgs/Pose (m; its quaternion normalised); ``what`` names it in
    errors.

    Raises:
        IkError: FAILURE, a number not finite or a zero quaternion.
    """
    p, o = pose.position, pose.orientation
    values = [p.x, p.y, p.z, o.x, o.y, o.z, o.w]
    if not all(math.isfinite(v) for v in values):
        raise IkError(SolveIk.Response.FAILURE, f'{what} pose must be finite')
    quaternion = np.array(values[3:])
    if not np.linalg.norm(quaternion) > 1e-9:
        raise IkError(SolveIk.Response.FAILURE,
                      f'{what} orientation is a zero quaternion (not a rotation)')
    target = np.eye(4)
    target[:3, :3] = quaternion_to_rotation(quaternion)
    target[:3, 3] = values[:3]
    return target


class IkQueries:
    """Answers SolveIk requests for one robot.

    Args:
        robot: the running robot.
        default_timeout: s, for a request's zero timeout (the node's ``ik_timeout``).
    """

    def __init__(self, robot: LoadedRobot, default_timeout: float):
        self.robot = robot
        self.default_timeout = default_timeout
        prefix = robot.base_frame_id[:len(robot.base_frame_id) - len(robot.tree.links[0])]
        self.frames = {prefix + name: frame
                       for name, frame in link_frames(robot.model, robot.tree).items()}
        self.end_effectors = {prefix + name: k
                              for k, name in enumerate(robot.tree.end_effector_links)}
        self.joint_index = {name: k for k, name in enumerate(robot.joint_names)}
        self.ignored = set(robot.gripper_joint_names) | set(robot.mimic_joint_names)

    def solve(self, request, response, latest: Optional[np.ndarray],
              solver: Optional[Callable] = None):
        """Fill a SolveIk response (see the module docstring); ``latest`` is the last
        joint_states as HEBI positions, or None; ``solver``: called as
        :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik` (default: the robot's)."""
        response.position_error, response.orientation_error = math.nan, math.nan
        response.solution = JointState()
        solver = solver or self.robot.kinematics.solve_ik
        try:
            options = self._options(request)
            index = self.end_effector(request.link_name, request.end_effector_index)
            seed = self.state(request.seed, latest, 'seed')
            target = self.pose(request.target.pose, request.target.header.frame_id, seed,
                               'target')
            result = solver(target, seed, index=index, **options)
        except IkError as exc:
            response.success, response.error_code, response.message = False, exc.code, str(exc)
            return response
        except ValueError as exc:       # the solver's own checks (none expected here)
            response.success, response.error_code = False, SolveIk.Response.FAILURE
            response.message = str(exc)
            return response
        response.success = result.success
        response.error_code = (SolveIk.Response.SUCCESS if result.success
                               else SolveIk.Response.NO_IK_SOLUTION)
        response.solution.name = list(self.robot.joint_names)
        response.solution.position = (result.positions / self.robot.gear_ratios).tolist()
        response.position_error = result.position_error
        response.orientation_error = result.orientation_error
        response.message = (
            f'solved in {result.iterations} iteration(s)' if result.success else
            f'no {"collision-free " if request.avoid_collisions else ""}solution within '
            f'{options["timeout"]:g} s: the best found is '
            f'{result.position_error:.3g} m and {result.orientation_error:.3g} rad away')
        return response

    def _options(self, request) -> dict:
        """Objective, tolerances and timeout of the request (FAILURE when invalid)."""
        orientation = request.orientation or None
        if orientation is not None and orientation not in ORIENTATIONS:
            raise IkError(SolveIk.Response.FAILURE,
                          f"orientation must be empty or one of {', '.join(ORIENTATIONS)}, "
                          f"got '{request.orientation}'")
        tolerances = []
        for name in ('position_tolerance', 'orientation_tolerance'):
            value = getattr(request, name)
            if not (math.isfinite(value) and value >= 0.0):
                raise IkError(SolveIk.Response.FAILURE,
                              f'{name} must be 0 (the default) or a positive number, '
                              f'got {value}')
            tolerances.append(value or DEFAULT_TOLERANCE)
        duration = request.timeout
        if duration.sec < 0:
            raise IkError(SolveIk.Response.FAILURE, 'timeout must not be negative')
        timeout = duration.sec + duration.nanosec * 1e-9
        timeout = min(timeout or self.default_timeout, MAX_TIMEOUT)
        return {'orientation': orientation, 'position_tolerance': tolerances[0],
                'orientation_tolerance': tolerances[1], 'timeout': timeout}

    def end_effector(self, link_name: str, index: int = 0) -> int:
        """The end-effector index of ``link_name``, else ``index`` (INVALID_LINK_NAME
        when there is no such one)."""
        if link_name:
            found = self.end_effectors.get(link_name)
            if found is None:
                raise IkError(SolveIk.Response.INVALID_LINK_NAME,
                              f"link_name '{link_name}' is not an end-effector link "
                              f"(end effectors: {', '.join(self.end_effectors) or 'none'})")
            return found
        count = len(self.end_effectors)
        if not 0 <= index < count:
            raise IkError(SolveIk.Response.INVALID_LINK_NAME,
                          f'end_effector_index {index} out of range '
                          f'(the robot has {count} end effector(s))')
        return index

    def state(self, seed: JointState, base: Optional[np.ndarray], field: str) -> np.ndarray:
        """HEBI positions: ``base`` (the latest joint_states; None: zeros) with the
        joints that ``seed`` (URDF values by name; the request's ``field``) names over
        them (INVALID_ROBOT_STATE for a bad one)."""
        q = np.zeros(len(self.joint_index)) if base is None else np.array(base, dtype=float)
        if len(seed.name) != len(seed.position):
            raise IkError(SolveIk.Response.INVALID_ROBOT_STATE,
                          f'{field} has {len(seed.name)} names and {len(seed.position)} '
                          'positions')
        unknown = [n for n in seed.name if n not in self.joint_index and n not in self.ignored]
        if unknown:
            raise IkError(SolveIk.Response.INVALID_ROBOT_STATE,
                          f'{field} names joints the robot does not have: '
                          + ', '.join(unknown) + f" (joints: {', '.join(self.joint_index)})")
        for name, value in zip(seed.name, seed.position):
            if not math.isfinite(value):
                raise IkError(SolveIk.Response.INVALID_ROBOT_STATE,
                              f'{field} position of {name} is not finite')
            k = self.joint_index.get(name)
            if k is not None:
                q[k] = value * self.robot.gear_ratios[k]
        return q

    def pose(self, pose, frame_id: str, q: np.ndarray, what: str) -> np.ndarray:
        """(4, 4) of a geometry_msgs/Pose given in ``frame_id`` (empty: the reference
        frame; else a link of the robot, taken at HEBI positions ``q``), in the reference
        frame; ``what`` names it in errors: FAILURE for a pose that is not finite or a
        zero quaternion (:func:`pose_matrix`), FRAME_TRANSFORM_FAILURE for a frame that is
        not the robot's."""
        target = pose_matrix(pose, what)
        frame = self.frame_pose(frame_id, q)
        if frame is None:
            raise IkError(SolveIk.Response.FRAME_TRANSFORM_FAILURE,
                          f"frame_id '{frame_id}' is not a frame of the robot (give it in "
                          f"{self.robot.base_frame_id}, or one of its links)")
        return frame @ target

    def frame_pose(self, frame_id: str, q: np.ndarray) -> Optional[np.ndarray]:
        """(4, 4) pose of the robot's frame ``frame_id`` (empty or the base link: the
        identity; else a link, at HEBI positions ``q``) in the reference frame, m; None
        when the robot has no such frame."""
        if not frame_id:
            return np.eye(4)
        frame = self.frames.get(frame_id)
        if frame is None:
            return None
        kind, index = frame
        if kind == 'base':
            return np.eye(4)
        return self.robot.kinematics.frame(kind, index, q)
