"""``hrdf ik`` and ``hrdf gravity``: a solution (checked with FK), no solution (exit 1,
one line saying how far the best is), bad input (exit 2, test_cli_robustness.py too),
JSON, the objective chosen from the options, both kinematics paths, and the console
script as a process."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import yaml

from hrdf_ros import Kinematics, load
from hrdf_ros.cli import main
from hrdf_ros.kinematics.rotations import rotation_to_quaternion, rotation_to_rpy

from conftest import BUNDLED_ARM, HEXAPOD_18, KITS, REPO
from test_ik import errors


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def arm_target(q=(0.3, 1.1, 1.7, -0.4, 0.9, 0.2), path=BUNDLED_ARM):
    return Kinematics(load(path)).end_effector(np.array(q))


def text_positions(out):
    """joint name -> value of the text output."""
    return {name: float(value) for name, value in (line.split() for line in out.splitlines())}


@pytest.mark.parametrize('kinematics', ['numpy', 'numba'])
def test_a_pose_is_solved_and_printed_by_joint_name(capsys, kinematics):
    target = arm_target()
    xyz = target[:3, 3]
    for rotation in (['--rpy', *rotation_to_rpy(target[:3, :3])],
                     ['--quat', *rotation_to_quaternion(target[:3, :3])]):
        code, out, err = run(capsys, 'ik', BUNDLED_ARM, '--xyz', *xyz, *rotation,
                             '--kinematics', kinematics)
        assert code == 0, err
        positions = text_positions(out)
        assert list(positions) == ['J1', 'J2', 'J3', 'J4', 'J5', 'J6']
        reached = Kinematics(load(BUNDLED_ARM)).end_effector(np.array(list(positions.values())))
        position, angle = errors(reached, target, 'full')
        # nine decimals printed: the printed positions are within the tolerance plus that
        assert position <= 1e-5 + 1e-8 and angle <= 1e-5 + 1e-8
        assert err.startswith('hrdf: note: position error ') and '(full)' in err
        assert len(err.splitlines()) == 1


def test_json_and_the_objective_from_the_options(capsys):
    target = arm_target()
    xyz = [str(v) for v in target[:3, 3]]
    code, out, err = run(capsys, 'ik', BUNDLED_ARM, '--xyz', *xyz, '--json')
    data = json.loads(out)
    assert code == 0 and data['success'] and data['orientation'] == 'none'
    assert data['joint_names'] == ['J1', 'J2', 'J3', 'J4', 'J5', 'J6']
    reached = Kinematics(load(BUNDLED_ARM)).end_effector(np.array(data['positions']))
    assert errors(reached, target, 'none')[0] <= 1e-5 and data['orientation_error'] == 0.0
    assert err == ''
    axis = target[:3, 2]
    code, out, _ = run(capsys, 'ik', BUNDLED_ARM, '--xyz', *xyz, '--tip-axis', *axis,
                       '--json')
    data = json.loads(out)
    assert code == 0 and data['orientation'] == 'tip_axis'
    reached = Kinematics(load(BUNDLED_ARM)).end_effector(np.array(data['positions']))
    position, angle = errors(reached, target, 'tip_axis')
    assert position <= 1e-5 and angle <= 1e-5
    assert data['iterations'] >= 1 and data['restarts'] >= 0
    # a 4-DoF kit with a whole orientation: solved for the position, with a note saying so
    four = next(k for k in KITS if k.endswith('A-2085-04.hrdf'))
    target4 = arm_target((0.2, 0.8, 1.2, 0.3), four)
    code, out, err = run(capsys, 'ik', four, '--xyz', *target4[:3, 3], '--rpy', 1, 2, 3,
                         '--json')
    assert code == 0 and json.loads(out)['orientation'] == 'none'
    assert 'moved by 4 joint(s): solving for the position only' in err


def test_seed_limits_and_end_effector(capsys, tmp_path):
    limits = tmp_path / 'limits.yaml'
    limits.write_text(yaml.safe_dump({f'J{k}': [-2.5, 2.5] for k in range(1, 7)}))
    target = arm_target((0.3, 1.1, 1.7, -0.4, 0.9, 0.2))
    code, out, _ = run(capsys, 'ik', BUNDLED_ARM, '--xyz', *target[:3, 3], '--rpy',
                       *rotation_to_rpy(target[:3, :3]), '--limits', limits, '--seed',
                       '0.3 1.0 1.6 -0.4 0.9 0.2', '--json')
    data = json.loads(out)
    assert code == 0 and np.abs(data['positions']).max() <= 2.5
    np.testing.assert_allclose(data['positions'], [0.3, 1.1, 1.7, -0.4, 0.9, 0.2], atol=1e-4)
    hexapod = Kinematics(load(HEXAPOD_18))
    leg = hexapod.end_effector(np.full(18, 0.4), 3)
    code, out, err = run(capsys, 'ik', HEXAPOD_18, '--xyz', *leg[:3, 3], '--end-effector', 3,
                         '--json')
    data = json.loads(out)
    assert code == 0, err
    chain = hexapod.end_effector_joints(3)
    np.testing.assert_allclose(hexapod.end_effector(np.array(data['positions']), 3)[:3, 3],
                               leg[:3, 3], atol=1e-5)
    others = np.setdiff1d(np.arange(18), chain)
    assert not np.array(data['positions'])[others].any()


def test_no_solution_exits_1_with_one_line(capsys):
    code, out, err = run(capsys, 'ik', BUNDLED_ARM, '--xyz', 3, 0, 0.1, '--rpy', 0, 0, 0)
    assert code == 1 and out == ''
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith('hrdf: no collision-free solution in 64 start(s) of 300 '
                               'iteration(s): the best configuration found is ')
    assert ' m and ' in lines[0] and lines[0].endswith('rad (full) from the target')
    distance = float(lines[0].split(' is ')[1].split(' m')[0])
    assert 2.1 < distance < 2.4              # 3 m out; the arm reaches about 0.8 m
    code, out, err = run(capsys, 'ik', BUNDLED_ARM, '--xyz', 3, 0, 0.1, '--json',
                         '--max-attempts', 2, '--max-iterations', 50, '--timeout', 10)
    assert code == 1 and json.loads(out)['success'] is False
    assert 'in 2 start(s) of 50 iteration(s) (or 10 s): ' in err
    assert len(err.splitlines()) == 1 and 'rad' not in err


def test_the_answer_is_free_of_collision_unless_asked_not_to_be(capsys, tmp_path):
    """By default the answer is free of collision (the robot's own links, --floor,
    --collision-objects), as ~/solve_ik's default; --ignore-collisions gives plain IK,
    which lands in collision from this seed; the two options together are refused."""
    from hrdf_ros.motion import MotionPlanner
    model = load(BUNDLED_ARM)
    planner = MotionPlanner(model, [{'name': 'floor', 'type': 'floor',
                                     'pose': {'position': [0.0, 0.0, -0.02]}}])
    target = arm_target((-0.1, 1.6, 1.7, -0.6, 0.3, -0.7))
    seed = '0.4 -0.6 -0.4 1.6 -1.1 0.5'              # plain IK from here: into the floor
    pose = ['--xyz', *target[:3, 3], '--rpy', *rotation_to_rpy(target[:3, :3])]
    code, out, err = run(capsys, 'ik', BUNDLED_ARM, *pose, '--seed', seed,
                         '--ignore-collisions', '--json')
    plain = np.array(json.loads(out)['positions'])
    assert code == 0 and planner.in_collision(plain), err
    code, out, err = run(capsys, 'ik', BUNDLED_ARM, *pose, '--seed', seed, '--floor',
                         -0.02, '--json')
    free = np.array(json.loads(out)['positions'])
    assert code == 0 and not planner.in_collision(free), err
    np.testing.assert_allclose(planner.kinematics.end_effector(free), target, atol=2e-5)
    code, out, err = run(capsys, 'ik', BUNDLED_ARM, *pose, '--floor', 0.0,
                         '--ignore-collisions')
    assert code == 2 and out == '' and len(err.splitlines()) == 1
    assert '--ignore-collisions checks no object' in err


def test_without_the_motion_extra_hrdf_ik_names_it_and_the_way_out():
    code = ("import sys\n"
            "for name in ('pinocchio', 'ompl', 'toppra', 'hppfcl', 'coal'):\n"
            "    sys.modules[name] = None\n"
            "from hrdf_ros.cli import main\n"
            f"print(main(['ik', {BUNDLED_ARM!r}, '--xyz', '0.3', '0', '0.2', "
            "'--ignore-collisions']))\n"
            f"sys.exit(main(['ik', {BUNDLED_ARM!r}, '--xyz', '0.3', '0', '0.2']))\n")
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=120)
    assert result.stdout.splitlines()[-1] == '0'          # plain IK needs no extra
    assert result.returncode == 2 and 'Traceback' not in result.stderr
    [line] = [x for x in result.stderr.splitlines() if x.startswith('hrdf: error')]
    assert "hrdf_ros[motion]" in line and '--ignore-collisions' in line


def test_gravity_efforts_by_joint_name(capsys):
    q = [0.1, 0.9, 1.4, -0.3, 0.5, 0.0]
    code, out, err = run(capsys, 'gravity', BUNDLED_ARM, '--positions', ' '.join(map(str, q)))
    assert code == 0 and err == ''
    expected = Kinematics(load(BUNDLED_ARM)).gravity_efforts(q)
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == ['J1', 'J2', 'J3', 'J4', 'J5', 'J6']
    assert all(line.endswith(' N m') for line in lines)
    np.testing.assert_allclose([float(line.split()[1]) for line in lines], expected,
                               atol=1e-9)
    code, out, _ = run(capsys, 'gravity', BUNDLED_ARM, '--positions', ' '.join(map(str, q)),
                       '--gravity', 0, 9.81, 0, '--json')
    data = json.loads(out)
    assert code == 0 and data['gravity'] == [0.0, 9.81, 0.0]
    np.testing.assert_allclose(data['efforts'], Kinematics(load(BUNDLED_ARM))
                               .gravity_efforts(q, (0, 9.81, 0)), atol=1e-12)


def test_the_console_script_solves(tmp_path):
    target = arm_target()
    env = dict(os.environ, PYTHONPATH=REPO)
    result = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), 'hrdf'), 'ik', BUNDLED_ARM, '--xyz',
         *map(str, target[:3, 3]), '--quat', *map(str, rotation_to_quaternion(target[:3, :3]))],
        capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 6 and 'Traceback' not in result.stderr
