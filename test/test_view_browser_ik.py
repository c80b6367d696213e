"""``hrdf view``'s end-effector handles in a real browser (headless chromium, software
WebGL): the handle is drawn at the end effector; moving it (the messages a drag in the
browser sends, from a second websocket client, :mod:`viser_client`) puts the end
effector at the handle, and the sliders and the readout follow; a handle out of reach
turns red and the arm stays; the objective switch; 30 updates a second on a 7-DoF kit
followed without a backlog (the CLI's numpy path). Every answer is checked with FK of the
positions the page shows (its ``hrdf fk`` command), never with the view's own state.
"""
import math
import os
import re
import time

import numpy as np

from browser import browser, view  # noqa: F401 - the fixtures
from browser import (checkbox, code_blocks, open_page, page_text, project, require_browser,
                     settled_screenshot, wait_text)
from conftest import KITS_DIR
from hrdf_ros import Kinematics, load
from viser_client import ViserClient

require_browser()

HANDLE = '/ik_handles/0'
ARM = os.path.join(KITS_DIR, 'A-2085-06.hrdf')
#: the arm's start (its end effector in the middle of the test camera's picture)
START = ['--meshes', 'primitives', '--positions', '0 1 1.5 0 0.5 0']
#: Text of the IK panel: the page is up when it shows.
PANEL = 'Move the end effector'
Q0 = np.array([0.0, 1.0, 1.5, 0.0, 0.5, 0.0])
ARM_7 = os.path.join(KITS_DIR, 'A-2099-07.hrdf')




def panel_left(driver) -> int:
    """The screenshot column where the control panel begins (what is right of it is
    not the scene)."""
    from selenium.webdriver.common.by import By
    label = driver.find_element(By.XPATH, "//*[normalize-space(text())='Joints']")
    return int(label.rect['x']) - 20


def shown_positions(driver):
    """The positions of the page's ``hrdf fk --positions`` command (exact: repr)."""
    [command] = [b for b in code_blocks(driver) if b.startswith('hrdf fk ')]
    return np.array([float(v) for v in
                     re.search(r'--positions "([^"]*)"', command).group(1).split()])


def wait_positions(driver, changed_from, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        q = shown_positions(driver)
        if not np.array_equal(q, changed_from):
            return q
        time.sleep(0.02)
    raise AssertionError(f'the positions did not change in {timeout} s:\n{page_text(driver)}')


def angle_between(a, b):
    return 2 * math.asin(min(np.linalg.norm(a - b) / (2 * math.sqrt(2)), 1.0))


def test_the_handle_is_drawn_at_the_end_effector(browser, view):
    process = view(ARM, *START)
    open_page(browser, process, 6, PANEL)
    shown = settled_screenshot(browser)
    checkbox(browser, 'handles').click()
    hidden = settled_screenshot(browser)
    checkbox(browser, 'handles').click()
    differs = (np.abs(shown.astype(int) - hidden.astype(int)) > 40).any(axis=2)
    differs[:, panel_left(browser):] = False           # the checkbox itself changed
    assert differs.sum() > 200, differs.sum()
    canvas = browser.find_element('tag name', 'canvas').rect
    end_effector = Kinematics(load(ARM)).end_effector(Q0)
    x, y = project(end_effector[None, :3, 3], canvas)[0]
    rows, cols = np.nonzero(differs)
    # the gizmo starts at the end effector (its axes leave from there: some of its
    # pixels within 6 px of the point) and stays within its size (0.3 m at most) of it
    distance = np.hypot(cols - x, rows - y)
    assert distance.min() < 6, (distance.min(), x, y)
    far = project(end_effector[None, :3, 3] + [0.35, 0, 0], canvas)[0]
    radius = max(math.hypot(*(far - (x, y))), 60)
    assert distance.max() < 1.5 * radius, (distance.max(), radius)


def test_moving_the_handle_puts_the_end_effector_there(browser, view):
    process = view(ARM, *START)
    open_page(browser, process, 6, PANEL)
    kinematics = Kinematics(load(ARM))
    client = ViserClient(process.url)
    try:
        for q in ([0.4, 0.8, 1.5, -0.3, 0.9, 0.2], [-0.6, 1.2, 1.9, 0.5, 1.3, -0.4]):
            target = kinematics.end_effector(np.array(q))
            before = shown_positions(browser)
            client.drag(HANDLE, target)
            reached = kinematics.end_effector(wait_positions(browser, before))
            assert np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= 1e-4
            assert angle_between(reached[:3, :3], target[:3, :3]) <= 1e-4
            wait_text(browser, r'end_effector`?: reached')
        # the sliders moved with it: the page's joint readout is what the sliders say
        assert 'J1' in page_text(browser)
    finally:
        client.close()


def test_an_unreachable_handle_turns_red_and_the_arm_stays(browser, view):
    process = view(ARM, *START)
    open_page(browser, process, 6, PANEL)
    client = ViserClient(process.url)
    canvas = browser.find_element('tag name', 'canvas').rect
    try:
        kinematics = Kinematics(load(ARM))
        target = kinematics.end_effector(Q0)
        target[:3, 3] = (-1.2, 0.1, 0.4)                 # out of reach, in the picture
        before = shown_positions(browser)
        client.drag(HANDLE, target)
        wait_text(browser, r'out of reach: the nearest configuration found is [0-9.]+ m')
        distance = float(re.search(r'found is ([0-9.]+) m', page_text(browser)).group(1))
        assert 0.3 < distance < 0.6
        time.sleep(0.5)
        assert np.array_equal(shown_positions(browser), before)        # the arm stays
        image = settled_screenshot(browser).astype(int)
        x, y = project(target[None, :3, 3], canvas)[0].round().astype(int)
        patch = image[y - 4:y + 5, x - 4:x + 5]
        red = (patch[..., 0] > 150) & (patch[..., 1] < 90) & (patch[..., 2] < 90)
        assert red.mean() > 0.5, patch.reshape(-1, 3)
        # back in reach: white again, the arm there
        reachable = kinematics.end_effector(np.array([0.3, 0.9, 1.4, 0.0, 0.7, 0.0]))
        client.drag(HANDLE, reachable)
        wait_text(browser, r'reached')
        q = shown_positions(browser)
        assert np.linalg.norm(kinematics.end_effector(q)[:3, 3] - reachable[:3, 3]) <= 1e-4
    finally:
        client.close()


def test_the_objective_switch_position_only(browser, view):
    from selenium.webdriver.common.by import By
    process = view(ARM, *START)
    open_page(browser, process, 6, PANEL)
    kinematics = Kinematics(load(ARM))
    client = ViserClient(process.url)
    try:
        browser.find_element(By.XPATH, "//*[normalize-space(text())='objective']/ancestor::*"
                                       "[.//input][1]//input").click()
        browser.find_element(By.XPATH, "//*[normalize-space(text())='position only']").click()
        # the server has the choice once it broadcast it to this client (a drag sent
        # before would be solved for the full pose)
        deadline = time.monotonic() + 30
        while {'value': 'position only'} not in client.updates:
            assert time.monotonic() < deadline, 'the objective did not reach the server'
            time.sleep(0.02)
        target = kinematics.end_effector(np.array([0.4, 0.8, 1.5, -0.3, 0.9, 0.2]))
        target[:3, :3] = np.diag([1.0, -1.0, -1.0])      # an orientation it need not take
        before = shown_positions(browser)
        client.drag(HANDLE, target)
        reached = kinematics.end_effector(wait_positions(browser, before))
        assert np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= 1e-4
        assert angle_between(reached[:3, :3], target[:3, :3]) > 0.01
    finally:
        client.close()


def test_thirty_updates_a_second_on_a_7dof_kit_without_a_backlog(browser, view):
    """A drag of 3 s at 30 updates per second along a smooth path (the CLI's numpy path):
    the server answers the updates as they come, folding those that come while a solve
    runs into the latest (at least 4 windows of GUI updates during the drag of 90: 29-76
    on a loaded 2-core machine, 8 on one a third as fast at load 11, as solves take
    longer; a server that dropped a drag's updates would answer once or twice); the page
    shows the last target (waited for up to 60 s: its redraw time swings with the
    machine's load; a solve that ended after the drag's end once moved the handle off
    it, and the last target was lost); and no backlog:
    from the drag's end until the last target is shown the server sends at most 10
    windows (the solve running at the end and those folded after it, a window or two
    each: 0-4 on a loaded 2-core machine; a queue of the drag's updates would be tens),
    and none more while the test checks that the page still shows it; a single update
    after the drag is shown too. Counts, not seconds: how soon the page shows an update,
    alone and at the end of the drag, is measured by benchmarks/view_drag.py."""
    process = view(ARM_7, '--meshes', 'primitives')
    open_page(browser, process, 7, PANEL)
    kinematics = Kinematics(load(ARM_7))
    start = np.array([0.2, 0.7, 0.0, 1.4, 0.1, 0.6, 0.0])
    path = start + 0.4 * np.sin(np.linspace(0, np.pi, 90))[:, None] * \
        np.array([1.0, 0.5, 0.3, -0.5, 0.4, 0.6, 0.8])
    targets = kinematics.end_effector(path)
    client = ViserClient(process.url)

    def at(target):
        """Whether the page shows the end effector at target."""
        reached = kinematics.end_effector(shown_positions(browser))
        return np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= 1e-4 and \
            angle_between(reached[:3, :3], target[:3, :3]) <= 1e-4

    def wait_shown(target, timeout=60.0):
        """Wait until the page shows the end effector at target (a hang guard)."""
        deadline = time.monotonic() + timeout
        while not at(target):
            assert time.monotonic() < deadline, \
                f'the target was not shown in {timeout} s:\n{page_text(browser)}'
            time.sleep(0.02)

    def answers():
        """How many windows of GUI updates the server has sent to the client."""
        return sum('GuiUpdateMessage' in types for _, types in list(client.windows))

    try:
        single = kinematics.end_effector(start + 0.05)
        client.drag(HANDLE, single)
        wait_shown(single)
        client.start(HANDLE)
        before = answers()
        t0 = time.monotonic()
        for k, target in enumerate(targets):
            client.move(HANDLE, target)
            time.sleep(max(0.0, t0 + (k + 1) / 30.0 - time.monotonic()))
        during = answers() - before
        client.end(HANDLE)
        wait_shown(targets[-1])
        after = answers() - before - during
        print(f'{during} answer windows during the drag of 90 updates, {after} after its '
              'end until the last target was shown')
        assert during >= 4                            # updates folded, not dropped
        assert after <= 10                            # no backlog
        # still there, and nothing more came meanwhile
        assert at(targets[-1])
        assert answers() - before - during <= 10
        later = kinematics.end_effector(path[-1] - 0.05)
        client.drag(HANDLE, later)
        wait_shown(later)
    finally:
        client.close()
