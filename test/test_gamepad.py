"""The gamepad line of the jog folder (hrdf_ros.view.gamepad): what the page's frame
writes, read back; what is not such a line is ignored. The frame's script itself runs
in headless chromium (test_view_browser_jog.py)."""
import html
import re

import numpy as np
import pytest

from hrdf_ros.view import gamepad


def test_a_stick_line_is_a_twist_of_fractions():
    kind, vector = gamepad.parse('x=-0.50 y=0.25 z=1.00 rz=-1.00 #17')
    assert kind == 'twist'
    np.testing.assert_array_equal(vector, [-0.5, 0.25, 1.0, 0.0, 0.0, -1.0])


def test_zeros_are_a_twist_of_zeros_and_stop_is_a_stop():
    kind, vector = gamepad.parse('x=0.00 y=0.00 z=0.00 rz=0.00 #18')
    assert kind == 'twist' and not vector.any()
    kind, vector = gamepad.parse('stop #19')
    assert kind == 'stop' and not vector.any()


@pytest.mark.parametrize('line', ['no gamepad', '', 'hello', 'q=1 w=2', 'x=', 'x=abc'])
def test_a_line_naming_no_component_is_ignored(line):
    assert gamepad.parse(line) is None


def test_values_are_clipped_to_full_travel_and_the_last_of_a_repeat_counts():
    kind, vector = gamepad.parse('x=7 y=-3.5 x=0.5 rz=99999999999')
    np.testing.assert_array_equal(vector, [0.5, -1.0, 0.0, 0.0, 0.0, 1.0])


def test_the_frame_holds_the_script_escaped_with_the_constants():
    frame = gamepad.frame_html()
    match = re.fullmatch(r'<iframe title="gamepad" srcdoc="([^"]*)" '
                         r'style="display:none" aria-hidden="true"></iframe>', frame)
    assert match, frame[:200]
    document = html.unescape(match.group(1))
    assert document.startswith('<!DOCTYPE html>') and '</script>' in document
    assert f", {gamepad.PERIOD_MS});" in document and f"dead = {gamepad.DEADZONE}" in document
    assert f"!== '{gamepad.FIELD}'" in document
    for name, axis, sign in gamepad.STICKS:
        assert f"['{name}', {axis}, {sign}]" in document
