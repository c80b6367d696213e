"""Every frame of a robot at once: input, output, COM and end-effector frames.

In: a :class:`~hrdf_ros.kinematics.structure.KinematicStructure` and checked joint
positions, shape (N, dof) (rad, or m for prismatic joints). Out: per frame type an
array (N, n_frames, 4, 4) of transforms in the reference frame (m), or (n_frames, 4, 4)
for a single configuration; and the moving joint transforms of the URDF/TF tree.

One pass over the elements in depth-first order: each frame is its parent frame times
constant transforms and at most one joint motion. A single configuration builds every
moving output transform in one batched product; a batch keeps frames in the row layout
of :mod:`.serial_chain` ((3, 4, n), one contiguous row per entry) and is processed in
chunks of :data:`~hrdf_ros.kinematics.serial_chain.CHUNK` configurations.
"""
from __future__ import annotations

from typing import Dict, Iterable

import numpy as np

from .serial_chain import CHUNK, apply_motion, motion_factors
from .structure import KinematicStructure


def forward(s: KinematicStructure, q: np.ndarray, single: bool,
            types: Iterable[str]) -> Dict[str, np.ndarray]:
    """Frames of the requested types.

    Args:
        s: the compiled structure.
        q: (N, dof) joint positions (N = 1 when ``single``).
        single: drop the batch axis (one configuration).
        types: frame types wanted.

    Returns:
        frame type -> (N, n, 4, 4), or (n, 4, 4) when ``single``.
    """
    types = tuple(types)
    if single:
        result = _single(s, q[0])
        return {t: result[t] for t in types}
    result = {t: np.empty((q.shape[0], s.frame_count(t), 4, 4))
              for t in types if t != 'end_effector'}
    if 'end_effector' in types and 'output' not in result:
        result['output'] = np.empty((q.shape[0], s.output_count, 4, 4))
    for value in result.values():
        value[..., 3, :] = (0.0, 0.0, 0.0, 1.0)
    for start in range(0, q.shape[0], CHUNK):
        stop = min(start + CHUNK, q.shape[0])
        _chunk(s, q[start:stop], {t: v[start:stop] for t, v in result.items()})
    if 'end_effector' in types:
        result['end_effector'] = result['output'][:, s.end_effector_slots]
    return {t: result[t] for t in types}


def _single(s: KinematicStructure, q: np.ndarray) -> Dict[str, np.ndarray]:
    """Every frame for one configuration: one batched product builds every moving
    output transform, then one small ``ndarray.dot`` per frame."""
    # No degree of freedom: every output is rigid (q is empty, so cannot be indexed).
    theta = q[s.output_dofs] * s.output_scale if s.dof_count else np.zeros(s.output_count)
    prismatic = s.output_prismatic if s.output_prismatic.any() else None
    factors = motion_factors(theta, prismatic, np.ones((s.output_count, 1, 3)),
                             s.output_basis)
    inputs = np.empty((len(s.steps), 4, 4))
    outputs = np.empty((s.output_count, 4, 4))
    coms = np.empty((len(s.com_elements), 4, 4))
    c = 0
    for index, step in enumerate(s.steps):
        frame = s.base_frame if step.parent_slot < 0 else outputs[step.parent_slot]
        inputs[index] = frame
        if step.com is not None:
            frame.dot(step.com, out=coms[c])
            c += 1
        for slot in step.output_slots:
            frame.dot(factors[slot], out=outputs[slot])
    return {'input': inputs, 'output': outputs, 'com': coms,
            'end_effector': outputs[s.end_effector_slots]}


def _chunk(s: KinematicStructure, q: np.ndarray, result: Dict[str, np.ndarray]) -> None:
    """Frames of a chunk q (n, dof) into ``result`` (views of shape (n, k, 4, 4)).

    Each frame's top 3 x 4 block is kept as (3, 4, n), entry rows contiguous; a constant
    transform F right-multiplies as ``F^T @ x`` and a joint motion mixes two columns
    element-wise.
    """
    n = q.shape[0]
    theta = q.T * s.motion_scale                                  # (dof, n)
    cos, sin = np.cos(theta), np.sin(theta)
    outputs = np.empty((s.output_count, 3, 4, n))
    inputs = np.empty((len(s.steps), 3, 4, n)) if 'input' in result else None
    coms = np.empty((len(s.com_elements), 3, 4, n)) if 'com' in result else None
    base = np.broadcast_to(s.base_frame[:3, :, None], (3, 4, n))
    tmp1, tmp2 = np.empty((3, n)), np.empty((3, n))
    c = 0
    for index, step in enumerate(s.steps):
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


def dof_transforms(s: KinematicStructure, q: np.ndarray, single: bool) -> np.ndarray:
    """Each joint's output relative to its element's input frame:
    ``outputs[0] @ M(q * motion_scale)``, (dof, 4, 4) or (N, dof, 4, 4)."""
    prismatic = s.joint_prismatic if s.joint_prismatic.any() else None
    theta = q * s.motion_scale[:, 0]                              # (N, dof)
    if single:
        return motion_factors(theta[0], prismatic, np.ones((s.dof_count, 1, 3)),
                              s.joint_basis)
    coefficients = np.ones(theta.shape + (1, 3))
    coefficients[..., 0, 0] = np.cos(theta)
    coefficients[..., 0, 1] = np.sin(theta)
    if prismatic is not None:
        coefficients[:, prismatic, 0, 0] = theta[:, prismatic]
        coefficients[:, prismatic, 0, 1] = 0.0
    return np.matmul(coefficients, s.joint_basis).reshape(q.shape[0], s.dof_count, 4, 4)
