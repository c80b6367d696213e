"""CoBRA benchmark: ``hrdf design TASK.json`` on CoBRA's shared task sets, at the default
budget on 2 workers (the target: every variable-base Whitman 3g_3o task solved, each
within 300 s on 2 cores).

Per task: the exit code (0: a design and its motion through the goals, 1: none, one line
why), the wall time of the whole command, the best design's mass (kg) and its cycle
time (s). Per set: tasks solved, the median and worst time, the median mass and cycle
time of the solved ones; and the misses grouped by what the command says.

Run with ``make bench`` (the first 10 tasks of each set) or ``python
benchmarks/cobra_benchmark.py [--sets NAME ...] [--tasks N] [--workers N]``; sets:
``variable`` (Whitman2020/with_torque/variable_base_xyz_any_rot/3g_3o, 70 tasks),
``fixed`` (Whitman2020/with_torque/3g_3o, 4), ``edge`` (base_opt/edge_case, 100).
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
TASKS = os.path.join(REPO, '..', 'shared', 'cobra', 'tasks')
SETS = {'variable': 'Whitman2020/with_torque/variable_base_xyz_any_rot/3g_3o',
        'fixed': 'Whitman2020/with_torque/3g_3o',
        'edge': 'base_opt/edge_case'}


def _files(folder: str):
    def number(path):
        digits = re.findall(r'\d+', os.path.relpath(path, folder))
        return [int(d) for d in digits], path
    return sorted(glob.glob(os.path.join(TASKS, folder, '**', '*.json'), recursive=True),
                  key=number)


def run(path: str, workers: int):
    with tempfile.TemporaryDirectory() as out:
        began = time.perf_counter()
        done = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', 'design', path, '-o',
                               out, '--workers', str(workers)], capture_output=True,
                              text=True, timeout=3600)
        seconds = time.perf_counter() - began
    mass = re.search(r'best design: ([\d.]+) kg', done.stdout)
    cycle = re.search(r'cycle time ([\d.]+) s', done.stdout)
    why = done.stderr.strip().splitlines()[-1] if done.returncode else ''
    return (done.returncode, seconds, float(mass.group(1)) if mass else None,
            float(cycle.group(1)) if cycle else None, why)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--sets', nargs='+', default=list(SETS), choices=list(SETS))
    parser.add_argument('--tasks', type=int, default=10, help='first N tasks per set')
    parser.add_argument('--workers', type=int, default=2)
    args = parser.parse_args()
    for name in args.sets:
        files = _files(SETS[name])[:args.tasks]
        rows = []
        for path in files:
            code, seconds, mass, cycle, why = run(path, args.workers)
            rows.append((code, seconds, mass, cycle, why))
            print(f'{os.path.relpath(path, TASKS)}: exit {code}, {seconds:.1f} s'
                  + (f', {mass:.3f} kg, cycle {cycle:.3f} s' if code == 0 else f': {why}'),
                  flush=True)
        solved = [r for r in rows if r[0] == 0]
        times = [r[1] for r in rows]
        print(f'{name} ({SETS[name]}): {len(solved)} of {len(rows)} solved; time median '
              f'{statistics.median(times):.1f} s, worst {max(times):.1f} s'
              + (f'; solved: median mass {statistics.median(r[2] for r in solved):.3f} kg, '
                 f'median cycle {statistics.median(r[3] for r in solved):.2f} s'
                 if solved else ''))
        kinds = {}
        for r in rows:
            if r[0]:
                kind = re.sub(r'[\d.]+', '#', r[4].split(': ')[-1])[:80]
                kinds[kind] = kinds.get(kind, 0) + 1
        for kind, count in sorted(kinds.items(), key=lambda x: -x[1]):
            print(f'  missed {count}: {kind}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
