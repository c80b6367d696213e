"""Named states of the planning groups: ``zero`` and a non-singular ``home``.

In: a :class:`~.groups.PlanningGroup`, link poses and Jacobians (:class:`.LinkPoser`) and,
optionally, a collision checker with the pairs MoveIt will check. Out: joint values per
group (rad or m, URDF joint values), written as SRDF ``<group_state>`` s.

* ``zero``: every joint of the group at 0 (at the nearest limit when 0 is outside it).
  For HEBI arms this is usually the stretched-out, singular pose.
* ``home``: among :data:`HOME_CANDIDATES` configurations drawn with a fixed seed within
  +-:data:`HOME_RANGE` of zero (and within the joint limits), the best-conditioned one
  that does not collide (pairs MoveIt checks; the groups before it at their home, the
  others at their default values, so all homes together are collision free)
  and, for a group that starts at the root link (an arm on its base), keeps every
  moving link :data:`CLEARANCE` above the plane the robot is mounted on (z = 0 of
  ``base_link``), so it
  does not start inside the table or MuJoCo's floor; when no candidate does, the best
  collision-free one. Groups from a branch point (a hexapod's legs) have no plane.
  Conditioning is the smallest singular value of the tip's Jacobian with the linear
  rows divided by the group's reach (m -> rad): position rows only for groups under 6
  joints (their IK is position-only), all six rows otherwise; a group whose tip lies on
  all its joint axes (position Jacobian always 0) is scored on all six rows. Values
  are rounded to :data:`DIGITS` decimals.
"""
from __future__ import annotations

import math
from typing import Dict, Mapping, Optional, Sequence

import numpy as np

from .. import reproducible
from .frame_tree import BASE_LINK
from .collision_matrix import CollisionChecker, Pair
from .groups import PlanningGroup
from .link_poses import LinkPoser

#: Candidate configurations for ``home``.
HOME_CANDIDATES = 256
#: Candidates lie within +- this of zero per joint, rad (m for prismatic joints).
HOME_RANGE = math.pi / 2
#: Seed of the candidates.
HOME_SEED = 7
#: Decimals of the written joint values.
DIGITS = 4
#: A group with a smaller best score is scored on all six Jacobian rows.
_DEGENERATE = 1e-9
#: How far above the mounting plane (and the floor of hrdf mjcf's scene above the robot's
#: lowest moving point) ``home`` keeps the moving links, m.
CLEARANCE = 0.001


def zero_state(group: PlanningGroup, poser: LinkPoser) -> Dict[str, float]:
    """``{joint: 0.0}`` for the group's joints, clipped into the joint limits."""
    lower = dict(zip(poser.joints, poser.lower))
    upper = dict(zip(poser.joints, poser.upper))
    return {j: float(np.clip(0.0, lower[j], upper[j])) for j in group.joints}


def conditioning(group: PlanningGroup, poser: LinkPoser, values: np.ndarray,
                 all_rows: Optional[bool] = None) -> np.ndarray:
    """(N,) smallest singular value of the group tip's scaled Jacobian (module docstring)
    for (N, n) URDF joint values of every movable joint (:attr:`LinkPoser.joints`).

    Args:
        all_rows: use all six rows (``None``: six rows only for groups of 6+ joints).
    """
    columns = [poser.joints.index(j) for j in group.joints]
    jacobian = poser.jacobians(group.tip, values)[:, :, columns]
    tips = poser.poses([group.base, group.tip], values)
    reach = max(float(np.max(reproducible.norm(tips[:, 1, :3, 3] - tips[:, 0, :3, 3]))), 1e-3)
    scaled = np.concatenate([jacobian[:, :3] / reach, jacobian[:, 3:]], axis=1)
    if all_rows is None:
        all_rows = not group.position_only
    rows = scaled if all_rows else scaled[:, :3]
    return reproducible.singular_values(rows).min(axis=1)


def home_state(group: PlanningGroup, poser: LinkPoser,
               checker: Optional[CollisionChecker] = None,
               checked_pairs: Sequence[Pair] = (), seed: int = HOME_SEED,
               others: Optional[Mapping[str, float]] = None) -> Dict[str, float]:
    """The group's ``home`` configuration (module docstring).

    Args:
        group: the planning group.
        poser: link poses and Jacobians.
        checker: collision checker; ``None`` skips the collision and plane tests.
        checked_pairs: link pairs MoveIt checks (not disabled in the SRDF).
        seed: seed of the candidates.
        others: values of joints outside the group (default: their default values),
            e.g. the homes of the groups chosen before, so that all homes together are
            collision free.

    Returns:
        ``{joint: value}`` for the group's joints (rad or m).
    """
    rng = np.random.default_rng(seed)
    columns = [poser.joints.index(j) for j in group.joints]
    low = np.maximum(poser.lower[columns], -HOME_RANGE)
    high = np.minimum(poser.upper[columns], HOME_RANGE)
    low, high = np.where(low < high, low, poser.lower[columns]), \
        np.where(low < high, high, poser.upper[columns])
    start = poser.default_values()
    for joint, value in (others or {}).items():
        start[poser.joints.index(joint)] = value
    values = np.tile(start, (HOME_CANDIDATES, 1))
    values[:, columns] = np.round(rng.uniform(low, high, (HOME_CANDIDATES, len(columns))),
                                  DIGITS)
    score = conditioning(group, poser, values)
    if score.max() < _DEGENERATE:
        score = conditioning(group, poser, values, all_rows=True)
    order = np.argsort(-score, kind='stable')
    best = order[0]
    if checker is not None:
        mounted = group.base == BASE_LINK
        fallback = None
        for start in range(0, len(order), 16):
            batch = order[start:start + 16]
            free = np.ones(len(batch), dtype=bool)
            if checked_pairs:
                free = ~checker.colliding(values[batch], list(checked_pairs),
                                          stop_after_first=False).any(axis=1)
            if fallback is None and free.any():
                fallback = batch[free][0]
            if mounted:
                free &= checker.lowest(values[batch], moving_only=True) >= CLEARANCE
            if free.any():
                best = batch[free][0]
                break
        else:
            best = order[0] if fallback is None else fallback
    return {j: float(values[best, c]) for j, c in zip(group.joints, columns)}
