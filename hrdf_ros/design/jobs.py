"""The motions of the best designs for a CoBRA job, and the designs ranked by them.

In: a :class:`~.search.DesignResult`, the :class:`~.cobra.CobraTask`, the search's
seed. Out: the designs ranked for the job, each with its :class:`~.job_motion.JobMotion`,
:class:`~.job_motion.JobMiss` or None (not tried).

A design does a CoBRA job when it meets the task (:mod:`.evaluate`) and has a motion
through the goals (:func:`~.job_motion.job_motion`). The designs that meet the task are
tried lightest first until one has a motion, and then those of the same mass (to 1 g),
at most :data:`JOB_TRIES` in all. The search sizes each joint for the goals; where a
motion between them asks more of a joint against gravity alone, the design with that
joint's next stronger actuator of its size (the same geometry: the same configurations
and paths) is evaluated again (:meth:`~.evaluate.Evaluator.evaluate`, as it is) and
joins the queue at its mass. The designs with a motion come first, by mass and then by
cycle time, then the rest, lightest first.
"""
from __future__ import annotations

import heapq
from typing import List, Optional, Tuple, Union

from ..hrdf.catalogue import ACTUATORS
from .evaluate import Evaluation, Evaluator
from .job_motion import JobMiss, JobMotion, job_motion
from .space import size_of, variants

#: Designs that meet the task tried for a motion, at most.
JOB_TRIES = 8

Motion = Optional[Union[JobMotion, JobMiss]]


def stronger(evaluation: Evaluation, joints) -> Optional[object]:
    """The design with each of ``joints`` given the next actuator of its size with more
    rated effort; None when one has none."""
    actuators = list(evaluation.design.actuators)
    for j in joints:
        current = ACTUATORS[actuators[j]].max_effort
        more = [a for a in variants(size_of(actuators[j]))
                if ACTUATORS[a].max_effort > current]
        if not more:
            return None
        actuators[j] = more[0]
    return evaluation.design.with_actuators(actuators)


def solve_job(result, job, seed: int = 0, tries: int = JOB_TRIES
              ) -> Tuple[List[Evaluation], List[Motion]]:
    """(designs, their motions) ranked for the job (module docstring)."""
    rows = list(result.ranked())
    motions: List[Motion] = [None] * len(rows)
    queue = [(round(e.mass * 1000.0), k) for k, e in enumerate(rows) if e.meets]
    heapq.heapify(queue)
    seen = {e.design for e in rows}
    solved_mass, evaluator = None, None
    for _ in range(tries):
        if not queue:
            break
        grams, k = heapq.heappop(queue)
        if solved_mass is not None and grams != solved_mass:
            break
        motions[k] = job_motion(rows[k], job, seed)
        if isinstance(motions[k], JobMotion):
            solved_mass = grams if solved_mass is None else solved_mass
        elif motions[k].joints:
            design = stronger(rows[k], motions[k].joints)
            if design is not None and design not in seen:
                seen.add(design)
                evaluator = evaluator or Evaluator(job.task)
                evaluation = evaluator.evaluate(design, size=False)
                rows.append(evaluation)
                motions.append(None)
                if evaluation.meets:
                    heapq.heappush(queue, (round(evaluation.mass * 1000.0), len(rows) - 1))

    def key(k):
        m = motions[k]
        first = 0 if isinstance(m, JobMotion) else 1
        return (first, 0 if rows[k].meets else 1, round(rows[k].mass * 1000.0),
                m.cycle_time if first == 0 else 0.0, k)

    order = sorted(range(len(rows)), key=key) if solved_mass is not None else \
        list(range(len(rows)))
    return [rows[k] for k in order], [motions[k] for k in order]
