"""Motion: a planning scene (collision checks), collision-free IK, joint and Cartesian
motions, and trajectories timed within the joints' limits for joint_trajectory_controller.

In: a :class:`~hrdf_ros.model.RobotModel` (and collision objects). Out:
:class:`~.planner.MotionPlan` values. The public entry is :class:`MotionPlanner`; its
libraries are the ``motion`` extra (:mod:`.requirements`), imported on first use.
"""
from .objects import CollisionObject, collision_objects, read_collision_objects
from .planner import MotionPlan, MotionPlanner
from .trajectory import JointTrajectory

__all__ = ['CollisionObject', 'JointTrajectory', 'MotionPlan', 'MotionPlanner',
           'collision_objects', 'read_collision_objects']
