"""Warm a motion planner up before its first request.

In: a :class:`~hrdf_ros.motion.planner.MotionPlanner`. Out: nothing; afterwards the
first request of each kind (a collision check, an IK solve, a collision-free IK that
restarts (and its seed table), a straight line, a motion that needs OMPL, a corner passed
without stopping: TOPP-RA and the played trajectory's check) loads and compiles nothing.
The restarts are one batched solve, a compiled signature of its own; on a cold cache its
compiling took a whole request's time (a node's ``~/solve_ik`` with ``avoid_collisions``
and 0.05 s answered -31). Every call here has an iteration cap and no time limit, so the
same work is done on a busy machine. ~30 ms once the kernels are loaded; servers call it
before their first request's clock starts (the node's motion queries, ``hrdf view``'s
collision planner).
"""
from __future__ import annotations

import numpy as np

from .requirements import require

#: m added to the end effector's position at zero: a pose out of any HEBI arm's reach, so
#: that the seed fails and the restarts run.
OUT_OF_REACH = 100.0


def warm_up(planner) -> None:
    """Run one request of each kind on ``planner`` (module docstring)."""
    limits = planner.position_limits
    zero = np.clip(np.zeros(planner.model.dof_count), limits[:, 0], limits[:, 1])
    planner.in_collision(zero)
    if planner.model.frame_count('end_effector'):
        pose = planner.kinematics.end_effector(zero)
        planner.solve_ik(pose, zero, avoid_collisions=False, max_iterations=20,
                         timeout=None)
        far = pose.copy()
        far[:3, 3] += OUT_OF_REACH
        planner.solve_ik(far, zero, avoid_collisions=True, max_iterations=5, timeout=None)
    planner.plan(zero, zero, avoid_collisions=False)
    try:                         # RRT-Connect's modules (~10 ms), before a request needs them
        for module in ('ompl.base', 'ompl.geometric', 'ompl.util'):
            require(module)
    except ImportError:          # the request that needs OMPL names the extra
        pass
    columns = planner._columns
    if len(columns) >= 2:        # a corner rounded: TOPP-RA imported, the played checked
        path = np.repeat(zero[None], 3, axis=0)
        step = np.where(limits[columns, 1] > zero[columns], 0.01, -0.01)
        path[1:, columns[0]] += step[0]
        path[2, columns[1]] += step[1]
        planner._rounded(path, planner._scaled_limits(1.0, 1.0), True)
    planner.scene.segment_free(zero, zero)    # the certified check of a segment
