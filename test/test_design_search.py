"""The search of hrdf design (hrdf_ros.design.search, .engines): the same seed and budget
give the same designs, byte for byte, in this process, on a pool of two processes and on
a real Dask cluster started with Dask's own command line (a scheduler and two workers on
127.0.0.1); HEBI's kits seed it, so a kit that does the job is found; every kit is a
point of the search's parameters."""
import os
import shutil
import socket
import subprocess
import sys

import numpy as np
import pytest

from hrdf_ros import Kinematics, load
from hrdf_ros.design import design_of, task
from hrdf_ros.design.engines import engine
from hrdf_ros.design.kits import kit_designs
from hrdf_ros.design import parse_design
from hrdf_ros.design.search import (DesignResult, design_of_trial, fitting_kits, parameters,
                                    search, smaller)
from hrdf_ros.design.space import size_of, strongest

from conftest import KITS_DIR
from design_helpers import free_states, targets_at

optuna = pytest.importorskip('optuna')
BUDGET = 40


@pytest.fixture(scope='module')
def small_data():
    """Four positions of A-2085-04's end effector, 0.2 kg, X arms of 3 or 4 joints."""
    model = load(os.path.join(KITS_DIR, 'A-2085-04.hrdf'))
    states = free_states(model, 4, seed=11)
    return {'targets': targets_at(Kinematics(model), states, 'none'),
            'payload': 0.2, 'families': ['X'], 'dof': [3, 4]}


@pytest.fixture(scope='module')
def small_task(small_data):
    return task(small_data)


def _fingerprint(result: DesignResult):
    return [(e.design.text(), e.rank_key(), e.configurations.tobytes(),
             e.effort_ratios.tobytes()) for e in result.evaluations]


def _search(job, **where):
    run = engine(job, **where)
    try:
        return search(job, run, seed=0, evaluations=BUDGET)
    finally:
        run.close()


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


@pytest.fixture(scope='module')
def dask_cluster(tmp_path_factory):
    """``dask scheduler`` and ``dask worker`` (two worker processes) on 127.0.0.1."""
    dask = shutil.which('dask', path=os.path.dirname(sys.executable)) or shutil.which('dask')
    assert dask, 'the design extra installs dask'
    port = _free_port()
    address = f'tcp://127.0.0.1:{port}'
    folder = tmp_path_factory.mktemp('dask')
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    logs = [open(folder / name, 'w') for name in ('scheduler.log', 'worker.log')]
    processes = [subprocess.Popen([dask, 'scheduler', '--host', '127.0.0.1', '--port',
                                   str(port), '--no-dashboard'], stdout=logs[0],
                                  stderr=subprocess.STDOUT, env=env, cwd=folder)]
    processes.append(subprocess.Popen(
        [dask, 'worker', address, '--host', '127.0.0.1', '--nworkers', '2', '--nthreads',
         '1', '--no-dashboard'], stdout=logs[1], stderr=subprocess.STDOUT, env=env,
        cwd=folder))
    try:
        from distributed import Client
        with Client(address, timeout='60s') as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in reversed(processes):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for log in logs:
            log.close()


def test_same_designs_in_process_on_two_workers_and_on_a_dask_cluster(small_task,
                                                                       dask_cluster):
    one = _search(small_task)
    assert len(one.evaluations) == BUDGET
    two = _search(small_task, workers=2)
    cluster = _search(small_task, cluster=dask_cluster)
    assert _fingerprint(two) == _fingerprint(one)
    assert _fingerprint(cluster) == _fingerprint(one)
    assert [e.design for e in cluster.best] == [e.design for e in one.best]


def test_designs_csv_is_the_same_bytes_for_1_and_2_workers_and_the_cluster(
        small_data, dask_cluster, tmp_path, capsys):
    """``hrdf design --workers 1``, ``--workers 2`` and ``--cluster`` (the CLI)."""
    import yaml
    from hrdf_ros.cli import main
    path = tmp_path / 'task.yaml'
    path.write_text(yaml.safe_dump(small_data))
    written = []
    for k, where in enumerate((['--workers', '1'], ['--workers', '2'],
                               ['--cluster', dask_cluster])):
        out = tmp_path / f'out{k}'
        assert main(['design', str(path), '-o', str(out), '--evaluations', str(BUDGET),
                     *where]) == 0, capsys.readouterr().err
        written.append([(out / name).read_bytes() for name in
                        ('designs.csv', 'design-1.hrdf', 'design-1.yaml')])
    assert written[1] == written[0] and written[2] == written[0]
    assert written[0][0].count(b'\n') > 10


def test_a_kit_that_does_the_job_is_found_and_the_best_is_no_heavier(small_task):
    result = _search(small_task)
    assert set(result.kits) == {name for name, _ in fitting_kits(small_task)}
    assert 'A-2085-04' in result.kits and result.kits['A-2085-04'].meets
    name, kit = result.lightest_kit()
    assert result.meets and result.best[0].mass <= kit.mass
    # the kits as sold come first, then the search's own designs
    assert [e.design for e in result.evaluations[:len(result.kits)]] == \
        [d for _, d in fitting_kits(small_task)]
    keys = [e.rank_key() for e in result.best]
    assert keys == sorted(keys) and len({e.design for e in result.best}) == len(keys)


def test_the_seed_changes_the_designs_and_the_budget_is_a_count(small_task):
    run = engine(small_task)
    try:
        a = search(small_task, run, seed=1, evaluations=BUDGET)
        b = search(small_task, run, seed=2, evaluations=BUDGET)
        short = search(small_task, run, seed=1, evaluations=BUDGET - 16)
    finally:
        run.close()
    assert [e.design for e in a.evaluations] != [e.design for e in b.evaluations]
    assert len(short.evaluations) == BUDGET - 16
    assert _fingerprint(short) == _fingerprint(a)[:BUDGET - 16]   # batches, no clock


@pytest.mark.parametrize('gripper', [False, True])
def test_every_kit_is_a_point_of_the_search(gripper):
    unused = {}                 # the slots past a kit's DoF: any value (they are unused)
    for k in range(7):
        unused.update({f'size{k}': 'small', f'connector{k}': 'link',
                       f'bracket{k}': 'LightLeft', f'extension{k}': 0.5, f'twist{k}': '0'})
    for name, design in kit_designs(gripper):
        trial = optuna.trial.FixedTrial({**unused, **parameters(design)})
        job = task({'targets': [{'xyz': [0.3, 0.0, 0.2]}],
                    'gripper': 'parallel' if gripper else 'none'})
        again = design_of_trial(trial, job)
        assert again.connectors == design.connectors and \
            again.end_effector == design.end_effector, name
        assert [size_of(a) for a in again.actuators] == \
            [size_of(a) for a in design.actuators], name


def test_bad_budgets_are_refused(small_task):
    with pytest.raises(ValueError, match='evaluations'):
        search(small_task, engine(small_task), evaluations=0)
    with pytest.raises(ValueError, match='workers'):
        engine(small_task, workers=0)


def test_a_kit_read_off_its_file_has_its_kit_parameters():
    model = load(os.path.join(KITS_DIR, 'A-2085-06.hrdf'))
    params = parameters(design_of(model))
    assert params['family'] == 'X' and params['dof'] == 6
    assert np.all([params[f"size{k}"] in ("small", "large") for k in range(6)])


def test_smaller_sizes_come_batch_by_batch_until_every_flip_is_tried():
    """Three large actuators (and a small one, made its size's strongest): all three
    small, the three pairs, the three singles (7), 4 per call then the rest, none twice,
    and none already tried."""
    design = parse_design('X8-16 X5HeavyRightOutside X8-9 X5:0.3:pi X8-3 X5:0.2:pi X5-1')
    small = strongest(size_of('X5-1'))
    tried = {design.with_actuators([small, strongest(size_of('X8-9')), small, 'X5-9'])}
    first = smaller(design, tried, 4)
    second = smaller(design, tried, 4)
    assert len(first) == 4 and len(second) == 2 and smaller(design, tried, 4) == []
    flips = [tuple(k for k, a in enumerate(d.actuators[:3]) if a == small)
             for d in first + second]
    assert flips == [(0, 1, 2), (0, 1), (1, 2), (0,), (1,), (2,)]   # (0, 2) was tried
    assert all(d.connectors == design.connectors for d in first + second)


def test_designs_csv_is_the_same_bytes_whatever_numpy_s_simd_loops(tmp_path):
    """``hrdf design`` with numpy's AVX2 and AVX-512 loops switched off
    (``NPY_DISABLE_CPU_FEATURES``, as test_same_bytes.py) and OpenBLAS on its Prescott
    kernel, against a run as this machine is: the same designs.csv. The task is four tip
    axes over a floor (the design tutorial's kind); on an AVX-512 machine, with Optuna's
    study in the caller's process, the two runs parted at the 26th design of 48."""
    import yaml
    import numpy.core._multiarray_umath as numpy_cpu
    wide = [f for f in numpy_cpu.__cpu_dispatch__
            if (f.startswith('AVX512') or f in ('AVX2', 'FMA3'))
            and numpy_cpu.__cpu_features__.get(f)]
    path = tmp_path / 'task.yaml'
    path.write_text(yaml.safe_dump({
        'targets': [{'xyz': xyz, 'tip_axis': [0, 0, -1]} for xyz in
                    ([0.35, 0.2, 0.05], [0.45, 0.0, 0.05], [0.35, -0.2, 0.05],
                     [0.3, 0.0, 0.25])],
        'payload': 0.5, 'floor': -0.02, 'families': ['X']}))
    written = []
    for k, env in enumerate(({}, {'OPENBLAS_CORETYPE': 'Prescott',
                                  'NPY_DISABLE_CPU_FEATURES': ' '.join(wide)})):
        out = tmp_path / f'out{k}'
        done = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', 'design', str(path),
                               '-o', str(out), '--evaluations', '48', '--workers', '1'],
                              capture_output=True, text=True, timeout=600,
                              env=dict(os.environ, **env))
        assert done.returncode == 0, done.stderr
        written.append((out / 'designs.csv').read_bytes())
    assert written[1] == written[0]
    assert written[0].count(b'\n') == 49
