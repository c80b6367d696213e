"""Design benchmark: ``hrdf_ros.design_arm`` on tasks made from arms that are not kits
(test/design_helpers.py's ``generated_task``: random collision-free states of the arm,
the payload 0.9 of the least it holds over them), 10 targets each, the default budget.

Per task: the search on 1 worker, on 2 workers (a process pool) and on a local Dask
cluster started with Dask's own command line (``dask scheduler`` and ``dask worker
--nworkers 2 --nthreads 1`` on 127.0.0.1); the time, evaluations per second, the
cluster's overhead against the pool; whether the three gave the same designs (every
evaluation's design and configurations, bit for bit); the best design's mass against
the generating arm's (the target: at most 1.05 times) and against the lightest HEBI kit
that meets the task. The target for speed: the default budget within 300 s on 2 cores.

Run with ``make bench`` or ``python benchmarks/design_benchmark.py [--tasks NAME ...]
[--evaluations N] [--no-cluster]``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import time

for _var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ.setdefault(_var, '1')

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'test'))
sys.path.insert(0, REPO)

from design_helpers import generated_task  # noqa: E402

from hrdf_ros.design import DEFAULT_EVALUATIONS, design_arm, task  # noqa: E402

WALL = {'name': 'wall', 'type': 'box', 'dimensions': [1.0, 0.05, 1.0],
        'pose': {'position': [0.0, -0.3, 0.3]}}
#: name: (the generating arm, its targets' orientation, objects)
TASKS = {
    '5-DoF tip axes': ('X5-9 X5HeavyRightOutside X5-9 X5:0.2:pi X5-4 X5:0.2:pi X5-1 '
                       'X5LightRight X5-1', 'tip_axis', ()),
    '6-DoF full poses, wall': ('X5-9 X5HeavyRightOutside X8-9 X5:0.25:pi X5-9 X5:0.2:pi '
                               'X5-4 X5LightRight X5-1 X5LightRight X5-1', 'full', (WALL,)),
    '4-DoF position only': ('X5-4 X5HeavyRightOutside X5-9 X5:0.25:pi X5-4 X5:0.15:pi X5-1',
                            'none', ()),
}
LIMIT_SECONDS = 300.0


def _fingerprint(result):
    return [(e.design, e.configurations.tobytes()) for e in result.evaluations]


class LocalCluster:
    """``dask scheduler`` and ``dask worker`` on 127.0.0.1 (context manager: the
    address)."""

    def __enter__(self):
        dask = shutil.which('dask', path=os.path.dirname(sys.executable)) or 'dask'
        with socket.socket() as s:
            s.bind(('127.0.0.1', 0))
            port = s.getsockname()[1]
        self.address = f'tcp://127.0.0.1:{port}'
        env = dict(os.environ, PYTHONPATH=REPO)
        quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        self.processes = [subprocess.Popen([dask, 'scheduler', '--host', '127.0.0.1',
                                            '--port', str(port), '--no-dashboard'], **quiet)]
        self.processes.append(subprocess.Popen(
            [dask, 'worker', self.address, '--host', '127.0.0.1', '--nworkers', '2',
             '--nthreads', '1', '--no-dashboard'], **quiet))
        from distributed import Client
        with Client(self.address, timeout='60s') as client:
            client.wait_for_workers(2, timeout=120)
        return self.address

    def __exit__(self, *exc):
        for process in reversed(self.processes):
            process.terminate()
            process.wait(timeout=60)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--tasks', nargs='+', default=list(TASKS))
    parser.add_argument('--evaluations', type=int, default=DEFAULT_EVALUATIONS)
    parser.add_argument('--targets', type=int, default=10)
    parser.add_argument('--no-cluster', action='store_true')
    args = parser.parse_args(argv)
    print(f'design search: {args.evaluations} evaluations, {args.targets} targets, '
          f'{os.cpu_count()} CPUs')
    failures = []
    for name in args.tasks:
        line, orientation, objects = TASKS[name]
        generator, data, generator_mass = generated_task(line, args.targets, orientation,
                                                         seed=0, objects=objects)
        job = task(data)
        runs = {}
        for label, where in (('1 worker', {'workers': 1}), ('2 workers', {'workers': 2})):
            start = time.perf_counter()
            runs[label] = (design_arm(job, evaluations=args.evaluations, **where),
                           time.perf_counter() - start)
        if not args.no_cluster:
            with LocalCluster() as address:
                start = time.perf_counter()
                runs['cluster'] = (design_arm(job, evaluations=args.evaluations,
                                              cluster=address), time.perf_counter() - start)
        result = runs['1 worker'][0]
        same = all(_fingerprint(r) == _fingerprint(result) for r, _ in runs.values())
        best = result.best[0]
        kit = result.lightest_kit()
        print(f'{name} (payload {job.payload} kg; generating arm {generator_mass:.3f} kg: '
              f'{generator.text()})')
        for label, (r, seconds) in runs.items():
            print(f'  {label}: {seconds:.1f} s, {len(r.evaluations) / seconds:.2f} '
                  'evaluations/s')
        if 'cluster' in runs:
            print(f'  cluster overhead against 2 workers: '
                  f'{runs["cluster"][1] / runs["2 workers"][1]:.2f}x')
        print(f'  same designs on every engine: {same}')
        ratio = best.mass / generator_mass
        print(f'  best: {best.mass:.3f} kg ({ratio:.3f}x the generating arm), meets '
              f'{best.meets}: {best.design.text()}')
        print('  lightest kit that meets it: ' + (f'{kit[0]} {kit[1].mass:.3f} kg'
                                                  if kit else 'none'))
        if not (best.meets and ratio <= 1.05):
            failures.append(f'{name}: best {best.mass:.3f} kg, meets {best.meets}')
        if not same:
            failures.append(f'{name}: engines differ')
        if runs['2 workers'][1] > LIMIT_SECONDS:
            failures.append(f'{name}: {runs["2 workers"][1]:.0f} s on 2 workers')
    for failure in failures:
        print('FAIL', failure)
    print('targets', 'FAIL' if failures else 'PASS')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
