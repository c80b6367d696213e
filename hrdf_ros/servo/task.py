"""The part of a twist an arm can do, and how well conditioned that part is.

In: the end effector's Jacobian J (6, n) at a state, rows [vx vy vz wx wy wz] in the base
frame (m/s and rad/s per unit joint velocity), and a twist (6,) in the same frame. Out:
joint velocities (n,), the twist they make, and the condition number of the Jacobian of
the task space the arm can do.

* six task directions (an arm that reaches every pose near it: 6 joints or more): the
  least-squares (minimum-norm) joint velocities of the whole twist
  (``numpy.linalg.lstsq``); the task space is all six directions, and the condition
  number is J's (sigma_1 / sigma_6), as MoveIt Servo's.
* fewer than 6 task directions (an arm of fewer than 6 joints): the position first,
  then as much of the orientation as the joints left over can do (task priority:
  Nakamura, Hanafusa and Yoshikawa 1987; HEBI's SE3 jog with ``constrain_orientation``
  drops the orientation the same way): u1 = J_p^+_r v on J_p's r largest singular
  values (r its rank at a generic state: 3, or 2 for a 3-joint kit with a wrist), then
  u2 = (J_o N)^+_k (w - J_o u1) with N = I - V_r V_r^T the motions that leave those
  position directions alone and k = rank - r the orientation directions they turn. The
  task space is those r + k directions: its Jacobian [U_r^T J_p; U_k^T J_o], and its
  condition number is what the servo slows for. MoveIt Servo takes sigma_1 / sigma_6
  of the 6 x n Jacobian instead, which is infinite below 6 joints (moveit2 issue 3411).
"""
from __future__ import annotations

from typing import Tuple

import numpy as np


def structural_ranks(jacobians: np.ndarray) -> Tuple[int, int]:
    """(rank of the position rows, rank of the whole Jacobian) an arm has at a generic
    state: the largest over (N, 6, n) Jacobians at random states (a singular state has
    less). Singular values below 1e-9 of the largest count as 0."""
    def rank(matrix):
        sigma = np.linalg.svd(matrix, compute_uv=False)
        return int(np.sum(sigma > 1e-9 * max(sigma[0], 1e-300))) if len(sigma) else 0
    jacobians = np.asarray(jacobians, dtype=float).reshape(-1, 6, np.shape(jacobians)[-1])
    return (max(rank(j[:3]) for j in jacobians), max(rank(j) for j in jacobians))


def solve(jacobian: np.ndarray, twist: np.ndarray, position_rank: int = 3,
          rank: int = 6) -> Tuple[np.ndarray, np.ndarray, float]:
    """(joint velocities (n,), the twist they make (6,), the condition number of the
    achievable task space's Jacobian (inf at a singularity)).

    Args:
        jacobian: (6, n) at the state.
        twist: (6,) [v; w] in the Jacobian's frame.
        position_rank, rank: the arm's :func:`structural_ranks` (at most 3 and 6): the
            task space is that many position directions (J_p's largest) and rank -
            position_rank orientation directions; a 3-joint HEBI kit with a wrist, for
            one, moves its end effector in 2 directions and turns it about 1.

    Raises:
        ValueError: ``jacobian`` not (6, n) with n >= 1, ``twist`` not (6,), or ranks
            outside 0 <= position_rank <= 3, position_rank <= rank <= min(6, n).
    """
    jacobian = np.asarray(jacobian, dtype=float)
    twist = np.asarray(twist, dtype=float)
    if jacobian.ndim != 2 or jacobian.shape[0] != 6 or jacobian.shape[1] < 1:
        raise ValueError(f'jacobian: expected (6, n), got {jacobian.shape}')
    if twist.shape != (6,):
        raise ValueError(f'twist: expected (6,), got {twist.shape}')
    n = jacobian.shape[1]
    if not (0 <= position_rank <= 3 and position_rank <= rank <= min(6, n)):
        raise ValueError(f'ranks: position {position_rank}, whole {rank} for {n} joints')
    if rank == 6:
        velocities = np.linalg.lstsq(jacobian, twist, rcond=None)[0]
        return velocities, jacobian @ velocities, _condition(jacobian, 6)
    position, orientation = jacobian[:3], jacobian[3:]
    u, sigma, vt = np.linalg.svd(position)
    u_p, sigma_p, vt_p = u[:, :position_rank], sigma[:position_rank], vt[:position_rank]
    first = vt_p.T @ (_inverse(sigma_p) * (u_p.T @ twist[:3]))
    task = u_p.T @ position
    velocities = first
    keep = rank - position_rank
    if keep:
        null = np.eye(n) - vt_p.T @ vt_p
        turned = orientation @ null                                   # (3, n)
        u, sigma, vt = np.linalg.svd(turned)
        u_k, sigma_k, vt_k = u[:, :keep], sigma[:keep], vt[:keep]
        rest = twist[3:] - orientation @ first
        velocities = first + vt_k.T @ (_inverse(sigma_k) * (u_k.T @ rest))
        task = np.vstack([task, u_k.T @ orientation])
    return velocities, jacobian @ velocities, _condition(task, rank)


def _inverse(sigma: np.ndarray) -> np.ndarray:
    """1 / sigma, 0 where sigma is 0 (a singular state: the direction is dropped)."""
    if not len(sigma):
        return sigma
    return np.where(sigma > 1e-12 * max(sigma[0], 1e-300), 1.0 / np.maximum(sigma, 1e-300), 0.0)


def condition(jacobian: np.ndarray, position_rank: int = 3, rank: int = 6) -> float:
    """The condition number of the achievable task space's Jacobian (module docstring)
    at a (6, n) Jacobian."""
    return solve(jacobian, np.zeros(6), position_rank, rank)[2]


def _condition(matrix: np.ndarray, rank: int) -> float:
    sigma = np.linalg.svd(matrix, compute_uv=False)[:rank]
    if rank == 0:
        return 1.0
    if len(sigma) < rank or sigma[-1] <= 1e-12 * max(sigma[0], 1e-300):
        return float('inf')
    return float(sigma[0] / sigma[-1])
