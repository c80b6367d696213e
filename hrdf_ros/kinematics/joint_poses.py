"""The moving transforms of the URDF/TF tree as quaternions and translations, cheaply.

In: a :class:`~hrdf_ros.model.RobotModel` and one configuration of joint values (dof,)
(rad or m; optionally in other units, e.g. URDF joint values, through ``value_scale``).
Out: per degree of freedom, the transform from its element's input frame to its output
(``outputs[0] @ M(q * motion_scale)``, what
:meth:`~hrdf_ros.kinematics.Kinematics.dof_transforms` returns) as a unit quaternion
(x, y, z, w) and a translation (m), ready to be copied into TF messages.

For a rotation by theta about a principal axis e, the quaternion is
``q_F * (sin(theta/2) e, cos(theta/2))``, linear in (sin, cos) of the half angle, and the
translation is constant; for a translation by d along e, the quaternion is constant and
the translation ``t_F + d R_F e`` is linear in d. So every pose is one row
``[sin(theta/2), cos(theta/2), d, 1] @ A_k`` with a constant (4, 7) matrix per joint:
:meth:`JointPoses.poses` evaluates all of them in a handful of numpy calls, and
:meth:`~JointPoses.rotating` / :meth:`~JointPoses.sliding` give the non-zero
coefficients per joint as Python floats, for callers that evaluate them one joint at a
time with :mod:`math` (the node: in a process that mostly runs rclpy, the first numpy
calls of each message cost more than the whole evaluation in plain Python).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from ..model import RobotModel
from .rotations import rotation_to_quaternion


def quaternion_product_matrix(q: np.ndarray) -> np.ndarray:
    """(4, 4) L with ``q * p = L @ p`` (Hamilton product, (x, y, z, w) order)."""
    x, y, z, w = q
    return np.array([[w, -z, y, x],
                     [z, w, -x, y],
                     [-y, x, w, z],
                     [-x, -y, -z, w]])


def rotation_form(fixed: np.ndarray, axis) -> Tuple[Tuple[float, ...], Tuple[float, ...]]:
    """(a, b) with the quaternion (x, y, z, w) of ``fixed @ R(axis, theta)`` equal to
    ``sin(theta/2) a + cos(theta/2) b``, for a (4, 4) ``fixed`` and a unit ``axis`` (3,)."""
    q_fixed = rotation_to_quaternion(np.asarray(fixed, dtype=float)[:3, :3])
    a = quaternion_product_matrix(q_fixed) @ np.append(np.asarray(axis, dtype=float), 0.0)
    return tuple(a.tolist()), tuple(q_fixed.tolist())


class JointPoses:
    """Per degree of freedom, its moving transform as (x, y, z, w, tx, ty, tz).

    Args:
        model: the robot model.
        value_scale: (dof,) HEBI position per input value (e.g. gear ratios for URDF
            joint values); default 1.

    Attributes:
        prismatic: (dof,) bool, True where the motion is a translation (its quaternion
            is constant), else the translation is constant.
    """

    def __init__(self, model: RobotModel, value_scale: Optional[np.ndarray] = None):
        elements = [model.elements[e] for e in model.dof_elements]
        dof = self.dof_count = len(elements)
        scale = np.ones(dof) if value_scale is None else np.asarray(value_scale, float)
        #: motion (rad or m) per input value
        self.motion_per_value = scale * np.array([e.motion_scale for e in elements])
        self.half_angle_per_value = 0.5 * self.motion_per_value
        self.prismatic = np.array([e.motion[0] == 't' for e in elements], dtype=bool)
        self.any_prismatic = bool(self.prismatic.any())
        self.matrix = np.zeros((dof, 4, 7))
        for k, element in enumerate(elements):
            fixed = np.asarray(element.outputs[0], dtype=float)
            q_fixed = rotation_to_quaternion(fixed[:3, :3])
            axis = np.zeros(3)
            axis['xyz'.index(element.motion[1])] = 1.0
            a = self.matrix[k]
            a[3, 4:] = fixed[:3, 3]
            if self.prismatic[k]:
                a[3, :4] = q_fixed
                a[2, 4:] = fixed[:3, :3] @ axis
            else:
                a[0, :4], a[1, :4] = rotation_form(fixed, axis)
        self._coefficients = np.ones((dof, 1, 4))
        self._sin, self._cos = self._coefficients[:, 0, 0], self._coefficients[:, 0, 1]
        self._distance = self._coefficients[:, 0, 2]
        self._poses = np.empty((dof, 1, 7))
        self._rows = self._poses.reshape(dof, 7)

    def rotating(self) -> List[Tuple[int, float, Tuple[float, ...], Tuple[float, ...]]]:
        """Per rotating joint ``(k, h, a, b)``: its quaternion is ``sin(v h) a + cos(v h) b``
        (4-tuples, x y z w) for the input value v = values[k]; its translation is constant
        (see :meth:`poses`)."""
        return [(k, float(self.half_angle_per_value[k]), tuple(self.matrix[k, 0, :4].tolist()),
                 tuple(self.matrix[k, 1, :4].tolist()))
                for k in range(self.dof_count) if not self.prismatic[k]]

    def sliding(self) -> List[Tuple[int, float, Tuple[float, ...], Tuple[float, ...]]]:
        """Per sliding joint ``(k, g, e, t)``: its translation is ``t + (v g) e`` (3-tuples,
        m) for the input value v = values[k]; its quaternion is constant."""
        return [(k, float(self.motion_per_value[k]), tuple(self.matrix[k, 2, 4:].tolist()),
                 tuple(self.matrix[k, 3, 4:].tolist()))
                for k in range(self.dof_count) if self.prismatic[k]]

    def poses(self, values) -> List[List[float]]:
        """Per degree of freedom [qx, qy, qz, qw, tx, ty, tz] (unit quaternion, m) for
        one configuration ``values`` (dof,). Not thread-safe (reuses scratch arrays)."""
        half = np.multiply(values, self.half_angle_per_value)
        np.sin(half, out=self._sin)
        np.cos(half, out=self._cos)
        if self.any_prismatic:
            np.multiply(values, self.motion_per_value, out=self._distance)
        np.matmul(self._coefficients, self.matrix, out=self._poses)
        return self._rows.tolist()
