"""Collision-free joint-space paths: the straight line when it is free, else OMPL.

In: a start and a goal state (dof,) (HEBI joint positions), a
:class:`~.scene.PlanningScene`, the lever arms of :mod:`.resolution` and position bounds.
Out: a polyline (K, dof) from start to goal whose every segment is free of collision at
every state checked (no point of a link moving more than :data:`.resolution.STEP`
between two), or ``None`` when none was found in time.

* The straight line from start to goal, checked densely: when it is free, it is the path.
* Otherwise OMPL's RRT-Connect (PyPI ``ompl``: Kuffner and LaValle, "RRT-Connect: An
  Efficient Approach to Single-Query Path Planning", ICRA 2000; MoveIt's default planner)
  in the joints' ranges (the limits; for a joint without limits, an angle, half a turn
  beyond the start and the goals), its motions checked as above, to any of the goals
  given (an angle's goal can be reached turning either way); then OMPL's path simplifier
  (shortcuts and vertex reduction) in the time that is left, at most half the planning
  time. The start and goal states are checked by the caller.
"""
from __future__ import annotations

import itertools
import math
import time
from typing import Optional

import numpy as np

from .requirements import require
from .resolution import STEP, interpolate, interpolation_counts
from .scene import PlanningScene

#: Angles (joints without limits) up to which a plan may end with any of them turned the
#: other way round (2^7 = 128 goals); beyond, one at a time.
TURN_COMBINATIONS = 7
#: RRT-Connect's longest extension, rad (0: OMPL's default, a fifth of the space's extent).
RRT_RANGE = 0.0
#: States of a motion checked first, spread along it.
PROBES = 8
#: How far a point of a link may move between two states the planner checks, m: coarser
#: than :data:`~.resolution.STEP`, the path found is then checked at that step (and
#: planned again at it where it collides).
COARSE_STEP = 0.02


def segment_free(scene: PlanningScene, arms: np.ndarray, start: np.ndarray,
                 goal: np.ndarray, step: float = STEP) -> bool:
    """True when every checked state strictly after ``start`` up to ``goal`` is free, no
    point of a link moving more than ``step`` (m) between two: :data:`PROBES` states
    spread along the motion first (most colliding motions stop there), then all, in
    batches (:meth:`~.scene.PlanningScene.free`)."""
    count = int(interpolation_counts(start[None], goal[None], arms, step)[0])
    states = interpolate(start, goal, count)[1:]
    if len(states) > 2 * PROBES:
        spread = states[np.linspace(0, len(states) - 1, PROBES).round().astype(int)]
        if not scene.free(spread, stop_at_first=True).all():
            return False
    return bool(scene.free(states, stop_at_first=True).all())


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


def _ompl_setup(scene: PlanningScene, arms: np.ndarray, low: np.ndarray, high: np.ndarray,
                step: list):
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

    class Motions(ob.MotionValidator):
        def checkMotion(self, a, b):         # noqa: N802 - OMPL's name
            return segment_free(scene, arms, as_array(a), as_array(b), step[0])

    validator = Motions(info)
    info.setMotionValidator(validator)
    return ob, og, space, setup, as_array, validator


def plan_path(scene: PlanningScene, arms: np.ndarray, start: np.ndarray, goals: np.ndarray,
              low: np.ndarray, high: np.ndarray, planning_time: float) -> Optional[np.ndarray]:
    """The path (module docstring) from ``start`` (dof,) to one of ``goals`` (G, dof), the
    same state but for whole turns of angles: the straight line to the first, else a plan
    to any free one. ``low``/``high`` (dof,) the limits (inf: none).

    Raises:
        ImportError: ompl missing (the motion extra), only when the line is not free.
    """
    began = time.perf_counter()
    goals = np.atleast_2d(goals)
    if segment_free(scene, arms, start, goals[0]):
        return np.stack([start, goals[0]])
    low = np.where(np.isfinite(low), low, np.minimum(start, goals.min(axis=0)) - math.pi)
    high = np.where(np.isfinite(high), high, np.maximum(start, goals.max(axis=0)) + math.pi)
    step = [COARSE_STEP]
    ob, og, space, setup, as_array, validator = _ompl_setup(scene, arms, low, high, step)

    def state_of(values):
        state = space.allocState()
        for k, value in enumerate(values):
            state[k] = float(value)
        return state

    setup.setStartState(state_of(start))
    region = ob.GoalStates(setup.getSpaceInformation())
    held = [state_of(goal) for goal in goals if not scene.in_collision(goal)]
    for state in held:
        region.addState(state)
    setup.setGoal(region)
    planner = og.RRTConnect(setup.getSpaceInformation())
    if RRT_RANGE:
        planner.setRange(RRT_RANGE)
    setup.setPlanner(planner)
    for _ in range(2):          # coarse checks first; densely again if the path collides
        left = planning_time - (time.perf_counter() - began)
        if left <= 0.0 or not setup.solve(left) or not setup.haveExactSolutionPath():
            return None
        left = planning_time - (time.perf_counter() - began)
        path = setup.getSolutionPath()
        if left > 0.0:
            simplifier = og.PathSimplifier(setup.getSpaceInformation())
            simplifier.simplify(path, min(left, planning_time / 2))
        waypoints = np.array([as_array(path.getState(k)) for k in range(path.getStateCount())])
        waypoints[0] = start
        waypoints[-1] = goals[np.argmin(np.abs(goals - waypoints[-1]).sum(axis=1))]
        if step[0] == STEP or all(segment_free(scene, arms, a, b)
                                  for a, b in zip(waypoints[:-1], waypoints[1:])):
            del validator
            return waypoints
        step[0] = STEP
        setup.clear()
    return None
