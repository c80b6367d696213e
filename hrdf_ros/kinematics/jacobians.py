"""Geometric Jacobians of every frame of a type at once (HEBI's convention).

In: a :class:`~hrdf_ros.kinematics.structure.KinematicStructure`, a frame type and
checked joint positions (N, dof). Out: (N, n_frames, 6, dof), or (n_frames, 6, dof) for
a single configuration. Column k maps joint velocity k (rad/s, or m/s for prismatic) to
the frame's twist: rows [vx vy vz wx wy wz], the linear velocity of the frame origin
(m/s) and the angular velocity (rad/s), both in the reference frame; a joint's column
is scaled by its :attr:`~hrdf_ros.model.Element.motion_scale` (1 / ``gear_ratio``, negated
for a negative axis); joints that do not move a frame give zero columns.

All frame-joint pairs are computed together from the frames of :mod:`.forward`:
``z_k x (p_f - o_k)`` for a rotation about unit axis ``z_k`` through ``o_k``, ``z_k``
for a translation, masked by :attr:`~.structure.KinematicStructure.moved`.
"""
from __future__ import annotations

import numpy as np

from .forward import forward
from .structure import KinematicStructure

#: Frame-joint pairs per chunk: about 2**17 (~20 MB of temporaries).
PAIRS_PER_CHUNK = 2 ** 17


def jacobians(s: KinematicStructure, frame_type: str, q: np.ndarray,
              single: bool) -> np.ndarray:
    """Jacobians of every frame of ``frame_type`` (see module docstring for shapes)."""
    count = s.frame_count(frame_type)
    out = np.zeros((q.shape[0], count, 6, s.dof_count))
    if s.dof_count and count:
        step = max(1, PAIRS_PER_CHUNK // (count * s.dof_count))
        for start in range(0, q.shape[0], step):
            stop = min(start + step, q.shape[0])
            _chunk(s, frame_type, q[start:stop], single, out[start:stop])
    return out[0] if single else out


def _chunk(s: KinematicStructure, frame_type: str, q: np.ndarray, single: bool,
           out: np.ndarray) -> None:
    """Jacobians of every frame and joint at once: frames (n, f), joints (n, d)."""
    types = ('output',) if frame_type == 'output' else (frame_type, 'output')
    fk = forward(s, q[0:1] if single else q, single, types)
    frames, outputs = fk[frame_type], fk['output']
    if single:
        frames, outputs = frames[None], outputs[None]
    joints = outputs[:, s.joint_slots]                            # (n, d, 4, 4)
    axes = joints.swapaxes(2, 3)[:, np.arange(s.dof_count), s.joint_axis_columns, :3]
    axes = axes * s.motion_scale[:, 0, None]                      # (n, d, 3)
    # z_k x (p_f - o_k) = [z_k]x p_f - z_k x o_k: one batched product for all pairs.
    skew = np.zeros(axes.shape + (3,))                            # (n, d, 3, 3)
    skew[..., 0, 1], skew[..., 0, 2] = -axes[..., 2], axes[..., 1]
    skew[..., 1, 0], skew[..., 1, 2] = axes[..., 2], -axes[..., 0]
    skew[..., 2, 0], skew[..., 2, 1] = -axes[..., 1], axes[..., 0]
    points = frames[:, :, :3, 3].swapaxes(1, 2)[:, None]         # (n, 1, 3, f)
    linear = skew @ points                                        # (n, d, 3, f)
    linear -= (skew @ joints[:, :, :3, 3, None])                  # z_k x o_k
    moved = s.moved[frame_type].T                                 # (d, f)
    if s.joint_prismatic.any():
        linear[:, s.joint_prismatic] = axes[:, s.joint_prismatic, :, None]
    linear *= moved[None, :, None, :]
    angular = axes[..., None] * (moved & ~s.joint_prismatic[:, None])[None, :, None, :]
    out[:, :, :3, :] = linear.transpose(0, 3, 2, 1)
    out[:, :, 3:, :] = angular.transpose(0, 3, 2, 1)
