"""Drag handles on a robot's end effectors in ``hrdf view``: the arm follows by inverse
kinematics.

In: the viser server; on each (re)load, the model, its frame tree, its kinematics and
the page's getter and setter of URDF joint values (the sliders'). Out: a transform gizmo
(viser's transform controls) at each end-effector frame, with a sphere at its centre,
and a "Move the end effector" folder: the objective (full pose, tip axis, position only;
first the one the end effector's degrees of freedom give, as ``solve_ik`` chooses) and
each handle's state.

Dragging a handle solves :meth:`hrdf_ros.Kinematics.solve_ik` for its end effector at the
gizmo's pose (the robot's root link frame, m), seeded with the configuration shown, at
the rate the browser sends updates: updates that come while a solve runs are folded into
one, the latest (no backlog). A solution moves the sliders, which redraw the robot; a
target out of reach leaves the arm where it was, turns the sphere red and the panel says
how far the nearest configuration found is. With the "avoid collisions" switch on, a
solution must also be free of collision (:meth:`hrdf_ros.MotionPlanner.solve_ik`, the
page's planner, once it is ready): else the arm stays and the panel says so. When the
sliders move the arm, the handles follow its end effectors (but one being dragged or
solved for: a drag's last pose stays the target of the solves it ends with).
"""
from __future__ import annotations

import threading
from typing import Callable, Dict, List, Optional

import numpy as np

from ..kinematics.ik import default_orientation
from ..kinematics.rotations import quaternion_to_rotation, rotation_to_quaternion
from .fk_panel import hebi_positions, urdf_values
from .plan_and_go import PlanAndGo

#: What a handle does, in the panel: follow by IK while dragged, or, once released, plan a
#: motion there (``plan``) or along a straight line (``line``) and play it
#: (:mod:`.plan_and_go`).
MODES = {'follow': 'follow', 'plan and go': 'plan', 'straight line and go': 'line'}
#: Objectives in the panel -> ``solve_ik``'s ``orientation``.
OBJECTIVES = {'full pose': 'full', 'tip axis': 'tip_axis', 'position only': 'none'}
#: Colours (0..255) of the sphere at a handle: reached, out of reach.
REACHED, OUT_OF_REACH = (235, 235, 235), (220, 20, 20)
#: The steps of one drag update's search: a warm seed converges in a few; a target out of
#: reach takes all of them (~10 ms). A count, not a time: the same drag gives the same
#: answer on a busy machine.
ITERATIONS = 1000
#: With the "avoid collisions" switch on: starts (restarts from other seeds until a free
#: solution), and steps per start.
FREE_ATTEMPTS, FREE_ITERATIONS = 16, 300
#: Scene node of the handles.
ROOT = '/ik_handles'


class IkHandles:
    """The handles and their folder (see the module docstring).

    Args:
        server: the viser server.
        order: place of the folder in the page (viser's ``order``).
        planner: gives the page's :class:`hrdf_ros.MotionPlanner`, or None while it is
            not ready (the "avoid collisions" switch needs it).
    """

    def __init__(self, server, order: Optional[float] = None,
                 planner: Callable[[], object] = lambda: None):
        self._server = server
        self._lock = threading.Lock()          # the solve state below
        self._robot: Optional[_Robot] = None
        self._pending: Dict[int, bool] = {}
        #: the handles the running loop is solving for (their poses are the targets)
        self._solving: frozenset = frozenset()
        self._busy = False
        self._go: Optional[PlanAndGo] = None
        self._visible = True
        self._planner = planner
        gui = server.gui
        with gui.add_folder('Move the end effector', order=order):
            self._mode = gui.add_dropdown(
                'handle', tuple(MODES), initial_value='follow',
                hint='follow: the arm follows the handle by inverse kinematics; plan and '
                     'go: once the handle is released, a collision-free motion there is '
                     'planned, drawn and played; straight line and go: the same along a '
                     'straight line of the end effector')
            self._objective = gui.add_dropdown(
                'objective', tuple(OBJECTIVES), initial_value='full pose',
                hint='what a handle asks of its end effector: the whole pose, the '
                     'position and the z axis, or the position')
            self._free = gui.add_checkbox(
                'avoid collisions', initial_value=False,
                hint='follow only with configurations free of collision (the robot\'s '
                     'own links and the collision objects)')
            self._plan_button = gui.add_button(
                'plan and go', hint='plan a motion to the (first) handle, draw it and play '
                                    'it (a straight line with "straight line and go")')
            self._status = gui.add_markdown('')
        self._plan_button.on_click(lambda _event: self._plan_and_go(self._robot, 0))

    # -- (re)load --------------------------------------------------------------------

    def set_robot(self, model, tree, kinematics, get_values: Callable[[], Dict[str, float]],
                  set_values: Callable[[Dict[str, float]], None]) -> None:
        """Handles for a (re)loaded robot (the old ones go)."""
        with self._lock:
            old, self._robot = self._robot, None
            self._pending = {}
            go, self._go = self._go, PlanAndGo(self._server.scene, get_values, set_values)
        if go is not None:
            go.remove()
        if old is not None:
            old.remove()
        robot = _Robot(self._server.scene, model, tree, kinematics, get_values, set_values,
                       self._visible)
        for k, handle in enumerate(robot.handles):
            handle.on_update(lambda event, k=k, robot=robot: self._on_update(robot, k, event))
        if robot.count:
            chain = len(kinematics.end_effector_joints(0))
            self._objective.value = {'full': 'full pose', 'tip_axis': 'tip axis',
                                     'none': 'position only'}[default_orientation(chain)]
        with self._lock:
            self._robot = robot
        self._status.content = robot.status()

    def follow(self, values: Dict[str, float]) -> None:
        """Put the handles (but one being dragged, or with a solve to come or running:
        its pose is that solve's target) at the end effectors for URDF joint values."""
        robot = self._robot
        if robot is not None:
            with self._lock:
                skip = self._solving | {k for k, p in self._pending.items() if p}
            robot.follow(values, skip)
            self._status.content = robot.status()

    @property
    def visible(self) -> bool:
        """Whether the handles are shown."""
        return self._visible

    @visible.setter
    def visible(self, value: bool) -> None:
        self._visible = bool(value)
        robot = self._robot
        if robot is not None:
            for node in robot.handles + robot.spheres:
                node.visible = self._visible

    @property
    def orientation(self) -> str:
        """The objective chosen in the panel (``solve_ik``'s ``orientation``)."""
        return OBJECTIVES[self._objective.value]

    # -- drags -----------------------------------------------------------------------

    def _plan_and_go(self, robot: Optional['_Robot'], k: int) -> None:
        """Plan to handle k's pose from the shown configuration, draw and play it."""
        go = self._go
        if robot is None or robot is not self._robot or go is None or k >= robot.count:
            return
        robot.state[k] = 'planning'
        self._status.content = robot.status()
        robot.state[k] = go.go(self._planner(), robot.model, robot.tree, robot.target(k), k,
                               MODES[self._mode.value] == 'line')
        self._status.content = robot.status()

    def text(self) -> str:
        """The panel's state as shown (markdown)."""
        return self._status.content

    def _on_update(self, robot: '_Robot', k: int, event) -> None:
        """A drag's start, update or end (viser's thread pool): solve for the handle's
        latest pose, folding in updates that come meanwhile."""
        robot.dragging[k] = event.phase != 'end'
        if MODES[self._mode.value] != 'follow':
            if event.phase == 'end':
                self._plan_and_go(robot, k)
            return
        if event.phase == 'start':
            return
        with self._lock:
            if robot is not self._robot:
                return                         # a handle of a robot since replaced
            self._pending[k] = True
            if self._busy:
                return                         # the running loop takes it
            self._busy = True
        try:
            while True:
                with self._lock:
                    todo = [i for i, p in self._pending.items() if p]
                    self._pending = {}
                    if not todo or robot is not self._robot:
                        self._busy, self._solving = False, frozenset()
                        return
                    self._solving = frozenset(todo)
                for i in todo:
                    robot.solve(i, self.orientation,
                                self._planner() if self._free.value else None,
                                self._free.value)
                self._status.content = robot.status()
        except BaseException:
            with self._lock:
                self._busy = False
                self._solving = frozenset()
            raise


class _Robot:
    """The handles of one loaded robot, and their solves."""

    def __init__(self, scene, model, tree, kinematics, get_values, set_values, visible):
        self.model, self.tree, self.kinematics = model, tree, kinematics
        self._get_values, self._set_values = get_values, set_values
        self.count = model.frame_count('end_effector')
        self.dragging = [False] * self.count
        self.state: List[str] = ['drag the handle'] * self.count
        q = hebi_positions(model, tree, get_values())
        frames = kinematics.frames('end_effector', q) if self.count else []
        self.handles, self.spheres = [], []
        offsets = np.linalg.norm(kinematics.structure.joint_fixed[:, :3, 3], axis=1)
        for k, frame in enumerate(frames):
            reach = float(offsets[kinematics.end_effector_joints(k)].sum())
            scale = float(np.clip(0.25 * reach, 0.08, 0.3))
            handle = scene.add_transform_controls(
                f'{ROOT}/{k}', scale=scale, depth_test=False, position=frame[:3, 3],
                wxyz=_wxyz(frame), visible=visible)
            self.handles.append(handle)
            self.spheres.append(scene.add_icosphere(f'{ROOT}/{k}/target', radius=0.1 * scale,
                                                    color=REACHED, cast_shadow=False,
                                                    visible=visible))

    def target(self, k: int) -> np.ndarray:
        """(4, 4) pose of handle k in the root link frame."""
        handle = self.handles[k]
        target = np.eye(4)
        w, x, y, z = handle.wxyz
        target[:3, :3] = quaternion_to_rotation((x, y, z, w))
        target[:3, 3] = handle.position
        return target

    def solve(self, k: int, orientation: str, planner=None, free: bool = False) -> None:
        """Move the arm to handle k, or mark it out of reach; ``free``: only to a
        configuration free of collision, found by ``planner`` (None: not ready)."""
        q = hebi_positions(self.model, self.tree, self._get_values())
        if free and planner is None:
            self.state[k] = 'the collision checks are not ready yet; the arm stays'
            return
        if free:
            result = planner.solve_ik(self.target(k), q, index=k, orientation=orientation,
                                      timeout=None, max_iterations=FREE_ITERATIONS,
                                      max_attempts=FREE_ATTEMPTS)
        else:
            result = self.kinematics.solve_ik(self.target(k), q, index=k,
                                              orientation=orientation, timeout=None,
                                              max_iterations=ITERATIONS)
        if not result.success:
            self.spheres[k].color = OUT_OF_REACH
            angle = '' if orientation == 'none' else f' and {result.orientation_error:.3f} rad'
            self.state[k] = (
                f'**no configuration free of collision** found from {FREE_ATTEMPTS} starts '
                f'(the nearest: {result.position_error:.4f} m{angle} away); the arm stays'
                if free
                else f'**out of reach**: the nearest configuration found is '
                     f'{result.position_error:.4f} m{angle} away; the arm stays')
            return
        self.spheres[k].color = REACHED
        self.state[k] = f'reached ({result.position_error:.1e} m)'
        self._set_values(urdf_values(self.model, self.tree, result.positions))

    def follow(self, values: Dict[str, float], skip=frozenset()) -> None:
        """Handles (not being dragged, and not in ``skip``) to the end effectors at URDF
        joint values."""
        if not self.count:
            return
        frames = self.kinematics.frames('end_effector',
                                        hebi_positions(self.model, self.tree, values))
        for k, frame in enumerate(frames):
            if self.dragging[k] or k in skip:
                continue
            self.handles[k].position = frame[:3, 3]
            self.handles[k].wxyz = _wxyz(frame)
            if self.spheres[k].color != REACHED:
                self.spheres[k].color = REACHED
                self.state[k] = 'drag the handle'

    def status(self) -> str:
        """The panel text: each handle's end effector and state."""
        if not self.count:
            return 'the robot has no end effector'
        return '\n\n'.join(f'`{name}`: {state}' for name, state in
                           zip(self.tree.end_effector_links, self.state))

    def remove(self) -> None:
        for node in self.spheres + self.handles:
            node.remove()


def _wxyz(frame: np.ndarray) -> np.ndarray:
    """viser's (w, x, y, z) quaternion of a frame's rotation."""
    x, y, z, w = rotation_to_quaternion(frame[:3, :3])
    return np.array([w, x, y, z])
