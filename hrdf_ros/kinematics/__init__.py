"""Kinematics of a resolved robot: frames, Jacobians and mass properties (numpy).

In: a :class:`~hrdf_ros.model.RobotModel` and joint positions (rad, or m for prismatic
joints), one configuration (dof,) or a batch (N, dof). Out: 4 x 4 frames and 6 x dof
geometric Jacobians in the robot's reference frame, masses and gravity efforts (N m, N);
for an end-effector pose, the joint positions that reach it (inverse kinematics).

* :mod:`.structure` the model compiled once: the tree of joint frames, every frame a
  joint frame times a constant, which joint moves which frame;
* :mod:`.frame_set` a list of frames (all of a type, or one) compiled, evaluated for one
  configuration; :mod:`.batch` the same for batches (:mod:`.batch_jacobians` their
  Jacobians); each joint frame computed once;
* :mod:`.kinematics` :class:`Kinematics`, the API over all of the above; every batched
  call takes ``out=``, a caller's array to fill (checked by :mod:`.buffers`);
* :mod:`.joint_poses` the moving URDF/TF transforms as quaternions (the node's FK);
* :mod:`.ik` inverse kinematics (:meth:`Kinematics.solve_ik`): the request checked, solved
  by :mod:`.ik_solver` (the method, numpy) or :mod:`.compiled_ik` (one numba kernel);
* :mod:`.mass_properties` masses, centre of mass, inertia; gravity efforts are
  :meth:`Kinematics.gravity_efforts`;
* :mod:`.rotations` roll-pitch-yaw and quaternion conversions for the exporters.

Imports :mod:`hrdf_ros.model` only (never the HRDF reader, the exporters or rclpy).
"""
from .ik import IkResult
from .kinematics import FRAME_TYPES, HEBI_GRAVITY, Kinematics
from .mass_properties import MassProperties

__all__ = ['FRAME_TYPES', 'HEBI_GRAVITY', 'IkResult', 'Kinematics', 'MassProperties']
