#!/usr/bin/env python3
"""Screenshot of ``hrdf view`` for the README and the docs (doc/images/hrdf_view.png).

Usage (from the repository root, after ``make test`` installed chromium and selenium):
    .venv/bin/python scripts/view_screenshot.py            # the picture of the README and the docs
    .venv/bin/python scripts/view_screenshot.py ROBOT.hrdf --positions "..." -o out.png

Runs the real command, ``hrdf view FILE --meshes package --positions ... --port 0``, with
HEBI's description package (default ``../shared/hebi_description``) on the ament index
through a temporary prefix (a link; nothing is copied), opens the page in headless
chromium (software WebGL), closes the "software rendering" notice, waits until two
frames in a row are the same, and writes the screenshot as a palette PNG (a few tens of
kB). Exit code 0 when the picture was written.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.join(REPO, '..', 'shared', 'hrdf', 'kits', 'A-2085-06.hrdf')
HEBI_DESCRIPTION = os.path.join(REPO, '..', 'shared', 'hebi_description')
POSITIONS = '0.4 0.75 1.6 0.5 1.1 0.0'
#: Camera (viser URL parameters: world position, look-at point, z up, fov in rad).
CAMERA = '?initialCameraPosition=0.62,-0.82,0.45&initialCameraLookAt=0.42,0.0,0.16' \
         '&initialCameraUp=0,0,1&initialCameraFov=0.75'
FLAGS = ['--headless=new', '--no-sandbox', '--enable-unsafe-swiftshader',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--no-first-run', '--disable-quic', '--hide-scrollbars', '--window-size=1100,760']


def ament_prefix(description: str) -> str:
    """A temporary ament prefix whose share/hebi_description links to ``description``."""
    prefix = tempfile.mkdtemp(prefix='hebi_description_prefix_')
    index = os.path.join(prefix, 'share', 'ament_index', 'resource_index', 'packages')
    os.makedirs(index)
    open(os.path.join(index, 'hebi_description'), 'w').close()
    os.symlink(os.path.abspath(description), os.path.join(prefix, 'share', 'hebi_description'))
    return prefix


@contextlib.contextmanager
def chromium():
    """Headless Debian chromium (software WebGL, :data:`FLAGS`) driven by selenium, with a
    profile of its own that goes with it."""
    from selenium import webdriver
    profile = tempfile.mkdtemp(prefix='hrdf_view_chromium_')
    options = webdriver.ChromeOptions()
    options.binary_location = '/usr/lib/chromium/chromium'
    for flag in FLAGS + [f'--user-data-dir={profile}']:
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(
        executable_path='/usr/bin/chromedriver'))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@contextlib.contextmanager
def served_view(arguments, description: str, meshes: str = 'package'):
    """``hrdf view ARGUMENTS --meshes MESHES --port 0`` with HEBI's description package
    (folder ``description``) on the ament index; yields the page's URL (None when the
    command did not start); stopped with SIGINT at the end."""
    prefix = ament_prefix(description)
    env = dict(os.environ, AMENT_PREFIX_PATH=os.pathsep.join(
        [prefix] + [p for p in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p]))
    hrdf = os.path.join(os.path.dirname(sys.executable), 'hrdf')
    view = subprocess.Popen([hrdf, 'view', *arguments, '--meshes', meshes, '--port', '0'],
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        url = view.stdout.readline().strip()
        yield url if url.startswith('http://') else None
    finally:
        view.send_signal(signal.SIGINT)
        view.wait(20)
        shutil.rmtree(prefix, ignore_errors=True)


def save_palette(shot: bytes, out: str, colours: int) -> None:
    """A PNG screenshot saved as a palette PNG of ``colours`` colours."""
    from PIL import Image
    image = Image.open(io.BytesIO(shot)).convert('RGB')
    image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)


def settled(driver, deadline: float) -> bytes:
    """A PNG screenshot once two in a row, 1 s apart, are the same (or at ``deadline``,
    monotonic time)."""
    previous, shot = None, driver.get_screenshot_as_png()
    while shot != previous and time.monotonic() < deadline:
        time.sleep(1.0)
        previous, shot = shot, driver.get_screenshot_as_png()
    return shot


def screenshot(url: str, out: str, colours: int) -> None:
    """Open ``url`` in headless chromium and save the settled page as a palette PNG."""
    from selenium.webdriver.common.by import By
    with chromium() as driver:
        driver.get(url + CAMERA)
        deadline = time.monotonic() + 60
        while 'End effector' not in driver.find_element(By.TAG_NAME, 'body').text:
            if time.monotonic() > deadline:
                raise RuntimeError('the page did not show the robot within 60 s')
            time.sleep(0.2)
        for button in driver.find_elements(By.CSS_SELECTOR,
                                           '.mantine-Notification-closeButton'):
            button.click()
        shot = settled(driver, deadline)
    save_palette(shot, out, colours)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('hrdf', nargs='?', default=KIT, help='HRDF file (default: kit '
                                                             'A-2085-06)')
    parser.add_argument('--positions', default=POSITIONS, help='HEBI joint positions')
    parser.add_argument('--hebi-description', default=HEBI_DESCRIPTION,
                        help="HEBI's hebi_description package folder (its meshes)")
    parser.add_argument('--colours', type=int, default=96, help='palette size')
    parser.add_argument('-o', '--output',
                        default=os.path.join(REPO, 'doc', 'images', 'hrdf_view.png'))
    args = parser.parse_args(argv)
    with served_view([args.hrdf, '--positions', args.positions],
                     args.hebi_description) as url:
        if url is None:
            print('view_screenshot: hrdf view did not start', file=sys.stderr)
            return 1
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        screenshot(url, args.output, args.colours)
    print(f'{args.output}: {os.path.getsize(args.output)} bytes')
    return 0


if __name__ == '__main__':
    sys.exit(main())
