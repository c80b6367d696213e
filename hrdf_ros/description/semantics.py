"""What the SRDF says about a robot, computed once for the MoveIt package and the MJCF
model: planning groups, parallel grippers' groups, the self-collision matrix and the
named states ``zero`` and ``home``.

In: a :class:`~.robot.RobotDescription` (its link tree, link poses and collision
shapes; no URDF is written or read). Out: :class:`Semantics`. Needs no Jinja2;
python-fcl only when ``samples`` > 0 (:mod:`.collision_matrix`).

The collision matrix takes a quarter to half a second for a 6- or 7-DoF arm, and the
MoveIt package, the MJCF model and the motion planner of one robot need the same one:
the last :data:`REMEMBERED` results are kept, by a fingerprint of everything they are
computed from (the link tree and its limits, the link poses' joint origins and axes, the
collision geometry as the URDF states it, the end effectors, ``samples`` and ``seed``).
A result is shared by every caller that asks for the same: treat it as read-only. Its
sampled part (the collision matrix, the homes, the floor) is also kept on disk for later
processes (:mod:`.remembered`: the user cache folder, keyed by the fingerprint and the
code), so that a CLI command or a node started again does not sample again.
"""
from __future__ import annotations

import dataclasses
import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

import numpy as np

from . import remembered
from .collision_matrix import DEFAULT_SAMPLES, DEFAULT_SEED, CollisionChecker, collision_matrix
from .collision_shapes import CollisionShapes, collision_shapes, require_fcl
from .gripper_groups import GripperGroup, gripper_groups
from .groups import PlanningGroup, planning_groups
from .link_poses import LinkPoser
from .robot import RobotDescription
from .states import CLEARANCE, home_state, zero_state
from .structure import LinkTree


@dataclass
class Semantics:
    """A robot's planning groups, collision matrix and named states.

    Attributes:
        urdf: the robot's link tree (as its URDF states it).
        poser: link poses and Jacobians of those links.
        groups: the planning groups (:mod:`.groups`).
        grippers: the parallel grippers' groups (:mod:`.gripper_groups`).
        shapes: the collision shapes the matrix was computed on.
        disabled: ``{(link1, link2): reason}``, the pairs not checked.
        states: ``{'zero' | 'home': {group: {joint: value (rad or m)}}}``.
        notes: links whose pairs could not be sampled.
        floor: height of a floor under the robot at ``home``, m in the root link's
            frame: 0 (the plane an arm is mounted on), or 1 mm below the lowest moving
            link when that is lower (legs below the body, an arm that hangs; parts fixed
            to the root never touch a floor); 0 when nothing was sampled
            (``samples=0``).
    """

    urdf: LinkTree
    poser: LinkPoser
    groups: List[PlanningGroup]
    grippers: List[GripperGroup]
    shapes: CollisionShapes
    disabled: Dict[Tuple[str, str], str]
    states: Dict[str, Dict[str, Dict[str, float]]]
    notes: List[str] = field(default_factory=list)
    floor: float = 0.0

    @property
    def checked_pairs(self) -> List[Tuple[str, str]]:
        """Pairs of links with readable collision geometry that stay checked."""
        links = sorted(set(self.shapes.links) - set(self.shapes.opaque))
        return [(a, b) for i, a in enumerate(links) for b in links[i + 1:]
                if (a, b) not in self.disabled]

    def home(self) -> Dict[str, float]:
        """``{joint: value}`` of every movable joint at ``home``: each group's home, the
        other joints (grippers' fingers, mimic joints) at their default values."""
        values = dict(zip(self.poser.joints, self.poser.default_values()))
        for per_group in self.states['home'].values():
            values.update(per_group)
        return values


#: How many results :func:`semantics` keeps (module docstring).
REMEMBERED = 2
_REMEMBERED: 'OrderedDict[str, Semantics]' = OrderedDict()


def _canonical(value):
    """``value`` as nested tuples whose repr is the same in every process: sets sorted
    (their order follows string hashing, which differs from process to process), arrays
    as their bytes (their repr elides), dataclasses field by field."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__,) + tuple(
            (f.name, _canonical(getattr(value, f.name))) for f in dataclasses.fields(value))
    if isinstance(value, (set, frozenset)):
        return ('set',) + tuple(sorted((_canonical(v) for v in value), key=repr))
    if isinstance(value, dict):
        return ('dict',) + tuple((_canonical(k), _canonical(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return tuple(_canonical(v) for v in value)
    if isinstance(value, np.ndarray):
        return ('array', value.dtype.str, value.shape, value.tobytes())
    return value


def _fingerprint(urdf: LinkTree, description: RobotDescription, poser: LinkPoser,
                 geometry, samples: int, seed: int, never: bool = True,
                 home: bool = True) -> str:
    """SHA-256 of everything :func:`semantics` computes from (module docstring)."""
    digest = hashlib.sha256()
    tree = description.tree
    digest.update(repr(_canonical((urdf, tree.end_effector_links, tree.grippers, samples,
                                   seed, never, home))).encode())
    digest.update(poser.fingerprint())
    for link, shapes in geometry:
        for shape in shapes:
            digest.update(repr((link, shape.kind, shape.size, shape.filename,
                                shape.error)).encode() + shape.pose.tobytes())
    return digest.hexdigest()


def semantics(description: RobotDescription, samples: int = DEFAULT_SAMPLES,
              seed: int = DEFAULT_SEED, never: bool = True, home: bool = True
              ) -> Semantics:
    """Groups, collision matrix and named states of a robot (the SRDF's content).

    Args:
        description: the robot (its links, limits and collision shapes).
        samples, seed: random states of the collision matrix (:mod:`.collision_matrix`);
            0: only ``Adjacent`` pairs, no python-fcl, ``home`` not collision checked.
        never: False: no ``Never`` pairs (:func:`.collision_matrix.collision_matrix`).
        home: False: ``home`` is ``zero`` (no search for a well-conditioned free state).

    Raises:
        ImportError: python-fcl missing while ``samples`` > 0.
        ValueError: ``samples`` < 0.
    """
    if samples:
        require_fcl()         # as when nothing is remembered (ImportError)
    model, tree = description.model, description.tree
    urdf = description.link_tree()
    poser = LinkPoser(model, tree, urdf)
    geometry = description.collision_geometry() if samples else []
    key = _fingerprint(urdf, description, poser, geometry, samples, seed, never, home)
    if key in _REMEMBERED:
        _REMEMBERED.move_to_end(key)
        return _REMEMBERED[key]
    active = [j.name for j in urdf.joints if j.is_active]
    gripper_links = [link for g in tree.grippers for link in g.links.values()]
    groups = planning_groups(urdf, tree.end_effector_links, gripper_links) if active else []
    grippers = gripper_groups(tree, urdf, groups)
    if samples:
        shapes = collision_shapes(geometry)
    else:   # Adjacent pairs only: which links have geometry is all that counts
        shapes = CollisionShapes([n for n in urdf.links if n in urdf.collision_links], [])
    notes = [f'{link}: collision pairs not sampled ({why})'
             for link, why in sorted(shapes.opaque.items())]
    zeros = {g.name: zero_state(g, poser) for g in groups}
    kept = remembered.load(key) if samples else None
    if kept is not None:          # computed by this code in an earlier process
        disabled = {(a, b): reason for a, b, reason in kept['disabled']}
        result = Semantics(urdf, poser, groups, grippers, shapes, disabled, {}, notes,
                           kept['floor'])
        result.states = {'zero': zeros, 'home': kept['homes'] if home else dict(zeros)}
    else:
        result = _sampled(urdf, poser, groups, grippers, shapes, notes, zeros, samples,
                          seed, never, home)
        if samples:
            remembered.store(key, {
                'disabled': [[a, b, reason] for (a, b), reason in result.disabled.items()],
                'homes': result.states['home'] if home else {}, 'floor': result.floor})
    _REMEMBERED[key] = result
    while len(_REMEMBERED) > REMEMBERED:
        _REMEMBERED.popitem(last=False)
    return result


__all__ = ['DEFAULT_SAMPLES', 'DEFAULT_SEED', 'Semantics', 'semantics']


def _sampled(urdf: LinkTree, poser: LinkPoser, groups, grippers, shapes: CollisionShapes,
             notes: List[str], zeros, samples: int, seed: int, never: bool, home: bool
             ) -> Semantics:
    """The semantics with its collision matrix, homes and floor computed (samples > 0:
    FCL on ``shapes``)."""
    checker = CollisionChecker(shapes, poser) if samples else None
    disabled = collision_matrix(urdf, shapes, poser, samples, seed, never=never)
    result = Semantics(urdf, poser, groups, grippers, shapes, disabled, {}, notes)
    checked = result.checked_pairs
    homes: Dict[str, Dict[str, float]] = {}
    chosen: Dict[str, float] = {}
    for group in groups if home else ():  # each group's home beside those chosen before
        homes[group.name] = {joint: float(value) for joint, value in home_state(
            group, poser, checker, checked, seed=seed + 7, others=chosen).items()}
        chosen.update(homes[group.name])
    result.states = {'zero': zeros, 'home': homes if home else dict(zeros)}
    if checker is not None:
        values = result.home()
        lowest = checker.lowest(np.array([values[j] for j in poser.joints]), moving_only=True)
        result.floor = min(0.0, float(lowest[0]) - CLEARANCE)
    return result
