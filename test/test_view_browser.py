"""``hrdf view`` in a real browser (headless chromium, software WebGL, selenium).

Each test starts the real command (``hrdf view FILE --port 0``), opens its URL (the
first stdout line) and looks at the page as a user does: the robot is drawn (pixels
differ from the same page with the robot hidden, inside the robot's bounding box
projected with the camera the URL sets, the box computed by yourdfpy from the URDF
alone), one slider per degree of freedom labelled with the URDF joint name, keys on a
slider move the joint on the server and the readout, which equals the real ``hrdf fk``
at the positions the page shows to 1e-9, and edits of the file on disk are redrawn or
their located errors shown (the seconds it took printed). Every page load is checked for
requests leaving 127.0.0.1 (chromium's performance log); every server is stopped with
SIGINT and must exit 0 with no process left (checked by PID).
"""
import io
import json
import os
import re
import shutil
import subprocess
import time

import numpy as np
import pytest

from browser import browser, view  # noqa: F401 - the fixtures
from browser import (checkbox, chromium, open_page, click_button, code_blocks,
                     outside_requests, page_text, project, require_browser, requested_urls,
                     settled_screenshot, slider, slider_labels, sliders, wait_text)
from conftest import KITS_DIR, REPO
from hebi_description import HEBI_DESCRIPTION, require_hebi_description
from hrdf_ros import load, to_urdf
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.kinematics.rotations import rpy_to_rotation

require_browser()
require_hebi_description()

HRDF_CLI = os.path.join(os.path.dirname(os.sys.executable), 'hrdf')
#: (kit, drawn with HEBI's meshes from hebi_description through the ament index)
KITS = [('A-2085-06', True), ('A-2580-06G', False), ('R-Series-Double-Shoulder-7DOF', True)]
#: A pixel "differs" above this many 8-bit levels in some channel.
PIXEL_DIFFERENCE = 40
#: Seconds a file edit may take to show (a bound against a hang, not a speed goal: the
#: view looks at the file every 0.2 s and redraws in well under a second alone, more
#: on a machine that runs other tests beside it).
RELOAD_WAIT = 30.0
#: The tests of what the page does draw the parts as primitives: a frame of HEBI's meshes
#: costs SwiftShader about 0.6 CPU s here (an idle page of a 6-DoF kit: 0.8 core, against
#: 0.3 with primitives), and under load each wait of a test on the page waited for such
#: frames. The kits' looks are drawn with meshes (test_kit_is_drawn..., the README
#: picture).
PRIMITIVES = ('--meshes', 'primitives')



PAGE = b"""<html><body><script>
fetch('http://hrdf-ros.invalid/fetch').catch(() => {});
new Worker(URL.createObjectURL(new Blob(
  ["new WebSocket('ws://hrdf-ros.invalid/ws')"], {type: 'text/javascript'})));
</script></body></html>"""


#: what the proxy gets from that page: the fetch, and the worker's websocket (tunnelled)
CAUGHT = {'GET http://hrdf-ros.invalid/fetch HTTP/1.1', 'CONNECT hrdf-ros.invalid:80 HTTP/1.1'}


def test_requests_for_other_hosts_are_seen():
    """The checks see a page's request for another host, and its worker's websocket."""
    import http.server
    import threading

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header('Content-Type', 'text/html')
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with chromium() as driver:
            driver.get(f'http://127.0.0.1:{server.server_address[1]}/')
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not CAUGHT <= set(driver.outside):
                time.sleep(0.1)
            assert outside_requests(requested_urls(driver)) == ['http://hrdf-ros.invalid/fetch']
    finally:
        server.shutdown()
        server.server_close()
    assert sorted(outside_requests([u for u, _ in driver.page_requests])) == [
        'http://hrdf-ros.invalid/fetch', 'ws://hrdf-ros.invalid/ws']
    assert CAUGHT <= set(driver.outside)



def kit_path(kit):
    return os.path.join(KITS_DIR, f'{kit}.hrdf')


def independent_bounds(urdf_text: str) -> np.ndarray:
    """(2, 3) bounds of the URDF's visuals at zero joint values, by yourdfpy alone
    (meshes: package://hebi_description -> the shared copy)."""
    import yourdfpy

    def handler(fname):
        name = fname
        if name.startswith('package://hebi_description/'):
            return os.path.join(HEBI_DESCRIPTION, name[len('package://hebi_description/'):])
        return name[len('file://'):] if name.startswith('file://') else name

    robot = yourdfpy.URDF.load(io.BytesIO(urdf_text.encode()), build_scene_graph=True,
                               load_meshes=True, filename_handler=handler)
    return np.asarray(robot.scene.bounds)


@pytest.mark.parametrize('kit,meshes', KITS, ids=[k for k, _ in KITS])
def test_kit_is_drawn_with_one_slider_per_joint(browser, view, kit, meshes):
    model = load(kit_path(kit))
    tree = build_frame_tree(model)
    process = view(kit_path(kit), '--meshes', 'package' if meshes else 'primitives')
    joints = tree.dof_names + tree.gripper_joint_names   # a G kit: gripper_joint too
    open_page(browser, process, len(joints))
    assert len(sliders(browser)) == len(joints)
    assert slider_labels(browser) == joints
    assert 'not drawn' not in page_text(browser) and 'no such file' not in page_text(browser)
    shown = settled_screenshot(browser)
    checkbox(browser, 'robot').click()
    empty = settled_screenshot(browser)
    checkbox(browser, 'robot').click()
    canvas = browser.find_element('tag name', 'canvas').rect
    low, high = independent_bounds(to_urdf(model, kit,
                                            meshes='package' if meshes else 'primitives'))
    corners = np.array([[x, y, z] for x in (low[0], high[0]) for y in (low[1], high[1])
                        for z in (low[2], high[2])])
    pixels = project(corners, canvas)
    x0, y0 = np.floor(pixels.min(axis=0)).astype(int)
    x1, y1 = np.ceil(pixels.max(axis=0)).astype(int)
    height, width = shown.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    assert x1 - x0 > 50 and y1 - y0 > 50, (x0, y0, x1, y1)
    differs = (np.abs(shown.astype(int) - empty.astype(int)) > PIXEL_DIFFERENCE).any(axis=2)
    inside = differs[y0:y1, x0:x1].mean()
    assert inside > 0.05, f'{inside:.1%} of the projected box differs from the empty scene'
    # and the robot is where the box says: most differing pixels are inside it (shadows
    # on the ground may fall outside)
    assert differs[y0:y1, x0:x1].sum() > 0.6 * differs.sum()


def _fk_command(driver) -> list:
    """Positions of the page's ``hrdf fk ... --positions "..."`` command."""
    [command] = [b for b in code_blocks(driver) if b.startswith('hrdf fk ')]
    return [float(v) for v in re.search(r'--positions "([^"]*)"', command).group(1).split()]


def _readout(driver):
    """(xyz (m), rpy (rad)) of the page's first end-effector readout."""
    [block] = [b for b in code_blocks(driver) if 'roll' in b]
    rows = re.findall(r'^([xyz])\s+(\S+) m\s+(roll|pitch|yaw)\s+(\S+) rad$', block, re.M)
    assert [r[0] for r in rows[:3]] == ['x', 'y', 'z'], block
    return (np.array([float(r[1]) for r in rows[:3]]),
            np.array([float(r[3]) for r in rows[:3]]))


def _cli_fk(path, positions):
    result = subprocess.run([HRDF_CLI, 'fk', path, '--json', '--positions',
                             ' '.join(repr(v) for v in positions)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return np.array(json.loads(result.stdout)['frames'][0])


def test_slider_keys_move_the_joint_and_the_readout_equals_hrdf_fk(browser, view):
    from selenium.webdriver.common.keys import Keys
    path = kit_path('A-2085-06')
    process = view(path, *PRIMITIVES)
    open_page(browser, process, 6)
    assert _fk_command(browser) == [0.0] * 6
    before = _readout(browser)
    slider(browser, 'J1').send_keys(Keys.END)                  # to the top of the range
    slider(browser, 'J2').send_keys(Keys.ARROW_RIGHT * 25)     # 25 steps of 1e-3 rad
    slider(browser, 'J4').send_keys(Keys.ARROW_LEFT * 10)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        q = _fk_command(browser)
        if q[3] == pytest.approx(-0.010, abs=1e-12):
            break
        time.sleep(0.1)
    assert q[0] == pytest.approx(np.pi, abs=1e-6) and q[1] == pytest.approx(0.025, abs=1e-12)
    assert q[2] == q[4] == q[5] == 0.0
    xyz, rpy = _readout(browser)
    assert not np.allclose(xyz, before[0], atol=1e-3)
    frame = _cli_fk(path, q)
    np.testing.assert_allclose(xyz, frame[:3, 3], atol=1e-9, rtol=0)
    np.testing.assert_allclose(rpy_to_rotation(*rpy), frame[:3, :3], atol=1e-9, rtol=0)
    click_button(browser, 'zero')
    wait_text(browser, r'--positions "0\.0 0\.0 0\.0 0\.0 0\.0 0\.0"')


def test_random_button_stays_in_the_limits(browser, view, tmp_path):
    limits = tmp_path / 'limits.yaml'
    limits.write_text('J1: [-0.5, 0.25]\nJ2: [0.1, 0.2]\n')
    process = view(kit_path('A-2085-06'), *PRIMITIVES, '--limits', str(limits))
    open_page(browser, process, 6)
    assert slider(browser, 'J1').get_attribute('aria-valuemin') == '-0.5'
    assert slider(browser, 'J2').get_attribute('aria-valuemax') == '0.2'
    for _ in range(3):
        click_button(browser, 'random')
        time.sleep(0.3)
        q = _fk_command(browser)
        assert -0.5 <= q[0] <= 0.25 and 0.1 <= q[1] <= 0.2
        assert all(-np.pi <= v <= np.pi for v in q)


def test_edits_on_disk_are_redrawn_or_their_errors_shown(browser, view, tmp_path):
    from selenium.webdriver.common.keys import Keys
    path = tmp_path / 'arm.hrdf'
    shutil.copy(kit_path('A-2085-06'), path)
    original = path.read_text()
    process = view(str(path), *PRIMITIVES)
    open_page(browser, process, 6)
    slider(browser, 'J1').send_keys(Keys.ARROW_RIGHT * 20)
    wait_text(browser, r'--positions "0\.02 0\.0')
    before, _ = _readout(browser)
    # a valid edit: a longer first link; the drawn robot and the readout change, J1 keeps
    # its value
    match = re.search(r'extension="([0-9.]+)"', original)
    longer = original.replace(match.group(0), f'extension="{float(match.group(1)) + 0.1}"', 1)
    path.write_text(longer)
    seconds = wait_text(browser, re.escape(f'x {before[0]: .9f} m'), timeout=RELOAD_WAIT,
                        absent=True)
    print(f'valid edit redrawn in {seconds:.2f} s')
    assert _fk_command(browser)[0] == pytest.approx(0.02, abs=1e-12)
    after, _ = _readout(browser)
    np.testing.assert_allclose(after, _cli_fk(str(path), _fk_command(browser))[:3, 3],
                               atol=1e-9, rtol=0)
    # an invalid edit: the located error is shown, the last valid robot stays
    line = next(k for k, text in enumerate(longer.splitlines(), 1) if 'type="X8-9"' in text)
    path.write_text(longer.replace('type="X8-9"', 'type="X8-99"', 1))
    seconds = wait_text(browser, rf'arm\.hrdf:{line}:\d+: error: .*X8-99', timeout=RELOAD_WAIT)
    print(f'invalid edit shown in {seconds:.2f} s')
    assert 'the last valid robot stays' in page_text(browser)
    assert len(sliders(browser)) == 6
    np.testing.assert_allclose(_readout(browser)[0], after, atol=0)
    # fixed again: the errors go
    path.write_text(original)
    seconds = wait_text(browser, 'error:', timeout=RELOAD_WAIT, absent=True)
    print(f'fixed file redrawn in {seconds:.2f} s')
    np.testing.assert_allclose(_readout(browser)[0], before, atol=1e-9)
    assert 'Traceback' not in process.stderr()


def test_share_button_is_hidden_and_the_server_listens_on_127_0_0_1(browser, view):
    process = view(kit_path('A-2085-06'), *PRIMITIVES)
    open_page(browser, process, 6)
    assert browser.find_elements('css selector', '.tabler-icon-share') == []
    port = int(process.url.rsplit(':', 1)[1].strip('/'))
    listening = []
    for table in ('/proc/net/tcp', '/proc/net/tcp6'):
        with open(table) as handle:
            for row in handle.read().splitlines()[1:]:
                local, state = row.split()[1], row.split()[3]
                if state == '0A' and int(local.split(':')[1], 16) == port:
                    listening.append(local.split(':')[0])
    assert listening == ['0100007F']  # 127.0.0.1 only


def test_the_readme_picture_is_made_by_its_script(tmp_path):
    """scripts/view_screenshot.py (doc/images/hrdf_view.png): the kit with HEBI's meshes, in
    HEBI red, at a non-zero pose, as a small palette PNG."""
    import importlib.util

    from PIL import Image
    spec = importlib.util.spec_from_file_location(
        'view_screenshot', os.path.join(REPO, 'scripts', 'view_screenshot.py'))
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert any(float(v) for v in script.POSITIONS.split())
    out = tmp_path / 'view.png'
    assert script.main(['-o', str(out)]) == 0
    assert out.stat().st_size < 150_000
    image = np.asarray(Image.open(out).convert('RGB')).astype(int)
    red = (image[..., 0] > 150) & (image[..., 1] < 80) & (image[..., 2] < 80)
    assert red.mean() > 0.01, f'{red.mean():.2%} HEBI red'
