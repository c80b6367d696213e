"""Start-up cost of the compiled kinematics path (numba): the first kinematics call in a
new process, cold (an empty kernel cache: every kernel compiled) and warm (the kernels
loaded from the cache), next to the same process on the numpy path.

Each run is a fresh ``python -c`` that loads an HRDF, builds ``Kinematics(model, PATH)``
and times its first calls (end effector, all output frames and their Jacobians, one
configuration and a batch). Printed by ``make bench`` (kinematics_benchmark.py) and
runnable alone: ``python benchmarks/numba_startup.py [HRDF]``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import json, sys, time
start = time.perf_counter()
import numpy as np
from hrdf_ros import Kinematics, load
kin = Kinematics(load(sys.argv[1]), sys.argv[2])
q = np.zeros((100, kin.dof_count))
ready = time.perf_counter()
kin.end_effector(q[0]); kin.end_effector(q)
kin.frames('output', q[0]); kin.frames('output', q)
kin.end_effector_jacobian(q[0]); kin.jacobians('output', q)
first = time.perf_counter()
kin.end_effector(q[0]); kin.frames('output', q); kin.jacobians('output', q)
print(json.dumps({'import_load_s': ready - start, 'first_calls_s': first - ready,
                  'again_s': time.perf_counter() - first, 'path': kin.path}))
'''


def first_call(path: str, kinematics: str, cache: str) -> dict:
    """The child's timings (s) with ``NUMBA_CACHE_DIR=cache``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    env.pop('HRDF_ROS_KINEMATICS', None)
    result = subprocess.run([sys.executable, '-c', CHILD, path, kinematics], env=env,
                            capture_output=True, text=True, timeout=600, check=True)
    return json.loads(result.stdout)


def startup_report(path: str, runs: int = 3) -> str:
    """Lines: cold and warm first calls on numba (best of ``runs``), and numpy's."""
    lines = []
    with tempfile.TemporaryDirectory() as root:
        cold = [first_call(path, 'numba', os.path.join(root, f'cold{k}'))
                for k in range(runs)]
        warm_cache = os.path.join(root, 'warm')
        first_call(path, 'numba', warm_cache)
        warm = [first_call(path, 'numba', warm_cache) for _ in range(runs)]
        numpy = [first_call(path, 'numpy', warm_cache) for _ in range(runs)]
    for label, results in (('numba, cold cache', cold), ('numba, warm cache', warm),
                           ('numpy', numpy)):
        best = min(results, key=lambda r: r['first_calls_s'])
        lines.append(f'  {label:<18} import + load {best["import_load_s"]:.3f} s, first '
                     f'calls {best["first_calls_s"]:.3f} s (then {best["again_s"] * 1e3:.2f} '
                     f'ms), best of {runs}')
    return '\n'.join(lines)


if __name__ == '__main__':
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, '..', '..', 'shared', 'hrdf', 'kits', 'A-2099-07.hrdf')
    print(startup_report(sys.argv[1] if len(sys.argv) > 1 else default))
