"""Reach and payload maps for arm design: where an end effector reaches, in which tool
directions, and the mass it holds there (:func:`reach_map`, :class:`ReachMap`).

In: a :class:`~hrdf_ros.model.RobotModel` (and its limits). Out: a
:class:`~hrdf_ros.reach.result.ReachMap`, saved as ``.npz``. Sits on ``kinematics/``
(IK, Jacobians, gravity efforts) and ``description/`` (limits); the CLI (``hrdf
reach``) and the view draw it.
"""
from .build import reach_map
from .result import ReachMap

__all__ = ['ReachMap', 'reach_map']
