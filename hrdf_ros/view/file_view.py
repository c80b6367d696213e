"""``hrdf view``'s page: an HRDF file drawn from the URDF hrdf_ros generates, posed by
sliders, redrawn when the file changes.

In: a viser server, an HRDF path and the export options. Out: the page: the robot
(:class:`~.robot_scene.RobotScene` of ``to_urdf``'s URDF, in its HEBI colours), one
slider per movable joint (:class:`~.joint_sliders.JointSliders`), a drag handle on each
end effector that the arm follows by inverse kinematics
(:class:`~.ik_handles.IkHandles`), a jog panel that steers it live with the servo
(:class:`~.jog_panel.JogPanel`), the links in collision in magenta and the collision
objects (:class:`~.collisions.CollisionView`), a reach map's points
(:class:`~.reach_points.ReachPoints`, ``--reach`` or computed on a button), a design
task's targets and the list that poses the arm at each
(:class:`~.task_targets.TaskTargets`, ``--task``), the
end-effector readout and frame toggles
(:class:`~.fk_panel.FkPanel`), the file's warnings and mesh notes, and the located errors
of an invalid edit.

Live reload: :meth:`FileView.poll` (called by the program's main loop) looks at the file,
its included files, the ``--limits`` file and local meshes; after a change, a valid file
replaces the robot (joints that keep their name keep their value), an invalid one shows
its errors (``file:line:col: error: ...``) above the last valid robot, which stays. A
reload never raises.
"""
from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

import numpy as np

from ..description.frame_tree import build_frame_tree
from ..parts.geometry import is_web_url
from ..description.limits import read_limits
from ..export.urdf import to_urdf
from ..hrdf.diagnostics import HrdfError
from ..hrdf.reader import load
from ..kinematics import Kinematics
from .collisions import CollisionView
from .fk_panel import FkPanel, urdf_values
from .ik_handles import IkHandles
from .jog_panel import JogPanel
from .joint_sliders import JointSliders
from .reach_points import ReachPoints
from .robot_scene import RobotScene, UrdfError
from .task_targets import TaskTargets
from .server import frame_camera
from .watch import FileWatcher

#: Order of the page's sections (viser orders GUI elements by this number).
ORDER_ERRORS, ORDER_TASK, ORDER_JOINTS, ORDER_IK, ORDER_JOG, ORDER_COLLISIONS, ORDER_REACH, \
    ORDER_SHOW, ORDER_FK, ORDER_NOTES = 0.0, 0.5, 1.0, 1.25, 1.27, 1.3, 1.4, 1.5, 2.0, 3.0


@dataclass
class ViewOptions:
    """How the HRDF becomes the drawn URDF (the meaning of ``hrdf urdf``'s options).

    Attributes:
        strict: spec deviations hebi-py accepts are errors.
        joint_prefix: prefix of generated joint names.
        limits: path of a joint-limits YAML file (slider ranges), or ``None``.
        mesh_dir, meshes: where HEBI's meshes come from
            (:func:`hrdf_ros.parts.mesh_sources.mesh_source`; nothing is downloaded).
        name: URDF robot name (default: the file name).
        gripper_joints: parallel grippers with their finger joint (a slider).
        collision_objects: objects drawn and checked (the schema of
            :mod:`hrdf_ros.motion.objects`).
        reach: a :class:`~hrdf_ros.reach.result.ReachMap` to draw
            (:class:`~.reach_points.ReachPoints`), or ``None`` (its button computes
            one).
        task: a design task (:class:`~hrdf_ros.design.task.Task`) whose targets are
            drawn (:class:`~.task_targets.TaskTargets`; its objects belong in
            ``collision_objects``), or ``None``.
        configurations: ``design-K.yaml``'s joint names, configurations and file name
            for ``task`` (:class:`~.task_targets.TaskTargets`), or ``None`` (solved).
    """

    strict: bool = False
    joint_prefix: str = 'J'
    limits: Optional[str] = None
    mesh_dir: Optional[str] = None
    meshes: str = 'auto'
    name: Optional[str] = None
    gripper_joints: bool = True
    collision_objects: Sequence = ()
    reach: Optional[object] = None
    task: Optional[object] = None
    configurations: Optional[tuple] = None


class LoadFailed(Exception):
    """The file (or an option) cannot become a robot: ``lines`` are the located errors."""

    def __init__(self, lines: List[str], paths: List[str]):
        super().__init__('\n'.join(lines))
        self.lines, self.paths = lines, paths


class FileView:
    """The page of one HRDF file (see the module docstring).

    Args:
        server: a started viser server (:func:`~.server.start_server`).
        path: the HRDF file.
        options: export options.
        positions: start positions, HEBI order (rad, m), or ``None`` for zeros.

    Raises:
        LoadFailed: the file is invalid at start (nothing is drawn).
    """

    def __init__(self, server, path: str, options: ViewOptions,
                 positions: Optional[np.ndarray] = None):
        self.server, self.path, self.options = server, path, options
        self._lock = threading.RLock()
        self._generation = 0
        self.scene: Optional[RobotScene] = None
        self.sliders: Optional[JointSliders] = None
        self.model = self.tree = None
        self.errors: List[str] = []
        gui = server.gui
        self._errors = gui.add_markdown('', order=ORDER_ERRORS, visible=False)
        self.collisions = CollisionView(server, options.collision_objects,
                                        order=ORDER_COLLISIONS)
        self.handles = IkHandles(server, order=ORDER_IK,
                                 planner=lambda: self.collisions.planner)
        self.jog = JogPanel(server, planner=lambda: self.collisions.planner,
                            order=ORDER_JOG)
        with gui.add_folder('Show', order=ORDER_SHOW):
            self._show_robot = gui.add_checkbox('robot', initial_value=True,
                                                hint='the URDF\'s visual shapes')
            self._show_handles = gui.add_checkbox(
                'handles', initial_value=True,
                hint='the handles that move the end effectors (inverse kinematics)')
        self._show_robot.on_update(self._robot_toggled)
        self._show_handles.on_update(self._handles_toggled)
        self.reach = ReachPoints(server, options.reach, order=ORDER_REACH,
                                 objects=self.collisions.objects)
        self.task = None if options.task is None else TaskTargets(
            server, options.task, options.configurations, order=ORDER_TASK)
        self.fk = FkPanel(server, order=ORDER_FK)
        self._notes = gui.add_markdown('', order=ORDER_NOTES, visible=False)
        self.watcher = FileWatcher([path])
        model, tree, limits, scene = self._build()
        values = {}
        if positions is not None:
            values = urdf_values(model, tree, positions)
        self._switch(model, tree, limits, scene, values)
        frame_camera(server, scene.bounds())

    # -- loading -----------------------------------------------------------------------

    def _build(self):
        """(model, tree, URDF joint limits, scene) of the file as it is now.

        Raises:
            LoadFailed: with the located errors and the files they are in.
        """
        options = self.options
        try:
            model = load(self.path, strict=options.strict)
        except HrdfError as exc:
            errors = [d for d in exc.diagnostics if d.severity == 'error']
            raise LoadFailed([str(d) for d in errors],
                             [d.path for d in errors if os.path.isfile(d.path)]) from None
        try:
            limits = read_limits(options.limits) if options.limits else None
            tree = build_frame_tree(model, joint_prefix=options.joint_prefix,
                                    gripper_joints=options.gripper_joints)
            name = options.name or os.path.splitext(os.path.basename(self.path))[0]
            urdf = to_urdf(model, name, tree=tree, position_limits=limits,
                           mesh_dir=options.mesh_dir, meshes=options.meshes)
        except (ValueError, OSError) as exc:
            raise LoadFailed([f'hrdf view: error: {exc}'], []) from None
        self._generation += 1
        try:
            scene = RobotScene(self.server.scene, urdf, root=f'/robot{self._generation}',
                               base_directory=os.path.dirname(os.path.abspath(self.path)))
        except UrdfError as exc:
            raise LoadFailed([f'hrdf view: error: {exc}'], []) from None
        return model, tree, limits, scene

    def _watched(self, model) -> List[str]:
        paths = {self.path} | {e.path for e in model.elements if e.path}
        paths |= {e.mesh_file for e in model.elements
                  if e.mesh_file and not is_web_url(e.mesh_file)}
        if self.options.limits:
            paths.add(self.options.limits)
        return sorted(paths)

    def _switch(self, model, tree, limits, scene: RobotScene,
                values: Dict[str, float]) -> None:
        """Make a built robot the drawn one (the previous one goes)."""
        with self._lock:
            old_scene, old_sliders = self.scene, self.sliders
            self.model, self.tree, self.scene = model, tree, scene
            kinematics = Kinematics(model)
            self.fk.set_model(model, tree, self.path, kinematics)
            generation = self._generation
            self.sliders = JointSliders(
                self.server.gui, scene.joints, values=values, order=ORDER_JOINTS,
                on_change=lambda v: self._on_values(v, generation))
            if old_sliders is not None:
                old_sliders.remove()
            self.handles.set_robot(model, tree, kinematics, self.sliders.values,
                                   self.sliders.set_values)
            self.jog.set_robot(model, tree, self.sliders.values, self.sliders.set_values)
            self.collisions.set_robot(model, tree, limits, scene)
            self.reach.set_robot(model, tree, self.sliders.set_values)
            if self.task is not None:
                self.task.set_robot(model, tree, kinematics, self.sliders.set_values)
            self._show(self.sliders.values())
            scene.visible = self._show_robot.value
            if old_scene is not None:
                old_scene.remove()
            notes = [str(w) for w in model.warnings] + scene.notes
            self._notes.content = ('**Notes**\n```\n' + '\n'.join(notes) + '\n```'
                                   if notes else '')
            self._notes.visible = bool(notes)
            self.errors = []
            self._errors.visible = False
            self.watcher.watch(self._watched(model))

    def _robot_toggled(self, _event) -> None:
        with self._lock:
            if self.scene is not None:
                self.scene.visible = self._show_robot.value

    def _handles_toggled(self, _event) -> None:
        self.handles.visible = self._show_handles.value

    def _on_values(self, values: Dict[str, float], generation: int) -> None:
        with self._lock:
            if generation == self._generation and self.scene is not None:
                self._show(values)

    def _show(self, values: Dict[str, float]) -> None:
        with self.server.atomic():
            self.scene.set_link_poses(self.scene.link_poses(values))
            self.fk.update(values)
            self.handles.follow(values)
            self.collisions.update(values)

    # -- live reload -------------------------------------------------------------------

    def poll(self) -> bool:
        """Reload when a watched file changed; True when something was redrawn."""
        if not self.watcher.changed():
            return False
        return self.reload()

    def reload(self) -> bool:
        """Rebuild from the file: the robot on success, else the errors (kept robot)."""
        with self._lock:
            try:
                model, tree, limits, scene = self._build()
            except LoadFailed as exc:
                self._fail(exc)
                return True
            kept = self.sliders.values() if self.sliders is not None else {}
            self._switch(model, tree, limits, scene, kept)
        print(f'hrdf view: {self.path} reloaded', file=sys.stderr)
        return True

    def _fail(self, exc: LoadFailed) -> None:
        self.errors = list(exc.lines)
        self._errors.content = ('**The file has errors; the last valid robot stays**\n'
                                '```\n' + '\n'.join(exc.lines) + '\n```')
        self._errors.visible = True
        self.watcher.add(exc.paths)
        for line in exc.lines:
            print(line, file=sys.stderr)

    def values(self) -> Dict[str, float]:
        """The sliders' URDF joint values by name."""
        with self._lock:
            return self.sliders.values() if self.sliders is not None else {}
