"""A CoBRA task file (JSON, the schema's 2022 version) read as an ``hrdf design`` task.

In: the path of a task file of CoBRA, TU Munich's composable benchmark for robotics
applications (cobra.cps.cit.tum.de; Mayer, Külz and Althoff), or the mapping it holds.
Out: a :class:`CobraTask`: the :class:`~.task.Task` the search designs for, and what a
solution must also do (the goals in their order, the base placement, the joint limits
that count, the task's ID and time step); or ``ValueError`` with one line that names the
file and the key (``goals[1].goalPose.toleranceProjection[3]``) and says what cannot be
honoured. Nothing is dropped silently.

The format as timor-python 1.1.1 reads it (``timor.task.Task.from_json_data``): SI
units; every pose a 4x4 homogeneous transform in the world frame, z up; gravity
``header.gravity``. What each part becomes:

* ``goals``: ``reach`` and ``at`` give a target each, in the file's order (``reach``
  also asks the arm to be at rest there, a matter of the motion); ``pause`` (``duration``
  s, still) and ``returnTo`` (back to the state of t = 0, or of the goal ``returnTo``
  names) give none. A goal's ``goalPose`` is a ``nominal`` pose with a ``tolerance``
  interval per ``toleranceProjection``, in the nominal pose's frame (Timor's
  ``timor.task.Tolerance``): ``x``, ``y``, ``z`` (m) and ``r_cyl``, ``r_sph`` (m, a
  distance from the nominal position) bound the position; ``Theta_R`` (rad, the angle of
  the rotation from the nominal orientation to the reached one) the orientation. The
  design reaches the nominal pose itself, to the IK's tolerances (:data:`IK_POSITION`,
  :data:`IK_ANGLE`), which meets every interval that holds them: an interval that does
  not (one that excludes the nominal, or narrower than the IK's tolerance) is refused,
  and so are the angular projections (``phi_cyl``, ``theta``, ``phi_sph``, ``N_x``,
  ``N_y``, ``N_z``), a position left free (no ``x``, ``y``, ``z``, ``r_cyl`` or
  ``r_sph``), a ``toleranceFrame`` other than ``nominal`` (and a ``frame``, a key Timor
  does not read, that says otherwise), a ``nominalParent`` other than ``world``, and goal
  constraints. No
  ``Theta_R`` leaves the orientation free (a position target), as does an interval that
  holds every angle ([0, pi]).
* ``obstacles``: each collision geometry an object of the scene (:mod:`hrdf_ros.motion.
  objects`): a ``box`` (``x``, ``y``, ``z``: full side lengths), a ``sphere`` (``r``), a
  ``cylinder`` (``r``, ``z``: its length along its z axis), centred at its pose. A mesh is
  refused.
* ``constraints``: ``joint`` with ``parts`` among ``q``, ``dq``, ``ddq`` and ``tau`` (the
  robot's own limits); ``collisionFree`` (obstacles and the arm itself) and
  ``selfCollisionFree``: the search checks both whatever the task says;
  ``allGoalsFulfilled`` and ``allGoalsFulfilledInOrder`` (``order``: goal IDs, every
  goal once); ``basePlacement``: a nominal base pose and its tolerance: the targets and objects are
  in that pose's frame, and the base may stand where :func:`.cobra_poses.base_placement`
  says (a box inside the position tolerances, z up, a yaw within ``Theta_R``), the
  nominal's z axis up (a tilted base would tilt gravity in the arm's frame). Any other
  type is refused.
* ``header``: ``version`` must be ``2022`` and ``gravity`` HEBI's (:data:`~hrdf_ros.
  kinematics.gravity.HEBI_GRAVITY`, within 1e-9), the gravity the efforts are computed
  for; ``timeStepSize`` (s) is kept for the solution's trajectory.

The targets and objects of :attr:`CobraTask.task` are in the base frame (the nominal
base pose's), the design's mount frame. The task carries no payload (0 kg).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..kinematics.gravity import HEBI_GRAVITY
from .cobra_poses import (as_list, as_mapping, base_placement, fail, number, obstacles,
                          tolerated_pose)
from .task import BaseRange, Target, Task

#: The keys of a task file; of its header.
TASK_KEYS = ('header', 'constraints', 'obstacles', 'goals', 'frames')
GOAL_TYPES = ('reach', 'at', 'pause', 'returnTo')
CONSTRAINT_TYPES = ('joint', 'collisionFree', 'selfCollisionFree', 'allGoalsFulfilled',
                    'allGoalsFulfilledInOrder', 'basePlacement')
JOINT_PARTS = ('q', 'dq', 'ddq', 'tau')


@dataclass(frozen=True)
class Goal:
    """One goal of the task, in the file's order.

    Attributes:
        id: the goal's ``ID``.
        kind: ``'reach'``, ``'at'``, ``'pause'`` or ``'returnTo'``.
        target: the index of its target in :attr:`CobraTask.task`'s targets (``reach``
            and ``at``), else None.
        duration: s, a ``pause``'s (else 0).
        returns_to: the goal ID a ``returnTo`` goes back to the state of; None: the
            state of t = 0.
    """

    id: str
    kind: str
    target: Optional[int] = None
    duration: float = 0.0
    returns_to: Optional[str] = None


@dataclass(frozen=True)
class CobraTask:
    """A CoBRA task as ``hrdf design`` reads it (module docstring).

    Attributes:
        task: what the search designs for, in the base frame.
        task_id: the header's ``ID`` (a solution's ``taskID``).
        goals: every goal, in the file's order.
        order: the goal IDs in the order they must be fulfilled
            (``allGoalsFulfilledInOrder``), else None (any order).
        base: (4, 4) the base pose in the world frame, m (the basePlacement's nominal
            pose; the identity without one).
        joint_limits: the ``joint`` constraints' parts, in :data:`JOINT_PARTS` order.
        time_step: s, the header's ``timeStepSize``.
    """

    task: Task
    task_id: str
    goals: Tuple[Goal, ...]
    order: Optional[Tuple[str, ...]]
    base: np.ndarray
    joint_limits: Tuple[str, ...]
    time_step: float


def _goal(where: str, value, targets: List[Target], to_base: np.ndarray) -> Goal:
    data = as_mapping(where, value)
    kind = data.get('type')
    if kind not in GOAL_TYPES:
        fail(f'{where}.type', f'cannot be honoured: {kind!r} (goal types: '
                               f'{", ".join(GOAL_TYPES)})')
    goal_id = data.get('ID')
    if not isinstance(goal_id, (str, int)) or isinstance(goal_id, bool):
        fail(f'{where}.ID', f'must be a string, got {goal_id!r}')
    if data.get('constraints'):
        fail(f'{where}.constraints', 'cannot be honoured: goal constraints')
    allowed = {'reach': ('goalPose',), 'at': ('goalPose',), 'pause': ('duration',),
               'returnTo': ('returnToGoal',)}[kind]
    unknown = [k for k in data if k not in ('ID', 'type', 'constraints') + allowed]
    if unknown:
        fail(f'{where}.{unknown[0]}', f'unknown key for a {kind} goal')
    if kind in ('reach', 'at'):
        if 'goalPose' not in data:
            fail(where, f'a {kind} goal needs a goalPose')
        nominal, oriented = tolerated_pose(f'{where}.goalPose', data['goalPose'])
        pose = to_base @ nominal
        if not oriented:
            pose[:3, :3] = np.eye(3)
        pose.setflags(write=False)
        targets.append(Target(pose, 'full' if oriented else 'none'))
        return Goal(str(goal_id), kind, target=len(targets) - 1)
    if kind == 'pause':
        duration = number(f'{where}.duration', data.get('duration'))
        if duration < 0.0:
            fail(f'{where}.duration', f'must be >= 0 s, got {duration:g}')
        return Goal(str(goal_id), kind, duration=duration)
    back = data.get('returnToGoal')
    if back is not None and not isinstance(back, str):
        fail(f'{where}.returnToGoal', f'must be a goal ID, got {back!r}')
    return Goal(str(goal_id), kind, returns_to=back)


def _base(where: str, constraints: Sequence) -> Tuple[np.ndarray, Optional[BaseRange]]:
    """The basePlacement's nominal pose and where the base may stand in its frame (the
    identity and None without one: the base at the world's origin)."""
    bases = [(k, c) for k, c in enumerate(constraints)
             if isinstance(c, Mapping) and c.get('type') == 'basePlacement']
    if len(bases) > 1:
        fail(f'{where}[{bases[1][0]}]', 'a second basePlacement')
    if not bases:
        return np.eye(4), None
    k, constraint = bases[0]
    unknown = [key for key in constraint if key not in ('type', 'pose')]
    if unknown:
        fail(f'{where}[{k}].{unknown[0]}', 'unknown key for basePlacement')
    base, allowed = base_placement(f'{where}[{k}].pose', constraint.get('pose'))
    if np.abs(base[:3, 2] - [0.0, 0.0, 1.0]).max() > 1e-9:
        fail(f'{where}[{k}].pose.nominal', 'cannot be honoured: a base whose z axis is '
                                            'not up (gravity would be tilted in its frame)')
    return base, allowed


def cobra_task(data, source: str = '') -> CobraTask:
    """The :class:`CobraTask` of a task file's mapping; ``source`` (the file) prefixes
    every message.

    Raises:
        ValueError: one line naming the key and what cannot be honoured (module
            docstring).
    """
    where = f'{source}: ' if source else ''
    data = as_mapping(f'{where}the task', data)
    unknown = [k for k in data if k not in TASK_KEYS]
    if unknown:
        fail(f'{where}{unknown[0]}', f'unknown key (keys: {", ".join(TASK_KEYS)})')
    if data.get('frames'):
        fail(f'{where}frames', 'cannot be honoured: named frames (poses must be in the '
                                'world frame)')
    header = as_mapping(f'{where}header', data.get('header'))
    if str(header.get('version')) != '2022':
        fail(f'{where}header.version', f"cannot be honoured: {header.get('version')!r} "
                                        "(the schema's 2022 version)")
    task_id = header.get('ID')
    if not isinstance(task_id, str) or not task_id:
        fail(f'{where}header.ID', f'must be a non-empty string, got {task_id!r}')
    gravity = as_list(f'{where}header.gravity', header.get('gravity', list(HEBI_GRAVITY)))
    if len(gravity) != 3 or np.abs(np.array([number(f'{where}header.gravity[{k}]', g)
                                             for k, g in enumerate(gravity)])
                                   - HEBI_GRAVITY).max() > 1e-9:
        fail(f'{where}header.gravity', f'cannot be honoured: {gravity!r} (the efforts are '
                                        f'for {list(HEBI_GRAVITY)} m/s^2)')
    time_step = number(f'{where}header.timeStepSize', header.get('timeStepSize', 0.01))
    if time_step <= 0.0:
        fail(f'{where}header.timeStepSize', f'must be > 0 s, got {time_step:g}')
    constraints = as_list(f'{where}constraints', data.get('constraints', []))
    base, allowed = _base(f'{where}constraints', constraints)
    to_base = np.linalg.inv(base)
    joint_parts, order = set(), None
    for k, constraint in enumerate(constraints):
        at = f'{where}constraints[{k}]'
        kind = as_mapping(at, constraint).get('type')
        if kind not in CONSTRAINT_TYPES:
            fail(f'{at}.type', f'cannot be honoured: {kind!r} (constraint types: '
                                f'{", ".join(CONSTRAINT_TYPES)})')
        keys = {'joint': ('parts',), 'allGoalsFulfilledInOrder': ('order',),
                'basePlacement': ('pose',)}.get(kind, ())
        unknown = [key for key in constraint if key not in ('type',) + keys]
        if unknown:
            fail(f'{at}.{unknown[0]}', f'unknown key for {kind}')
        if kind == 'joint':
            parts = as_list(f'{at}.parts', constraint.get('parts'))
            for j, part in enumerate(parts):
                if part not in JOINT_PARTS:
                    fail(f'{at}.parts[{j}]', f'cannot be honoured: {part!r} (joint parts: '
                                              f'{", ".join(JOINT_PARTS)})')
            joint_parts.update(parts)
        elif kind == 'allGoalsFulfilledInOrder':
            order = tuple(str(g) for g in as_list(f'{at}.order', constraint.get('order')))
    targets: List[Target] = []
    goals = tuple(_goal(f'{where}goals[{k}]', g, targets, to_base)
                  for k, g in enumerate(as_list(f'{where}goals', data.get('goals'))))
    ids = [g.id for g in goals]
    if len(set(ids)) != len(ids):
        fail(f'{where}goals', 'goal IDs must be unique')
    if order is not None and sorted(order) != sorted(ids):
        fail(f'{where}constraints: allGoalsFulfilledInOrder.order',
              f'must name every goal once, got {list(order)} for {ids}')
    for goal in goals:
        if goal.returns_to is not None and goal.returns_to not in ids:
            fail(f'{where}goals: {goal.id}.returnToGoal', f'no goal {goal.returns_to!r}')
    if not targets:
        fail(f'{where}goals', 'no reach or at goal: nothing to design for')
    objects = obstacles(f'{where}obstacles', data.get('obstacles', []), to_base)
    from ..motion.objects import collision_objects  # noqa: PLC0415 - the scene's check
    try:
        checked = tuple(o.to_dict() for o in collision_objects(objects))
    except ValueError as exc:                 # two obstacles of one ID
        fail(f'{where}obstacles', str(exc))
    base.setflags(write=False)
    return CobraTask(Task(tuple(targets), collision_objects=checked,
                          base=allowed),
                     task_id, goals, order, base,
                     tuple(p for p in JOINT_PARTS if p in joint_parts), time_step)


def read_cobra_task(path: str) -> CobraTask:
    """The :class:`CobraTask` of a JSON file.

    Raises:
        ValueError: not JSON, or not what the module docstring says (one line naming the
            file and the key).
        OSError: the file cannot be read.
    """
    with open(path, encoding='utf-8') as handle:
        try:
            data = json.load(handle)
        except json.JSONDecodeError as exc:
            raise ValueError(f'{path}: not JSON (line {exc.lineno}, column {exc.colno}: '
                             f'{exc.msg})') from None
    return cobra_task(data, path)
