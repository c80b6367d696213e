"""The same HRDF gives the same files on every machine (doc/explanation/conventions.md,
"Numbers in files").

Every output of ``hrdf urdf``, ``sdf``, ``mjcf`` and ``moveit`` (HEBI's meshes, from the
shared copy of hebi_description through ``HRDF_ROS_MESH_DIR``, and ``--meshes
primitives``, on every other robot each; the self-collision matrix from 1000 random
states, not the default 10 000: output_files.SAMPLES) of every kit, the bundled arm and
every real HEBI file hrdf_ros loads is written in subprocesses that differ in what can
change a double's last bits or a file's text:

* OpenBLAS's kernel (``OPENBLAS_CORETYPE``): Prescott (SSE3, no fused multiply-add),
  Haswell (AVX2 with FMA; AMD's Zen runs the same double-precision kernels: OpenBLAS's
  kernel/x86_64/KERNEL.ZEN names Haswell's dgemm_kernel_4x8_haswell.S, dgemv_n_4.c and
  ddot.c, so a Zen run would repeat this one), and SkylakeX (AVX-512) where the CPU has
  AVX-512 (OpenBLAS does not check, and would crash);
* numpy's SIMD dispatch: with its AVX-512 and AVX2 loops switched off
  (``NPY_DISABLE_CPU_FEATURES``; its AVX-512 ``arctan2`` differs from libm's);
* the working folder, and the input path given absolute or relative.

Each run has a cache folder of its own (``HRDF_ROS_CACHE_DIR``), so that every run
computes what hrdf_ros would remember between processes (the collision matrix).

Every file must be byte for byte the same in every run. And no file holds rounding
noise: no number of magnitude below 1e-15 but 0, no run of nine or more 0s or 9s inside
a number's significant digits (``0.0049999999999999975``, ``6.580000000000001e-05``).
"""
import difflib
import json
import os
import re
import subprocess
import sys

import numpy.core._multiarray_umath as numpy_cpu
import pytest

from hrdf_ros import load
from hrdf_ros.hrdf.diagnostics import HrdfError

from conftest import BUNDLED_ARM, KITS, REPO
from consumers import HEBI_MESHES, real_files
from distinct_robots import distinct

pytestmark = pytest.mark.skipif(not KITS, reason='HEBI kits not found in ../shared/hrdf/kits')

WORKER = os.path.join(REPO, 'test', 'output_files.py')
#: numpy's dispatched features from AVX2 up that this CPU has (switched off in one run).
WIDE_SIMD = [f for f in numpy_cpu.__cpu_dispatch__
             if (f.startswith('AVX512') or f in ('AVX2', 'FMA3'))
             and numpy_cpu.__cpu_features__.get(f)]
AVX512 = bool(numpy_cpu.__cpu_features__.get('AVX512F'))
#: (name, environment, input paths relative to the working folder); each run has a
#: working folder of its own
RUNS = [('Prescott, numpy without AVX2/AVX-512',
         {'OPENBLAS_CORETYPE': 'Prescott', 'NPY_DISABLE_CPU_FEATURES': ' '.join(WIDE_SIMD)},
         False),
        ('Haswell', {'OPENBLAS_CORETYPE': 'Haswell'}, True)]
if AVX512:
    RUNS.append(('SkylakeX', {'OPENBLAS_CORETYPE': 'SkylakeX'}, True))
#: A number in a file (not a digit inside a name, a hash or a path).
NUMBER = re.compile(r'(?<![\w.\-/])-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])')


def _robots():
    """Kits, the bundled arm and the real HEBI files hrdf_ros loads, each robot once
    (distinct_robots.py)."""
    out = []
    for path in KITS + [BUNDLED_ARM] + real_files():
        try:
            load(path)
        except HrdfError:
            continue
        out.append(os.path.abspath(path))
    return distinct(out)


def _run(name, environment, relative, robots_file, root):
    folder = os.path.join(root, re.sub(r'\W+', '_', name))
    work = os.path.join(folder, 'cwd')
    os.makedirs(work)
    # a cache folder of its own: nothing computed in another run is read back
    env = dict(os.environ, SOURCE_DATE_EPOCH='1700000000',
               HRDF_ROS_CACHE_DIR=os.path.join(folder, 'cache'),
               HRDF_ROS_MESH_DIR=os.path.realpath(HEBI_MESHES), **environment)
    env.pop('HRDF_ROS_KINEMATICS', None)
    env.pop('NUMBA_CACHE_DIR', None)      # this worker's; hrdf_ros sets the run's own
    result = subprocess.run([sys.executable, WORKER, robots_file, os.path.join(folder, 'out'),
                             'relative' if relative else 'absolute'],
                            cwd=work, env=env, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, (name, result.stderr[-3000:])
    return os.path.join(folder, 'out'), json.loads(result.stdout.splitlines()[-1])


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    """{run name: its output folder}, after every command of every run exited 0."""
    root = str(tmp_path_factory.mktemp('same_bytes'))
    robots_file = os.path.join(root, 'robots.json')
    robots = _robots()
    assert len(robots) >= 65, len(robots)
    with open(robots_file, 'w', encoding='utf-8') as handle:
        json.dump(robots, handle)
    # one run at a time: the other tests run beside this one, some of them timed
    results = {name: _run(name, environment, relative, robots_file, root)
               for name, environment, relative in RUNS}
    for name, (_, failed) in results.items():
        assert failed == [], (name, failed[:5])
    return {name: folder for name, (folder, _) in results.items()}


def _files(folder):
    found = {}
    for directory, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(directory, name)
            found[os.path.relpath(path, folder)] = path
    return found


def test_every_file_is_the_same_bytes_in_every_run(runs):
    names = list(runs)
    reference = _files(runs[names[0]])
    assert len(reference) > 2000, len(reference)
    problems = []
    for name in names[1:]:
        other = _files(runs[name])
        if sorted(other) != sorted(reference):
            problems.append(f'{name}: other files: {sorted(set(other) ^ set(reference))[:5]}')
            continue
        for relative, path in sorted(reference.items()):
            with open(path, 'rb') as a, open(other[relative], 'rb') as b:
                first, second = a.read(), b.read()
            if first != second:
                diff = list(difflib.unified_diff(
                    first.decode(errors='replace').splitlines(),
                    second.decode(errors='replace').splitlines(), lineterm='', n=0))
                problems.append(f'{names[0]} vs {name}: {relative}: {diff[2:4]}')
    assert problems == [], '\n'.join(problems[:20])


def _noise(text: str):
    for match in NUMBER.finditer(text):
        number = match.group(0)
        value = float(number)
        digits = re.split('[eE]', number.lstrip('-'))[0].replace('.', '').strip('0')
        if (value != 0.0 and abs(value) < 1e-15) or re.search('0{9,}|9{9,}', digits):
            yield number


def test_no_file_holds_rounding_noise(runs):
    found = {}
    numbers = 0
    for relative, path in _files(next(iter(runs.values()))).items():
        with open(path, encoding='utf-8') as handle:
            text = handle.read()
        numbers += len(NUMBER.findall(text))
        for number in _noise(text):
            found.setdefault(number, relative)
    assert numbers > 300000, numbers
    assert found == {}, list(found.items())[:10]


def test_the_noise_check_finds_noise():
    text = ('<origin xyz="-8.00798810698049e-19 0.015 0.0049999999999999975"/> '
            'ixx="6.580000000000001e-05" J1 x_series_arm_6dof 1.57079632679 0 '
            'f8ad1000000000af.stl 2000000000')
    assert list(_noise(text)) == ['-8.00798810698049e-19', '0.0049999999999999975',
                                  '6.580000000000001e-05']
