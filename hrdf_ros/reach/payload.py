"""The payload an arm holds: the largest mass at an end effector's origin whose weight,
with the arm's own, every joint's effort limit still holds, and the joint that binds.

In: gravity efforts (N, dof) (N m, or N for prismatic joints; what holds the arm alone),
the end effector's Jacobian rows of linear velocity (N, 3, dof), in the reference frame,
effort limits (dof,) and the gravity vector (m/s^2, reference frame). Out: payload (N,)
kg and the binding joint (N,) (its degree-of-freedom index).

A mass m at the end effector's origin adds ``-m J_v^T g`` to the efforts that hold the
robot (the Jacobian transpose maps the force ``m g`` on that point to joint efforts), so
the efforts are ``tau(m) = a + m b`` with ``a`` the gravity efforts and ``b = -J_v^T g``
(``9.81 J_vz`` under HEBI's gravity). The payload is the largest m >= 0 with
``|tau_j(m)| <= limit_j`` for every joint: per joint ``(limit_j - a_j) / b_j`` where
``b_j > 0``, ``(limit_j + a_j) / -b_j`` where ``b_j < 0``, the least of them; the joint
that gives it binds. Where the arm cannot hold itself (``|a_j| > limit_j``) the payload
is 0 and the binding joint is the one over its limit by the largest share; where no joint
feels the mass (every ``b_j == 0``, a singular pose) it is ``inf`` and the binding joint
-1. MoveIt's ``DynamicsSolver::getMaxPayload`` is the same bound at one state (it takes
the least ratio over the joints, with KDL's gravity torques).
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from ..description.limits import rated_limits
from ..model import RobotModel


def rated_efforts(model: RobotModel) -> np.ndarray:
    """(dof,) effort limits, N m (N for prismatic joints), per degree of freedom: the
    actuator's rated torque from HEBI's catalogue (hebi-py 2.16.1 ``max_efforts``, e.g.
    X8-9 23 N m), as the URDF and the MoveIt package write it
    (:func:`~hrdf_ros.description.limits.rated_limits`)."""
    return np.array([rated_limits(model.elements[index])[1]
                     for index in model.dof_elements], dtype=float)


def lifting_efforts(linear_jacobians: np.ndarray, gravity) -> np.ndarray:
    """``-J_v^T g``: the efforts that hold 1 kg at a frame against gravity.

    Args:
        linear_jacobians: (..., 3, dof) rows [vx vy vz] of the frame's geometric
            Jacobian, in the reference frame (m/s per rad/s, or per m/s).
        gravity: (3,) m/s^2 in the reference frame.

    Returns:
        (..., dof) N m (N for prismatic joints) per kg, summed in a fixed order,
        elementwise (no BLAS): the same bits on every machine.
    """
    jv, g = np.asarray(linear_jacobians, dtype=float), np.asarray(gravity, dtype=float)
    return -(jv[..., 0, :] * g[0] + jv[..., 1, :] * g[1] + jv[..., 2, :] * g[2])


def payload(gravity_efforts: np.ndarray, linear_jacobians: np.ndarray,
            effort_limits: np.ndarray, gravity=(0.0, 0.0, -9.81)
            ) -> Tuple[np.ndarray, np.ndarray]:
    """The payload (kg) and the binding joint per state (see the module docstring).

    Args:
        gravity_efforts: (N, dof) efforts that hold the robot alone.
        linear_jacobians: (N, 3, dof) rows [vx vy vz] of the end effector's geometric
            Jacobian, in the reference frame (m/s per rad/s, or per m/s).
        effort_limits: (dof,) positive limits.
        gravity: (3,) m/s^2 in the reference frame.

    Returns:
        ``(payload (N,) kg, binding joint (N,) int64)``.
    """
    a = np.asarray(gravity_efforts, dtype=float)
    b = lifting_efforts(linear_jacobians, gravity)
    limits = np.asarray(effort_limits, dtype=float)[None, :]
    with np.errstate(divide='ignore', invalid='ignore'):
        bound = np.where(b > 0, (limits - a) / b, np.where(b < 0, (limits + a) / -b, np.inf))
    bound = np.where(np.isnan(bound), np.inf, bound)
    binding_joint = np.argmin(bound, axis=1)
    mass = bound[np.arange(len(a)), binding_joint]
    binding_joint = np.where(np.isfinite(mass), binding_joint, -1)
    over = np.abs(a) / limits
    cannot = (over > 1.0).any(axis=1)
    mass = np.where(cannot, 0.0, np.maximum(mass, 0.0))
    binding_joint = np.where(cannot, np.argmax(over, axis=1), binding_joint)
    return mass, binding_joint.astype(np.int64)
