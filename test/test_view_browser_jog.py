"""``hrdf view``'s jog panel in a real browser (headless chromium): keys pressed in the
page steer the drawn arm through the servo. Each press of S counts 0.25 s of a twist
along -x of the base frame (from the test's start, +x, -y and +z soon halt before the
wrist touches the arm); pressed 20 times 0.06 s apart (a held key repeats), the end
effector moves along -x by FK of the positions the page shows (its ``hrdf fk`` command), with
little sideways; the digit 3 jogs joint 3 (the elbow) until the servo halts before a
collision, and the status turns red. A gamepad (the page's ``navigator.getGamepads``
answering with a pad the test sets: headless chromium has no gamepad device) steers it
the same way: the left stick pushed down is -x.
"""
import time

import numpy as np

from browser import browser, view  # noqa: F401 - the fixtures
from browser import open_page, require_browser, wait_text
from hrdf_ros import Kinematics, load
from test_view_browser_ik import ARM, PANEL, START, shown_positions

require_browser()


def press(driver, key, times, every=0.05):
    """``key`` pressed (down and up) ``times`` times, ``every`` s apart, as a held key
    repeats (one chain of actions: the browser keeps their pace)."""
    from selenium.webdriver.common.action_chains import ActionChains
    chain = ActionChains(driver)
    for _ in range(times):
        chain.key_down(key).pause(0.01).key_up(key).pause(every)
    chain.perform()


def settled_positions(driver, timeout=30.0):
    """The shown positions once they stopped changing for 0.5 s."""
    deadline = time.monotonic() + timeout
    previous = shown_positions(driver)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = shown_positions(driver)
        if np.array_equal(now, previous):
            return now
        previous = now
    raise AssertionError('the arm did not come to rest')


def status_colour(driver):
    """(status name, CSS colour) of the jog panel's status line (read in one script: the
    line is redrawn as the servo runs)."""
    return tuple(driver.execute_script(
        "const e = document.querySelector('[data-servo-status]');"
        "return [e.dataset.servoStatus, getComputedStyle(e).color];"))


def test_keys_in_the_jog_panel_move_the_end_effector_and_a_halt_turns_red(browser, view):
    process = view(ARM, *START)
    open_page(browser, process, 6, PANEL)
    wait_text(browser, r'Collisions\W+ (none|`)', timeout=60)     # the planner is ready
    kinematics = Kinematics(load(ARM))
    before = settled_positions(browser)
    began = time.monotonic()
    press(browser, 's', 20)
    pressed = time.monotonic() - began
    after = settled_positions(browser)
    moved = kinematics.end_effector(after)[:3, 3] - kinematics.end_effector(before)[:3, 3]
    turned = kinematics.end_effector(after)[:3, :3] @ kinematics.end_effector(before)[:3, :3].T
    print(f'S x20 in {pressed:.2f} s: the end effector moved {np.round(moved * 1000, 2)} mm')
    # the presses (1.2 s, or what the browser took), the last counting 0.25 s more, at
    # 0.05 m/s, less the ramps
    assert -0.05 * (pressed + 0.25) - 1e-4 < moved[0] < -0.02, moved
    assert np.linalg.norm(moved[1:]) < 0.002 - 0.02 * moved[0], moved
    assert np.arccos(np.clip((np.trace(turned) - 1) / 2, -1, 1)) < 0.01
    assert status_colour(browser)[0] == 'NO_WARNING'
    # the elbow folds in until the servo halts before the arm hits itself: red
    for _ in range(60):
        press(browser, '3', 5)
        name, colour = status_colour(browser)
        if name.startswith('HALT'):
            break
    print(f'joint 3: {name}, {colour}')
    assert name == 'HALT_FOR_COLLISION', name
    assert colour.replace(' ', '') in ('rgb(208,0,0)', 'rgba(208,0,0,1)'), colour


#: Run in each new page before its own scripts: ``navigator.getGamepads()`` answers with
#: ``window.testPad`` (the W3C Gamepad fields the page reads), as a browser does for a
#: connected pad.
TEST_PAD = """Object.defineProperty(Navigator.prototype, 'getGamepads', {configurable: true,
  value: function () { return [window.testPad || null]; }});"""


def set_pad(driver, axes, pressed=False):
    """The test pad's four axes (None: no pad) and its button 0."""
    driver.execute_script(
        "window.testPad = arguments[0] && {connected: true, id: 'test pad', index: 0, "
        "mapping: 'standard', axes: arguments[0], "
        "buttons: [{pressed: arguments[1], value: arguments[1] ? 1 : 0}]};", axes, pressed)


def pad_field(driver):
    return driver.execute_script(
        "for (const l of document.querySelectorAll('label')) if (l.textContent.trim() === "
        "'gamepad') { for (let e = l; e; e = e.parentElement) { const i = "
        "e.querySelector('input'); if (i) return i.value; } } return null;")


def wait_for_field(driver, prefix, timeout=10.0):
    """The gamepad field's text once it starts with ``prefix`` (or after ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while not (pad_field(driver) or '').startswith(prefix) and time.monotonic() < deadline:
        time.sleep(0.05)
    return pad_field(driver)


def test_a_gamepads_left_stick_moves_the_end_effector_and_button_0_stops(browser, view):
    injected = browser.execute_cdp_cmd('Page.addScriptToEvaluateOnNewDocument',
                                       {'source': TEST_PAD})
    try:
        process = view(ARM, *START)
        open_page(browser, process, 6, PANEL)
        wait_text(browser, r'Collisions\W+ (none|`)', timeout=60)   # the planner is ready
        assert pad_field(browser) == 'no gamepad'
        kinematics = Kinematics(load(ARM))
        before = settled_positions(browser)
        x0 = kinematics.end_effector(before)[0, 3]
        set_pad(browser, [0.0, 1.0, 0.0, 0.0])                     # left stick down: -x
        began = time.monotonic()
        # held until the drawn end effector is 20 mm along -x (at most 300 looks 0.1 s
        # apart, a hang guard): a distance in a fixed time would be a rate (8.2 mm in
        # 1.6 s on a slow, loaded machine)
        for _ in range(300):
            time.sleep(0.1)
            if kinematics.end_effector(shown_positions(browser))[0, 3] - x0 < -0.02:
                break
        set_pad(browser, [0.0, 0.0, 0.0, 0.0])
        held = time.monotonic() - began
        after = settled_positions(browser)
        assert pad_field(browser).startswith('x=0.00 y=0.00 z=0.00 rz=0.00 #')
        moved = kinematics.end_effector(after)[:3, 3] - kinematics.end_effector(before)[:3, 3]
        print(f'stick held {held:.2f} s: the end effector moved {np.round(moved * 1000, 2)} mm')
        # held (and one poll, 0.1 s, more) at 0.05 m/s, the last write counting 0.25 s more
        assert -0.05 * (held + 0.1 + 0.25) - 1e-4 < moved[0] < -0.02, moved
        assert np.linalg.norm(moved[1:]) < 0.002 - 0.02 * moved[0], moved
        # pushed again, then button 0 with the stick still pushed: the arm stops and stays
        set_pad(browser, [0.0, 1.0, 0.0, 0.0])
        time.sleep(0.6)
        set_pad(browser, [0.0, 1.0, 0.0, 0.0], pressed=True)
        assert wait_for_field(browser, 'stop').startswith('stop #')
        stopped = settled_positions(browser)
        time.sleep(1.0)
        assert np.array_equal(shown_positions(browser), stopped)   # the held stick is ignored
        set_pad(browser, None)
        assert wait_for_field(browser, 'no gamepad') == 'no gamepad'
    finally:
        browser.execute_cdp_cmd('Page.removeScriptToEvaluateOnNewDocument',
                                {'identifier': injected['identifier']})
