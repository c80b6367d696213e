"""``hrdf design``: the files it writes (designs.csv's columns, design-K.hrdf that hebi-py
loads, design-K.yaml whose configurations reach the targets by hebi-py's FK), the
summary, the plot, and the exit codes: 0 when a design meets the task, 1 with one line
naming the closest design and what it misses (a task 2.5 m away), 2 on bad input or
without the design extra (one line, no traceback)."""
import csv
import os
import subprocess
import sys

import numpy as np
import pytest
import yaml

from hrdf_ros import Kinematics, load
from hrdf_ros.cli import main
from hrdf_ros.design import read_task

from conftest import KITS_DIR
from design_helpers import free_states, hebi_verdict, targets_at

pytest.importorskip('optuna')
FAST = ['--evaluations', '24', '--workers', '1']


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope='module')
def task_file(tmp_path_factory):
    """Four positions of A-2085-04's end effector, 0.2 kg, X arms of 3 or 4 joints."""
    model = load(os.path.join(KITS_DIR, 'A-2085-04.hrdf'))
    states = free_states(model, 4, seed=11)
    path = tmp_path_factory.mktemp('task') / 'task.yaml'
    path.write_text(yaml.safe_dump({
        'targets': targets_at(Kinematics(model), states, 'none'), 'payload': 0.2,
        'families': ['X'], 'dof': [3, 4]}))
    return path


def test_the_files_the_summary_and_hebi_py_agree(capsys, tmp_path, task_file):
    out = tmp_path / 'out'
    code, text, err = run(capsys, 'design', task_file, '-o', out, '--top', '2', *FAST,
                          '--plot', tmp_path / 'design.png')
    assert code == 0, err
    with open(out / 'designs.csv', newline='') as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ['rank', 'file', 'mass_kg', 'dof', 'actuators',
                             'worst_effort_ratio', 'targets_met', 'base_x_m', 'base_y_m',
                             'base_z_m', 'base_yaw_rad', 'cycle_time_s']
    assert [r['rank'] for r in rows] == [str(k) for k in range(1, len(rows) + 1)]
    assert {r['cycle_time_s'] for r in rows} == {''}    # no goals to move through
    assert {r['base_yaw_rad'] for r in rows} == {'0.000000'}
    assert [r['file'] for r in rows[:3]] == ['design-1.hrdf', 'design-2.hrdf', '']
    assert sorted(os.listdir(out)) == ['design-1.hrdf', 'design-1.yaml', 'design-2.hrdf',
                                       'design-2.yaml', 'designs.csv']
    job = read_task(str(task_file))
    best = rows[0]
    assert best['targets_met'] == '4' and float(best['worst_effort_ratio']) <= 1.0
    written = yaml.safe_load((out / 'design-1.yaml').read_text())
    model = load(str(out / 'design-1.hrdf'))
    assert best['actuators'].split() == [e.type for e in model.elements
                                         if e.kind == 'actuator']
    assert written['joint_names'] == model.joint_names()
    hebi = hebi_verdict(out / 'design-1.hrdf', job, np.array(written['configurations']))
    assert hebi['position'].max() < 1e-3
    assert hebi['ratios'].max() <= 1.0
    assert hebi['mass'] == pytest.approx(float(best['mass_kg']), abs=1e-3)
    assert float(best['worst_effort_ratio']) == pytest.approx(hebi['ratios'].max(), abs=1e-4)
    lines = text.splitlines()
    assert lines[0].startswith(f'best design: {best["mass_kg"]} kg, {best["dof"]} actuators')
    assert lines[2].startswith('evaluated 24 designs in ') and 'per second' in lines[2]
    assert 'A-2085-04' in lines[3]           # the kit the job was made from meets it
    assert os.path.getsize(tmp_path / 'design.png') > 20_000


def test_a_task_out_of_reach_exits_1_with_one_line(capsys, tmp_path):
    far = tmp_path / 'far.yaml'
    far.write_text(yaml.safe_dump({'targets': [{'xyz': [2.5, 0.0, 0.3]},
                                               {'xyz': [0.0, 2.5, 0.3]}],
                                   'families': ['X'], 'dof': [3, 4]}))
    code, text, err = run(capsys, 'design', far, '-o', tmp_path / 'out', *FAST)
    assert code == 1
    assert err.count('\n') == 1 and 'Traceback' not in err
    assert err.startswith('hrdf design: no design meets the task; the closest, ')
    assert 'target 1 (out of reach), target 2 (out of reach)' in err
    assert 'no HEBI kit meets the task' in text


@pytest.mark.parametrize('content, message', [
    ({'targets': [{'xyz': [0.3, 0, float('nan')]}]}, 'finite'),
    ({'targets': [{'xyz': [0.3, 0, 0.2], 'quat': [0, 0, 0, 0]}]}, 'quat'),
    ({'targets': [{'xyz': [0.3, 0, 0.2]}], 'payload': -1}, 'payload'),
    ({'targets': [{'xyz': [0.3, 0, 0.2]}], 'speed': 2}, 'speed'),
])
def test_bad_task_files_exit_2_with_one_line(capsys, tmp_path, content, message):
    path = tmp_path / 'task.yaml'
    path.write_text(yaml.safe_dump(content))
    code, _, err = run(capsys, 'design', path, '-o', tmp_path / 'out', *FAST)
    assert code == 2 and err.count('\n') == 1 and message in err, err
    assert not (tmp_path / 'out').exists()


@pytest.mark.parametrize('args, message', [
    (['--evaluations', '0'], '--evaluations must be at least 1'),
    (['--workers', '0'], '--workers must be at least 1'),
    (['--top', '0'], '--top must be at least 1'),
])
def test_bad_arguments_exit_2(capsys, tmp_path, task_file, args, message):
    code, _, err = run(capsys, 'design', task_file, '-o', tmp_path / 'out', *args)
    assert code == 2 and message in err and err.count('\n') == 1


def test_a_missing_task_file_exits_2(capsys, tmp_path):
    code, _, err = run(capsys, 'design', tmp_path / 'nothing.yaml', '-o', tmp_path / 'o')
    assert code == 2 and 'nothing.yaml' in err and err.count('\n') == 1


def test_without_the_design_extra_it_exits_2_naming_it(tmp_path, task_file):
    """Optuna made unimportable in a child process (as a machine without the extra)."""
    script = ('import sys\n'
              'class Block:\n'
              '    def find_spec(self, name, path=None, target=None):\n'
              '        if name.split(".")[0] in ("optuna", "distributed"):\n'
              '            raise ImportError("blocked")\n'
              'sys.meta_path.insert(0, Block())\n'
              'from hrdf_ros.cli import main\n'
              f'sys.exit(main(["design", {str(task_file)!r}, "-o", {str(tmp_path)!r}]))\n')
    done = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        'hrdf: error: hrdf design needs the design extra: pip install "hrdf_ros[design]" '
        '(Optuna, Dask)')
    assert 'Traceback' not in done.stderr
