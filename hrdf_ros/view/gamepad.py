"""A gamepad for the "Jog" folder, through the browser's Gamepad API.

viser runs no script of the page's own, so the folder holds a hidden ``<iframe srcdoc>``
(:func:`frame_html`, in an HTML element whose content never changes: a new content would
load the frame again). The frame has the page's origin; its script polls the page's
``navigator.getGamepads()`` every :data:`PERIOD_MS` ms and writes what the first
connected pad (W3C "standard" mapping) asks into the folder's ``gamepad`` text field,
which viser sends to Python like any edit; :func:`parse` reads it back.

Mapping (:data:`STICKS`; a stick inside :data:`DEADZONE` counts 0): left stick up and down
is +x and -x, left and right is +y and -y; right stick up and down is +z and -z, left and
right is a turn about +z and -z, each at the fraction of the folder's speed the stick is
pushed; button 0 (A, cross) stops. While a stick is pushed the field is written every
period (each write is a nudge of :data:`~.jog_controls.NUDGE` s, longer than the period),
once more with zeros when it is let go. A written line reads
``x=-0.50 y=0.00 z=0.00 rz=0.00 #17`` (the counter makes each one new), ``stop #18`` or
``no gamepad``.
"""
from __future__ import annotations

import html
import math
import re
from typing import Optional, Tuple

import numpy as np

#: Label of the text field the frame writes.
FIELD = 'gamepad'
#: ms between two polls of the pads.
PERIOD_MS = 100
#: A stick pushed less than this (of its full travel) counts 0.
DEADZONE = 0.15
#: Twist component -> (the standard mapping's axis, sign): axes 0/1 the left stick's
#: x (right +) and y (down +), 2/3 the right stick's.
STICKS = (('x', 1, -1), ('y', 0, -1), ('z', 3, -1), ('rz', 2, -1))
#: The twist axis (0..5: x y z rx ry rz) of each component.
TWIST_AXIS = {'x': 0, 'y': 1, 'z': 2, 'rz': 5}
_PAIR = re.compile(r'\b(x|y|z|rz)=(-?\d+(?:\.\d+)?)\b')

_SCRIPT = """(function () {
  var page = window.parent, seq = 0, moving = false, shown = '';
  var sticks = %(sticks)s, dead = %(dead)s;
  function field() {
    var labels = page.document.querySelectorAll('label');
    for (var k = 0; k < labels.length; k++) {
      if (labels[k].textContent.trim() !== '%(field)s') continue;
      for (var e = labels[k]; e; e = e.parentElement) {
        var input = e.querySelector('input');
        if (input) return input;
      }
    }
    return null;
  }
  function send(text) {
    var input = field();
    if (!input) return;
    var setter = Object.getOwnPropertyDescriptor(page.HTMLInputElement.prototype, 'value').set;
    setter.call(input, text);
    input.dispatchEvent(new page.Event('input', {bubbles: true}));
    shown = text;
  }
  setInterval(function () {
    var pads = page.navigator.getGamepads ? page.navigator.getGamepads() : [], pad = null;
    for (var k = 0; k < pads.length && !pad; k++) if (pads[k] && pads[k].connected) pad = pads[k];
    if (!pad) {
      if (shown !== 'no gamepad') send('no gamepad');
      moving = false;
      return;
    }
    if (pad.buttons.length && pad.buttons[0].pressed) {
      if (shown.indexOf('stop') !== 0) send('stop #' + (++seq));
      moving = false;
      return;
    }
    var words = [], any = false;
    for (var j = 0; j < sticks.length; j++) {
      var v = sticks[j][2] * (pad.axes[sticks[j][1]] || 0);
      if (!(Math.abs(v) >= dead)) v = 0;
      v = Math.max(-1, Math.min(1, v));
      any = any || v !== 0;
      words.push(sticks[j][0] + '=' + v.toFixed(2));
    }
    if (any || moving) send(words.join(' ') + ' #' + (++seq));
    moving = any;
  }, %(period)d);
})();"""


def frame_html() -> str:
    """The hidden frame whose script reads the pads (module docstring)."""
    sticks = '[' + ', '.join(f"['{n}', {a}, {s}]" for n, a, s in STICKS) + ']'
    script = _SCRIPT % {'sticks': sticks, 'dead': repr(DEADZONE), 'field': FIELD,
                        'period': PERIOD_MS}
    document = f'<!DOCTYPE html><html><body><script>{script}</script></body></html>'
    return (f'<iframe title="gamepad" srcdoc="{html.escape(document, quote=True)}" '
            'style="display:none" aria-hidden="true"></iframe>')


def parse(text: str) -> Optional[Tuple[str, np.ndarray]]:
    """What a line of the ``gamepad`` field asks: ``('stop', zeros)``, ``('twist', (6,)
    fractions of the folder's speed, each in [-1, 1], x y z rx ry rz)``, or None (no
    gamepad, or a line that names no component: typed in by hand, say). A component
    written twice counts once, the last; a value outside [-1, 1] is clipped."""
    if text.startswith('stop'):
        return 'stop', np.zeros(6)
    pairs = _PAIR.findall(text)
    if not pairs:
        return None
    vector = np.zeros(6)
    for name, value in pairs:
        number = float(value)
        if math.isfinite(number):
            vector[TWIST_AXIS[name]] = min(1.0, max(-1.0, number))
    return 'twist', vector
