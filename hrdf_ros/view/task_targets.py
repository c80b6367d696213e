"""A design task in ``hrdf view``: its targets drawn, and a list that poses the arm at
each target's configuration (``hrdf view design-1.hrdf --task TASK.yaml``).

In: the viser server, a :class:`~hrdf_ros.design.task.Task` (``hrdf design``'s task
file; its collision objects and floor are drawn and checked by the view's
:class:`~.collisions.CollisionView`), optionally the configurations of ``hrdf design``'s
``design-K.yaml`` (joint names and one configuration per target, rad); on each (re)load
the model, its frame tree and the sliders' ``set_values``.

Out: the scene node ``/task`` (in the view's world frame, the frame the file's FK reports
in, which is the task's mount frame for ``hrdf design``'s files, m): per target a sphere
at its position with its number beside it, and its orientation: a frame (x red, y
green, z blue) for a full pose, a blue segment along the required z axis for a tip axis,
nothing more for a position; a "Task" folder: "show targets", a "target" list (one
entry per target, in the task's order) whose choice poses the arm at that target's
configuration, and the readout of the chosen target: where the end effector is from it
by the shown robot's FK (m, and rad where an orientation is asked), the worst effort
ratio there with the task's payload (``hrdf design``'s: effort over rated effort less
the margin, and its joint), and where the configuration comes from. A click on a target's
sphere chooses it too.

The configurations are ``design-K.yaml``'s when its joint names are the file's; else
(no such file, or the file was edited to other joints) they are solved in a thread by the
design evaluator's collision-free IK (the motion extra; the task's objects, bounded by
counts), the readout saying so, and a target not reached shows the closest
configuration found, saying how far it is.
"""
from __future__ import annotations

import threading
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..kinematics.rotations import rotation_to_quaternion
from .fk_panel import urdf_values

#: Sphere radius at each target, m; a frame's axes and a tip axis's segment, m.
POINT_RADIUS, AXIS_LENGTH, AXIS_RADIUS = 0.012, 0.08, 0.003
#: Colours (0..255): the targets' spheres, and a tip axis (the z axis's blue).
POINT_COLOUR, TIP_AXIS_COLOUR = (245, 160, 20), (40, 80, 230)
#: The list's entry before a target is chosen.
NONE_CHOSEN = 'none chosen'
ROOT = '/task'


def target_label(index: int, target) -> str:
    """The list's entry of target ``index`` (0-based): its number, position and what
    orientation it asks."""
    x, y, z = target.position
    kind = {'full': 'full pose', 'tip_axis': 'tip axis', 'none': 'position'}
    return f'{index + 1}: ({x:.3f}, {y:.3f}, {z:.3f}) {kind[target.orientation]}'


def miss(target, pose: np.ndarray) -> Tuple[float, float]:
    """(m, rad) from end-effector ``pose`` (4, 4) to ``target``: the distance, and the
    angle between the z axes (tip axis), the rotations (full pose) or 0 (position); the
    angles by ``atan2`` of sine and cosine, exact near 0 where ``acos`` is not."""
    distance = float(np.linalg.norm(pose[:3, 3] - target.position))
    if target.orientation == 'tip_axis':
        a, b = pose[:3, 2], target.pose[:3, 2]
        return distance, float(np.arctan2(np.linalg.norm(np.cross(a, b)), a @ b))
    if target.orientation == 'full':
        r = target.pose[:3, :3].T @ pose[:3, :3]
        sine = 0.5 * np.linalg.norm([r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1]])
        return distance, float(np.arctan2(sine, 0.5 * (np.trace(r) - 1.0)))
    return distance, 0.0


class TaskTargets:
    """The task's targets, its folder and the list that poses the arm (module docstring).

    Args:
        server: the viser server.
        task: the checked task.
        configurations: ``(joint names, (targets, joints) rad, the file's name)`` of a
            ``design-K.yaml``
            (:func:`~hrdf_ros.design.output.read_configurations`), or None (solved by
            IK).
        order: place of the folder in the page (viser's ``order``).
    """

    def __init__(self, server, task, configurations=None, order: Optional[float] = None):
        self._server, self.task = server, task
        self._given = configurations
        self._lock = threading.Lock()
        self._generation = 0
        self._model = self._kinematics = None
        self._names: Tuple[str, ...] = ()
        self._tree = None
        self._set_values: Optional[Callable[[Dict[str, float]], None]] = None
        self.configurations: Optional[np.ndarray] = None
        self.reached: Optional[np.ndarray] = None
        self._source = ''
        self.chosen = -1
        gui = server.gui
        labels = [target_label(k, t) for k, t in enumerate(task.targets)]
        with gui.add_folder('Task', order=order):
            self._show = gui.add_checkbox('show targets', initial_value=True)
            self._list = gui.add_dropdown('target', [NONE_CHOSEN] + labels,
                                          initial_value=NONE_CHOSEN)
            self._readout = gui.add_markdown(
                f'{len(labels)} targets, payload {task.payload:g} kg: choose one to pose '
                'the arm there.')
        self._labels = labels
        self._nodes = self._draw()
        self._show.on_update(lambda _: self._visibility())
        self._list.on_update(lambda _: self._listed())

    def _draw(self) -> List:
        scene, nodes = self._server.scene, []
        for k, target in enumerate(self.task.targets):
            position = target.position
            sphere = scene.add_icosphere(f'{ROOT}/{k}/point', radius=POINT_RADIUS,
                                         color=POINT_COLOUR, position=position,
                                         cast_shadow=False, receive_shadow=False)
            sphere.on_click(lambda _, k=k: self.choose(k))
            nodes.append(sphere)
            nodes.append(scene.add_label(f'{ROOT}/{k}/number', str(k + 1),
                                         position=position + 1.5 * POINT_RADIUS))
            if target.orientation == 'full':
                x, y, z, w = rotation_to_quaternion(target.pose[:3, :3])
                nodes.append(scene.add_frame(f'{ROOT}/{k}/frame', axes_length=AXIS_LENGTH,
                                             axes_radius=AXIS_RADIUS, wxyz=(w, x, y, z),
                                             position=position))
            elif target.orientation == 'tip_axis':
                tip = position + AXIS_LENGTH * target.pose[:3, 2]
                nodes.append(scene.add_line_segments(
                    f'{ROOT}/{k}/tip_axis', np.array([[position, tip]]),
                    colors=TIP_AXIS_COLOUR, thickness=2 * AXIS_RADIUS))
        return nodes

    def _visibility(self) -> None:
        for node in self._nodes:
            node.visible = self._show.value

    def set_robot(self, model, tree, kinematics,
                  set_values: Callable[[Dict[str, float]], None]) -> None:
        """The (re)loaded robot the list poses: its frame tree (URDF joint names), its
        :class:`~hrdf_ros.kinematics.Kinematics`, the sliders' setter; its configurations
        are the file's or solved (module docstring)."""
        names = tuple(tree.dof_names)
        with self._lock:
            self._generation += 1
            generation = self._generation
            self._model, self._tree, self._kinematics = model, tree, kinematics
            self._names, self._set_values = names, set_values
            self.configurations = self.reached = None
        if self._given is not None and tuple(self._given[0]) == names:
            _, rows, source = self._given
            self._solved(generation, rows, None, f'configurations from {source}')
            return
        why = '' if self._given is None else \
            f'the joints of {self._given[2]} are not the file\'s; '
        self._readout.content = f'{why}solving the targets by collision-free IK'
        threading.Thread(target=self._solve, args=(generation, model, why),
                         name='hrdf_view_task', daemon=True).start()

    def _solve(self, generation: int, model, why: str) -> None:
        """The thread that solves each target (module docstring); never raises."""
        try:
            from ..design.evaluate import MAX_ATTEMPTS, Evaluator  # noqa: PLC0415
            evaluator = Evaluator(self.task)
            planner = evaluator.planner(model)
            rows, reached = [], []
            for k in range(len(self.task.targets)):
                if generation != self._generation:
                    return                                  # a robot since replaced
                self._readout.content = (f'{why}solving the targets by collision-free IK: '
                                         f'{k} of {len(self.task.targets)}')
                result = evaluator.solve(planner, k, MAX_ATTEMPTS)
                rows.append(result.positions)
                reached.append(bool(result.success))
        except ImportError as exc:
            self._readout.content = (f'**No configurations**: solving the targets needs '
                                     f'the motion extra ({exc})')
            return
        except (ValueError, IndexError) as exc:
            self._readout.content = f'**No configurations**: {exc}'
            return
        self._solved(generation, np.array(rows), np.array(reached),
                     f'{why}configurations by collision-free IK, '
                     f'{int(np.sum(reached))} of {len(rows)} targets reached')

    def _solved(self, generation: int, rows: np.ndarray, reached, source: str) -> None:
        with self._lock:
            if generation != self._generation:
                return
            self.configurations, self.reached, self._source = rows, reached, source
            chosen = self.chosen
        if chosen >= 0:
            self.choose(chosen)
        else:
            self._readout.content = f'{source}: choose a target to pose the arm there.'

    def _listed(self) -> None:
        value = self._list.value
        if value in self._labels:
            self.choose(self._labels.index(value))

    def choose(self, index: int) -> None:
        """Pose the arm at target ``index``'s configuration (0-based) and describe it."""
        from ..design.evaluate import effort_ratios                 # noqa: PLC0415
        from ..reach.payload import rated_efforts                  # noqa: PLC0415
        target = self.task.targets[index]
        with self._lock:
            self.chosen = index
            rows, reached, kinematics = self.configurations, self.reached, self._kinematics
            model, tree, names = self._model, self._tree, self._names
            set_values, source = self._set_values, self._source
        if self._list.value != self._labels[index]:
            self._list.value = self._labels[index]
        if rows is None or kinematics is None:
            return                                   # posed once they are solved
        q = rows[index]
        distance, angle = miss(target, kinematics.end_effector(q))
        limits = rated_efforts(model) * (1.0 - self.task.margin)
        ratio, joint = effort_ratios(kinematics, q[None], self.task.payload, limits)
        where = f'{distance:.2g} m' + ('' if target.orientation == 'none'
                                       else f' and {angle:.2g} rad')
        state = '' if reached is None or reached[index] else \
            '**not reached**: the closest configuration found; '
        self._readout.content = (
            f'**Target {self._labels[index]}**: {state}end effector {where} from it; '
            f'worst effort ratio {ratio[0]:.3f} ({names[joint[0]]}) with '
            f'{self.task.payload:g} kg; {source}')
        if set_values is not None:
            set_values(urdf_values(model, tree, q))

    def text(self) -> str:
        """The readout as shown (markdown)."""
        return self._readout.content


def task_objects(task, objects: Sequence) -> list:
    """The view's collision objects: ``objects`` (``--collision-objects``, ``--floor``)
    then the task's.

    Raises:
        ValueError: two objects of one name (the task's floor and ``--floor``).
    """
    from ..motion.objects import collision_objects  # noqa: PLC0415 - the schema's check
    merged = list(objects) + [dict(o) for o in task.collision_objects]
    collision_objects(merged)
    return merged
