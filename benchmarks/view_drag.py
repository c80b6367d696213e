#!/usr/bin/env python3
"""``hrdf view``: how soon a dragged end-effector handle is shown, at 30 updates a second.

Usage (after ``make test`` installed chromium and selenium):
    .venv/bin/python benchmarks/view_drag.py [--runs 5] [HRDF]

Each run starts ``hrdf view FILE --meshes primitives --port 0`` (default: the 7-DoF kit
A-2099-07, the CLI's numpy path), opens it in an already running headless chromium
(software WebGL, as CI and robot computers without GPU have) and moves the handle from a
second websocket client, with the messages a drag in the browser sends
(test/viser_client.py), as test/test_view_browser_ik.py does. Every time is from the
message sent to the page's ``hrdf fk`` command showing positions whose FK puts the end
effector at the target (1e-4 m and rad). Reported, median and worst over the runs:

* single: one whole drag (start, one pose, end) to one target, shown; the larger of one
  sent before the fast drag and one after;
* lag: a drag of 3 s at 30 updates a second along a smooth path (90 poses), from the
  drag's end to its last pose shown;
* answer: from the drag's end to the last window of GUI updates (the sliders and the
  panel) the server sent before the page showed the last pose (negative: the answer
  came before the end);
* windows: the server's windows of GUI updates during the 3 s drag (of 90 updates:
  folded while a solve runs, not dropped), and after its end until the last pose was
  shown (a backlog would be the updates still queued);
* stop: seconds from SIGINT to the view's exit (code 0).

A benchmark, not a test: it asserts nothing.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import signal
import statistics
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'test'))

from browser import ViewProcess, chromium, code_blocks, open_page  # noqa: E402
from hebi_description import prefix_env  # noqa: E402
from viser_client import ViserClient  # noqa: E402

from hrdf_ros import Kinematics, load  # noqa: E402

KIT = os.path.join(REPO, '..', 'shared', 'hrdf', 'kits', 'A-2099-07.hrdf')
HANDLE = '/ik_handles/0'
#: Text of the IK panel: the page is up when it shows.
PANEL = 'Move the end effector'
#: the drag: updates per second, and how many
RATE, UPDATES = 30.0, 90


def shown_positions(driver):
    """The positions of the page's ``hrdf fk --positions`` command."""
    [command] = [b for b in code_blocks(driver) if b.startswith('hrdf fk ')]
    return np.array([float(v) for v in
                     re.search(r'--positions "([^"]*)"', command).group(1).split()])


def angle_between(a, b):
    return 2 * math.asin(min(np.linalg.norm(a - b) / (2 * math.sqrt(2)), 1.0))


def shown_at(driver, kinematics, target, since: float) -> float:
    """Seconds from ``since`` until the page shows the end effector at ``target``;
    RuntimeError after 120 s."""
    while True:
        try:
            reached = kinematics.end_effector(shown_positions(driver))
        except ValueError:                       # the command being replaced
            reached = None
        if reached is not None and \
                np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= 1e-4 and \
                angle_between(reached[:3, :3], target[:3, :3]) <= 1e-4:
            return time.monotonic() - since
        if time.monotonic() - since > 120:
            raise RuntimeError('the target was not shown within 120 s')
        time.sleep(0.02)


def one_run(driver, path: str):
    model = load(path)
    kinematics = Kinematics(model)
    dof = model.dof_count
    view = ViewProcess([path, '--meshes', 'primitives'], env=prefix_env())
    try:
        open_page(driver, view, dof, PANEL)
        start = np.array([0.2, 0.7, 0.0, 1.4, 0.1, 0.6, 0.0])[:dof]
        path_q = start + 0.4 * np.sin(np.linspace(0, np.pi, UPDATES))[:, None] * \
            np.array([1.0, 0.5, 0.3, -0.5, 0.4, 0.6, 0.8])[:dof]
        targets = kinematics.end_effector(path_q)
        client = ViserClient(view.url)
        try:
            single = kinematics.end_effector(start + 0.05)
            sent = time.monotonic()
            client.drag(HANDLE, single)
            before = shown_at(driver, kinematics, single, sent)
            client.start(HANDLE)
            t0 = time.monotonic()
            for k, target in enumerate(targets):
                client.move(HANDLE, target)
                time.sleep(max(0.0, t0 + (k + 1) / RATE - time.monotonic()))
            sent = time.monotonic()
            client.end(HANDLE)
            lag = shown_at(driver, kinematics, targets[-1], sent)
            answers = [t for t, types in client.windows
                       if t > t0 and t <= sent + lag and 'GuiUpdateMessage' in types]
            during = sum(t <= sent for t in answers)
            after = kinematics.end_effector(path_q[-1] - 0.05)
            sent_after = time.monotonic()
            client.drag(HANDLE, after)
            single = max(before, shown_at(driver, kinematics, after, sent_after))
        finally:
            client.close()
        driver.get('about:blank')
        code, stop, left = view.stop(signal.SIGINT, timeout=60)
        if (code, left) != (0, []):
            raise RuntimeError(f'the view exited {code}, left {left}:\n{view.stderr()}')
        return single, lag, answers[-1] - sent, during, len(answers) - during, stop
    finally:
        view.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('file', nargs='?', default=KIT)
    parser.add_argument('--runs', type=int, default=5)
    args = parser.parse_args(argv)
    print(f'load average before: {" ".join(f"{v:.1f}" for v in os.getloadavg())}')
    with chromium() as driver:
        one_run(driver, args.file)                # warm the browser's caches once
        runs = []
        for k in range(args.runs):
            runs.append(one_run(driver, args.file))
            single, lag, answer, during, after, stop = runs[-1]
            print(f'run {k + 1}: single {single:.3f} s, lag {lag:.3f} s, answer '
                  f'{answer:+.3f} s, windows {during} during + {after} after, stop '
                  f'{stop:.2f} s', flush=True)
    single, lag, answer, during, after, stop = zip(*runs)

    def cell(values, digits=3, sign=''):
        return (f'{statistics.median(values):{sign}.{digits}f} / '
                f'{max(values):{sign}.{digits}f}')
    print(f'{os.path.basename(args.file)}, {UPDATES} updates at {RATE:.0f} Hz, median / '
          f'worst of {args.runs} runs:')
    print(f'  single update shown after   {cell(single)} s')
    print(f'  last of the drag shown after {cell(lag)} s')
    print(f'  its answer, after the end   {cell(answer, sign="+")} s (median / latest)')
    print(f'  answer windows during drag  {statistics.median(during):.0f} '
          f'(fewest {min(during)}) of {UPDATES} updates')
    print(f'  answer windows after its end {statistics.median(after):.0f} '
          f'(most {max(after)})')
    print(f'  exit after SIGINT           {cell(stop, 2)} s')
    print(f'load average after: {" ".join(f"{v:.1f}" for v in os.getloadavg())}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
