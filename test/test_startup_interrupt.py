"""A Ctrl-C while a program is still starting (importing numpy, rclpy, viser) ends it
quietly: one line, the program's own exit code for an interruption, never a Python
traceback, never a hang (hrdf_ros/entry_points.py and the lazy hrdf_ros/__init__.py).

SIGINT is sent 0 to 0.6 s after the program started importing numpy (its
``_multiarray_umath`` library appears in the process's memory maps), from the middle of
the first imports to a running program. Earlier, Python is still in its own start-up
(``site`` and the ``.pth`` files of the environment), which no program can catch, and
which takes longer the busier the machine is.
"""
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import BUNDLED_ARM, KITS_DIR

BIN = os.path.dirname(sys.executable)
DELAYS = (0.0, 0.05, 0.1, 0.2, 0.4, 0.6)


def importing_numpy(pid: int) -> bool:
    try:
        with open(f'/proc/{pid}/maps') as handle:
            return '_multiarray_umath' in handle.read()
    except OSError:
        return False


def interrupted(args, delay, env=None):
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 30
    while not importing_numpy(process.pid) and process.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.002)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f'no exit within 60 s of SIGINT at {delay} s: {args}\n{err[-2000:]}')
    assert 'Traceback' not in err and 'KeyboardInterrupt' not in err, err
    return process.returncode, err


@pytest.mark.parametrize('delay', DELAYS)
def test_hrdf_validate(delay):
    code, err = interrupted([os.path.join(BIN, 'hrdf'), 'validate',
                             os.path.join(KITS_DIR, 'A-2099-07G.hrdf')], delay)
    # 0: done before the signal; 130: interrupted; -SIGINT: the signal came while Python
    # was exiting after the work was done (its handlers reset), as the shell's 130
    assert code in (0, 130, -signal.SIGINT), err
    assert (code == 130) == ('hrdf: interrupted' in err), err


@pytest.mark.parametrize('delay', DELAYS)
def test_hrdf_view(delay):
    pytest.importorskip('viser')
    code, err = interrupted([os.path.join(BIN, 'hrdf'), 'view', BUNDLED_ARM, '--port', '0',
                             '--meshes', 'primitives'], delay)
    assert code == 0, err


@pytest.mark.parametrize('delay', DELAYS)
def test_hrdf_ros_node(delay):
    pytest.importorskip('rclpy')
    code, err = interrupted([os.path.join(BIN, 'hrdf_ros_node'), '--ros-args', '-p',
                             f'hrdf_file:={BUNDLED_ARM}'], delay)
    assert code == 0, err
