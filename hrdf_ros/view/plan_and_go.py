""""Plan and go" in ``hrdf view``: a motion from the shown configuration to a handle's
pose, drawn and played at its real speed.

In: the page's planner (:class:`hrdf_ros.MotionPlanner`, once ready), the model and its
frame tree, the sliders' getter and setter of URDF joint values, a handle's target
((4, 4) in the root link frame) and end-effector index, and whether the end effector
moves along a straight line. Out: :meth:`PlanAndGo.go`: the plan
(:meth:`~hrdf_ros.MotionPlanner.plan` to the pose, or
:meth:`~hrdf_ros.MotionPlanner.cartesian_path`), the end effector's path as a line in
the scene, and the trajectory played on the sliders in a thread of its own, as
joint_trajectory_controller plays it (its quintics, :func:`hrdf_ros.motion.trajectory.playback`),
:data:`FRAME_RATE` frames a second at its real speed; the returned text says the
duration, or why there is no plan (then nothing moves). A new plan stops the playing one.
"""
from __future__ import annotations

import threading
import time
from typing import Callable, Dict, Optional

import numpy as np

from .fk_panel import hebi_positions

#: Frames a second of a played trajectory.
FRAME_RATE = 30.0
#: Colour (0..255) and thickness (m) of the drawn path.
PATH_COLOUR, PATH_THICKNESS = (30, 160, 60), 0.004
#: Scene node of the path.
PATH = '/planned_path'
#: The cap on one request's search, s (the search is bounded by counts).
PLANNING_TIME = 5.0


class PlanAndGo:
    """Plans, draws and plays (module docstring).

    Args:
        scene: ``server.scene`` of the viser server.
        get_values, set_values: the sliders' URDF joint values by name.
    """

    def __init__(self, scene, get_values: Callable[[], Dict[str, float]],
                 set_values: Callable[[Dict[str, float]], None]):
        self._scene, self._get, self._set = scene, get_values, set_values
        self._stop = threading.Event()
        self._player: Optional[threading.Thread] = None
        self._path = None

    def go(self, planner, model, tree, target: np.ndarray, index: int,
           cartesian: bool) -> str:
        """Plan from the shown configuration to ``target`` and start playing it; returns
        the panel's text (markdown)."""
        self.stop()
        if planner is None:
            return 'the collision checks are not ready yet; nothing moves'
        start = hebi_positions(model, tree, self._get())
        if cartesian:
            plan = planner.cartesian_path(start, [target], index=index)
        else:
            plan = planner.plan(start, pose=target, index=index, planning_time=PLANNING_TIME)
        if not plan.success or plan.fraction == 0.0:
            return f'**no plan**: {plan.message or "no part of the line could be followed"}; ' \
                   'nothing moves'
        from ..motion.trajectory import playback  # noqa: PLC0415 - the motion extra
        times, played = playback(plan.trajectory, FRAME_RATE)
        names = list(plan.trajectory.joint_names)
        columns = [tree.dof_names.index(n) for n in names]
        ratios = np.array([float(model.elements[model.dof_elements[c]].gear_ratio)
                           for c in columns])
        full = np.tile(start, (len(played), 1))
        full[:, columns] = played * ratios
        points = planner.kinematics.end_effector(full, index=index)[:, :3, 3]
        if self._path is not None:
            self._path.remove()
        self._path = self._scene.add_spline_catmull_rom(
            PATH, points, color=PATH_COLOUR, thickness=PATH_THICKNESS)
        self._stop.clear()
        self._player = threading.Thread(target=self._play, args=(times, played, names),
                                        name='hrdf_view_play', daemon=True)
        self._player.start()
        share = '' if plan.fraction == 1.0 else f', {100 * plan.fraction:.0f} % of the line ' \
                                               f'({plan.message})'
        return f'planned: **{plan.trajectory.duration:.2f} s**{share}'

    def _play(self, times, played, names) -> None:
        began = time.monotonic()
        for t, values in zip(times, played):
            delay = began + t - time.monotonic()
            if delay > 0 and self._stop.wait(delay):
                return
            self._set(dict(zip(names, (float(v) for v in values))))

    def stop(self) -> None:
        """Stop the playing trajectory (the arm stays where it is)."""
        self._stop.set()
        player = self._player
        if player is not None and player is not threading.current_thread():
            player.join(timeout=1.0)
        self._player = None

    def remove(self) -> None:
        """Stop, and take the path out of the scene."""
        self.stop()
        if self._path is not None:
            self._path.remove()
            self._path = None
