"""The "Jog" folder of ``hrdf view``: steer the drawn arm live with the servo
(:class:`hrdf_ros.servo.ServoCore`), from the buttons and keys of :mod:`.jog_controls`.

In: the page's planner (:class:`hrdf_ros.MotionPlanner`, once ready: its scene and
limits are the servo's), the model and its frame tree, the sliders' getter and setter
of URDF joint values. Out: buttons for a twist of the end effector along and about each
axis of the base or the end effector's frame, a joint jog per joint, hotkeys
(:data:`~.jog_controls.KEYS`; 1-9 a joint, Shift the other way), and the servo's
status, red when it halts (HALT_FOR_COLLISION, HALT_FOR_SINGULARITY) or refuses
(INVALID). The sliders follow the servo's positions.

Each press is a nudge: the command counts for :data:`~.jog_controls.NUDGE` s (the servo's
``incoming_command_timeout``), so a held key (the browser repeats it) moves the arm
steadily and a released one brings it to rest within its acceleration limits. The servo
steps at its 1 kHz in a thread of its own (``hrdf_view_jog``), :data:`FRAME_RATE` times a
second a batch of steps, and starts from the sliders whenever they moved since it last
drove them (a slider, a handle, a reload).
"""
from __future__ import annotations

import threading
from typing import Callable, Dict, Optional

import numpy as np

from ..servo import JointJog, ServoCore, ServoParameters, StatusCode, Twist
from .fk_panel import hebi_positions, urdf_values
from .jog_controls import NUDGE, JogControls

#: Batches of servo steps a second (the sliders' update rate).
FRAME_RATE = 30.0
#: Share of a joint's velocity limit a joint jog moves it at.
JOG_SHARE = 0.2


class JogPanel:
    """The "Jog" folder (module docstring).

    Args:
        server: the viser server.
        planner: gives the page's planner, or None while it is built.
        order: place of the folder in the page.
    """

    def __init__(self, server, planner: Callable[[], Optional[object]],
                 order: Optional[float] = None):
        self._server, self._planner = server, planner
        self._lock = threading.RLock()
        self._core: Optional[ServoCore] = None
        self._core_for = None
        self._model = self._tree = None
        self._get: Callable[[], Dict[str, float]] = dict
        self._set: Callable[[Dict[str, float]], None] = lambda values: None
        self._driven: Optional[Dict[str, float]] = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self.controls = JogControls(
            server, lambda vector, frame: self._send(Twist(vector[:3], vector[3:], frame)),
            self._jog_index, self.stop, order=order)

    # -- the robot ---------------------------------------------------------------------

    def set_robot(self, model, tree, get_values, set_values) -> None:
        """Jog this robot (a new one stops the servo and drops its state)."""
        with self._lock:
            self._model, self._tree = model, tree
            self._get, self._set = get_values, set_values
            self._core, self._core_for, self._driven = None, None, None
            self.controls.set_joints(tree.dof_names)

    # -- commands ----------------------------------------------------------------------

    def twist(self, axis: int, sign: int) -> None:
        """A nudge of the end effector along (axes 0-2, m/s) or about (3-5, rad/s) one
        axis of the twist frame, at the panel's speed."""
        self.controls.press(axis, sign)

    def jog(self, joint: str, sign: int) -> None:
        """A nudge of one joint at :data:`JOG_SHARE` of its velocity limit."""
        with self._lock:
            if self._tree is None or joint not in self._tree.dof_names:
                return
            k = self._tree.dof_names.index(joint)
        core = self._ready()
        if core is None:
            return
        velocities = np.zeros(core.dof)
        velocities[k] = sign * JOG_SHARE * float(core.setup.velocity_limits[k])
        self._send(JointJog(velocities))

    def _jog_index(self, k: int, sign: int) -> None:
        with self._lock:
            names = list(self._tree.dof_names) if self._tree is not None else []
        if k < len(names):
            self.jog(names[k], sign)

    def stop(self) -> None:
        """Drop the command: the arm comes to rest."""
        with self._lock:
            if self._core is not None:
                self._core.stop()

    def _ready(self) -> Optional[ServoCore]:
        """The servo for the running robot and planner (built at the first command), or
        None (and the status says why) while the planner is built."""
        planner = self._planner()
        with self._lock:
            if planner is None or self._model is None:
                self.controls.show(StatusCode.INVALID,
                                   'the collision checks are not ready yet')
                return None
            if self._core is None or self._core_for is not planner:
                start = np.clip(hebi_positions(self._model, self._tree, self._get()),
                                planner.position_limits[:, 0], planner.position_limits[:, 1])
                self._core = ServoCore(planner, ServoParameters(incoming_command_timeout=NUDGE),
                                       positions=start)
                self._core_for, self._driven = planner, None
            return self._core

    def _send(self, command) -> None:
        core = self._ready()
        if core is None:
            return
        with self._lock:
            values = self._get()
            if self._driven is not None and values != self._driven and core.at_rest:
                core.reset(core.clip(hebi_positions(self._model, self._tree, values)))
            core.command(command)
            if self._thread is None or not self._thread.is_alive():
                self._stop.clear()
                self._thread = threading.Thread(target=self._run, name='hrdf_view_jog',
                                                daemon=True)
                self._thread.start()
        self._wake.set()

    # -- the servo's thread ------------------------------------------------------------

    def _run(self) -> None:
        steps = max(1, int(round(1.0 / (FRAME_RATE * ServoParameters().publish_period))))
        while not self._stop.is_set():
            with self._lock:
                core = self._core
                if core is None:
                    return
                output = None
                for _ in range(steps):
                    output = core.step()
                values = urdf_values(self._model, self._tree, output.positions)
                self._driven = values
                at_rest = core.at_rest
            self._set(values)
            self.controls.show(output.status, output.message)
            if at_rest:
                self._wake.clear()
                self._wake.wait(1.0)
                with self._lock:
                    if self._core is None or self._core.at_rest:
                        return
                continue
            self._stop.wait(1.0 / FRAME_RATE)

    def remove(self) -> None:
        """Stop the servo's thread."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
