"""Inverse dynamics: the joint efforts that move a robot along a motion.

In: joint positions, velocities and accelerations, each (dof,) or (N, dof) (rad, rad/s,
rad/s^2; m, m/s, m/s^2 for prismatic joints), and a gravity vector (3,) in the reference
frame (m/s^2). Out: (dof,) or (N, dof) efforts, N m for revolute and N for prismatic
degrees of freedom, in HEBI's units (a joint with an HRDF ``gear_ratio`` g takes 1/g of
the URDF joint's torque, as :mod:`.gravity` gives them).

Newton-Euler through the bodies' COM Jacobians (the principle of virtual work)::

    tau = sum_i Jv_i^T m_i (a_i - g) + Jw_i^T (I_i alpha_i + w_i x I_i w_i)

over the bodies i (HEBI's masses and COMs; rotational inertia from
:mod:`hrdf_ros.hrdf.inertia`, about the COM, turned into the reference frame), with the
COM's velocity ``Jv_i dq``, acceleration ``a_i = Jv_i ddq + dJv_i dq``, the body's angular
velocity ``w_i = Jw_i dq`` and acceleration ``alpha_i = Jw_i ddq + dJw_i dq``. The
Jacobians' rates are exact, from the joints' frames: joint k's axis ``u_k`` (its column
of ``Jw``, or of ``Jv`` for a prismatic joint) turns with its frame's angular velocity
``w_k``, so ``d(u_k)/dt = w_k x u_k``; a revolute column ``u_k x (p_i - o_k)`` changes by
``(w_k x u_k) x (p_i - o_k) + u_k x (v_i - v_k)`` (``o_k`` the joint frame's origin, on the
axis, moving at ``v_k``). This is what the recursive Newton-Euler algorithm computes
(Featherstone, "Rigid Body Dynamics Algorithms", 2008, ch. 5; Pinocchio's ``rnea`` on
the ``--exact-masses`` URDF, divided by the gear ratios: tested to 1e-9). At rest it is
:meth:`~.gravity.GravityEfforts.gravity_efforts`.
"""
from __future__ import annotations

import numpy as np

from .gravity import HEBI_GRAVITY


def inertia_matrices(six) -> np.ndarray:
    """(n, 3, 3) symmetric tensors from (n, 6) rows (ixx, iyy, izz, ixy, ixz, iyz)."""
    ixx, iyy, izz, ixy, ixz, iyz = np.asarray(six, dtype=float).reshape(-1, 6).T
    return np.stack([np.stack([ixx, ixy, ixz], -1), np.stack([ixy, iyy, iyz], -1),
                     np.stack([ixz, iyz, izz], -1)], -2)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.cross(a, b, axis=-1)


class InverseDynamics:
    """:meth:`inverse_dynamics` of :class:`~hrdf_ros.kinematics.Kinematics` (a part of
    that class; uses its ``model``, ``structure``, :meth:`frames` and :meth:`jacobians`)."""

    def _joint_outputs(self) -> np.ndarray:
        """Index, among the output frames, of each joint's frame (its element's output
        after the motion)."""
        cached = getattr(self, '_joint_output_index', None)
        if cached is None:
            outputs = self.model.output_frames
            cached = np.array([outputs.index((e, 0)) for e in self.model.dof_elements],
                              dtype=int)
            self._joint_output_index = cached
        return cached

    def _body_inertias(self) -> np.ndarray:
        """(n_com, 3, 3) inertia tensors about each body's COM, in its COM frame."""
        return inertia_matrices([e.inertia for e in self.model.elements if e.has_com_frame])

    def inverse_dynamics(self, positions, velocities, accelerations,
                         gravity=HEBI_GRAVITY) -> np.ndarray:
        """Joint efforts that give the accelerations at the positions and velocities
        (module docstring): ``M(q) ddq + C(q, dq) dq + g(q)``, no friction, no rotor
        inertia.

        Args:
            positions, velocities, accelerations: (dof,) or (N, dof), all of one shape
                (rad, rad/s, rad/s^2; m, m/s, m/s^2 for prismatic joints).
            gravity: (3,) gravitational acceleration in the reference frame, m/s^2
                (default :data:`~hrdf_ros.kinematics.HEBI_GRAVITY`).

        Returns:
            (dof,) or (N, dof) efforts, N m (N for prismatic joints), HEBI's units.

        Raises:
            ValueError: bad or differently shaped arrays, non-finite numbers, a gravity
                vector that is not 3 finite numbers.
        """
        q, single = self._positions(positions)
        arrays = []
        for name, value in (('velocities', velocities), ('accelerations', accelerations)):
            a = np.asarray(value, dtype=float)
            if a.shape != np.shape(positions) or not np.all(np.isfinite(a)):
                raise ValueError(f'{name} must be finite and shaped as the positions '
                                 f'{np.shape(positions)}, got shape {a.shape}')
            arrays.append(a.reshape(q.shape))
        dq, ddq = arrays
        g = np.asarray(gravity, dtype=float)
        if g.shape != (3,) or not np.all(np.isfinite(g)):
            raise ValueError(f'gravity must be 3 finite numbers (m/s^2), got {gravity!r}')
        batch = q if q.ndim == 2 else q[None]
        dq, ddq = dq.reshape(batch.shape), ddq.reshape(batch.shape)
        tau = self._newton_euler(batch, dq, ddq, g)
        return tau[0] if single else tau

    def _newton_euler(self, q, dq, ddq, g) -> np.ndarray:
        """(N, dof) efforts for (N, dof) states (module docstring)."""
        if self.dof_count == 0:
            return np.zeros(q.shape)
        joints = self._joint_outputs()
        body_jacobians = self.jacobians('com', q)                     # (N, n, 6, dof)
        body_frames = self.frames('com', q)                           # (N, n, 4, 4)
        joint_jacobians = self.jacobians('output', q)[:, joints]       # (N, dof, 6, dof)
        joint_frames = self.frames('output', q)[:, joints]             # (N, dof, 4, 4)
        jv, jw = body_jacobians[..., :3, :], body_jacobians[..., 3:, :]
        joint_w = np.einsum('nkrd,nd->nkr', joint_jacobians[..., 3:, :], dq)   # (N, dof, 3)
        joint_v = np.einsum('nkrd,nd->nkr', joint_jacobians[..., :3, :], dq)
        origins = joint_frames[..., :3, 3]                                     # (N, dof, 3)
        points = body_frames[..., :3, 3]                                       # (N, n, 3)
        v = np.einsum('nird,nd->nir', jv, dq)                                  # (N, n, 3)
        w = np.einsum('nird,nd->nir', jw, dq)
        # columns as (N, n, dof, 3)
        cv, cw = np.swapaxes(jv, -1, -2), np.swapaxes(jw, -1, -2)
        wk = joint_w[:, None, :, :]                                            # (N, 1, dof, 3)
        turned_w = _cross(wk, cw)                                              # d(u_k)/dt
        prismatic = np.array([a[0] == 't' for a in self.structure.joint_axis])
        r = points[:, :, None, :] - origins[:, None, :, :]                     # (N, n, dof, 3)
        revolute_rate = _cross(turned_w, r) + _cross(
            cw, v[:, :, None, :] - joint_v[:, None, :, :])
        rate_v = np.where(prismatic[None, None, :, None], _cross(wk, cv), revolute_rate)
        a = np.einsum('nird,nd->nir', jv, ddq) + np.einsum('nidr,nd->nir', rate_v, dq)
        alpha = np.einsum('nird,nd->nir', jw, ddq) + np.einsum('nidr,nd->nir', turned_w, dq)
        rotations = body_frames[..., :3, :3]
        inertia = rotations @ self._body_inertias()[None] @ np.swapaxes(rotations, -1, -2)
        forces = self.model.masses[None, :, None] * (a - g)
        spin = np.einsum('nirc,nic->nir', inertia, w)
        torques = np.einsum('nirc,nic->nir', inertia, alpha) + _cross(w, spin)
        return (np.einsum('nird,nir->nd', jv, forces)
                + np.einsum('nird,nir->nd', jw, torques))
