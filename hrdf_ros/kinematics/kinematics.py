"""Kinematics of one robot: the API over every-frame and one-frame computations.

In: a :class:`~hrdf_ros.model.RobotModel`, then joint positions: one configuration
(dof,) or a batch (N, dof), rad for revolute degrees of freedom and m for prismatic ones,
ordered as :attr:`~hrdf_ros.model.RobotModel.dof_elements`. Out: 4 x 4 frames and
6 x dof geometric Jacobians, expressed in the reference (world) frame, i.e. including
the model's base frame, exactly as HEBI's ``RobotModel.get_forward_kinematics`` returns
them; a leading batch axis when the input has one. A robot without degrees of freedom
takes positions of shape (0,) (or ``[]``) or (N, 0); its Jacobians are (…, 6, 0).

Every-frame requests go through :mod:`.forward` and :mod:`.jacobians` on the model's
:class:`~.structure.KinematicStructure`; one-frame requests use that frame's
:class:`~.serial_chain.SerialChain`, built on first use and cached.
"""
from __future__ import annotations

import math
from typing import Dict, Tuple

import numpy as np

from ..model import RobotModel
from .forward import dof_transforms, forward
from .jacobians import jacobians
from .serial_chain import SerialChain, chain_to
from .structure import FRAME_TYPES, KinematicStructure, check_frame_type

__all__ = ['FRAME_TYPES', 'Kinematics']


class Kinematics:
    """Precompiled forward kinematics of one robot model.

    Build once per model (``Kinematics(model)``). Every-frame methods
    (:meth:`forward_kinematics`, :meth:`frames`, :meth:`jacobians`) loop over the
    elements once, vectorised across the batch; one-frame methods (:meth:`frame`,
    :meth:`frame_jacobian`, :meth:`end_effector`, :meth:`end_effector_jacobian`) use
    that frame's :class:`~hrdf_ros.kinematics.serial_chain.SerialChain`, built on first use.
    """

    def __init__(self, model: RobotModel):
        self.model = model
        self.structure = KinematicStructure(model)
        self.dof_count = model.dof_count
        self.base_frame = self.structure.base_frame
        self.output_count = self.structure.output_count
        self._chains: Dict[Tuple[str, int], SerialChain] = {}

    def _positions(self, positions) -> Tuple[np.ndarray, bool]:
        q = np.asarray(positions, dtype=float)
        single = q.ndim == 1
        q2 = q.reshape(1, -1) if single else q
        if q2.ndim != 2 or q2.shape[1] != self.dof_count:
            raise ValueError(f'positions must have shape ({self.dof_count},) or '
                             f'(N, {self.dof_count}); got {q.shape}')
        # For one configuration, plain Python is cheaper than a numpy reduction.
        finite = all(map(math.isfinite, q.tolist())) if single else np.isfinite(q2).all()
        if not finite:
            raise ValueError('positions must be finite')
        return q2, single

    def _frame_chain(self, frame_type: str, index: int) -> SerialChain:
        """The (cached) serial chain of one frame.

        Raises:
            ValueError: unknown frame type; IndexError: index out of range.
        """
        chain = self._chains.get((frame_type, index))
        if chain is not None:
            return chain
        check_frame_type(frame_type)
        count = self.model.frame_count(frame_type)
        if not isinstance(index, (int, np.integer)) or not 0 <= index < count:
            raise IndexError(f'{frame_type} frame index {index} out of range '
                             f'(the robot has {count} {frame_type} frames)')
        index = int(index)
        if frame_type == 'input':
            chain = chain_to(self.model, index, 'input')
        elif frame_type == 'com':
            chain = chain_to(self.model, self.structure.com_elements[index], 'com')
        elif frame_type == 'output':
            element, output = self.model.output_frames[index]
            chain = chain_to(self.model, element, 'output', output)
        else:
            chain = chain_to(self.model, self.structure.end_effector_elements[index], 'output')
        self._chains[(frame_type, index)] = chain
        return chain

    def frame(self, frame_type: str, index: int, positions) -> np.ndarray:
        """One frame, computed along its own path only (the fast path).

        Args:
            frame_type: ``input``, ``output``, ``com`` or ``end_effector``.
            index: frame index within that type (see
                :meth:`~hrdf_ros.model.RobotModel.frame_index` to find it from a tag).
            positions: (dof,) or (N, dof) joint positions (rad or m).

        Returns:
            (4, 4) or (N, 4, 4) transform in the reference frame (translation in m).

        Raises:
            ValueError: unknown frame type, wrong shape or non-finite positions.
            IndexError: frame index out of range.
        """
        chain = self._frame_chain(frame_type, index)
        q, single = self._positions(positions)
        return chain.transform(q[0]) if single else chain.transforms(q)

    def frame_jacobian(self, frame_type: str, index: int, positions) -> np.ndarray:
        """Geometric Jacobian of one frame (convention of :meth:`jacobians`).

        Returns:
            (6, dof) or (N, 6, dof).

        Raises:
            ValueError: unknown frame type, wrong shape or non-finite positions.
            IndexError: frame index out of range.
        """
        chain = self._frame_chain(frame_type, index)
        q, single = self._positions(positions)
        return chain.jacobian(q[0]) if single else chain.jacobians(q)

    def forward_kinematics(self, positions) -> Dict[str, np.ndarray]:
        """Every frame of every type for one configuration or a batch.

        Args:
            positions: (dof,) or (N, dof) joint positions (rad or m).

        Returns:
            dict with keys ``input`` (…, n_elements, 4, 4), ``output`` (…, n_outputs, 4,
            4), ``com`` (…, n_com, 4, 4) and ``end_effector`` (…, n_ee, 4, 4); the leading
            N axis is present only for batch input. Frames are in the reference frame.

        Raises:
            ValueError: on a wrong shape or non-finite positions.
        """
        q, single = self._positions(positions)
        return forward(self.structure, q, single, FRAME_TYPES)

    def dof_transforms(self, positions) -> np.ndarray:
        """Each degree of freedom's output relative to its element's input frame.

        These are the moving parent -> child transforms of the URDF/TF tree:
        ``outputs[0] @ M(q * motion_scale)`` (motion_scale = axis sign / gear_ratio).

        Args:
            positions: (dof,) or (N, dof) joint positions (rad or m).

        Returns:
            (dof, 4, 4) or (N, dof, 4, 4) transforms.

        Raises:
            ValueError: on a wrong shape or non-finite positions.
        """
        q, single = self._positions(positions)
        return dof_transforms(self.structure, q, single)

    def jacobians(self, frame_type: str, positions) -> np.ndarray:
        """Geometric Jacobians of every frame of a type (HEBI's convention).

        Column k maps joint velocity k (rad/s, or m/s for prismatic) to the frame's twist:
        rows [vx vy vz wx wy wz], the linear velocity of the frame origin (m/s) and the
        angular velocity (rad/s), both expressed in the reference frame. ``gear_ratio``
        scales a column by 1 / ratio. Column k is zero for frames that joint k does not
        move (frames not downstream of it).

        Args:
            frame_type: ``input``, ``output``, ``com`` or ``end_effector``.
            positions: (dof,) or (N, dof) joint positions.

        Returns:
            (n_frames, 6, dof) or (N, n_frames, 6, dof).

        Raises:
            ValueError: on an unknown frame type, wrong shape or non-finite positions.
        """
        check_frame_type(frame_type)
        q, single = self._positions(positions)
        return jacobians(self.structure, frame_type, q, single)

    def end_effector_jacobian(self, positions, index: int = 0) -> np.ndarray:
        """Jacobian of an end-effector frame (the first by default): (6, dof) or
        (N, 6, dof), rows [vx vy vz wx wy wz] in the reference frame.

        Raises:
            IndexError: when the model has no such end effector.
            ValueError: on bad positions.
        """
        return self.frame_jacobian('end_effector', index, positions)

    def frames(self, frame_type: str, positions) -> np.ndarray:
        """Frames of one type; see :meth:`forward_kinematics` for shapes.

        Raises:
            ValueError: on an unknown frame type, wrong shape or non-finite positions.
        """
        check_frame_type(frame_type)
        q, single = self._positions(positions)
        return forward(self.structure, q, single, (frame_type,))[frame_type]

    def end_effector(self, positions, index: int = 0) -> np.ndarray:
        """An end-effector frame (the first by default): (4, 4) or (N, 4, 4), in the
        reference frame.

        Raises:
            IndexError: when the model has no such end effector.
            ValueError: on bad positions.
        """
        return self.frame('end_effector', index, positions)
