"""Forward kinematics of a :class:`~hrdf_ros.model.RobotModel` (numpy).

All frames are 4x4 homogeneous transforms expressed in the reference (world) frame,
i.e. they include the model's base frame, exactly as HEBI's
``RobotModel.get_forward_kinematics`` returns them. Positions are in rad for revolute
degrees of freedom and m for prismatic ones, ordered as
:attr:`~hrdf_ros.model.RobotModel.dof_elements`.

Every function accepts one configuration, shape (dof,), or a batch, shape (N, dof), and
returns frames with a matching leading batch axis (absent for a single configuration).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Tuple

import numpy as np

from .model import RobotModel
from .serial_chain import (CHUNK, SerialChain, apply_motion, chain_to, factor_basis,
                           motion_factors)

FRAME_TYPES = ('input', 'output', 'com', 'end_effector')


def _check_frame_type(frame_type: str) -> None:
    if frame_type not in FRAME_TYPES:
        raise ValueError(f"unknown frame type '{frame_type}'; expected one of "
                         + ', '.join(FRAME_TYPES))


@dataclass
class _Step:
    parent_slot: int        # output-frame slot the element mounts on (-1: base)
    output_slots: List[int]  # slots of this element's outputs
    outputs: np.ndarray      # (k, 4, 4) fixed output transforms
    com: np.ndarray          # (4, 4) or None
    dof: int                 # index into positions, or -1
    axis: str
    gear_ratio: float


class Kinematics:
    """Precompiled forward kinematics of one robot model.

    Build once per model (``Kinematics(model)``). Every-frame methods
    (:meth:`forward_kinematics`, :meth:`frames`, :meth:`jacobians`) loop over the
    elements once, vectorised across the batch; one-frame methods (:meth:`frame`,
    :meth:`frame_jacobian`, :meth:`end_effector`, :meth:`end_effector_jacobian`) use
    that frame's :class:`~hrdf_ros.serial_chain.SerialChain`, built on first use.
    """

    def __init__(self, model: RobotModel):
        self.model = model
        self.dof_count = model.dof_count
        self.base_frame = np.array(model.base_frame, dtype=float)
        slot_of_output: Dict[Tuple[int, int], int] = {
            frame: slot for slot, frame in enumerate(model.output_frames)}
        dof_of_element = {e: k for k, e in enumerate(model.dof_elements)}
        self._steps: List[_Step] = []
        for index, element in enumerate(model.elements):
            slots = [slot_of_output[(index, k)] for k in range(len(element.outputs))]
            parent = -1 if element.parent < 0 else slot_of_output[(element.parent,
                                                                   element.parent_output)]
            self._steps.append(_Step(
                parent, slots, np.array(element.outputs, dtype=float).reshape(-1, 4, 4),
                element.com if element.has_com_frame else None,
                dof_of_element.get(index, -1), element.motion or '', element.gear_ratio))
        self.output_count = slot = len(slot_of_output)
        self._end_effector_slots = [self._steps[i].output_slots[0]
                                    for i, e in enumerate(model.elements) if e.is_end_effector]
        # dof k moves frame f when the element owning dof k is a strict ancestor of the
        # frame's element, or is that element and f is one of its outputs.
        moved_by = []  # per element: dof indices that move its input (and COM) frame
        for index, element in enumerate(model.elements):
            above = [] if element.parent < 0 else list(moved_by[element.parent])
            if element.parent >= 0 and self._steps[element.parent].dof >= 0:
                above.append(self._steps[element.parent].dof)
            moved_by.append(above)
        dof = self.dof_count

        def mask(rows):
            out = np.zeros((len(rows), dof), dtype=bool)
            for r, dofs in enumerate(rows):
                out[r, dofs] = True
            return out

        output_rows = [None] * slot
        for index, step in enumerate(self._steps):
            own = [step.dof] if step.dof >= 0 else []
            for s in step.output_slots:
                output_rows[s] = moved_by[index] + own
        self._moved = {
            'input': mask(moved_by),
            'output': mask(output_rows),
            'com': mask([moved_by[i] for i, e in enumerate(model.elements)
                         if e.has_com_frame]),
        }
        self._moved['end_effector'] = self._moved['output'][self._end_effector_slots]
        self._com_elements = [i for i, e in enumerate(model.elements) if e.has_com_frame]
        self._end_effector_elements = [i for i, e in enumerate(model.elements)
                                       if e.is_end_effector]
        self._chains: Dict[Tuple[str, int], SerialChain] = {}
        self._dof_steps = sorted((st for st in self._steps if st.dof >= 0),
                                 key=lambda st: st.dof)
        self._inverse_gear = np.ones((self.dof_count, 1))
        for st in self._dof_steps:
            self._inverse_gear[st.dof] = 1.0 / st.gear_ratio
        # One configuration: every output transform F M(q) = a P + b Q + R (as in
        # serial_chain); rigid outputs have P = Q = 0 and R = F.
        slots = self.output_count
        self._output_basis = np.zeros((slots, 3, 16))
        self._output_dofs = np.zeros(slots, dtype=int)
        self._output_scale = np.zeros(slots)
        self._output_prismatic = np.zeros(slots, dtype=bool)
        for st in self._steps:
            for k, slot in enumerate(st.output_slots):
                self._output_basis[slot] = factor_basis(st.outputs[k], st.axis or None)
                if st.dof < 0:
                    continue
                self._output_dofs[slot] = st.dof
                self._output_scale[slot] = 1.0 / st.gear_ratio
                self._output_prismatic[slot] = st.axis[0] == 't'
        self._output_prismatic_any = bool(self._output_prismatic.any())
        self._output_coefficients = np.ones((slots, 1, 3))
        # Jacobians: per degree of freedom, its motion frame (first output), axis column
        # and kind.
        self._joint_slots = [st.output_slots[0] for st in self._dof_steps]
        self._joint_index = np.arange(self.dof_count)
        self._joint_axis_columns = np.array(['xyz'.index(st.axis[1]) for st in self._dof_steps],
                                            dtype=int)
        self._joint_prismatic = np.array([st.axis[0] == 't' for st in self._dof_steps],
                                         dtype=bool)
        self._joint_basis = self._output_basis[self._joint_slots].reshape(-1, 3, 16)
        self._joint_coefficients = np.ones((self.dof_count, 1, 3))

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
        _check_frame_type(frame_type)
        count = self.model.frame_count(frame_type)
        if not isinstance(index, (int, np.integer)) or not 0 <= index < count:
            raise IndexError(f'{frame_type} frame index {index} out of range '
                             f'(the robot has {count} {frame_type} frames)')
        index = int(index)
        if frame_type == 'input':
            chain = chain_to(self.model, index, 'input')
        elif frame_type == 'com':
            chain = chain_to(self.model, self._com_elements[index], 'com')
        elif frame_type == 'output':
            element, output = self.model.output_frames[index]
            chain = chain_to(self.model, element, 'output', output)
        else:
            chain = chain_to(self.model, self._end_effector_elements[index], 'output')
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
        return self._forward(q, single, FRAME_TYPES)

    def _forward(self, q: np.ndarray, single: bool, types) -> Dict[str, np.ndarray]:
        if single:
            result = self._forward_single(q[0])
            return {t: result[t] for t in types}
        result = {t: np.empty((q.shape[0], self.model.frame_count(t), 4, 4))
                  for t in types if t != 'end_effector'}
        if 'end_effector' in types and 'output' not in result:
            result['output'] = np.empty((q.shape[0], self.output_count, 4, 4))
        for value in result.values():
            value[..., 3, :] = (0.0, 0.0, 0.0, 1.0)
        for start in range(0, q.shape[0], CHUNK):
            stop = min(start + CHUNK, q.shape[0])
            self._forward_chunk(q[start:stop], {t: v[start:stop] for t, v in result.items()})
        if 'end_effector' in types:
            result['end_effector'] = result['output'][:, self._end_effector_slots]
        return {t: result[t] for t in types}

    def _forward_single(self, q: np.ndarray) -> Dict[str, np.ndarray]:
        """Every frame for one configuration: one batched product builds every moving
        output transform, then one small ``ndarray.dot`` per frame."""
        theta = q[self._output_dofs] * self._output_scale
        factors = motion_factors(theta, self._output_prismatic if self._output_prismatic_any
                                 else None, self._output_coefficients.copy(),
                                 self._output_basis)
        inputs = np.empty((len(self._steps), 4, 4))
        outputs = np.empty((self.output_count, 4, 4))
        coms = np.empty((len(self._com_elements), 4, 4))
        c = 0
        for index, step in enumerate(self._steps):
            frame = self.base_frame if step.parent_slot < 0 else outputs[step.parent_slot]
            inputs[index] = frame
            if step.com is not None:
                frame.dot(step.com, out=coms[c])
                c += 1
            for slot in step.output_slots:
                frame.dot(factors[slot], out=outputs[slot])
        return {'input': inputs, 'output': outputs, 'com': coms,
                'end_effector': outputs[self._end_effector_slots]}

    def _forward_chunk(self, q: np.ndarray, result: Dict[str, np.ndarray]) -> None:
        """Frames of a chunk q (n, dof) into ``result`` (views of shape (n, k, 4, 4)).

        Layout as in :mod:`hrdf_ros.serial_chain`: each frame's top 3 x 4 block is kept
        as (3, 4, n), entry rows contiguous; a constant transform F right-multiplies as
        ``F^T @ x`` and a joint motion mixes two columns element-wise.
        """
        n = q.shape[0]
        theta = q.T * self._inverse_gear                          # (dof, n)
        cos, sin = np.cos(theta), np.sin(theta)
        outputs = np.empty((self.output_count, 3, 4, n))
        inputs = np.empty((len(self._steps), 3, 4, n)) if 'input' in result else None
        coms = np.empty((len(self._com_elements), 3, 4, n)) if 'com' in result else None
        base = np.broadcast_to(self.base_frame[:3, :, None], (3, 4, n))
        tmp1, tmp2 = np.empty((3, n)), np.empty((3, n))
        c = 0
        for index, step in enumerate(self._steps):
            x = base if step.parent_slot < 0 else outputs[step.parent_slot]
            if inputs is not None:
                inputs[index] = x
            if step.com is not None:
                if coms is not None:
                    np.matmul(step.com.T, x, out=coms[c])
                c += 1
            for k, slot in enumerate(step.output_slots):
                y = outputs[slot]
                np.matmul(step.outputs[k].T, x, out=y)
                if step.dof >= 0:
                    apply_motion(y, step.axis, theta[step.dof], cos[step.dof],
                                 sin[step.dof], tmp1, tmp2)
        for frame_type, buffer in (('input', inputs), ('output', outputs), ('com', coms)):
            if buffer is not None and frame_type in result:
                result[frame_type][:, :, :3, :] = buffer.transpose(3, 0, 1, 2)

    def dof_transforms(self, positions) -> np.ndarray:
        """Each degree of freedom's output relative to its element's input frame.

        These are the moving parent -> child transforms of the URDF/TF tree:
        ``outputs[0] @ M(q / gear_ratio)``.

        Args:
            positions: (dof,) or (N, dof) joint positions (rad or m).

        Returns:
            (dof, 4, 4) or (N, dof, 4, 4) transforms.

        Raises:
            ValueError: on a wrong shape or non-finite positions.
        """
        q, single = self._positions(positions)
        prismatic = self._joint_prismatic if self._joint_prismatic.any() else None
        theta = q * self._inverse_gear[:, 0]                          # (N, dof)
        if single:
            return motion_factors(theta[0], prismatic, self._joint_coefficients.copy(),
                                  self._joint_basis)
        coefficients = np.ones(theta.shape + (1, 3))
        coefficients[..., 0, 0] = np.cos(theta)
        coefficients[..., 0, 1] = np.sin(theta)
        if prismatic is not None:
            coefficients[:, prismatic, 0, 0] = theta[:, prismatic]
            coefficients[:, prismatic, 0, 1] = 0.0
        return np.matmul(coefficients, self._joint_basis).reshape(-1, self.dof_count, 4, 4)

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
        _check_frame_type(frame_type)
        q, single = self._positions(positions)
        count = self.model.frame_count(frame_type)
        out = np.zeros((q.shape[0], count, 6, self.dof_count))
        if self.dof_count and count:
            # about 2**17 frame-joint pairs per chunk (~20 MB of temporaries)
            step = max(1, 2 ** 17 // (count * self.dof_count))
            for start in range(0, q.shape[0], step):
                stop = min(start + step, q.shape[0])
                self._jacobians_chunk(frame_type, q[start:stop], single, out[start:stop])
        return out[0] if single else out

    def _jacobians_chunk(self, frame_type: str, q: np.ndarray, single: bool,
                         out: np.ndarray) -> None:
        """Jacobians of every frame and joint at once: frames (n, f), joints (n, d)."""
        types = ('output',) if frame_type == 'output' else (frame_type, 'output')
        fk = self._forward(q[0:1] if single else q, single, types)
        frames, outputs = fk[frame_type], fk['output']
        if single:
            frames, outputs = frames[None], outputs[None]
        joints = outputs[:, self._joint_slots]                        # (n, d, 4, 4)
        axes = joints.swapaxes(2, 3)[:, self._joint_index, self._joint_axis_columns, :3]
        axes = axes * self._inverse_gear[:, 0, None]                  # (n, d, 3)
        # z_k x (p_f - o_k) = [z_k]x p_f - z_k x o_k: one batched product for all pairs.
        skew = np.zeros(axes.shape + (3,))                            # (n, d, 3, 3)
        skew[..., 0, 1], skew[..., 0, 2] = -axes[..., 2], axes[..., 1]
        skew[..., 1, 0], skew[..., 1, 2] = axes[..., 2], -axes[..., 0]
        skew[..., 2, 0], skew[..., 2, 1] = -axes[..., 1], axes[..., 0]
        points = frames[:, :, :3, 3].swapaxes(1, 2)[:, None]         # (n, 1, 3, f)
        linear = skew @ points                                        # (n, d, 3, f)
        linear -= (skew @ joints[:, :, :3, 3, None])                  # z_k x o_k
        moved = self._moved[frame_type].T                             # (d, f)
        if self._joint_prismatic.any():
            linear[:, self._joint_prismatic] = axes[:, self._joint_prismatic, :, None]
        linear *= moved[None, :, None, :]
        angular = axes[..., None] * (moved & ~self._joint_prismatic[:, None])[None, :, None, :]
        out[:, :, :3, :] = linear.transpose(0, 3, 2, 1)
        out[:, :, 3:, :] = angular.transpose(0, 3, 2, 1)

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
        _check_frame_type(frame_type)
        q, single = self._positions(positions)
        return self._forward(q, single, (frame_type,))[frame_type]

    def end_effector(self, positions, index: int = 0) -> np.ndarray:
        """An end-effector frame (the first by default): (4, 4) or (N, 4, 4), in the
        reference frame.

        Raises:
            IndexError: when the model has no such end effector.
            ValueError: on bad positions.
        """
        return self.frame('end_effector', index, positions)
