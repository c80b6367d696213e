"""``hrdf view --reach MAP.npz`` in a real browser (headless chromium, software WebGL): the
map's points are drawn (the picture changes where they are when "show points" is
switched), the legend names the quantity and its scale, and a real click on a point
(selenium, at the point's pixel under the test camera) poses the arm at the point's best
configuration: the end effector, by FK of the positions the page shows, at the centre
within 1e-4 m. Without a map, the panel's button computes the robot's (the map
reach_map gives; "free of collision" with the view's floor: the map that avoids it). A
file that is not a map exits 2 with one line.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

from browser import browser, view  # noqa: F401 - the fixtures
from browser import (CAMERA, checkbox, click_button, open_page, page_text,
                     pixels_a_checkbox_changes, project, require_browser,
                     settled_screenshot, wait_text)
from conftest import KITS_DIR, REPO
from hrdf_ros import Kinematics, load, reach_map
from hrdf_ros.view.reach_points import PICK_VOXELS, nearest_to_ray
from test_view_browser_ik import panel_left, shown_positions, wait_positions

require_browser()

ARM = os.path.join(KITS_DIR, 'A-2085-06.hrdf')
START = ['--meshes', 'primitives', '--positions', '0 1 1.5 0 0.5 0']
VOXEL = 0.15




@pytest.fixture(scope='module')
def reach_file(tmp_path_factory):
    result = reach_map(load(ARM), voxel=VOXEL, directions=12, threads=2)
    path = str(tmp_path_factory.mktemp('reach') / 'map.npz')
    result.save(path)
    return result, path


def clickable_point(result, canvas, left):
    """A reachable centre the click at its pixel chooses (the nearest to the camera near
    its ray), inside the scene's part of the picture."""
    rows = np.nonzero(result.reachable)[0]
    points = result.centers[rows]
    eye = np.asarray(CAMERA['position'])
    pixels = project(points, canvas)
    order = np.argsort(np.linalg.norm(points - eye, axis=1))
    for k in order:
        x, y = pixels[k]
        inside = canvas['x'] + 40 < x < left - 40 and canvas['y'] + 40 < y < \
            canvas['y'] + canvas['height'] - 40
        if inside and nearest_to_ray(points, eye, points[k] - eye,
                                     PICK_VOXELS * VOXEL) == k and \
                result.reachability[rows[k]] > 0:
            return rows[k], (x, y)
    raise AssertionError('no reachable point can be clicked in the picture')


def click_a_point(browser, result):
    """Click (selenium, a real click) on a point of the map the page shows; (its row,
    the positions the page shows once they changed)."""
    from selenium.webdriver.common.action_chains import ActionChains
    canvas = browser.find_element('tag name', 'canvas').rect
    row, (x, y) = clickable_point(result, canvas, panel_left(browser))
    before = shown_positions(browser)
    body = browser.find_element('tag name', 'body')
    ActionChains(browser).move_to_element_with_offset(
        body, int(round(x - body.rect['width'] / 2)),
        int(round(y - body.rect['height'] / 2))).click().perform()
    return row, wait_positions(browser, before)


def test_points_are_drawn_and_a_click_poses_the_arm(browser, view, reach_file):
    result, path = reach_file
    process = view(ARM, *START, '--reach', path)
    open_page(browser, process, 6, 'Reach map')
    wait_text(browser, r'reachability index, share of the tool directions solved: dark '
                       r'purple 0 .* yellow 1')
    wait_text(browser, rf'{int(result.reachable.sum())} points {VOXEL:g} m apart, '
                       'collisions ignored')
    changed = pixels_a_checkbox_changes(browser, 'show points')
    print(f'{changed} pixels change with the points')
    assert changed > 2000

    row, q = click_a_point(browser, result)
    reached = Kinematics(load(ARM)).end_effector(q)[:3, 3]
    error = np.linalg.norm(reached - result.centers[row])
    print(f'clicked the point {result.centers[row]}; end effector {error:.2e} m from it')
    assert error <= 1e-4
    np.testing.assert_allclose(q, result.positions[row], atol=1e-9)
    wait_text(browser, r'Point \(' + ', '.join(f'{v:.3f}' for v in result.centers[row]))


def test_the_button_computes_the_shown_robots_map(browser, view):
    """Without --reach, with a floor: choose 0.15 m and "free of collision", compute;
    the page draws the map reach_map gives with that floor (its point count), and a
    click on one of its points poses the arm there."""
    from selenium.webdriver.common.by import By
    process = view(ARM, *START, '--floor', '-0.02')
    open_page(browser, process, 6, 'Reach map')
    # the folder is closed while there is no map
    assert 'No map: compute one' not in page_text(browser)
    browser.find_element(By.XPATH, "//*[normalize-space(text())='Reach map']").click()
    wait_text(browser, 'No map: compute one')
    browser.find_element(By.XPATH, "//*[normalize-space(text())='voxel (m)']/ancestor::*"
                                   "[.//input][1]//input").click()
    browser.find_element(By.XPATH, "//*[normalize-space(text())='0.15']").click()
    checkbox(browser, 'free of collision').click()
    click_button(browser, 'compute the map')
    floor = {'name': 'floor', 'type': 'floor', 'pose': {'position': [0.0, 0.0, -0.02]}}
    expected = reach_map(load(ARM), voxel=VOXEL, directions=50, threads=2,
                         avoid_collisions=True, collision_objects=[floor])
    plain = reach_map(load(ARM), voxel=VOXEL, directions=50, threads=2)
    assert expected.reachable.sum() < plain.reachable.sum()      # the floor counts
    wait_text(browser, rf'{int(expected.reachable.sum())} points {VOXEL:g} m apart, '
                       'free of collision', timeout=60)
    settled_screenshot(browser)
    row, q = click_a_point(browser, expected)
    np.testing.assert_allclose(q, expected.positions[row], atol=1e-9)


def test_a_file_that_is_not_a_map_exits_2_with_one_line(tmp_path):
    bad = tmp_path / 'bad.npz'
    bad.write_bytes(b'no')
    run = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', 'view', ARM, '--port', '0',
                          '--reach', str(bad)], capture_output=True, text=True, timeout=60,
                         cwd=REPO)
    lines = [line for line in run.stderr.splitlines()
             if line.strip() and not line.startswith('hrdf view: loading')]
    assert run.returncode == 2 and len(lines) == 1 and 'not a reach map' in lines[0], \
        run.stderr
