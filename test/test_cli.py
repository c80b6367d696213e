"""The ``hrdf`` command: exit codes and JSON outputs."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from hrdf_ros import Kinematics, load
from hrdf_ros.cli import main

from conftest import BUNDLED_ARM, HEXAPOD, KITS, KITS_DIR


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_exit_codes(capsys, tmp_path):
    bad = tmp_path / 'bad.hrdf'
    bad.write_text('<robot version="1.2.0">\n  <actuator type="X9-9"/>\n</robot>\n')
    assert run(capsys, 'validate', BUNDLED_ARM, *KITS)[0] == 0
    code, out, err = run(capsys, 'validate', str(bad))
    assert code == 1
    assert f'{bad}:2:3: error: <actuator> attribute "type": unknown value' in err
    assert run(capsys, 'validate', str(tmp_path / 'missing.hrdf'))[0] == 2
    assert run(capsys, 'frobnicate')[0] == 2


def test_validate_json(capsys, tmp_path):
    bad = tmp_path / 'bad.hrdf'
    bad.write_text('<robot version="1.2.0"><actuator type="x5-1"/><joint axis="q"/></robot>')
    code, out, _ = run(capsys, 'validate', '--json', str(bad))
    report = json.loads(out)
    assert code == 1 and report['valid'] is False
    assert report['errors'][0]['attribute'] == 'axis'
    assert report['warnings'][0]['element'] == 'actuator'


def test_fk_json_matches_api(capsys):
    q = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6]
    code, out, _ = run(capsys, 'fk', BUNDLED_ARM, '--positions', ' '.join(map(str, q)),
                       '--frame-type', 'output', '--json')
    assert code == 0
    data = json.loads(out)
    assert data['frame_type'] == 'output'
    np.testing.assert_array_equal(data['frames'],
                                  Kinematics(load(BUNDLED_ARM)).frames('output', q))
    assert run(capsys, 'fk', BUNDLED_ARM, '--positions', '1 2')[0] == 2


def test_jacobian_json_matches_api(capsys):
    q = [0.3, -0.2, 0.1, 0.4, -0.5, 0.6]
    code, out, _ = run(capsys, 'jacobian', BUNDLED_ARM, '--positions', ' '.join(map(str, q)),
                       '--json')
    data = json.loads(out)
    assert code == 0 and data['frame_type'] == 'end_effector'
    np.testing.assert_array_equal(data['jacobians'],
                                  Kinematics(load(BUNDLED_ARM)).jacobians('end_effector', q))
    assert np.shape(data['jacobians']) == (1, 6, 6)


def test_info_and_urdf(capsys, tmp_path):
    code, out, _ = run(capsys, 'info', BUNDLED_ARM, '--json')
    info = json.loads(out)
    assert code == 0 and info['dof'] == 6 and info['joint_names'][0] == 'J1'
    assert info['frame_counts'] == {'input': 12, 'output': 12, 'com': 12, 'end_effector': 1}
    target = tmp_path / 'arm.urdf'
    assert run(capsys, 'urdf', BUNDLED_ARM, '-o', str(target), '--name', 'arm')[0] == 0
    assert target.read_text().count('type="continuous"') == 6


def test_console_script_runs_as_a_process():
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', 'info', BUNDLED_ARM],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and '6 DoF' in result.stdout




def test_validate_exit_codes_warnings_and_worst_of_several(capsys, tmp_path):
    warn = tmp_path / 'warn.hrdf'
    warn.write_text('<robot version="1.2.0"><actuator type="x5-1"/></robot>')
    bad = tmp_path / 'bad.hrdf'
    bad.write_text('<robot version="1.2.0"><actuator type="X9-9"/></robot>')
    code, out, err = run(capsys, 'validate', str(warn))
    assert code == 0 and f'{warn}: valid' in out and 'warning: <actuator>' in err
    assert run(capsys, 'validate', str(warn), str(bad))[0] == 1
    assert run(capsys, 'validate', str(bad), str(tmp_path / 'missing.hrdf'), str(warn))[0] == 2
    assert run(capsys, 'validate')[0] == 2  # no file: usage error
    assert run(capsys, 'validate', HEXAPOD)[0] == 0


def test_validate_json_one_object_per_file(capsys, tmp_path):
    bad = tmp_path / 'bad.hrdf'
    bad.write_text('<robot version="1.3.0">\n<include path="/abs/leg.hrdf"/>\n</robot>')
    missing = tmp_path / 'missing.hrdf'
    code, out, _ = run(capsys, 'validate', '--json', HEXAPOD, str(bad), str(missing))
    assert code == 2
    lines = out.strip().split('\n')
    reports = [json.loads(line) for line in lines]
    assert [r['file'] for r in reports] == [HEXAPOD, str(bad), str(missing)]
    assert [r['valid'] for r in reports] == [True, False, False]
    for r in reports:
        assert set(r) == {'file', 'valid', 'errors', 'warnings'}
        for d in r['errors'] + r['warnings']:
            assert set(d) >= {'file', 'line', 'column', 'element', 'attribute', 'message'}
    error = reports[1]['errors'][0]
    assert (error['file'], error['line'], error['element'], error['attribute']) == (
        str(bad), 2, 'include', 'path')
    assert reports[2]['errors'][0]['line'] == 0


def test_info_json_tree_of_the_hexapod(capsys):
    code, out, _ = run(capsys, 'info', HEXAPOD, '--json')
    info = json.loads(out)
    assert code == 0 and info['dof'] == 18 and len(info['joint_names']) == 18
    assert info['frame_counts'] == {'input': 43, 'output': 48, 'com': 43, 'end_effector': 6}
    assert info['total_mass'] == pytest.approx(load(HEXAPOD).total_mass)
    [body] = info['tree']
    assert body['kind'] == 'rigid-body' and body['tag'] == 'body'
    assert len(body['outputs']) == 6
    for k, leg in enumerate(body['outputs']):
        assert [n['kind'] for n in leg] == ['actuator', 'bracket', 'actuator', 'link',
                                            'actuator', 'link', 'end-effector']
        assert [n['joint'] for n in leg if n['joint']] == [f'J{3 * k + j}' for j in (1, 2, 3)]
        side = 'left' if k < 3 else 'right'
        assert leg[0]['file'].endswith(os.path.join('legs', f'{side}_leg.hrdf'))
        assert leg[0]['line'] == 4
        assert all('outputs' not in n for n in leg)
    indices = []
    work = list(info['tree'])
    while work:
        node = work.pop()
        indices.append(node['index'])
        for chain in node.get('outputs', []):
            work.extend(chain)
    assert sorted(indices) == list(range(43))  # every element exactly once


def test_info_json_tree_of_a_chain_is_flat(capsys):
    code, out, _ = run(capsys, 'info', BUNDLED_ARM, '--json')
    tree = json.loads(out)['tree']
    assert len(tree) == 12 and all('outputs' not in n for n in tree)
    assert [n['index'] for n in tree] == list(range(12))


def test_info_text_shows_the_branches(capsys):
    code, out, _ = run(capsys, 'info', HEXAPOD)
    assert code == 0 and '18 DoF' in out
    headers = [line for line in out.splitlines() if line.strip().startswith('output ')]
    assert headers == [f'    output {k}:' for k in range(1, 7)]
    assert '      [1] actuator X8-9 [J1]' in out


def test_no_gripper_joints_option(capsys, tmp_path):
    kit = os.path.join(KITS_DIR, 'A-2085-06G.hrdf')
    for command in ('urdf', 'sdf'):
        assert main([command, kit]) == 0
        with_joints = capsys.readouterr().out
        assert main([command, kit, '--no-gripper-joints']) == 0
        rigid = capsys.readouterr().out
        assert 'gripper_joint' in with_joints and 'mimic' in with_joints
        assert 'gripper_joint' not in rigid and 'mimic' not in rigid
    out = tmp_path / 'pkg'
    assert main(['moveit', kit, '-o', str(out), '--collision-samples', '0',
                 '--no-gripper-joints']) == 0
    capsys.readouterr()
    assert 'gripper' not in (out / 'config' / 'A-2085-06G.srdf').read_text()
