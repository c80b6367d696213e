"""Kinematics of one robot: the API over every-frame and one-frame computations.

In: a :class:`~hrdf_ros.model.RobotModel`, then joint positions: one configuration
(dof,) or a batch (N, dof), rad for revolute degrees of freedom and m for prismatic ones,
ordered as :attr:`~hrdf_ros.model.RobotModel.dof_elements`. Out: 4 x 4 frames and
6 x dof geometric Jacobians, expressed in the reference (world) frame, i.e. including
the model's base frame, exactly as HEBI's ``RobotModel.get_forward_kinematics`` returns
them; a leading batch axis when the input has one. A robot without degrees of freedom
takes positions of shape (0,) (or ``[]``) or (N, 0); its Jacobians are (…, 6, 0).

Every request goes through a :class:`~.frame_set.FrameSet` (all frames of a type, or
one frame), compiled from the model's :class:`~.structure.KinematicStructure` on first
use and cached, and evaluated by :mod:`.evaluate` on one of two paths (:mod:`.backend`):
numpy (one configuration by :mod:`.frame_set`, a batch by :mod:`.batch`), or the
compiled kernels of :mod:`.compiled` (numba, the optional extra ``hrdf_ros[fast]``); the
two agree to 1e-12. Every call that returns an array also fills one given as ``out=``
(the result's shape, float64, C-contiguous, writeable; checked by :mod:`.buffers`) and
returns it. Batched calls take ``threads=N``: the numba path runs the batch on N threads
(numba's prange, equal blocks); the numpy path ignores it.

Inverse kinematics (``solve_ik``, ``end_effector_joints``), gravity efforts
(``gravity_efforts``) and inverse dynamics (``inverse_dynamics``) are parts of
:class:`Kinematics` written in their own modules (:class:`~.ik.InverseKinematics`,
:class:`~.gravity.GravityEfforts`, :class:`~.dynamics.InverseDynamics`).
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

import numpy as np

from ..model import RobotModel
from . import backend, evaluate
from .frame_set import FrameSet, factor_basis
from .dynamics import InverseDynamics
from .gravity import HEBI_GRAVITY, GravityEfforts
from .ik import InverseKinematics
from .structure import FRAME_TYPES, KinematicStructure, check_frame_type

__all__ = ['FRAME_TYPES', 'HEBI_GRAVITY', 'Kinematics']


class Kinematics(backend.PathChoice, InverseKinematics, GravityEfforts, InverseDynamics):
    """Precompiled forward kinematics of one robot model.

    Build once per model (``Kinematics(model)``). Every method computes each joint frame
    it needs once, along the tree; one-frame methods (:meth:`frame`,
    :meth:`frame_jacobian`, :meth:`end_effector`, :meth:`end_effector_jacobian`) only
    the joints on that frame's path. Instances are safe to share between threads.

    Args:
        model: the robot.
        kinematics: ``'auto'``, ``'numpy'`` or ``'numba'``, the evaluation path
            (:mod:`~hrdf_ros.kinematics.backend`; None: the process default, ``'auto'``
            unless the CLI or the node set another), resolved at the first call (numba
            imported then); ``HRDF_ROS_KINEMATICS`` in the environment forces a path.

    Raises:
        ValueError: an unknown ``kinematics`` value.
    """

    def __init__(self, model: RobotModel, kinematics: Optional[str] = None):
        super().__init__(kinematics)
        self.model = model
        self.structure = KinematicStructure(model)
        self.dof_count = model.dof_count
        self.base_frame = self.structure.base_frame
        self.output_count = self.structure.output_count
        self._sets: Dict[object, FrameSet] = {}
        self._zeros = np.zeros(self.dof_count)
        self._dof_basis = np.array([
            factor_basis(np.asarray(model.elements[e].outputs[0], dtype=float),
                         model.elements[e].motion)
            for e in model.dof_elements]).reshape(-1, 3, 16)

    def _positions(self, positions) -> Tuple[np.ndarray, bool]:
        """Checked positions: ((dof,), True) for one configuration, ((N, dof), False)
        for a batch.

        Raises:
            ValueError: wrong shape or non-finite positions.
        """
        q = np.asarray(positions, dtype=float)
        if q.ndim == 1 and q.shape[0] == self.dof_count:
            # For one configuration, one product is cheaper than a numpy reduction:
            # q . 0 is 0 exactly when every entry is finite (inf * 0 and nan are nan).
            if q.dot(self._zeros) != 0.0:
                raise ValueError('positions must be finite')
            return q, True
        if q.ndim != 2 or q.shape[1] != self.dof_count:
            raise ValueError(f'positions must have shape ({self.dof_count},) or '
                             f'(N, {self.dof_count}); got {q.shape}')
        if not np.isfinite(q).all():
            raise ValueError('positions must be finite')
        return q, False

    def _set(self, frame_type: str) -> FrameSet:
        """The (cached) :class:`FrameSet` of every frame of a type."""
        fs = self._sets.get(frame_type)
        if fs is None:
            check_frame_type(frame_type)
            s = self.structure
            fs = self._sets[frame_type] = FrameSet(s, s.anchors[frame_type],
                                                   s.offsets[frame_type])
        return fs

    def _frame_set(self, frame_type: str, index: int) -> FrameSet:
        """The (cached) :class:`FrameSet` of one frame.

        Raises:
            ValueError: unknown frame type; IndexError: index out of range.
        """
        fs = self._sets.get((frame_type, index))
        if fs is not None:
            return fs
        check_frame_type(frame_type)
        count = self.model.frame_count(frame_type)
        if not isinstance(index, (int, np.integer)) or not 0 <= index < count:
            raise IndexError(f'{frame_type} frame index {index} out of range '
                             f'(the robot has {count} {frame_type} frames)')
        s, i = self.structure, int(index)
        fs = FrameSet(s, s.anchors[frame_type][i:i + 1], s.offsets[frame_type][i:i + 1])
        self._sets[(frame_type, index)] = fs
        return fs

    def frame(self, frame_type: str, index: int, positions, out=None,
              threads: int = 1) -> np.ndarray:
        """One frame, computed along its own path only (the fast path).

        Args:
            frame_type: ``input``, ``output``, ``com`` or ``end_effector``.
            index: frame index within that type (see
                :meth:`~hrdf_ros.model.RobotModel.frame_index` to find it from a tag).
            positions: (dof,) or (N, dof) joint positions (rad or m).
            out: optional array of the result's shape to fill (see :meth:`frames`).
            threads: threads of a batch on the numba path (see :meth:`frames`).

        Returns:
            (4, 4) or (N, 4, 4) transform in the reference frame (translation in m).

        Raises:
            ValueError: unknown frame type, bad positions or a bad ``out`` (see
                :meth:`frames`). TypeError: ``out`` not float64. IndexError: frame index
                out of range.
        """
        fs = self._frame_set(frame_type, index)
        q, single = self._positions(positions)
        kernels = self._resolve()
        return evaluate.frames(kernels, fs, q, single, out, threads, first=True)

    def frame_jacobian(self, frame_type: str, index: int, positions,
                       out=None, threads: int = 1) -> np.ndarray:
        """Geometric Jacobian of one frame (convention of :meth:`jacobians`).

        Returns (``out``, optional, filled as for :meth:`frames`): (6, dof) or
        (N, 6, dof). Raises as :meth:`frame`.
        """
        fs = self._frame_set(frame_type, index)
        q, single = self._positions(positions)
        kernels = self._resolve()
        return evaluate.jacobians(kernels, fs, q, single, out, threads, first=True)

    def forward_kinematics(self, positions, threads: int = 1) -> Dict[str, np.ndarray]:
        """Every frame of every type for one configuration or a batch.

        Args:
            positions: (dof,) or (N, dof) joint positions (rad or m).
            threads: threads of a batch on the numba path (see :meth:`frames`).

        Returns:
            dict with keys ``input`` (…, n_elements, 4, 4), ``output`` (…, n_outputs, 4,
            4), ``com`` (…, n_com, 4, 4) and ``end_effector`` (…, n_ee, 4, 4); the leading
            N axis is present only for batch input. Frames are in the reference frame.

        Raises:
            ValueError: on a wrong shape or non-finite positions.
        """
        q, single = self._positions(positions)
        fs = self._sets.get('all')
        if fs is None:
            s = self.structure
            fs = self._sets['all'] = FrameSet(
                s, np.concatenate([s.anchors[t] for t in FRAME_TYPES]),
                np.concatenate([s.offsets[t] for t in FRAME_TYPES]))
        kernels = self._resolve()
        frames = evaluate.frames(kernels, fs, q, single, None, threads)
        out, start = {}, 0
        for t in FRAME_TYPES:
            stop = start + self.structure.frame_count(t)
            out[t] = frames[..., start:stop, :, :]
            start = stop
        return out

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
        out = _dof_transforms(self.structure, self._dof_basis, q[None] if single else q)
        return out[0] if single else out

    def jacobians(self, frame_type: str, positions, out=None, threads: int = 1) -> np.ndarray:
        """Geometric Jacobians of every frame of a type (HEBI's convention).

        Column k maps joint velocity k (rad/s, or m/s for prismatic) to the frame's twist:
        rows [vx vy vz wx wy wz], the linear velocity of the frame origin (m/s) and the
        angular velocity (rad/s), both expressed in the reference frame. ``gear_ratio``
        scales a column by 1 / ratio. Column k is zero for frames that joint k does not
        move (frames not downstream of it).

        Args:
            frame_type: ``input``, ``output``, ``com`` or ``end_effector``.
            positions: (dof,) or (N, dof) joint positions.
            out: optional array to fill, as for :meth:`frames`: (n_frames, 6, dof) or
                (N, n_frames, 6, dof), float64, C-contiguous.
            threads: threads of a batch on the numba path (see :meth:`frames`).

        Returns:
            (n_frames, 6, dof) or (N, n_frames, 6, dof) (``out`` when given).

        Raises:
            ValueError: on an unknown frame type, wrong shape or non-finite positions,
                or a bad ``out`` (see :meth:`frames`). TypeError: ``out`` not float64.
        """
        fs = self._sets.get(frame_type) or self._set(frame_type)
        q, single = self._positions(positions)
        kernels = self._resolve()
        return evaluate.jacobians(kernels, fs, q, single, out, threads)

    def end_effector_jacobian(self, positions, index: int = 0, out=None,
                              threads: int = 1) -> np.ndarray:
        """Jacobian of an end-effector frame (the first by default): (6, dof) or
        (N, 6, dof), rows [vx vy vz wx wy wz] in the reference frame; ``out`` as for
        :meth:`frame_jacobian`.

        Raises:
            IndexError: when the model has no such end effector.
            ValueError: on bad positions or a bad ``out``. TypeError: ``out`` not float64.
        """
        return self.frame_jacobian('end_effector', index, positions, out=out, threads=threads)

    def frames(self, frame_type: str, positions, out=None, threads: int = 1) -> np.ndarray:
        """Frames of one type: (n_frames, 4, 4) or (N, n_frames, 4, 4), in the
        reference frame (translation in m); see :meth:`forward_kinematics`.

        Args:
            frame_type: ``input``, ``output``, ``com`` or ``end_effector``.
            positions: (dof,) or (N, dof) joint positions (rad or m).
            out: optional result array, filled in place and returned: float64,
                C-contiguous (``np.empty`` or a leading-axis slice ``buf[a:b]`` of one),
                writeable, of exactly the result's shape, not sharing memory with
                ``positions``. Reusing one buffer across calls saves the allocation and
                the first touch of new memory, which dominate large batches (see
                :mod:`~hrdf_ros.kinematics.buffers` for evaluating a batch in slices).
            threads: on the numba path, a batch runs on this many threads (numba's
                prange, in equal blocks); one by default. The numpy path ignores it.

        Returns:
            the frames (``out`` when given).

        Raises:
            ValueError: on an unknown frame type, wrong shape or non-finite positions,
                or an ``out`` of another shape, not C-contiguous, read-only or sharing
                memory with the positions; ``threads`` not an integer >= 1.
            TypeError: ``out`` is not a numpy array of dtype float64.
        """
        fs = self._sets.get(frame_type) or self._set(frame_type)
        q, single = self._positions(positions)
        kernels = self._resolve()
        return evaluate.frames(kernels, fs, q, single, out, threads)

    def end_effector(self, positions, index: int = 0, out=None,
                     threads: int = 1) -> np.ndarray:
        """An end-effector frame (the first by default): (4, 4) or (N, 4, 4), in the
        reference frame; ``out`` as for :meth:`frame`.

        Raises:
            IndexError: when the model has no such end effector.
            ValueError: on bad positions or a bad ``out``. TypeError: ``out`` not float64.
        """
        return self.frame('end_effector', index, positions, out=out, threads=threads)


def _dof_transforms(structure: KinematicStructure, basis: np.ndarray,
                    q: np.ndarray) -> np.ndarray:
    """(N, dof, 4, 4) ``outputs[0] @ M(q * motion_scale)`` for q (N, dof), from the
    (dof, 3, 16) factor bases (:func:`.frame_set.factor_basis`)."""
    theta = q * structure.motion_scale
    coefficients = np.ones(theta.shape + (1, 3))
    coefficients[..., 0, 0] = np.cos(theta)
    coefficients[..., 0, 1] = np.sin(theta)
    prismatic = [a[0] == 't' for a in structure.joint_axis]
    coefficients[:, prismatic, 0, 0] = theta[:, prismatic]
    coefficients[:, prismatic, 0, 1] = 0.0
    return np.matmul(coefficients, basis).reshape(len(q), structure.dof_count, 4, 4)
