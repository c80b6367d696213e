"""``hrdf view``'s collisions in a real browser (headless chromium, software WebGL): a pose
in self-collision names the colliding links and draws them in the collision colour
(magenta), a pose out of collision takes it away; with "avoid collisions" on, the handle
puts the arm at a configuration free of collision; collision objects are drawn. The arm
is moved by the messages a drag in the browser sends (:mod:`viser_client`), every pose
is read from the page's ``hrdf fk`` command, and the colliding pairs are checked against
the core (:meth:`hrdf_ros.MotionPlanner.colliding_pairs`) at those positions.
"""
import os
import re

import numpy as np
import pytest

from browser import browser, view  # noqa: F401 - the fixtures
from browser import (checkbox, open_page, page_text, require_browser, settled_screenshot,
                     wait_text)
from conftest import KITS_DIR
from hrdf_ros import Kinematics, load
from test_view_browser_ik import HANDLE, shown_positions, wait_positions
from viser_client import ViserClient

require_browser()

ARM = os.path.join(KITS_DIR, 'A-2085-06.hrdf')
Q0 = np.array([0.0, 1.0, 1.5, 0.0, 0.5, 0.0])
#: the elbow folded: bracket1 and actuator6 collide (the core says so below)
FOLDED = np.array([0.0, 1.0, 2.5, 0.0, 0.5, 0.0])
START = ['--meshes', 'primitives', '--positions', ' '.join(map(str, Q0))]




@pytest.fixture(scope='module')
def planner():
    from hrdf_ros.motion import MotionPlanner
    return MotionPlanner(load(ARM))


def magenta(browser) -> int:
    """How many pixels of the picture are the collision colour, shaded (red and blue
    high and alike, green low: not the handle's pink ring, not HEBI's red)."""
    image = settled_screenshot(browser).astype(int)
    if os.environ.get('SAVE_SHOT'):
        from PIL import Image
        Image.fromarray(image.astype('uint8')).save(os.environ['SAVE_SHOT'])
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    return int(np.count_nonzero((r > 90) & (b > 90) & (np.abs(r - b) < 0.2 * np.maximum(r, b))
                                & (g < 0.45 * np.minimum(r, b))))


def pairs_text(pairs):
    return ', '.join(f'{a} - {b}' for a, b in pairs)


def test_a_pose_in_collision_names_and_colours_the_links(browser, view, planner):
    assert planner.colliding_pairs(Q0) == [] and planner.colliding_pairs(FOLDED)
    process = view(ARM, *START)
    open_page(browser, process, 6, 'Collisions')
    wait_text(browser, r'Collisions: none', timeout=60)
    assert magenta(browser) == 0
    kinematics = Kinematics(load(ARM))
    client = ViserClient(process.url)
    try:
        # the handle where the folded arm has its end effector: plain IK from the shown
        # configuration folds the elbow into the arm
        before = shown_positions(browser)
        client.drag(HANDLE, kinematics.end_effector(FOLDED))
        q = wait_positions(browser, before)
        pairs = planner.colliding_pairs(q)
        assert pairs, q
        wait_text(browser, re.escape('Collisions: ' + pairs_text(pairs)))
        assert magenta(browser) > 200
        # back out of collision: the links take their colours again
        before = shown_positions(browser)
        client.drag(HANDLE, kinematics.end_effector(Q0))
        q = wait_positions(browser, before)
        assert planner.colliding_pairs(q) == []
        wait_text(browser, r'Collisions: none')
        assert magenta(browser) == 0
        # avoid collisions: the same pose, reached by a configuration free of collision
        checkbox(browser, 'avoid collisions').click()
        before = shown_positions(browser)
        target = kinematics.end_effector(FOLDED)
        client.drag(HANDLE, target)
        q = wait_positions(browser, before)
        reached = kinematics.end_effector(q)
        assert np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= 1e-4
        assert planner.colliding_pairs(q) == []
        wait_text(browser, r'end_effector`?: reached')
        assert 'Collisions: none' in page_text(browser)
    finally:
        client.close()


def test_collision_objects_are_drawn_and_checked(browser, view, planner, tmp_path):
    """A box where the arm's wrist is: drawn (translucent blue), and the links in it
    named; the floor option is drawn too."""
    wrist = Kinematics(load(ARM)).end_effector(Q0)[:3, 3]
    objects = tmp_path / 'objects.yaml'
    objects.write_text(f'- name: crate\n  type: box\n  dimensions: [0.12, 0.12, 0.12]\n'
                       f'  pose: {{position: [{wrist[0]!r}, {wrist[1]!r}, {wrist[2]!r}]}}\n')
    process = view(ARM, *START, '--collision-objects', str(objects), '--floor', '-0.05')
    open_page(browser, process, 6, 'Collisions')
    wait_text(browser, r'Collisions: .*crate', timeout=60)
    image = settled_screenshot(browser).astype(int)
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    assert np.count_nonzero((b > r + 40) & (b > g + 20)) > 500       # the objects, blue
    assert process.process.poll() is None


def test_plan_and_go_moves_the_arm_there_and_a_goal_in_a_box_moves_nothing(browser, view,
                                                                            tmp_path):
    """"plan and go": released at a pose, the handle gets a planned motion from the
    shown configuration, its duration in the panel, played until the end effector is at
    the handle's pose (1 mm, by FK of the positions the page shows); a pose inside a box
    says why there is no plan and the arm stays."""
    from selenium.webdriver.common.by import By
    kinematics = Kinematics(load(ARM))
    goal = kinematics.end_effector(np.array([0.9, 0.7, 1.9, -0.4, 1.1, 0.3]))
    crate = kinematics.end_effector(np.array([-0.8, 1.1, 1.6, 0.2, 0.6, 0.0]))[:3, 3]
    objects = tmp_path / 'objects.yaml'
    objects.write_text(f'- name: crate\n  type: box\n  dimensions: [0.2, 0.2, 0.2]\n'
                       f'  pose: {{position: [{crate[0]!r}, {crate[1]!r}, {crate[2]!r}]}}\n')
    process = view(ARM, *START, '--collision-objects', str(objects))
    open_page(browser, process, 6, 'Collisions')
    wait_text(browser, r'Collisions: none', timeout=60)
    browser.find_element(By.XPATH, "//*[normalize-space(text())='handle']/ancestor::*"
                                   "[.//input][1]//input").click()
    browser.find_element(By.XPATH, "//*[@role='option'][normalize-space(.)='plan and go']"
                         ).click()
    client = ViserClient(process.url)
    try:
        before = shown_positions(browser)
        client.drag(HANDLE, goal)
        wait_text(browser, r'planned: [0-9.]+ s', timeout=60)
        duration = float(re.search(r'planned: ([0-9.]+) s', page_text(browser)).group(1))
        assert duration > 0.3
        deadline = duration + 30.0
        q = before
        for _ in range(int(deadline / 0.2)):
            q = shown_positions(browser)
            if np.linalg.norm(kinematics.end_effector(q)[:3, 3] - goal[:3, 3]) <= 1e-3:
                break
            __import__('time').sleep(0.2)
        reached = kinematics.end_effector(q)
        assert np.linalg.norm(reached[:3, 3] - goal[:3, 3]) <= 1e-3, q
        # a pose inside the box: no plan, the arm stays
        inside = goal.copy()
        inside[:3, 3] = crate
        here = shown_positions(browser)
        client.drag(HANDLE, inside)
        wait_text(browser, r'no plan: .*nothing moves', timeout=60)
        __import__('time').sleep(0.5)
        assert np.array_equal(shown_positions(browser), here)
    finally:
        client.close()


def test_the_plan_picture_is_made_by_its_script(tmp_path):
    """scripts/plan_view_screenshot.py (doc/images/plan_view.png): plan and go on the kit
    over a floor: the path drawn (green), the floor (blue), the planned duration shown.
    With the parts as primitives: HEBI's meshes cost SwiftShader seconds a frame under
    load (the README picture's test draws them)."""
    import importlib.util

    from PIL import Image
    scripts = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           'scripts')
    spec = importlib.util.spec_from_file_location(
        'plan_view_screenshot', os.path.join(scripts, 'plan_view_screenshot.py'))
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / 'plan.png'
    assert script.main(['-o', str(out), '--meshes', 'primitives']) == 0
    assert out.stat().st_size < 150_000
    image = np.asarray(Image.open(out).convert('RGB')).astype(int)
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    assert np.count_nonzero((g > r + 50) & (g > b + 20)) > 300          # the path, green
    assert np.count_nonzero((b > r + 25) & (b > g + 5)) > 10_000        # the floor, blue
