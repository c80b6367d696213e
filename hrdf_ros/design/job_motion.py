"""The motion that does a CoBRA job: a design that meets the task, moved through the goals.

In: an :class:`~.evaluate.Evaluation` that meets the task (its configurations reach the
targets free of collision, within the efforts) and the :class:`~.cobra.CobraTask`.
Out: a :class:`JobMotion`, the trajectory sampled as CoBRA's solutions carry it (times,
positions, velocities, accelerations, the time of each goal), or a :class:`JobMiss`
saying which goal could not be reached from which, and why.

* **Start and order.** The arm starts, at rest, at the configuration of the first goal
  in the task's order (``allGoalsFulfilledInOrder``, else the file's) that has a target;
  that goal is met at t = 0. Each ``reach`` and ``at`` goal is then a motion to its
  target's configuration, ending at rest (a ``reach`` asks for rest; an ``at`` does not
  mind); a ``returnTo`` a motion back to the state of the goal it names (of t = 0 when
  none); a ``pause`` holds the arm still for its ``duration``, its goal met at the end
  (Timor's convention). A goal that needs no motion still takes one time step, so every
  goal has its own time and the order is kept.
* **Motions.** A motion to a target goes to the configuration nearest the arm's
  (collision-free IK from where it is, with the evaluation's counts, held to the
  efforts at rest), else to the evaluation's; each is planned with the seed and the
  next one (:data:`PLAN_SEEDS`). Each one is the motion planner's (:meth:`~hrdf_ros.motion.planner.
  MotionPlanner.plan`, seeded with the search's seed, its work bounded by counts): on
  the evaluation's scene (the task's objects, the stricter self-collision matrix of
  :meth:`~.evaluate.Evaluator.planner`, its states and segments also held against
  gravity: :class:`_HeldScene`), proven free of collision as played, within the
  velocity and acceleration limits of the MoveIt package (rated speed, reached in
  0.5 s). The joints are given position limits of +-:data:`POSITION_LIMIT` rad (HEBI
  actuators turn without end stops; ``design-K.urdf`` writes those limits, Timor and
  Pinocchio need them), the goals' configurations turned into [-pi, pi).
* **Efforts.** A motion is then slowed down, as a whole, until the inverse dynamics
  (:meth:`~hrdf_ros.kinematics.Kinematics.inverse_dynamics`, HEBI's masses, no payload:
  CoBRA tasks carry none) are within the rated efforts less the task's margin at every
  sample of it played at :data:`RATE` Hz and at every sample the solution carries.
  Slowing by a factor k keeps the path and divides the dynamic part of the efforts by
  k^2 (``tau(k) = g + (tau - g) / k^2``), so k follows from the samples in closed form
  (times :data:`SLOWDOWN_MARGIN`); a sample where gravity alone asks for more is a miss.
* **Samples.** Along each motion and pause at equal intervals of at most
  :attr:`~.cobra.CobraTask.time_step` s (Timor asks for that through a pause), the
  planner's trajectory as joint_trajectory_controller plays it
  (:func:`~hrdf_ros.motion.trajectory.states_at`): URDF joint values in the design's
  joint order (J1, J2, ...: the order of ``design-K.urdf``, Pinocchio's too).

The same evaluation, task and seed give the same samples, bit for bit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import numpy as np

from ..kinematics.gravity import HEBI_GRAVITY
from ..reach.payload import rated_efforts
from .cobra import CobraTask
from .evaluate import Evaluation, Evaluator

#: rad: the position limits of every revolute joint of a job's motion (just inside
#: 2 pi: a goal's configuration in [-pi, pi) can be reached either way).
POSITION_LIMIT = 6.283185
#: Hz: how densely each motion is checked against the efforts (joint_trajectory_
#: controller's update rate in HEBI's arm configs).
RATE = 1000.0
#: The slowdown's margin over the closed-form factor, and how many more tries (each
#: 1 % slower) the samples get before the motion counts as a miss.
SLOWDOWN_MARGIN = 1.002
SLOWDOWN_TRIES = 8
#: Seeds each goal configuration's motion is planned with (seed, seed + 1, ...).
PLAN_SEEDS = 1
#: States on a segment the planner's search checks against gravity.
SEGMENT_SAMPLES = 16
#: s, the cap on each motion's planning (a hang guard; the search is bounded by counts).
PLANNING_TIME = 60.0


@dataclass(frozen=True)
class JobMotion:
    """A design's motion through a task's goals (module docstring).

    Attributes:
        joint_names: the URDF joints of the columns, in the design's order.
        t: (K,) s, strictly increasing from 0.
        q, dq, ddq: (K, dof) URDF joint values (rad), rad/s, rad/s^2.
        goal_times: goal ID -> s, one of ``t``.
        worst_effort_ratio: the largest |effort| / (rated effort (1 - margin)) at the
            samples.
    """

    joint_names: Tuple[str, ...]
    t: np.ndarray
    q: np.ndarray
    dq: np.ndarray
    ddq: np.ndarray
    goal_times: Dict[str, float]
    worst_effort_ratio: float

    @property
    def cycle_time(self) -> float:
        """s, the time of the last sample."""
        return float(self.t[-1])


@dataclass(frozen=True)
class JobMiss:
    """Why a design that meets the task has no motion through its goals: ``reason``,
    one line; ``joints``: the joints (0-based) where gravity alone asked for more than
    the rated effort along a motion (a stronger actuator of their size may do)."""

    reason: str
    joints: Tuple[int, ...] = ()


def wrapped(q: np.ndarray, revolute: np.ndarray) -> np.ndarray:
    """(dof,) positions with the revolute joints' turned into [-pi, pi)."""
    out = np.array(q, dtype=float)
    out[revolute] = (out[revolute] + math.pi) % (2.0 * math.pi) - math.pi
    return out


def sample_times(duration: float, step: float) -> np.ndarray:
    """(M,) times in (0, duration]: ``ceil(duration / step)`` equal intervals (each at
    most ``step``), the last time ``duration`` itself."""
    count = max(1, int(math.ceil(duration / step - 1e-9)))
    times = duration * np.arange(1, count + 1, dtype=float) / count
    times[-1] = duration
    return times


class _HeldScene:
    """The planner's scene for a job (module docstring): a state is also refused where
    gravity alone asks a joint for more than its rated effort (less the margin), and a
    segment where it does at one of :data:`SEGMENT_SAMPLES` equally spaced states on it
    (a guide for the search: the motion found is checked at every sample afterwards).
    Everything else is the scene's."""

    def __init__(self, scene, kinematics, efforts: np.ndarray):
        self._scene, self._kinematics, self._efforts = scene, kinematics, efforts

    def __getattr__(self, name):
        return getattr(self._scene, name)

    def _held(self, states: np.ndarray) -> bool:
        tau = self._kinematics.gravity_efforts(states, HEBI_GRAVITY)
        return bool(np.all(np.abs(tau) <= self._efforts))

    def in_collision(self, positions) -> bool:
        q = np.asarray(positions, dtype=float)
        return self._scene.in_collision(q) or not self._held(q[None])

    def segment_free(self, start, goal, margins=0.0) -> bool:
        s = np.linspace(0.0, 1.0, SEGMENT_SAMPLES)[:, None]
        a, b = np.asarray(start, dtype=float), np.asarray(goal, dtype=float)
        return self._held(a + s * (b - a)) and self._scene.segment_free(a, b, margins)


class _Planner:
    """The design's planner and the conversions between its trajectories (URDF values,
    the trajectory's joint order) and the design's joint order."""

    def __init__(self, evaluation: Evaluation, job: CobraTask, seed: int):
        from ..motion.planner import MotionPlanner                    # noqa: PLC0415
        from ..description.robot import describe                        # noqa: PLC0415
        from ..description.semantics import semantics                   # noqa: PLC0415
        from .evaluate import kinematics_path                            # noqa: PLC0415
        model = evaluation.design.model()
        self.model = model
        dof = model.dof_count
        self.revolute = np.array([model.elements[e].motion[0] == 'r'
                                  for e in model.dof_elements], dtype=bool)
        limits = np.where(self.revolute[:, None], [-POSITION_LIMIT, POSITION_LIMIT],
                          [-np.inf, np.inf])
        description = describe(model, 'robot')
        self.planner = MotionPlanner(
            model, job.task.collision_objects, joint_limits=limits.reshape(dof, 2),
            description=description,
            semantics=semantics(description, never=False, home=False),
            kinematics=kinematics_path())
        self.joint_names = tuple(self.planner.joint_names)
        self.ratios = np.array([float(model.elements[e].gear_ratio)
                                for e in model.dof_elements])
        self.columns = [self.planner.trajectory_joints.index(n) for n in self.joint_names]
        self.seed = seed
        self.evaluator = Evaluator(job.task)
        self.efforts = rated_efforts(model) * (1.0 - job.task.margin)
        self.planner.scene = _HeldScene(self.planner.scene, self.planner.kinematics,
                                        self.efforts)

    def plan(self, start: np.ndarray, goal: np.ndarray, seed: int):
        """The planner's trajectory from ``start`` to ``goal`` (model order, HEBI
        values), or its message."""
        answer = self.planner.plan(start, goal, seed=seed, planning_time=PLANNING_TIME)
        return answer.trajectory if answer.success else answer.message

    def nearby(self, k: int, start: np.ndarray) -> Optional[np.ndarray]:
        """Collision-free IK of target ``k`` from ``start`` (the evaluation's, with its
        counts), turned into [-pi, pi) and held within the efforts at rest; None when
        there is none."""
        from .evaluate import MAX_ATTEMPTS                              # noqa: PLC0415
        result = self.evaluator.solve(self.planner, k, MAX_ATTEMPTS, seed=start)
        if not result.success:
            return None
        q = wrapped(result.positions, self.revolute)
        if self.planner.scene.in_collision(q):  # turned, and against gravity: a check
            return None
        return q

    def states(self, trajectory, times):
        """(q, dq, ddq) at ``times``: URDF values, the design's joint order."""
        from ..motion.trajectory import states_at                      # noqa: PLC0415
        return tuple(x[:, self.columns] for x in states_at(trajectory, times))

    def effort_ratios(self, q, dq, ddq) -> Tuple[np.ndarray, np.ndarray]:
        """(M, dof) efforts over the limits, and gravity's share of them, for URDF
        states in the design's order."""
        kinematics = self.planner.kinematics
        r = self.ratios
        tau = kinematics.inverse_dynamics(q * r, dq * r, ddq * r, HEBI_GRAVITY)
        gravity = kinematics.gravity_efforts(q * r, HEBI_GRAVITY)
        return tau / self.efforts, gravity / self.efforts


def slowdown(ratios: np.ndarray, gravity: np.ndarray) -> Optional[float]:
    """The least factor k >= 1 with ``|g + (tau - g) / k^2| <= 1`` at every sample (ratios
    to the limits, module docstring); None when gravity alone passes 1."""
    if np.any(np.abs(gravity) > 1.0):
        return None
    dynamic = ratios - gravity
    with np.errstate(divide='ignore', invalid='ignore'):
        need = np.where(dynamic > 0.0, dynamic / (1.0 - gravity),
                        np.where(dynamic < 0.0, -dynamic / (1.0 + gravity), 0.0))
    need = np.where(np.isfinite(need), need, np.inf)
    return math.sqrt(max(1.0, float(need.max(initial=1.0))))


def _timed_leg(p: _Planner, trajectory, step: float):
    """The leg slowed down to the efforts (module docstring): (times (M,) from the
    leg's start, q, dq, ddq, worst ratio), or the reason it cannot be (a
    :class:`JobMiss` naming the joints when gravity alone is too much)."""
    dense = np.append(np.arange(0.0, trajectory.duration, 1.0 / RATE), trajectory.duration)
    ratios, gravity = p.effort_ratios(*p.states(trajectory, dense))
    factor = slowdown(ratios, gravity)
    if factor is None:
        over = tuple(int(j) for j in np.flatnonzero((np.abs(gravity) > 1.0).any(axis=0)))
        return JobMiss('gravity alone asks for more than the rated effort of '
                       + ', '.join(p.joint_names[j] for j in over) + ' along the motion',
                       over)
    factor *= SLOWDOWN_MARGIN
    for _ in range(SLOWDOWN_TRIES + 1):
        slowed = trajectory.scaled_in_time(factor) if factor > 1.0 else trajectory
        times = sample_times(slowed.duration, step)
        dense = np.append(np.arange(0.0, slowed.duration, 1.0 / RATE), slowed.duration)
        states = p.states(slowed, times)
        worst = max(float(np.abs(p.effort_ratios(*states)[0]).max()),
                    float(np.abs(p.effort_ratios(*p.states(slowed, dense))[0]).max()))
        if worst <= 1.0:
            return (times,) + states + (worst,)
        factor *= 1.01
    return f'the efforts stay above the rated ones slowed {factor:.3g} times'


def _leg(p: _Planner, job: CobraTask, goal, state: np.ndarray, target: np.ndarray,
         seed: int):
    """(trajectory, goal configuration) of the first proven motion from ``state``: to
    the goal's configuration nearest ``state`` (collision-free IK from it, for a goal
    with a target), then to ``target``, each planned with ``seed`` and then
    ``seed + 1`` (:data:`PLAN_SEEDS` plans per configuration); (the last planner
    message, None) when none is found."""
    candidates = [target]
    if goal.target is not None:
        near = p.nearby(goal.target, state)
        if near is not None and not np.array_equal(near, target):
            candidates.insert(0, near)
    message = ''
    for candidate in candidates:
        for k in range(PLAN_SEEDS):
            trajectory = p.plan(state, candidate, seed + k)
            if not isinstance(trajectory, str):
                return trajectory, candidate
            message = trajectory
    return message, None


def job_motion(evaluation: Evaluation, job: CobraTask, seed: int = 0):
    """The motion of ``evaluation``'s design through ``job``'s goals (module docstring).

    Returns:
        a :class:`JobMotion`, or a :class:`JobMiss` (a goal not reached by a proven
        motion within the efforts).

    Raises:
        ValueError: the evaluation does not meet the task.
    """
    if not evaluation.meets:
        raise ValueError('only a design that meets the task has a motion through it')
    p = _Planner(evaluation, job, seed)
    configurations = [wrapped(q, p.revolute) for q in evaluation.configurations]
    goals = {g.id: g for g in job.goals}
    order = list(job.order or [g.id for g in job.goals])
    order += [g for g in goals if g not in order]
    first = next((goals[g] for g in order if goals[g].target is not None), None)
    if first is None:
        return JobMiss('the task has no reach or at goal to start from')
    step = job.time_step
    state = configurations[first.target]
    start_state = state
    t = [0.0]
    q = [state / p.ratios]
    zero = np.zeros(len(state))
    dq, ddq = [zero], [zero]
    at_goal: Dict[str, np.ndarray] = {}
    goal_times: Dict[str, float] = {}
    worst = 0.0
    previous = None

    def hold(duration: float) -> None:
        times = t[-1] + sample_times(duration, step)
        for time in times:
            t.append(float(time))
            q.append(q[-1])
            dq.append(zero)
            ddq.append(zero)

    for gid in order:
        goal = goals[gid]
        if goal.kind == 'pause':
            hold(goal.duration)
        else:
            if goal.kind == 'returnTo':
                target = at_goal.get(goal.returns_to, start_state) \
                    if goal.returns_to is not None else start_state
            else:
                target = configurations[goal.target]
            if not (gid == first.id and previous is None):
                if np.array_equal(target, state):
                    hold(step)
                else:
                    trajectory, target = _leg(p, job, goal, state, target, seed)
                    if isinstance(trajectory, str):
                        return JobMiss(f'no motion from {previous or "the start"} to goal '
                                       f'{gid}: {trajectory}')
                    leg = _timed_leg(p, trajectory, step)
                    if isinstance(leg, JobMiss):
                        return JobMiss(f'the motion to goal {gid}: {leg.reason}', leg.joints)
                    if isinstance(leg, str):
                        return JobMiss(f'the motion to goal {gid}: {leg}')
                    times, lq, ldq, lddq, ratio = leg
                    worst = max(worst, ratio)
                    t.extend(float(x) for x in t[-1] + times)
                    q.extend(lq)
                    dq.extend(ldq)
                    ddq.extend(lddq)
                    state = target
        at_goal[gid] = state
        goal_times[gid] = t[-1]
        previous = gid
    q, dq, ddq = np.array(q), np.array(dq), np.array(ddq)
    worst = max(worst, float(np.abs(p.effort_ratios(q, dq, ddq)[0]).max()))
    if worst > 1.0:                   # the holds: gravity at the goals, met by the design
        return JobMiss(f'the efforts at rest pass the rated ones ({worst:.4f})')
    return JobMotion(p.joint_names, np.array(t), q, dq, ddq, goal_times, worst)


__all__ = ['JobMiss', 'JobMotion', 'job_motion']
