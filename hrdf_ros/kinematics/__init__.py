"""Kinematics of a resolved robot: frames, Jacobians and mass properties (numpy).

In: a :class:`~hrdf_ros.model.RobotModel` and joint positions (rad, or m for prismatic
joints), one configuration (dof,) or a batch (N, dof). Out: 4 x 4 frames and 6 x dof
geometric Jacobians in the robot's reference frame, masses and gravity efforts.

* :mod:`.structure` the model compiled once: the tree of joint frames, every frame a
  joint frame times a constant, which joint moves which frame;
* :mod:`.frame_set` a list of frames (all of a type, or one) compiled, evaluated for one
  configuration; :mod:`.batch` the same for batches (:mod:`.batch_jacobians` their
  Jacobians); each joint frame computed once;
* :mod:`.kinematics` :class:`Kinematics`, the API over all of the above; every batched
  call takes ``out=``, a caller's array to fill (checked by :mod:`.buffers`);
* :mod:`.joint_poses` the moving URDF/TF transforms as quaternions (the node's FK);
* :mod:`.mass_properties` masses, centre of mass, inertia, gravity compensation;
* :mod:`.rotations` roll-pitch-yaw and quaternion conversions for the exporters.

Imports :mod:`hrdf_ros.model` only (never the HRDF reader, the exporters or rclpy).
"""
from .kinematics import FRAME_TYPES, Kinematics
from .mass_properties import MassProperties

__all__ = ['FRAME_TYPES', 'Kinematics', 'MassProperties']
