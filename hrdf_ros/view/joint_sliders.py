"""One slider per movable URDF joint, with "zero" and "random" buttons.

In: the joints (:class:`~.robot_scene.MovableJoint`: name, range) and a callback. Out: a
"Joints" folder in the page; the callback gets ``{joint name: value}`` (rad, or m for
prismatic joints) once per change, from a slider moved in the browser or a button.

Sliders are labelled with the URDF joint name and span the joint's range; a value kept
from before a reload is clamped into it. "random" draws each joint uniformly in its
range (numpy's default generator, seeded per view so a session repeats itself).
"""
from __future__ import annotations

import threading
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

#: Slider resolution, rad (m for prismatic joints).
STEP = 1e-3


class JointSliders:
    """The "Joints" folder (see the module docstring).

    Args:
        gui: ``server.gui`` of a viser server.
        joints: the sliders' joints, in page order.
        on_change: called with every joint's value after each change.
        values: start values by joint name (default 0, clamped into each range).
        seed: seed of the "random" button's generator.
        order: place of the folder in the page (viser's ``order``).
    """

    def __init__(self, gui, joints: Sequence, on_change: Callable[[Dict[str, float]], None],
                 values: Optional[Dict[str, float]] = None, seed: int = 0,
                 order: Optional[float] = None):
        self.joints = list(joints)
        self._on_change = on_change
        self._lock = threading.RLock()
        self._quiet = False
        self._random = np.random.default_rng(seed)
        values = values or {}
        self._folder = gui.add_folder('Joints', order=order)
        self._sliders = {}
        with self._folder:
            for joint in self.joints:
                start = float(np.clip(values.get(joint.name, 0.0), joint.lower, joint.upper))
                slider = gui.add_slider(joint.name, min=joint.lower, max=joint.upper,
                                        step=STEP, initial_value=start,
                                        hint=f'{joint.kind} joint {joint.name} '
                                             f'({"m" if joint.kind == "prismatic" else "rad"})')
                slider.on_update(self._changed)
                self._sliders[joint.name] = slider
            buttons = gui.add_button_group('Set all', ('zero', 'random'))
            buttons.on_click(self._clicked)
        self._buttons = buttons

    def values(self) -> Dict[str, float]:
        """Every slider's value by joint name (rad or m)."""
        return {name: float(slider.value) for name, slider in self._sliders.items()}

    def set_values(self, values: Dict[str, float]) -> None:
        """Move the named sliders (clamped into range), then report once."""
        with self._lock:
            self._quiet = True
            try:
                for joint in self.joints:
                    if joint.name in values:
                        self._sliders[joint.name].value = float(
                            np.clip(values[joint.name], joint.lower, joint.upper))
            finally:
                self._quiet = False
            self._on_change(self.values())

    def _changed(self, _event) -> None:
        with self._lock:
            if not self._quiet:
                self._on_change(self.values())

    def _clicked(self, event) -> None:
        if event.target.value == 'zero':
            self.set_values({j.name: 0.0 for j in self.joints})
        else:
            self.set_values({j.name: float(self._random.uniform(j.lower, j.upper))
                             for j in self.joints})

    def remove(self) -> None:
        """Take the folder (sliders and buttons) out of the page."""
        self._folder.remove()

    @property
    def names(self) -> List[str]:
        """Joint names in page order."""
        return [j.name for j in self.joints]
