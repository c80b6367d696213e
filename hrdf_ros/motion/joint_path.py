"""Collision-free joint-space paths: the straight line when it is free, else OMPL.

In: a start and a goal state (dof,) (HEBI joint positions), a
:class:`~.scene.PlanningScene`, position bounds, a seed and count budgets. Out: a
polyline (K, dof) from start to goal whose every segment is proven free of collision at
every state on it (:meth:`~.scene.PlanningScene.segment_free`, :mod:`.certified`), or
``None`` when none was found within the budget.

* The straight line from start to goal, then to the goal with angles turned the other
  way, nearest first (:data:`LINES` in all, those at most :data:`LINE_STRETCH` times as
  long): the first proven free is the path.
* Otherwise OMPL's RRT-Connect (PyPI ``ompl``: Kuffner and LaValle, "RRT-Connect: An
  Efficient Approach to Single-Query Path Planning", ICRA 2000; MoveIt's default planner)
  in the joints' ranges (the limits; for a joint without limits, an angle, half a turn
  beyond the start and the goals), each motion it tries proven free or refused, to any of
  the goals given (an angle's goal can be reached turning either way), for at most
  :data:`MOTION_CHECKS` motions; then OMPL's path simplifier's shortcuts (vertex
  reduction, partial shortcuts, close vertices collapsed; :data:`SIMPLIFY_ROUNDS`
  rounds), its motions proven the same way, for at most :data:`SIMPLIFY_CHECKS` motions.
  Not its B-spline smoothing: the corners are rounded by :mod:`.corners`, and the
  states it adds would each need their motions proven. The start and goal states are
  checked by the caller.

The same request gives the same path: OMPL's random numbers are seeded from the request
(``ompl.util.RNG.setSeed(seed + 1)`` before the planner and the simplifier are built, each
request building its own, one request at a time in a process) and the work is bounded by
those counts, not by time. ``planning_time`` is only a cap against a hang: when it runs
out first the answer is None and the :class:`Outcome` says so.
"""
from __future__ import annotations

import itertools
import math
import threading
import time
from typing import Optional

import numpy as np

from .requirements import require
from .scene import PlanningScene

#: Angles (joints without limits) up to which a plan may end with any of them turned the
#: other way round (2^7 = 128 goals); beyond, one at a time.
TURN_COMBINATIONS = 7
#: Goals, nearest first, to which the straight line is tried before OMPL: an angle's goal
#: reached turning the other way is often a free straight line where the shortest is
#: not (on HEBI's arms, whose joints are all angles, 20-65 % less mean planning time
#: than the first line alone, and trajectories no longer on average).
LINES = 8
#: ... of those, only the lines at most this many times as long (the sum of the joints'
#: travel, rad) as the shortest: a short move around an obstacle is not traded for
#: nearly a whole turn the other way.
LINE_STRETCH = 1.5
#: RRT-Connect's longest extension, rad (0: OMPL's default, a fifth of the space's extent).
RRT_RANGE = 0.0
#: Motions RRT-Connect may check before it gives up (a count, not a time: the same
#: request gives the same answer on any machine and under any load).
MOTION_CHECKS = 1500
#: Motions the simplifier may check.
SIMPLIFY_CHECKS = 400
#: Rounds of the simplifier's shortcuts (vertex reduction, partial shortcuts, collapsing
#: close vertices), at most; it stops sooner when a round changes nothing.
SIMPLIFY_ROUNDS = 3
#: One planning request at a time per process: OMPL's random numbers come from one
#: process-wide generator of seeds.
_LOCK = threading.Lock()


class Outcome:
    """How a :func:`plan_path` ended (for the answer's message).

    Attributes:
        motion_checks: motions checked by RRT-Connect.
        simplify_checks: motions checked by the simplifier.
        timed_out: the time cap ended the search before its budget.
    """

    def __init__(self):
        self.motion_checks = self.simplify_checks = 0
        self.timed_out = False


def segment_free(scene: PlanningScene, start: np.ndarray, goal: np.ndarray) -> bool:
    """True when the straight joint-space motion from ``start`` to ``goal`` (dof,) is
    proven free of collision at every state on it
    (:meth:`~.scene.PlanningScene.segment_free`)."""
    return scene.segment_free(start, goal)


def turned_goals(start: np.ndarray, goal: np.ndarray, angles: np.ndarray,
                 arms: np.ndarray) -> np.ndarray:
    """(G, dof): ``goal`` (each angle, where ``angles`` (dof,) is true, already the
    shorter way from ``start``), then the same with some angles turned the other way
    round, the least turning first (by the lever arms ``arms``): every combination for
    up to :data:`TURN_COMBINATIONS` such joints, else one at a time."""
    other = goal - 2 * math.pi * np.sign(goal - start)
    turnable = np.flatnonzero(angles & (goal != start))
    if len(turnable) <= TURN_COMBINATIONS:
        choices = [c for n in range(1, len(turnable) + 1)
                   for c in itertools.combinations(turnable, n)]
    else:
        choices = [(j,) for j in turnable]
    goals = np.repeat(goal[None], len(choices) + 1, axis=0)
    for row, joints in enumerate(choices, 1):
        goals[row, list(joints)] = other[list(joints)]
    cost = np.abs(goals - start) @ arms
    return goals[np.argsort(cost, kind='stable')]


def _ompl_setup(scene: PlanningScene, low: np.ndarray, high: np.ndarray, counter: list,
                margins):
    ob = require('ompl.base')
    og = require('ompl.geometric')
    util = require('ompl.util')
    util.setLogLevel(util.LogLevel.LOG_NONE)
    dof = len(low)
    space = ob.RealVectorStateSpace(dof)
    bounds = ob.RealVectorBounds(dof)
    for k in range(dof):
        bounds.setLow(k, float(low[k]))
        bounds.setHigh(k, float(high[k]))
    space.setBounds(bounds)
    setup = og.SimpleSetup(space)
    info = setup.getSpaceInformation()

    def as_array(state) -> np.ndarray:
        return np.array([state[k] for k in range(dof)])

    setup.setStateValidityChecker(lambda state: not scene.in_collision(as_array(state)))

    known = {}          # a motion asked again (the simplifier re-checks its path's)

    class Motions(ob.MotionValidator):
        def checkMotion(self, a, b):         # noqa: N802 - OMPL's name
            start, goal = as_array(a), as_array(b)
            key = start.tobytes() + goal.tobytes()
            if key not in known:
                counter[0] += 1
                known[key] = scene.segment_free(start, goal, margins)
            return known[key]

    validator = Motions(info)
    info.setMotionValidator(validator)
    return ob, og, util, space, setup, as_array, validator


def plan_path(scene: PlanningScene, start: np.ndarray, goals: np.ndarray, low: np.ndarray,
              high: np.ndarray, planning_time: float, seed: int = 0,
              outcome: Optional['Outcome'] = None, margins=0.0) -> Optional[np.ndarray]:
    """The path (module docstring) from ``start`` (dof,) to one of ``goals`` (G, dof), the
    same state but for whole turns of angles, nearest first: the straight line to one of
    the first :data:`LINES`, else a plan to any free one. ``low``/``high`` (dof,) the
    limits (inf: none); ``planning_time`` s, the cap; ``seed`` an integer in
    [0, 2^32 - 1]; ``outcome`` an :class:`Outcome` to fill; ``margins`` (m, scalar or per
    checked pair) how far apart every motion keeps the pairs
    (:meth:`~.scene.PlanningScene.certify`).

    Raises:
        ImportError: ompl missing (the motion extra), only when the line is not free.
    """
    began = time.perf_counter()
    outcome = Outcome() if outcome is None else outcome
    goals = np.atleast_2d(goals)
    travel = np.abs(goals[:LINES] - start).sum(axis=1)
    for goal in goals[:LINES][travel <= LINE_STRETCH * travel[0]]:
        if scene.segment_free(start, goal, margins):
            return np.stack([start, goal])
    low = np.where(np.isfinite(low), low, np.minimum(start, goals.min(axis=0)) - math.pi)
    high = np.where(np.isfinite(high), high, np.maximum(start, goals.max(axis=0)) + math.pi)
    counter = [0]

    def out_of_time() -> bool:
        if time.perf_counter() - began > planning_time:
            outcome.timed_out = True
            return True
        return False

    with _LOCK:
        require('ompl.util').RNG.setSeed(int(seed) + 1)
        ob, og, util, space, setup, as_array, validator = _ompl_setup(scene, low, high,
                                                                      counter, margins)

        def state_of(values):
            state = space.allocState()
            for k, value in enumerate(values):
                state[k] = float(value)
            return state

        setup.setStartState(state_of(start))
        region = ob.GoalStates(setup.getSpaceInformation())
        for goal in goals:
            if not scene.in_collision(goal):
                region.addState(state_of(goal))
        setup.setGoal(region)
        planner = og.RRTConnect(setup.getSpaceInformation())
        if RRT_RANGE:
            planner.setRange(RRT_RANGE)
        setup.setPlanner(planner)
        simplifier = og.PathSimplifier(setup.getSpaceInformation())
        search = ob.PlannerTerminationCondition(
            lambda: counter[0] >= MOTION_CHECKS or out_of_time())
        solved = setup.solve(search) and setup.haveExactSolutionPath()
        outcome.motion_checks = counter[0]
        if not solved:
            return None
        path = setup.getSolutionPath()
        counter[0] = 0
        polish = ob.PlannerTerminationCondition(
            lambda: counter[0] >= SIMPLIFY_CHECKS or out_of_time())
        # shortcuts, not OMPL's whole simplify(): its B-spline smoothing adds states whose
        # motions all need proofs, and the corners are rounded here anyway (corners.py)
        for _ in range(SIMPLIFY_ROUNDS):
            if polish():
                break
            changed = simplifier.reduceVertices(path)
            if not polish():
                changed = simplifier.partialShortcutPath(path) or changed
            if not polish():
                simplifier.collapseCloseVertices(path)
            if not changed:
                break
        outcome.simplify_checks = counter[0]
        if outcome.timed_out:
            return None
        waypoints = np.array([as_array(path.getState(k)) for k in range(path.getStateCount())])
        del validator
    waypoints[0] = start
    waypoints[-1] = goals[np.argmin(np.abs(goals - waypoints[-1]).sum(axis=1))]
    return waypoints
