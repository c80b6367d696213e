"""The ROS web view's "Plan a motion" folder (:mod:`hrdf_ros.ros.web_motion`), launched with
the real ``ros2 launch hrdf_ros view.launch.py web:=true`` (hrdf_ros_node and the web view
with sliders), in headless chromium:

* a pose in self-collision (a slider to its end) turns the colliding links magenta and
  names them, as the core's :meth:`hrdf_ros.MotionPlanner.colliding_pairs` does; back at
  zero, none;
* "plan and go" to the handle (moved by the messages a drag sends) plays the planned motion
  on the sliders until the drawn end effector (the page's "Link poses (TF)", from the
  node's /tf) is at the handle's pose within 1 mm;
* a box put where the handle is (``ros2 service call .../set_collision_objects``): the
  panel says why there is no plan, and nothing moves.
"""
import re
import time

import numpy as np
import pytest

from browser import (camera_query, checked_browser, click_button, page_text,
                     require_browser, slider, sliders, wait_text)
from cli_helpers import (KIT, VIEW_WEB, Background, require_ros2_cli, run, service_call,
                         service_response)
from conftest import KITS_DIR
from hrdf_ros import Kinematics, load
from test_ros_cli_web_view import URL, drawn_poses
from test_view_browser_collisions import magenta
from viser_client import ViserClient

require_ros2_cli()
require_browser()
pytest.importorskip('pinocchio')

HANDLE = '/motion_handle'
GOAL = np.array([0.9, 0.7, 1.9, -0.4, 1.1, 0.3])


@pytest.fixture(scope='module')
def browser():
    yield from checked_browser()


@pytest.fixture(scope='module')
def planner():
    from hrdf_ros.motion import MotionPlanner
    return MotionPlanner(load(f'{KITS_DIR}/{KIT}'))


def _values(browser):
    return np.array([float(s.get_attribute('aria-valuenow')) for s in sliders(browser)])


def _poll(check, timeout=30.0):
    """``check()`` came true within ``timeout`` s (the picture follows the panel's text)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def _end_effector(browser):
    return drawn_poses(browser)['end_effector']


def test_collisions_and_plan_and_go_in_the_ros_web_view(ros2_daemon, workdir, browser,
                                                       planner):
    from selenium.webdriver.common.keys import Keys
    kinematics = Kinematics(load(f'{KITS_DIR}/{KIT}'))
    folded = np.array([0.0, 0.0, np.pi, 0.0, 0.0, 0.0])
    pairs = planner.colliding_pairs(folded)
    assert pairs and planner.colliding_pairs(np.zeros(6)) == []
    launch = Background(VIEW_WEB, cwd=workdir)
    try:
        launch.wait_for(r'robot "A-2085-06" from ')
        url = launch.wait_for(URL).group(1)
        browser.get(url + camera_query())
        wait_text(browser, r'Collisions: none', 60)
        assert magenta(browser) == 0
        # J3 to its end: the arm folds into itself
        slider(browser, 'J3').send_keys(Keys.END)
        shown = 'Collisions: ' + ', '.join(f'{a} - {b}' for a, b in pairs)
        wait_text(browser, re.escape(shown), 60)
        assert _poll(lambda: magenta(browser) > 200), (magenta(browser), page_text(browser))
        click_button(browser, 'zero')
        wait_text(browser, r'Collisions: none', 60)
        assert _poll(lambda: magenta(browser) == 0), (magenta(browser), page_text(browser))

        # plan and go to the handle
        goal = kinematics.end_effector(GOAL)
        client = ViserClient(url)
        try:
            client.drag(HANDLE, goal)
            time.sleep(0.3)
            click_button(browser, 'plan and go')
            wait_text(browser, r'planned: [0-9.]+ s', 60)
            duration = float(re.search(r'planned: ([0-9.]+) s', page_text(browser)).group(1))
            deadline = time.monotonic() + duration + 30.0
            while time.monotonic() < deadline:
                error = np.linalg.norm(_end_effector(browser)[:3, 3] - goal[:3, 3])
                if error <= 1e-3:
                    break
                time.sleep(0.2)
            print(f'plan and go: {duration:.2f} s, the drawn end effector {error * 1000:.3f} '
                  'mm from the handle')
            assert error <= 1e-3
            # a box where the handle goes next: no plan, nothing moves
            inside = kinematics.end_effector(np.array([-0.8, 1.1, 1.6, 0.2, 0.6, 0.0]))
            x, y, z = inside[:3, 3]
            crate = (f'{{names: [crate], primitives: [{{type: 1, dimensions: [0.2, 0.2, 0.2]}}]'
                     f', poses: [{{position: {{x: {x!r}, y: {y!r}, z: {z!r}}}}}]}}')
            assert service_response(run(service_call('set_collision_objects', crate)))[
                'success']
            here = _values(browser)
            client.drag(HANDLE, inside)
            time.sleep(0.3)
            click_button(browser, 'plan and go')
            wait_text(browser, r'no plan: .*nothing moves', 60)
            time.sleep(0.5)
            assert np.array_equal(_values(browser), here)
        finally:
            client.close()
        assert launch.interrupt() == 0, launch.output()
        assert launch.leftovers() == []
    finally:
        launch.close()
