"""hrdf_ros's own forward kinematics in the page: the end-effector readout and frames.

In: a model, its frame tree and URDF joint values. Out: a "Forward kinematics" folder
with toggles that draw every output, COM and end-effector frame
(:class:`hrdf_ros.Kinematics`, the reference frame = the URDF root link ``base_link``),
the pose of each end effector (x y z in m, roll pitch yaw in rad as URDF composes them,
R = Rz(yaw) Ry(pitch) Rx(roll); 9 decimals, as ``hrdf fk`` prints), and the ``hrdf fk``
command that prints the same frame.

URDF joint values become HEBI positions by the joint's ``gear_ratio`` (1 for actuators:
:mod:`hrdf_ros.export.urdf`), so the readout is ``hrdf fk --positions`` of the positions
shown (written with Python's ``repr``: exact).
"""
from __future__ import annotations

import shlex
from typing import Dict, List, Optional

import numpy as np

from ..numbers import table_number
from ..kinematics import Kinematics
from ..kinematics.rotations import rotation_to_quaternion, rotation_to_rpy

#: Toggles: label -> frame type; axes length per type, m.
FRAME_TOGGLES = {'output frames': 'output', 'COM frames': 'com',
                 'end-effector frames': 'end_effector'}
AXES_LENGTH = {'output': 0.05, 'com': 0.03, 'end_effector': 0.08}


def hebi_positions(model, tree, values: Dict[str, float]) -> np.ndarray:
    """(dof,) HEBI positions (rad, m) of URDF joint values by name (missing: 0)."""
    return np.array([float(values.get(name, 0.0)) * model.elements[e].gear_ratio
                     for name, e in zip(tree.dof_names, model.dof_elements)])


def urdf_values(model, tree, positions) -> Dict[str, float]:
    """URDF joint values by name (rad, m) of (dof,) HEBI positions: each divided by its
    joint's ``gear_ratio`` (the inverse of :func:`hebi_positions`)."""
    return {name: float(q) / model.elements[e].gear_ratio
            for name, e, q in zip(tree.dof_names, model.dof_elements, positions)}


def pose_text(frame: np.ndarray) -> List[str]:
    """Three lines ``x <m>  roll <rad>``, ``y .. pitch ..``, ``z .. yaw ..`` of a (4, 4)
    frame, 9 decimals."""
    rpy = rotation_to_rpy(frame[:3, :3])
    return [f'{axis} {table_number(frame[k, 3])} m   {angle:<5} {table_number(rpy[k])} rad'
            for k, (axis, angle) in enumerate(zip('xyz', ('roll', 'pitch', 'yaw')))]


def fk_command(path: str, q: np.ndarray) -> str:
    """The ``hrdf fk`` command line printing the first end effector at ``q``."""
    command = f'hrdf fk {shlex.quote(path)}'
    if len(q):
        command += ' --positions "' + ' '.join(repr(float(v)) for v in q) + '"'
    return command


class FkPanel:
    """The "Forward kinematics" folder (see the module docstring).

    Args:
        server: the viser server.
        root: scene node to draw frames under (the robot's root link).
        order: place of the folder in the page (viser's ``order``).
    """

    def __init__(self, server, root: str = '/frames', order: Optional[float] = None):
        self._scene = server.scene
        self._root = root
        self._axes = {}
        self._model = self._tree = self._kinematics = None
        self._path = ''
        self._values: Dict[str, float] = {}
        gui = server.gui
        self._folder = gui.add_folder('Forward kinematics (hrdf_ros)', order=order)
        with self._folder:
            self._toggles = {}
            for label, frame_type in FRAME_TOGGLES.items():
                toggle = gui.add_checkbox(label, initial_value=False,
                                          hint=f'every {frame_type} frame of the HRDF')
                toggle.on_update(lambda _event: self._draw_frames())
                self._toggles[frame_type] = toggle
            self._readout = gui.add_markdown('')

    def set_model(self, model, tree, path: str, kinematics: Optional[Kinematics] = None
                  ) -> None:
        """Use a (re)loaded model (and its kinematics, made here if not given) from now
        on."""
        self._model, self._tree, self._path = model, tree, path
        self._kinematics = kinematics or Kinematics(model)

    def update(self, values: Dict[str, float]) -> None:
        """Recompute the readout and the drawn frames for URDF joint values."""
        self._values = dict(values)
        q = hebi_positions(self._model, self._tree, self._values)
        effectors = self._kinematics.frames('end_effector', q)
        lines: List[str] = []
        for k, frame in enumerate(effectors):
            name = self._tree.end_effector_links[k]
            lines += [f'{name} in {self._tree.links[0]}'] + pose_text(frame)
        if not len(effectors):
            lines.append('the robot has no end effector')
        self._readout.content = ('**End effector** (hrdf_ros FK)\n```\n' + '\n'.join(lines)
                                 + '\n```\n**Same frame from the command line**\n```\n'
                                 + fk_command(self._path, q) + '\n```')
        self._draw_frames(q)

    def _draw_frames(self, q: Optional[np.ndarray] = None) -> None:
        if self._kinematics is None:
            return
        if q is None:
            q = hebi_positions(self._model, self._tree, self._values)
        for frame_type, toggle in self._toggles.items():
            frames = self._kinematics.frames(frame_type, q) if toggle.value else []
            if not len(frames):
                old = self._axes.pop(frame_type, None)
                if old is not None:
                    old.remove()
                continue
            quaternions = rotation_to_quaternion(frames[:, :3, :3])      # x y z w
            wxyz = np.concatenate([quaternions[:, 3:], quaternions[:, :3]], axis=1)
            length = AXES_LENGTH[frame_type]
            # a node added under an existing name replaces it
            self._axes[frame_type] = self._scene.add_batched_axes(
                f'{self._root}/{frame_type}', batched_wxyzs=wxyz,
                batched_positions=frames[:, :3, 3], axes_length=length,
                axes_radius=length / 20)

    def text(self) -> str:
        """The readout as shown in the page (markdown)."""
        return self._readout.content
