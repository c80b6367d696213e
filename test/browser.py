"""A real browser for the view tests: Debian's chromium, headless, driven by selenium.

Chromium runs with software WebGL (SwiftShader: ``--enable-unsafe-swiftshader``), a
fresh profile, and every background service that would contact other hosts switched
off, so that what the performance log records is what the page asked for. Helpers read
the page as a user sees it (text, sliders by their label, checkboxes, screenshots) and
check that no request left 127.0.0.1.

``hrdf view`` runs as the real command (:class:`ViewProcess`): its first stdout line is
the URL; it is stopped with SIGINT and checked gone by PID.

Installed by ``make test`` (scripts/setup_consumers.sh: chromium, chromium-driver,
selenium); :func:`require_browser` skips a module without them (.ci/run fails on any
skip).
"""
from __future__ import annotations

import importlib.util
import io
import json
import math
import os
import re
import shutil
import signal
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from contextlib import contextmanager
from typing import List, Sequence

import numpy as np
import pytest

from cli_helpers import alive

CHROMIUM = '/usr/lib/chromium/chromium'
CHROMEDRIVER = '/usr/bin/chromedriver'
HRDF = os.path.join(os.path.dirname(sys.executable), 'hrdf')
#: Browser window, CSS pixels (device pixel ratio 1 headless).
WINDOW = (1280, 900)
FLAGS = ['--headless=new', '--no-sandbox', '--enable-unsafe-swiftshader',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--no-first-run', '--disable-quic', '--disable-default-apps',
         '--disable-extensions', f'--window-size={WINDOW[0]},{WINDOW[1]}']
#: Schemes that never leave the browser.
LOCAL_SCHEMES = {'data', 'blob', 'about', 'chrome', 'chrome-untrusted', 'chrome-search',
                 'devtools'}
#: A known camera for pixel checks (URL parameters of viser's client; fov in rad).
CAMERA = {'position': (1.1, -0.9, 0.8), 'look_at': (0.15, 0.0, 0.15), 'fov': 0.9}


def require_browser():
    """Skip the calling module when chromium, chromedriver or selenium is missing."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if importlib.util.find_spec('selenium') is None:
        missing.append('selenium')
    if missing:
        pytest.skip(f'no browser for the view tests ({", ".join(missing)}): run make '
                    'test (scripts/setup_consumers.sh installs them)',
                    allow_module_level=True)


class OutsideCatcher:
    """An HTTP proxy on 127.0.0.1 that records and refuses every request it gets.

    Chromium sends it every request for another host (``--proxy-server``; loopback
    addresses bypass a proxy by default): page requests, requests of workers (which the
    performance log does not show: viser's websocket lives in a worker), WebSocket and
    HTTPS (CONNECT) alike. :attr:`requests` holds their first lines.
    """

    def __init__(self):
        self.requests: List[str] = []
        catcher = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                self.request.settimeout(5.0)
                data = b''
                try:
                    while b'\r\n\r\n' not in data and len(data) < 65536:
                        chunk = self.request.recv(4096)
                        if not chunk:
                            break
                        data += chunk
                    catcher.requests.append(data.split(b'\r\n', 1)[0].decode('latin-1'))
                    self.request.sendall(b'HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n'
                                         b'Connection: close\r\n\r\n')
                except OSError:
                    pass

        self._server = socketserver.ThreadingTCPServer(('127.0.0.1', 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self):
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def chromium():
    """A headless chromium with a fresh profile, the performance log on, and every
    request for another host sent to an :class:`OutsideCatcher` (``driver.outside``)."""
    from selenium import webdriver
    profile = tempfile.mkdtemp(prefix='hrdf_view_chromium_')
    catcher = OutsideCatcher()
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + [f'--user-data-dir={profile}',
                         f'--proxy-server=http://127.0.0.1:{catcher.port}']:
        options.add_argument(flag)
    netlog = os.path.join(profile, 'netlog.json')
    options.add_argument(f'--log-net-log={netlog}')
    options.set_capability('goog:loggingPrefs', {'performance': 'ALL'})
    driver = webdriver.Chrome(options=options,
                              service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    driver.performance_entries = []
    driver.outside = catcher.requests
    driver.page_requests = []
    try:
        yield driver
    finally:
        driver.quit()
        catcher.close()
        driver.page_requests = page_requests(netlog)
        shutil.rmtree(profile, ignore_errors=True)


def page_requests(netlog: str) -> List[tuple]:
    """(URL, initiator origin) of every request a page or worker made, from chromium's
    net log (``--log-net-log``, complete once the browser quit). Requests of the
    browser's own services (sign-in, component updates, the search engine's preconnect,
    which chromium makes whatever the page) have no initiator origin, and those of its own
    pages (the new tab page's ``chrome://`` and ``chrome-search://`` origins) a browser
    origin: both are left out."""
    with open(netlog, encoding='utf-8') as handle:
        text = handle.read()
    try:
        log = json.loads(text)
    except ValueError:  # a browser that died leaves the event list open
        log = json.loads(text.rstrip().rstrip(',') + ']}')
    start_job = log['constants']['logEventTypes']['URL_REQUEST_START_JOB']
    out = []
    for event in log['events']:
        params = event.get('params') or {}
        if event['type'] == start_job and params.get('url'):
            initiator = params.get('initiator')
            if initiator in (None, 'not an origin'):
                continue
            if urllib.parse.urlsplit(initiator).scheme not in LOCAL_SCHEMES:
                out.append((params['url'], initiator))
    return out


def checked_browser():
    """Generator for a module-scoped fixture: one chromium; at the end, no request may
    have left 127.0.0.1: none in the performance log (the pages), none in chromium's net
    log with a page or worker as initiator (viser's websocket lives in a worker, which the
    performance log does not show). Chromium's own services (sign-in, component updates,
    the search engine's preconnect) try other hosts whatever the page does: the proxy on
    127.0.0.1 refuses them (``driver.outside``)."""
    with chromium() as driver:
        yield driver
        urls = requested_urls(driver)
        assert any(u.startswith('http://127.0.0.1:') for u in urls), urls
        assert outside_requests(urls) == []
    assert any(u.startswith('ws://127.0.0.1:') for u, _ in driver.page_requests)
    outside = set(outside_requests([u for u, _ in driver.page_requests]))
    assert [(u, i) for u, i in driver.page_requests if u in outside] == []


@pytest.fixture(scope='module')
def browser():
    """The fixture of one chromium per test module (:func:`checked_browser`: no request
    may leave 127.0.0.1); a module takes it with ``from browser import browser``."""
    yield from checked_browser()


def requested_urls(driver) -> List[str]:
    """Every URL the browser requested or opened a WebSocket to since it started."""
    for entry in driver.get_log('performance'):
        message = json.loads(entry['message'])['message']
        params = message.get('params', {})
        if message['method'] == 'Network.requestWillBeSent':
            driver.performance_entries.append(params['request']['url'])
        elif message['method'] == 'Network.webSocketCreated':
            driver.performance_entries.append(params['url'])
    return list(driver.performance_entries)


def outside_requests(urls: Sequence[str]) -> List[str]:
    """The URLs that would leave this machine: any network scheme whose host is not
    127.0.0.1, and any scheme that is neither network nor browser-internal."""
    out = []
    for url in urls:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme in LOCAL_SCHEMES:
            continue
        if parts.scheme in ('http', 'https', 'ws', 'wss') and parts.hostname == '127.0.0.1':
            continue
        out.append(url)
    return out


def camera_query(camera=CAMERA) -> str:
    """viser URL parameters that fix the camera (position, look-at, z up, fov)."""
    vec = ','.join
    return ('?initialCameraPosition=' + vec(map(str, camera['position']))
            + '&initialCameraLookAt=' + vec(map(str, camera['look_at']))
            + '&initialCameraUp=0,0,1&initialCameraFov=' + str(camera['fov']))


def project(points: np.ndarray, canvas: dict, camera=CAMERA) -> np.ndarray:
    """Pixel coordinates (x right, y down, in the screenshot) of world points seen by a
    pinhole camera at ``camera`` (vertical fov) filling ``canvas`` (selenium rect)."""
    eye = np.asarray(camera['position'], float)
    forward = np.asarray(camera['look_at'], float) - eye
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, (0.0, 0.0, 1.0))
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    d = np.asarray(points, float) - eye
    depth = d @ forward
    scale = 1.0 / math.tan(camera['fov'] / 2)
    aspect = canvas['width'] / canvas['height']
    ndc_x = (d @ right) * scale / (depth * aspect)
    ndc_y = (d @ up) * scale / depth
    return np.stack([canvas['x'] + (ndc_x + 1) / 2 * canvas['width'],
                     canvas['y'] + (1 - ndc_y) / 2 * canvas['height']], axis=1)


def screenshot(driver) -> np.ndarray:
    """(H, W, 3) uint8 screenshot."""
    from PIL import Image
    return np.asarray(Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert('RGB'))


def settled_screenshot(driver, timeout: float = 15.0) -> np.ndarray:
    """A screenshot once two in a row, 0.5 s apart, are the same (rendering done)."""
    deadline = time.monotonic() + timeout
    previous = screenshot(driver)
    while True:
        time.sleep(0.5)
        current = screenshot(driver)
        if np.array_equal(previous, current) or time.monotonic() > deadline:
            return current
        previous = current


def page_text(driver) -> str:
    """The page's visible text (NoSuchElementException while there is no body)."""
    from selenium.webdriver.common.by import By
    return driver.find_element(By.TAG_NAME, 'body').text


def _text_so_far(driver):
    """:func:`page_text`, or None while the page is being loaded or replaced (no body
    yet, or the body just replaced): the waits below then poll again, whichever way
    they wait."""
    from selenium.common.exceptions import (NoSuchElementException,
                                            StaleElementReferenceException)
    try:
        return page_text(driver)
    except (NoSuchElementException, StaleElementReferenceException):
        return None


def wait_text(driver, pattern: str, timeout: float = 30.0, absent: bool = False) -> float:
    """Wait until the page text matches (or, ``absent``, no longer matches) the regular
    expression, at most ``timeout`` s (a hang guard: then the test fails); returns the
    seconds it took (to print, never to assert)."""
    start = time.monotonic()
    while True:
        text = _text_so_far(driver)
        if text is not None and (re.search(pattern, text) is not None) != absent:
            return time.monotonic() - start
        if time.monotonic() - start > timeout:
            raise AssertionError(f'{"still" if absent else "no"} "{pattern}" in the page '
                                 f'after {timeout} s:\n{_text_so_far(driver)}')
        time.sleep(0.05)


def sliders(driver):
    """The page's sliders (role=slider thumbs), in page order."""
    from selenium.webdriver.common.by import By
    return driver.find_elements(By.CSS_SELECTOR, '[role=slider]')


def open_page(driver, process, slider_count: int, text: str = 'End effector'):
    """Open an ``hrdf view`` page (at :func:`camera_query`'s camera), wait up to 60 s for
    ``text`` and up to 30 s more for ``slider_count`` sliders; it fetched nothing from
    outside the machine."""
    driver.get(process.url + camera_query())
    wait_text(driver, text, timeout=60)
    deadline = time.monotonic() + 30
    while len(sliders(driver)) != slider_count and time.monotonic() < deadline:
        time.sleep(0.1)
    assert outside_requests(requested_urls(driver)) == []


def slider(driver, label: str):
    """The slider labelled ``label``."""
    from selenium.webdriver.common.by import By
    return driver.find_element(
        By.XPATH, f"//*[normalize-space(text())='{label}']/ancestor::*"
                  f"[.//*[@role='slider']][1]//*[@role='slider']")


def slider_labels(driver) -> List[str]:
    """The label next to each slider, in page order."""
    from selenium.webdriver.common.by import By
    labels = []
    for thumb in sliders(driver):
        row = thumb.find_element(By.XPATH, "ancestor::*[count(.//*[@role='slider'])=1]"
                                           "[.//*[normalize-space(text())!='']][last()]")
        labels.append(row.text.split('\n')[0].strip())
    return labels


def checkbox(driver, label: str):
    """The checkbox input labelled ``label``."""
    from selenium.webdriver.common.by import By
    return driver.find_element(
        By.XPATH, f"//*[normalize-space(text())='{label}']/ancestor::*"
                  f"[.//input[@type='checkbox']][1]//input[@type='checkbox']")


def pixels_a_checkbox_changes(driver, label: str, level: int = 60) -> int:
    """How many pixels of the settled picture change (by more than ``level`` summed over
    the channels) when the checkbox ``label`` is switched; it is switched back after."""
    shown = settled_screenshot(driver).astype(int)
    checkbox(driver, label).click()
    hidden = settled_screenshot(driver).astype(int)
    checkbox(driver, label).click()
    settled_screenshot(driver)
    return int((np.abs(shown - hidden).sum(axis=2) > level).sum())


#: Tries of a click that another element (a panel still sliding into place) receives,
#: 0.1 s apart.
CLICK_TRIES = 100


def click_button(driver, text: str):
    """Click the button labelled ``text``; while another element is on top of it (a
    folder still opening), again, up to :data:`CLICK_TRIES` times."""
    from selenium.common.exceptions import ElementClickInterceptedException
    from selenium.webdriver.common.by import By
    for attempt in range(CLICK_TRIES):
        try:
            driver.find_element(By.XPATH, f"//button[normalize-space(.)='{text}']").click()
            return
        except ElementClickInterceptedException:
            if attempt == CLICK_TRIES - 1:
                raise
            time.sleep(0.1)


def code_blocks(driver) -> List[str]:
    """Text of the page's code blocks (the readout, the command, errors)."""
    from selenium.webdriver.common.by import By
    return [e.text for e in driver.find_elements(By.TAG_NAME, 'pre')]


def descendants(pid: int) -> List[int]:
    """PIDs of the live processes below ``pid``."""
    children = {}
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open(f'/proc/{entry}/stat') as handle:
                    ppid = int(handle.read().rsplit(')', 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, work = [], [pid]
    while work:
        for child in children.get(work.pop(), []):
            out.append(child)
            work.append(child)
    return out


class ViewProcess:
    """``hrdf view ARGS --port 0`` as a user runs it, in its own session.

    Attributes:
        url: the first stdout line.
        started: seconds from start to that line.
    """

    def __init__(self, args: Sequence[str], env=None, cwd=None, timeout: float = 60.0):
        self._err = tempfile.TemporaryFile(mode='w+')
        t0 = time.monotonic()
        # faulthandler on: a hang guard's SIGABRT prints every thread's stack (stop())
        env = dict(os.environ if env is None else env, PYTHONFAULTHANDLER='1')
        self.process = subprocess.Popen([HRDF, 'view', '--port', '0', *args],
                                        stdout=subprocess.PIPE, stderr=self._err, text=True,
                                        env=env, cwd=cwd, start_new_session=True)
        self.pid = self.process.pid
        self.rest = []
        line = self._readline(timeout)
        self.started = time.monotonic() - t0
        assert line.startswith('http://127.0.0.1:'), (line, self.stderr())
        self.url = line.strip()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _readline(self, timeout: float) -> str:
        result = []
        reader = threading.Thread(target=lambda: result.append(self.process.stdout.readline()),
                                  daemon=True)
        reader.start()
        reader.join(timeout)
        if not result:
            self.kill()
            raise AssertionError(f'no URL from hrdf view within {timeout} s:\n{self.stderr()}')
        return result[0]

    def _drain(self):
        for line in self.process.stdout:
            self.rest.append(line)

    def stderr(self) -> str:
        self._err.seek(0)
        return self._err.read()

    def rss_kib(self) -> int:
        """Resident memory of the server (VmRSS), KiB."""
        with open(f'/proc/{self.pid}/status') as handle:
            return int(re.search(r'VmRSS:\s+(\d+)', handle.read()).group(1))

    def stop(self, sig=signal.SIGINT, timeout: float = 30.0):
        """Send ``sig``; returns (exit code, seconds to exit, PIDs still alive). No exit
        within ``timeout`` s (a hang guard) is an AssertionError. The seconds are for
        benchmarks (benchmarks/view_drag.py); tests assert the code and the PIDs."""
        pids = [self.pid] + descendants(self.pid)
        t0 = time.monotonic()
        self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGABRT)    # faulthandler: the stacks
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                pass
            raise AssertionError(f'hrdf view did not exit within {timeout} s of signal '
                                 f'{sig}; its threads, at SIGABRT:\n{self.stderr()}') from None
        elapsed = time.monotonic() - t0
        return code, elapsed, [p for p in pids if alive(p)]

    def kill(self):
        if self.process.poll() is None:
            os.killpg(self.pid, signal.SIGKILL)
            self.process.wait()

    def close(self):
        self.kill()
        self._err.close()


def view_processes(env_for):
    """A fixture body: yields ``start(*args, env=None)``, which starts ``hrdf view`` with
    those arguments (environment ``env``, else ``env_for()``); at the end every process
    started is stopped with SIGINT and must exit 0 (waited for up to 30 s), with no
    process left and no traceback."""
    started = []

    def start(*args, env=None):
        process = ViewProcess(list(args), env=env or env_for())
        started.append(process)
        return process

    yield start
    for process in started:
        try:
            code, _, left = process.stop(signal.SIGINT)
            assert (code, left) == (0, []), process.stderr()
            assert 'Traceback' not in process.stderr()
        finally:
            process.close()


@pytest.fixture
def view():
    """The fixture that starts ``hrdf view`` with a test's arguments (HEBI's description
    package on the ament prefix) and stops it with SIGINT at the end: exit 0, no process
    left (:func:`view_processes`)."""
    from hebi_description import prefix_env
    yield from view_processes(prefix_env)
