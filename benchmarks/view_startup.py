#!/usr/bin/env python3
"""``hrdf view``: time from the command to the robot visible in a browser, and memory.

Usage (after ``make test`` installed chromium and selenium):
    .venv/bin/python benchmarks/view_startup.py [--runs 5] [HRDF ...]

For each file, with ``--meshes package`` and ``--meshes primitives`` (HEBI's meshes through an ament prefix
linking ../shared/hebi_description), each run starts ``hrdf view FILE --port 0`` and, as
soon as the URL is on stdout, opens it in an already running headless chromium
(software WebGL, as CI and robot computers without GPU have). Reported, median and
worst over the runs:

* URL: seconds from the command's start to its first stdout line;
* visible: seconds from the command's start to the first screenshot in which at least
  0.5 % of the pixels are HEBI red (the actuators);
* RSS / peak: the server's resident memory once the robot is visible, and its peak
  (VmRSS, VmHWM), MiB;
* reload: seconds from writing an edit of the file (its first link 0.1 m longer) to
  the page's end-effector readout showing the edited robot (live reload: the file is
  looked at every 0.2 s, rebuilt, sent and drawn).

A benchmark, not a test: it asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'test'))

from browser import ViewProcess, camera_query, chromium, code_blocks, screenshot  # noqa: E402
from hebi_description import prefix_env  # noqa: E402

KIT = os.path.join(REPO, '..', 'shared', 'hrdf', 'kits', 'A-2085-06.hrdf')


def red_fraction(image: np.ndarray) -> float:
    pixels = image.astype(int)
    return float(((pixels[..., 0] > 150) & (pixels[..., 1] < 80) & (pixels[..., 2] < 80)).mean())


def memory_mib(pid: int):
    with open(f'/proc/{pid}/status') as handle:
        fields = dict(line.split(':', 1) for line in handle.read().splitlines() if ':' in line)
    return (int(fields['VmRSS'].split()[0]) / 1024, int(fields['VmHWM'].split()[0]) / 1024)


def readout(driver) -> str:
    """The page's end-effector readout (the code block with roll, pitch, yaw), or ''."""
    blocks = [b for b in code_blocks(driver) if 'roll' in b]
    return blocks[0] if blocks else ''


def wait(condition, what: str, t0: float) -> float:
    """Seconds from ``t0`` until ``condition()``; RuntimeError after 120 s."""
    while not condition():
        if time.monotonic() - t0 > 120:
            raise RuntimeError(f'{what} not within 120 s')
        time.sleep(0.05)
    return time.monotonic() - t0


def one_run(driver, original: str, meshes: bool):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, os.path.basename(original))
        shutil.copy(original, path)
        args = [path, '--meshes', 'package' if meshes else 'primitives']
        t0 = time.monotonic()
        view = ViewProcess(args, env=prefix_env())
        try:
            driver.get(view.url + camera_query())
            visible = wait(lambda: red_fraction(screenshot(driver)) >= 0.005,
                           'robot visible', t0)
            rss, peak = memory_mib(view.pid)
            before = readout(driver)
            text = open(path, encoding='utf-8').read()
            match = re.search(r'extension="([0-9.]+)"', text)
            edited = text.replace(match.group(0),
                                  f'extension="{float(match.group(1)) + 0.1}"', 1)
            t1 = time.monotonic()
            with open(path, 'w', encoding='utf-8') as handle:
                handle.write(edited)
            reload = wait(lambda: readout(driver) not in ('', before), 'reload shown', t1)
            driver.get('about:blank')
            return view.started, visible, rss, peak, reload
        finally:
            view.stop()
            view.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('files', nargs='*', default=[KIT])
    parser.add_argument('--runs', type=int, default=5)
    args = parser.parse_args(argv)
    print(f'{"robot":<28} {"meshes":<6} {"URL s":>12} {"visible s":>12} {"RSS MiB":>9} '
          f'{"peak MiB":>9} {"reload s":>12}')
    with chromium() as driver:
        one_run(driver, args.files[0], False)  # warm the browser's caches once
        for path in args.files:
            for meshes in (False, True):
                runs = [one_run(driver, path, meshes) for _ in range(args.runs)]
                url, visible, rss, peak, reload = zip(*runs)

                def cell(values, digits=2):
                    return f'{statistics.median(values):.{digits}f}/{max(values):.{digits}f}'
                print(f'{os.path.basename(path):<28} {"yes" if meshes else "no":<6} '
                      f'{cell(url):>12} {cell(visible):>12} {cell(rss, 0):>9} '
                      f'{cell(peak, 0):>9} {cell(reload):>12}', flush=True)
    print('(median/worst of', args.runs, 'runs; load average',
          ' '.join(f'{v:.1f}' for v in os.getloadavg()), ')')
    return 0


if __name__ == '__main__':
    sys.exit(main())
