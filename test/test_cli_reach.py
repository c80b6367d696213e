"""``hrdf reach``: the summary, the map file (the API's map), ``--hebi-config`` (its gains
lower the effort limits), ``--plot`` (six panels, each drawn), and bad input (exit 2, one
line, no traceback)."""
import os
import subprocess
import sys

import numpy as np
import pytest

from hrdf_ros import ReachMap, load, reach_map
from hrdf_ros.cli import main
from hrdf_ros.reach.payload import rated_efforts

from conftest import KITS_DIR, REPO
from hebi_description import HEBI_DESCRIPTION

KIT = os.path.join(KITS_DIR, 'A-2085-06.hrdf')
CONFIG = os.path.join(HEBI_DESCRIPTION, 'config', 'arms', 'A-2085-06.cfg.yaml')
FAST = ['--voxel', '0.15', '--directions', '12']


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_map_file_is_the_api_map_and_the_summary_adds_up(capsys, tmp_path):
    out_file = tmp_path / 'map.npz'
    code, out, err = run(capsys, 'reach', KIT, *FAST, '-o', out_file)
    assert code == 0, err
    saved = ReachMap.load(str(out_file))
    api = reach_map(load(KIT), voxel=0.15, directions=12, threads=2)
    for name, value in api.arrays().items():
        np.testing.assert_array_equal(saved.arrays()[name], value)
    lines = out.splitlines()
    volume = float(lines[1].split(':')[1].split()[0])
    assert volume == pytest.approx(api.reachable.sum() * 0.15 ** 3, abs=1e-4)
    half = float(lines[2].split(':')[1].split()[0])
    assert half == pytest.approx((api.reachability >= 0.5).sum() * 0.15 ** 3, abs=1e-4)
    median = float(lines[3].split('median')[1].split(',')[0])
    assert median == pytest.approx(np.median(api.payload[api.reachable]), abs=1e-3)
    counts = np.bincount(api.binding_joint[api.binding_joint >= 0])
    assert lines[4].startswith(f'binding joint: J{np.argmax(counts) + 1} ')
    assert 'per second' in lines[0] and f'wrote {out_file}' in out


def test_hebi_config_gains_lower_the_effort_limits(capsys, tmp_path):
    out_file = tmp_path / 'map.npz'
    code, out, err = run(capsys, 'reach', '--hebi-config', CONFIG, *FAST, '-o', out_file)
    assert code == 0, err
    saved = ReachMap.load(str(out_file))
    rated = rated_efforts(load(KIT))
    gains = np.array([25, 40, 25, 5, 5, 5.0])      # the gains file's effort max_target
    np.testing.assert_array_equal(saved.effort_limits, np.minimum(rated, gains))
    assert saved.effort_limits[1] == 40.0 < rated[1]
    assert saved.joint_names[:2] == ('J1_base', 'J2_shoulder')
    plain = reach_map(load(KIT), voxel=0.15, directions=12, threads=2)
    assert (saved.payload[saved.reachable] <= plain.payload[plain.reachable] + 1e-12).all()
    assert (saved.payload[saved.reachable] < plain.payload[plain.reachable] - 1e-6).any()


def test_a_floor_is_avoided_and_said_so(capsys, tmp_path):
    pytest.importorskip('pinocchio')                  # the motion extra (make test has it)
    out_file = tmp_path / 'map.npz'
    code, out, err = run(capsys, 'reach', KIT, *FAST, '--floor', '-0.02', '-o', out_file)
    assert code == 0, err
    saved = ReachMap.load(str(out_file))
    floor = {'name': 'floor', 'type': 'floor', 'pose': {'position': [0.0, 0.0, -0.02]}}
    api = reach_map(load(KIT), voxel=0.15, directions=12, threads=2, avoid_collisions=True,
                    collision_objects=[floor])
    for name, value in api.arrays().items():
        np.testing.assert_array_equal(saved.arrays()[name], value)
    assert saved.avoid_collisions
    assert out.splitlines()[1].startswith('collisions: every configuration counted is free')
    # the end effector's frame is on its link: none of it below the floor
    assert saved.reachable.sum() > 100 and saved.centers[saved.reachable, 2].min() > -0.02
    plain = reach_map(load(KIT), voxel=0.15, directions=12, threads=2)
    assert (plain.centers[plain.reachable, 2] < -0.02).sum() > 100


def test_plot_has_six_drawn_panels(capsys, tmp_path):
    pytest.importorskip('matplotlib')
    from matplotlib import image
    png = tmp_path / 'reach.png'
    code, out, err = run(capsys, 'reach', KIT, *FAST, '--plot', png)
    assert code == 0, err
    picture = image.imread(str(png))
    height, width = picture.shape[:2]
    assert (width, height) == (1200, 760)
    # each panel's area (2 rows x 3 columns) holds coloured pixels (not white, not grey)
    rgb = picture[..., :3]
    coloured = (rgb.max(axis=2) - rgb.min(axis=2)) > 0.2
    for row in range(2):
        for column in range(3):
            part = coloured[60 + row * 350:60 + (row + 1) * 350,
                            column * 400:(column + 1) * 400 - 100]
            assert part.mean() > 0.05, (row, column, part.mean())


@pytest.mark.parametrize('args, words', [
    (['--voxel', '0'], 'voxel'),
    (['--voxel', 'nan'], 'voxel'),
    (['--directions', '0'], 'directions'),
    (['--threads', '0'], 'threads'),
    (['--directions', '100000'], 'more than a map takes'),
    (['--end-effector', '4'], 'end_effector frame index 4'),
    (['--limits', 'missing.yaml'], 'missing.yaml'),
    (['--collision-objects', 'missing.yaml'], 'missing.yaml'),
    (['--floor', 'inf'], '--floor'),
    (['-o', '/nonexistent/folder/map.npz'], '/nonexistent/folder/map.npz'),
])
def test_bad_input_exits_2_with_one_line(capsys, args, words):
    code, out, err = run(capsys, 'reach', KIT, '--voxel', '0.3', '--directions', '4', *args)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and words in lines[0], err
    assert 'Traceback' not in err


def test_a_missing_file_and_the_console_script_say_one_line(tmp_path):
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', 'reach',
                             str(tmp_path / 'none.hrdf')], capture_output=True, text=True,
                            timeout=60, cwd=REPO)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and 'Traceback' not in result.stderr


def test_the_map_file_has_the_same_bytes_on_every_machine(tmp_path):
    """``hrdf reach -o`` under what changes a double's last bits from machine to machine
    (test_same_bytes.py's settings): OpenBLAS's Prescott kernel with numpy's AVX2 and
    AVX-512 loops off, and the compiled kernels built for a generic x86-64 CPU
    (``NUMBA_CPU_NAME=generic``: no AVX, no FMA) instead of this one. The generic run has
    a cache folder of its own; the default and Prescott runs read the compiled kernels of
    the test session's cache (numba's cache is keyed by the CPU and its features, which
    OPENBLAS_CORETYPE and NPY_DISABLE_CPU_FEATURES leave alone; compiling them again took
    18 s a run) and have an hrdf_ros cache folder of their own, left empty: nothing else
    is read back."""
    import numpy.core._multiarray_umath as numpy_cpu
    wide = [f for f in numpy_cpu.__cpu_dispatch__
            if (f.startswith('AVX512') or f in ('AVX2', 'FMA3'))
            and numpy_cpu.__cpu_features__.get(f)]
    runs = {'default': {},
            'prescott': {'OPENBLAS_CORETYPE': 'Prescott',
                         'NPY_DISABLE_CPU_FEATURES': ' '.join(wide)},
            'generic': {'NUMBA_CPU_NAME': 'generic'}}
    files = {}
    for name, env in runs.items():
        out = tmp_path / f'{name}.npz'
        cache = tmp_path / ('generic' if name == 'generic' else 'this')
        cache.mkdir(exist_ok=True)
        # NUMBA_CACHE_DIR set: this worker's own would be inherited otherwise
        numba_cache = (cache / 'numba' if name == 'generic' else
                       os.path.join(os.environ['HRDF_ROS_TEST_CACHE'], 'numba'))
        result = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', 'reach', KIT,
                                 '--voxel', '0.2', '--directions', '12', '-o', str(out)],
                                capture_output=True, text=True, timeout=300, cwd=REPO,
                                env=dict(os.environ, HRDF_ROS_CACHE_DIR=str(cache),
                                         NUMBA_CACHE_DIR=str(numba_cache), **env))
        assert result.returncode == 0, result.stderr
        files[name] = out.read_bytes()
    assert os.listdir(tmp_path / 'this') == []          # nothing else was read back
    assert os.listdir(tmp_path / 'generic') == ['numba']
    assert files['prescott'] == files['default']
    assert files['generic'] == files['default']
