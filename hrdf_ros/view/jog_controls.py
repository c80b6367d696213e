"""The controls of a "Jog" folder: buttons, speeds, hotkeys and the servo's status line,
for ``hrdf view`` (:mod:`.jog_panel`, the drawn arm) and ``hrdf_ros_web_view``
(:mod:`hrdf_ros.ros.web_jog`, an arm through hrdf_ros_node's servo).

In: the viser server and three callbacks. Out: a twist along or about one axis of the
base or the end effector's frame at the folder's speed (``twist((6,) linear m/s then
angular rad/s, frame 'base' or 'end_effector')``), a joint jog (``jog(joint index, sign)``),
a stop, from buttons, from hotkeys (:data:`KEYS`; 1-9 a joint, Shift the other way) and
from a gamepad (:mod:`.gamepad`: the sticks a twist, at the fraction of the folder's speed
they are pushed; button 0 a stop); and :meth:`JogControls.show`, the status line, red
when the servo halts
(HALT_FOR_COLLISION, HALT_FOR_SINGULARITY) or refuses (INVALID).

Each press is a nudge: the receiving side lets it count :data:`NUDGE` s, so a held key
(the browser repeats it) moves the arm steadily and a released one brings it to rest.
"""
from __future__ import annotations

import html
from typing import Callable, Optional, Sequence

import numpy as np

from ..servo import StatusCode
from . import gamepad

#: s a press counts.
NUDGE = 0.25
#: Hotkeys: key -> (twist axis 0..5: x y z rx ry rz, sign).
KEYS = {'W': (0, 1), 'S': (0, -1), 'A': (1, 1), 'D': (1, -1), 'R': (2, 1), 'F': (2, -1),
        'Q': (5, 1), 'E': (5, -1)}
AXES = ('x', 'y', 'z', 'rx', 'ry', 'rz')
#: The twist speeds offered (dropdowns, not sliders: the page's sliders are its joints).
SPEEDS = ('0.02', '0.05', '0.1', '0.2')
TURNS = ('0.1', '0.3', '1.0')
#: Joints with a key (1..9; with Shift: the other way).
JOINT_KEYS = 9
#: Statuses shown red: the servo stopped the arm, or refused the command.
RED = (StatusCode.HALT_FOR_COLLISION, StatusCode.HALT_FOR_SINGULARITY, StatusCode.INVALID)


def status_html(status: StatusCode, message: str) -> str:
    """The status line: its name and message, red when the servo halted or refused."""
    colour = '#d00000' if status in RED else '#2a7a2a'
    return (f'<div style="color:{colour}" data-servo-status="{status.name}">'
            f'<b>{status.name}</b> ({int(status)}): {html.escape(message)}</div>')


class JogControls:
    """The folder's controls (module docstring).

    Args:
        server: the viser server.
        twist: called with the (6,) twist and its frame for a press.
        jog: called with the joint's index (in :meth:`set_joints`' order) and +1 or -1.
        stop: called for the stop button.
        order: place of the folder in the page.
        joint_speeds: rad/s offered for a joint jog (a dropdown; the value is
            :attr:`joint_speed`); None: no such dropdown.
        note: a line of markdown under the keys' help.
    """

    def __init__(self, server, twist: Callable[[np.ndarray, str], None],
                 jog: Callable[[int, int], None], stop: Callable[[], None],
                 order: Optional[float] = None,
                 joint_speeds: Optional[Sequence[str]] = None, note: str = ''):
        self._twist, self._jog = twist, jog
        gui = server.gui
        with gui.add_folder('Jog', order=order, expand_by_default=False):
            self._frame = gui.add_dropdown('twist frame', ('base', 'end_effector'),
                                           initial_value='base',
                                           hint='the axes of the twist: the base link\'s '
                                                'or the end effector\'s own')
            self._speed = gui.add_dropdown('speed (m/s)', SPEEDS, initial_value='0.05')
            self._turn = gui.add_dropdown('turn (rad/s)', TURNS, initial_value='0.3')
            for axis, name in enumerate(AXES):
                buttons = gui.add_button_group(name, ('-', '+'))
                buttons.on_click(lambda event, a=axis: self.press(
                    a, 1 if event.target.value == '+' else -1))
            self._joint = gui.add_dropdown('joint', ('',), initial_value='')
            self._joint_speed = None
            if joint_speeds:
                self._joint_speed = gui.add_dropdown('joint speed (rad/s)',
                                                     tuple(joint_speeds),
                                                     initial_value=joint_speeds[0])
            joint_buttons = gui.add_button_group('jog joint', ('-', '+'))
            joint_buttons.on_click(lambda event: self._jog_choice(
                1 if event.target.value == '+' else -1))
            gui.add_button('stop').on_click(lambda _event: stop())
            self._stop = stop
            self._pad = gui.add_text(gamepad.FIELD, initial_value='no gamepad',
                                     hint='what a gamepad asks (left stick x/y, right '
                                          'stick z and the turn about z, button 0 stops); '
                                          'written by the page')
            self._pad.on_update(lambda _event: self.gamepad(self._pad.value))
            gui.add_html(gamepad.frame_html())
            self._status = gui.add_html(status_html(StatusCode.NO_WARNING, 'at rest'))
            gui.add_markdown('Keys: W/S x, A/D y, R/F z, Q/E about z; 1-9 a joint +, with '
                             f'Shift -. Each press counts {NUDGE:g} s: hold a key to keep '
                             'moving. A gamepad: left stick x/y, right stick z and about '
                             'z, button 0 stops.' + (f' {note}' if note else ''))
        for key, (axis, sign) in KEYS.items():
            command = gui.add_command(f'jog {"+" if sign > 0 else "-"}{AXES[axis]}',
                                      hotkey=key)
            command.on_trigger(lambda _event, a=axis, s=sign: self.press(a, s))
        for k in range(JOINT_KEYS):
            for sign, modifier in ((1, None), (-1, 'shift')):
                command = gui.add_command(f'jog joint {k + 1} {"+" if sign > 0 else "-"}',
                                          hotkey=str(k + 1), modifier=modifier)
                command.on_trigger(lambda _event, k=k, s=sign: self._jog(k, s))

    def set_joints(self, names: Sequence[str]) -> None:
        """The joints the dropdown offers ("1: J1": a joint's bare name is its slider's
        label)."""
        self._joint.options = tuple(f'{k + 1}: {name}' for k, name in enumerate(names)) \
            or ('',)
        self._joint.value = self._joint.options[0]

    @property
    def frame(self) -> str:
        """'base' or 'end_effector'."""
        return self._frame.value

    @property
    def joint_speed(self) -> float:
        """rad/s of a joint jog (the dropdown's; 0 without it)."""
        return float(self._joint_speed.value) if self._joint_speed is not None else 0.0

    def press(self, axis: int, sign: int) -> None:
        """A twist along (axes 0-2, m/s) or about (3-5, rad/s) one axis of the twist
        frame, at the folder's speed."""
        vector = np.zeros(6)
        vector[axis] = sign * float(self._speed.value if axis < 3 else self._turn.value)
        self._twist(vector, self._frame.value)

    def gamepad(self, line: str) -> None:
        """Act on a line of the ``gamepad`` field (:func:`.gamepad.parse`): a twist at
        the stick's fraction of the folder's speed and turn, in the twist frame, or a
        stop."""
        asked = gamepad.parse(line)
        if asked is None:
            return
        kind, fractions = asked
        if kind == 'stop':
            self._stop()
            return
        scale = np.array([float(self._speed.value)] * 3 + [float(self._turn.value)] * 3)
        self._twist(fractions * scale, self._frame.value)

    def _jog_choice(self, sign: int) -> None:
        choice = self._joint.value
        if choice:
            self._jog(int(choice.split(':')[0]) - 1, sign)

    def show(self, status: StatusCode, message: str) -> None:
        """The status line (:func:`status_html`)."""
        self._status.content = status_html(status, message)
