"""The ROS web view over real DDS, through the real ``ros2`` command line, in a real
browser (headless chromium driven by selenium).

* Beside a running robot (``hrdf.launch.py`` in namespace ``left`` with frame prefix
  ``left/``, and ``ros2 run hrdf_ros hrdf_ros_web_view`` in the same namespace with the
  same prefix): joint_states published with ``ros2 topic pub`` move the drawn robot; the
  link poses the page draws (its "Link poses (TF)" list, what the scene is given) equal
  hebi-py's frames at those positions to 1e-9, and the picture changes.
* ``view.launch.py web:=true`` (no joint_state_publisher_gui here): keys on the page's
  sliders make the web view publish joint_states, which hrdf_ros_node turns into /tf
  equal to hebi-py's at the sliders' values to 1e-9.
Every launch ends with Ctrl-C (SIGINT to its process group): exit 0, no PID left; no
request of the pages leaves 127.0.0.1.
"""
import re
import time

import numpy as np
import pytest

from browser import (checked_browser, page_text, require_browser, settled_screenshot,
                     slider, slider_labels, sliders, wait_text)
from cli_helpers import (ECHO_TF_STATIC, JOINT_STATES, KIT, LAUNCH_LEFT, Q, VIEW_WEB,
                         WEB_VIEW_LEFT, Background, chain, echoed, left, require_ros2_cli,
                         run, run_all, transforms, wait_for_node)
from conftest import hebi_frames
from hrdf_ros import load
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.kinematics.rotations import rpy_to_rotation

require_ros2_cli()
require_browser()

URL = r'web view at (http://127\.0\.0\.1:\d+/)'
ECHO_TF_ANY = 'ros2 topic echo /tf tf2_msgs/msg/TFMessage --once --full-length --timeout 20'


@pytest.fixture(scope='module')
def browser():
    yield from checked_browser()


def drawn_poses(driver) -> dict:
    """URDF link -> (4, 4) pose in the fixed frame, from the page's "Link poses (TF)"."""
    text = page_text(driver)
    if 'xyz ' not in text:  # the folder starts closed
        driver.find_element('xpath', "//*[normalize-space(text())='Link poses (TF)']").click()
        wait_text(driver, r'xyz ')
        text = page_text(driver)
    poses = {}
    for link, xyz, rpy in re.findall(r'^(\S+)\n\s*xyz ([^\n]+)\n\s*rpy ([^\n]+)$', text, re.M):
        pose = np.eye(4)
        pose[:3, :3] = rpy_to_rotation(*map(float, rpy.split()))
        pose[:3, 3] = [float(v) for v in xyz.split()]
        poses[link] = pose
    return poses


def expected_poses(hebi_import, path, q) -> dict:
    """hebi-py's frame of every URDF link at ``q``: element links at their input frames,
    the end effector at HEBI's end effector."""
    tree = build_frame_tree(load(path))
    hebi = hebi_import[0](path)
    inputs = hebi_frames(hebi, 'input', [np.asarray(q)])[0]
    out = {link: inputs[k] for k, link in enumerate(tree.element_links)}
    out['end_effector'] = hebi.get_end_effector(np.asarray(q))
    return out


def wait_poses(driver, expected, timeout=30.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        poses = drawn_poses(driver)
        if set(expected) <= set(poses) and all(
                np.abs(poses[k] - expected[k]).max() < 1e-9 for k in expected):
            return poses
        if time.monotonic() > deadline:
            worst = {k: float(np.abs(poses[k] - expected[k]).max()) if k in poses else None
                     for k in expected}
            raise AssertionError(f'drawn poses differ from hebi-py: {worst}')
        time.sleep(0.2)


def test_published_joint_states_move_the_drawn_robot(ros2_daemon, workdir, hebi_import,
                                                     browser):
    node = Background(LAUNCH_LEFT, cwd=workdir)
    web = Background(WEB_VIEW_LEFT, cwd=workdir)
    try:
        node.wait_for(r'robot "A-2085-06" from ')
        url = web.wait_for(URL).group(1)
        wait_for_node('/left/hrdf_ros_node')
        browser.get(url)
        wait_text(browser, r'robot_description: 14 links; fixed frame left/base_link', 30)
        assert 'Joints' not in page_text(browser)  # no sliders without gui
        # it draws /tf: no IK handles of hrdf view (which would fight the published pose)
        assert 'Move the end effector' not in page_text(browser)
        path = f'{workdir}/{KIT}'
        shots = []
        for sec, q in ((1000, Q), (1001, [Q[0] + 1.0] + Q[1:])):
            expected = expected_poses(hebi_import, path, q)
            command = left(JOINT_STATES).replace('sec: 1000,', f'sec: {sec},').replace(
                f'position: {Q}', f'position: {q}')
            assert f'position: {q}' in command
            for attempt in range(3):  # joint_states are best effort
                assert run(command).code == 0
                try:
                    poses = wait_poses(browser, expected, timeout=10.0)
                    break
                except AssertionError:
                    if attempt == 2:
                        raise
            assert 'No transform' not in page_text(browser)
            assert len(poses) == 14
            shots.append(settled_screenshot(browser))
        moved = (np.abs(shots[0].astype(int) - shots[1].astype(int)) > 40).any(axis=2)
        assert moved.mean() > 0.002, f'{moved.mean():.2%} of the picture changed'
        for launch in (web, node):
            assert launch.interrupt() == 0, launch.output()
            assert launch.leftovers() == []
    finally:
        web.close()
        node.close()


def test_page_sliders_publish_joint_states_the_node_turns_into_tf(ros2_daemon, workdir,
                                                                 hebi_import, browser):
    from selenium.webdriver.common.keys import Keys
    launch = Background(VIEW_WEB, cwd=workdir)
    try:
        launch.wait_for(r'robot "A-2085-06" from ')
        url = launch.wait_for(URL).group(1)
        assert 'joint_state_publisher-' not in launch.output()
        browser.get(url)
        wait_text(browser, r'robot_description: 14 links', 30)
        deadline = time.monotonic() + 30
        while len(sliders(browser)) != 6 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert slider_labels(browser) == ['J1', 'J2', 'J3', 'J4', 'J5', 'J6']
        slider(browser, 'J1').send_keys(Keys.END)
        slider(browser, 'J3').send_keys(Keys.ARROW_RIGHT * 200)
        slider(browser, 'J5').send_keys(Keys.ARROW_LEFT * 50)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            q = [float(s.get_attribute('aria-valuenow')) for s in sliders(browser)]
            if q[2] == pytest.approx(0.2) and q[4] == pytest.approx(-0.05):
                break
            time.sleep(0.1)
        assert q[0] == pytest.approx(np.pi, abs=1e-6) and q[1] == q[3] == q[5] == 0.0
        time.sleep(1.0)  # the web view publishes at 10 Hz, the node /tf at 20 Hz
        moving, static = run_all([ECHO_TF_ANY, ECHO_TF_STATIC], cwd=workdir)
        tree = transforms(echoed(static.output) + echoed(moving.output))
        pose = chain(tree, 'base_link', 'end_effector')
        expected = hebi_import[0](f'{workdir}/{KIT}').get_end_effector(np.array(q))
        np.testing.assert_allclose(pose, expected, atol=1e-9, rtol=0)
        # the page draws what /tf says
        wait_poses(browser, expected_poses(hebi_import, f'{workdir}/{KIT}', q))
        assert launch.interrupt() == 0, launch.output()
        assert launch.leftovers() == []
    finally:
        launch.close()
