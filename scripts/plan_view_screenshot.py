#!/usr/bin/env python3
"""Screenshot of "plan and go" in ``hrdf view`` for the docs (doc/images/plan_view.png):
the kit on a floor, the planned path of its end effector drawn, the arm at the goal.

Usage (from the repository root, after ``make test`` installed chromium and selenium):
    .venv/bin/python scripts/plan_view_screenshot.py            # the picture of the docs
    .venv/bin/python scripts/plan_view_screenshot.py -o out.png

Runs the real command, ``hrdf view FILE --meshes package --floor -0.02 --positions START``
(HEBI's description package on the ament index as scripts/view_screenshot.py puts it;
``--meshes primitives``, as the tests run it: the parts drawn as primitives),
opens the page in headless chromium, chooses "handle: plan and go", sends the messages a
drag of the handle sends (viser's websocket, msgpack) to the end effector's pose at GOAL
(hrdf_ros's FK), waits for the panel's "planned" and for the end of the motion, and
writes the settled page as a palette PNG. Exit code 0 when the picture was written.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from view_screenshot import (HEBI_DESCRIPTION, KIT, REPO, chromium,  # noqa: E402
                             save_palette, served_view, settled)

START = '0.6 1.2 1.8 0.3 1.2 0.0'
GOAL = '-0.8 1.2 1.8 -0.4 1.2 0.0'
FLOOR = '-0.02'
#: Camera (viser URL parameters: world position, look-at point, z up, fov in rad).
CAMERA = '?initialCameraPosition=0.95,-1.05,0.75&initialCameraLookAt=0.2,0.0,0.12' \
         '&initialCameraUp=0,0,1&initialCameraFov=0.75'


def drag(url: str, pose) -> None:
    """The messages a drag of the first handle to ``pose`` ((4, 4), m) sends."""
    import msgspec
    import viser
    import websockets.sync.client
    from hrdf_ros.kinematics.rotations import rotation_to_quaternion
    x, y, z, w = (float(v) for v in rotation_to_quaternion(pose[:3, :3]))
    socket = websockets.sync.client.connect(
        url.replace('http://', 'ws://', 1), subprotocols=[f'viser-v{viser.__version__}'],
        max_size=None, open_timeout=20)
    try:
        for message in ({'type': 'TransformControlsDragStartMessage'},
                        {'type': 'TransformControlsUpdateMessage', 'wxyz': [w, x, y, z],
                         'position': [float(v) for v in pose[:3, 3]]},
                        {'type': 'TransformControlsDragEndMessage'}):
            socket.send(msgspec.msgpack.encode({**message, 'owner': '',
                                                'name': '/ik_handles/0'}))
        time.sleep(0.5)
    finally:
        socket.close()


def screenshot(url: str, goal, out: str, colours: int) -> None:
    """Plan and go to ``goal`` in headless chromium, then save the settled page."""
    from selenium.webdriver.common.by import By
    with chromium() as driver:
        def wait_for(text: str, seconds: float) -> None:
            deadline = time.monotonic() + seconds
            while text not in driver.find_element(By.TAG_NAME, 'body').text:
                if time.monotonic() > deadline:
                    raise RuntimeError(f'the page did not show "{text}" within {seconds} s')
                time.sleep(0.2)

        driver.get(url + CAMERA)
        wait_for('Collisions: none', 60)
        for button in driver.find_elements(By.CSS_SELECTOR,
                                           '.mantine-Notification-closeButton'):
            button.click()
        driver.find_element(By.XPATH, "//*[normalize-space(text())='handle']/ancestor::*"
                                      "[.//input][1]//input").click()
        driver.find_element(By.XPATH, "//*[@role='option'][normalize-space(.)='plan and go']"
                            ).click()
        drag(url, goal)
        wait_for('planned:', 20)
        shot = settled(driver, time.monotonic() + 30)
    save_palette(shot, out, colours)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hebi-description', default=HEBI_DESCRIPTION,
                        help="HEBI's hebi_description package folder (its meshes)")
    parser.add_argument('--colours', type=int, default=96, help='palette size')
    parser.add_argument('--meshes', choices=('package', 'primitives'), default='package',
                        help="HEBI's meshes (the picture of the docs) or primitives")
    parser.add_argument('-o', '--output',
                        default=os.path.join(REPO, 'doc', 'images', 'plan_view.png'))
    args = parser.parse_args(argv)
    import numpy as np
    from hrdf_ros import Kinematics, load
    goal = Kinematics(load(KIT)).end_effector(np.array([float(v) for v in GOAL.split()]))
    with served_view([KIT, '--floor', FLOOR, '--positions', START],
                     args.hebi_description, args.meshes) as url:
        if url is None:
            print('plan_view_screenshot: hrdf view did not start', file=sys.stderr)
            return 1
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        screenshot(url, goal, args.output, args.colours)
    print(f'{args.output}: {os.path.getsize(args.output)} bytes')
    return 0


if __name__ == '__main__':
    sys.exit(main())
