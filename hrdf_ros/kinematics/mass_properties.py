"""Mass properties of a robot and gravity compensation, from its kinematics.

Conventions: SI units (kg, m, kg m^2, N, N m). Everything is expressed in the reference
frame of :mod:`hrdf_ros.kinematics` (the frame the HRDF ``<robot rot trans>`` base frame
is given in). Bodies are the elements with a COM frame (every element but ``joint``), in
HEBI's order (hebi-py 2.16.1 ``RobotModel.masses``).

Masses and COM offsets come from the HRDF and HEBI's module catalogue (hebi-core, via
hebi-py 2.16.1); rotational inertia from :mod:`hrdf_ros.hrdf.inertia` (hebi_description;
HEBI's own library does not model it).

Gravity compensation (:meth:`MassProperties.gravity_compensation`) is
:meth:`~hrdf_ros.kinematics.Kinematics.gravity_efforts` (:mod:`.gravity`) with standard
gravity by default: ``tau = - sum_i J_com,i(q)^T [m_i g; 0]``, the gradient of the
potential energy ``V(q) = - sum_i m_i g . p_i(q)``, what hebi-py's
``RobotModel.get_grav_comp_efforts`` returns.
"""
from __future__ import annotations

import numpy as np

from .buffers import result_array
from .dynamics import inertia_matrices
from .kinematics import Kinematics

#: Standard gravity, m/s^2 (CGPM 1901). HEBI's arm API uses 9.81
#: (:data:`~hrdf_ros.kinematics.gravity.HEBI_GRAVITY`).
STANDARD_GRAVITY = 9.80665


class MassProperties:
    """Masses, centres of mass, inertia and gravity compensation of one robot.

    Args:
        kinematics: the robot's :class:`~hrdf_ros.kinematics.Kinematics`.
    """

    def __init__(self, kinematics: Kinematics):
        self.kinematics = kinematics
        bodies = [e for e in kinematics.model.elements if e.has_com_frame]
        #: (n_com,) body masses, kg, HEBI's order.
        self.masses = np.array([e.mass for e in bodies], dtype=float)
        #: total mass, kg.
        self.total_mass = float(self.masses.sum())
        #: (n_com, 3, 3) inertia tensors about each body's COM, in its COM frame, kg m^2.
        self.inertia_tensors = inertia_matrices([e.inertia for e in bodies]) if bodies \
            else np.empty((0, 3, 3))

    def com_frames(self, positions, out=None) -> np.ndarray:
        """(n_com, 4, 4) or (N, n_com, 4, 4) body COM frames in the reference frame;
        ``out``: optional array of that shape to fill, as for
        :meth:`~hrdf_ros.kinematics.Kinematics.frames`.

        Raises:
            ValueError: on a wrong shape or non-finite positions, or a bad ``out``.
            TypeError: ``out`` is not a float64 numpy array.
        """
        return self.kinematics.frames('com', positions, out=out)

    def center_of_mass(self, positions, out=None) -> np.ndarray:
        """Whole-robot centre of mass, (3,) or (N, 3), m, in the reference frame;
        ``out``: optional float64 C-contiguous array of that shape to fill.

        Raises:
            ValueError: on bad positions, or when the robot has no mass, or a bad
                ``out``. TypeError: ``out`` is not a float64 numpy array.
        """
        if self.total_mass <= 0.0:
            raise ValueError('the robot has no mass; its centre of mass is undefined')
        frames = self.com_frames(positions)
        out = result_array(out, frames.shape[:-3] + (3,),
                           sources=(np.asarray(positions),))
        np.einsum('i,...ij->...j', self.masses, frames[..., :3, 3], out=out)
        out /= self.total_mass
        return out

    def inertia_about_center_of_mass(self, positions) -> np.ndarray:
        """Whole-robot inertia tensor about its centre of mass, in the reference frame's
        axes: (3, 3) or (N, 3, 3), kg m^2 (rotated body tensors plus the parallel-axis
        terms ``m (|r|^2 I - r r^T)``).

        Raises:
            ValueError: on bad positions, or when the robot has no mass.
        """
        frames = self.com_frames(positions)
        rotations, points = frames[..., :3, :3], frames[..., :3, 3]
        center = self.center_of_mass(positions)
        r = points - center[..., None, :]                          # (..., n, 3)
        rotated = rotations @ self.inertia_tensors @ np.swapaxes(rotations, -1, -2)
        squared = np.einsum('...ij,...ij->...i', r, r)
        parallel = (squared[..., None, None] * np.eye(3)
                    - r[..., :, None] * r[..., None, :])
        return np.einsum('i,...ijk->...jk', self.masses, parallel) + rotated.sum(axis=-3)

    def gravity_compensation(self, positions, gravity=(0.0, 0.0, -STANDARD_GRAVITY),
                             out=None) -> np.ndarray:
        """Joint efforts that hold the robot still against gravity.

        Args:
            positions: (dof,) or (N, dof) joint positions (rad or m).
            gravity: (3,) gravitational acceleration in the reference frame, m/s^2
                (default: standard gravity along -z).
            out: optional float64 C-contiguous array of the result's shape to fill.

        Returns:
            (dof,) or (N, dof) efforts, N m for revolute and N for prismatic degrees
            of freedom (HEBI's ``get_grav_comp_efforts``).

        Raises:
            ValueError: on bad positions, a gravity vector that is not 3 finite
                numbers, or a bad ``out``. TypeError: ``out`` not a float64 array.
        """
        return self.kinematics.gravity_efforts(positions, gravity, out=out)
