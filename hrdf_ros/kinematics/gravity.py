"""Gravity efforts: the joint efforts that hold a robot still, from its COM Jacobians.

In: joint positions (dof,) or (N, dof) (rad, or m for prismatic joints) and a gravity
vector (3,) in the reference frame (m/s^2). Out: (dof,) or (N, dof) efforts, N m for
revolute and N for prismatic degrees of freedom, as hebi-py's ``get_grav_comp_efforts``
gives them. :class:`GravityEfforts` is the part of
:class:`~hrdf_ros.kinematics.Kinematics` that computes them (it calls the Kinematics'
COM Jacobians, on its path).
"""
from __future__ import annotations

import numpy as np

from .buffers import result_array

#: The gravity HEBI's arm API compensates, m/s^2 in the reference frame: 9.81 along -z
#: (hebi-py 2.16.1: its gravity compensation plugin scales the measured direction to
#: 9.81).
HEBI_GRAVITY = (0.0, 0.0, -9.81)


class GravityEfforts:
    """:meth:`gravity_efforts` of :class:`~hrdf_ros.kinematics.Kinematics` (a part of
    that class; uses its ``model`` and :meth:`~hrdf_ros.kinematics.Kinematics.jacobians`)."""

    def gravity_efforts(self, positions, gravity=HEBI_GRAVITY, out=None,
                        threads: int = 1) -> np.ndarray:
        """Joint efforts that hold the robot still against gravity.

        ``tau = - sum_i J_com,i(q)^T [m_i g; 0]`` over the bodies (HEBI's masses), the
        gradient of the potential energy: hebi-py's ``get_grav_comp_efforts``, and RNEA
        at rest on the ``--exact-masses`` URDF divided by each joint's gear ratio.

        Args:
            positions: (dof,) or (N, dof) joint positions (rad or m).
            gravity: (3,) gravitational acceleration in the reference frame, m/s^2
                (default :data:`~hrdf_ros.kinematics.HEBI_GRAVITY`, 9.81 along -z as HEBI's arm API uses).
            out: optional float64 C-contiguous array of the result's shape to fill.
            threads: threads of a batch on the numba path (see
                :meth:`~hrdf_ros.kinematics.Kinematics.frames`).

        Returns:
            (dof,) or (N, dof) efforts, N m for revolute and N for prismatic degrees of
            freedom (``out`` when given).

        Raises:
            ValueError: bad positions, a gravity vector that is not 3 finite numbers, or
                a bad ``out``. TypeError: ``out`` not a float64 array.
        """
        g = np.asarray(gravity, dtype=float)
        if g.shape != (3,) or not np.all(np.isfinite(g)):
            raise ValueError(f'gravity must be 3 finite numbers (m/s^2), got {gravity!r}')
        linear = self.jacobians('com', positions, threads=threads)[..., :3, :]
        forces = -self.model.masses[:, None] * g                            # (n, 3)
        out = result_array(out, linear.shape[:-3] + linear.shape[-1:],
                           sources=(np.asarray(positions),))
        return np.einsum('...ijk,ij->...k', linear, forces, out=out)
