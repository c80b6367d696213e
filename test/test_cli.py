"""The ``hrdf`` command: exit codes and JSON outputs."""
import json
import subprocess
import sys

import numpy as np
import pytest

from hrdf_ros import Kinematics, load
from hrdf_ros.cli import main

from conftest import BUNDLED_ARM, KITS


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
