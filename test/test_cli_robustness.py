"""The ``hrdf`` command never prints a Python traceback.

Every subcommand with malformed arguments exits 2 with one line on stderr; every file of
the invalid corpus exits 1 through every loading subcommand, with located diagnostics
only; a closed output pipe (``hrdf info X | head``) exits 2 with one line.
"""
import glob
import os
import re
import subprocess
import sys

import pytest

from hrdf_ros.cli import main

from conftest import BUNDLED_ARM, HEXAPOD, REPO

INVALID = sorted(glob.glob(os.path.join(REPO, 'test', 'invalid', '*.hrdf')))
DIAGNOSTIC = re.compile(r'^.+:\d+:\d+: (error|warning): .+$')


@pytest.fixture
def files(tmp_path):
    (tmp_path / 'bad.yaml').write_text('J1: [0, 1\n  - :\n')
    (tmp_path / 'list.yaml').write_text('- 1\n- 2\n')
    (tmp_path / 'unknown.yaml').write_text('J99: [0, 1]\n')
    (tmp_path / 'inverted.yaml').write_text('J1: [1, 0]\n')
    (tmp_path / 'binary.yaml').write_bytes(b'\xff\xfe\x00J1')
    (tmp_path / 'plain').write_text('x')
    return tmp_path


def malformed(t):
    """(arguments, what is wrong) for every subcommand."""
    arm, missing, folder = BUNDLED_ARM, str(t / 'missing.hrdf'), str(t)
    cases = [([], 'no subcommand'), (['frobnicate'], 'unknown subcommand'),
             (['--strict'], 'option without subcommand'),
             (['validate'], 'no file'), (['validate', '--bogus', arm], 'unknown option'),
             (['validate', missing], 'missing file'), (['validate', folder], 'a directory'),
             (['urdf'], 'no file'), (['urdf', arm, 'extra'], 'extra argument'),
             (['urdf', missing], 'missing file'), (['urdf', folder], 'a directory'),
             (['urdf', arm, '-o'], 'option without value'),
             (['urdf', arm, '-o', folder], 'output is a directory'),
             (['urdf', arm, '-o', str(t / 'no' / 'such' / 'x.urdf')], 'no output folder'),
             (['urdf', arm, '--joint-prefix', '9'], 'invalid joint names'),
             (['urdf', arm, '--limits', str(t / 'none.yaml')], 'missing limits'),
             (['urdf', arm, '--limits', str(t / 'bad.yaml')], 'limits not YAML'),
             (['urdf', arm, '--limits', str(t / 'list.yaml')], 'limits not a mapping'),
             (['urdf', arm, '--limits', str(t / 'unknown.yaml')], 'unknown joint'),
             (['urdf', arm, '--limits', str(t / 'inverted.yaml')], 'lower > upper'),
             (['urdf', arm, '--limits', str(t / 'binary.yaml')], 'limits not text'),
             (['urdf', arm, '--limits', folder], 'limits a directory'),
             (['info'], 'no file'), (['info', arm, 'x'], 'extra argument'),
             (['info', missing], 'missing file'), (['info', folder], 'a directory'),
             (['moveit', arm], 'no output folder'),
             (['moveit', arm, '-o', str(t / 'plain')], 'output is a file'),
             (['moveit', arm, '-o', folder, '--name', 'a/b'], 'name with a slash'),
             (['moveit', arm, '-o', folder, '--joint-prefix', '1'], 'invalid joint names'),
             (['moveit', missing, '-o', folder], 'missing file')]
    for command in ('fk', 'jacobian'):
        cases += [([command], 'no file'), ([command, missing], 'missing file'),
                  ([command, folder], 'a directory'),
                  ([command, arm, '--positions'], 'option without value'),
                  ([command, arm, '--positions', 'a b c d e f'], 'not numbers'),
                  ([command, arm, '--positions', '1 2'], 'wrong count'),
                  ([command, arm, '--positions', 'nan 0 0 0 0 0'], 'not finite'),
                  ([command, arm, '--positions', '1e999 0 0 0 0 0'], 'infinite'),
                  ([command, arm, '--frame-type', 'tool'], 'unknown frame type')]
    xyz = ['--xyz', '0.3', '0', '0.2']
    cases += [(['ik', arm], 'no target'), (['ik', missing] + xyz, 'missing file'),
              (['ik', arm, '--xyz', '1', '2'], 'two coordinates'),
              (['ik', arm, '--xyz', 'a', '0', '0'], 'not a number'),
              (['ik', arm, '--xyz', 'nan', '0', '0'], 'not finite'),
              (['ik', arm] + xyz + ['--rpy', '0', 'inf', '0'], 'rpy not finite'),
              (['ik', arm] + xyz + ['--quat', '0', '0', '0', '0'], 'zero quaternion'),
              (['ik', arm] + xyz + ['--quat', '0', '0', 'nan', '1'], 'quaternion NaN'),
              (['ik', arm] + xyz + ['--tip-axis', '0', '0', '0'], 'zero axis'),
              (['ik', arm] + xyz + ['--rpy', '0', '0', '0', '--quat', '0', '0', '0', '1'],
               'two orientations'),
              (['ik', arm] + xyz + ['--orientation', 'full'], 'full without a rotation'),
              (['ik', arm] + xyz + ['--tip-axis', '0', '0', '1', '--orientation', 'full'],
               'full from a tip axis'),
              (['ik', arm] + xyz + ['--orientation', 'sideways'], 'unknown objective'),
              (['ik', arm] + xyz + ['--seed', '1 2'], 'seed count'),
              (['ik', arm] + xyz + ['--seed', 'nan 0 0 0 0 0'], 'seed not finite'),
              (['ik', arm] + xyz + ['--limits', str(t / 'unknown.yaml')], 'unknown joint'),
              (['ik', arm] + xyz + ['--limits', str(t / 'bad.yaml')], 'limits not YAML'),
              (['ik', arm] + xyz + ['--limits', str(t / 'none.yaml')], 'missing limits'),
              (['ik', arm] + xyz + ['--end-effector', '1'], 'no such end effector'),
              (['ik', arm] + xyz + ['--timeout', '0'], 'zero timeout'),
              (['ik', arm] + xyz + ['--timeout', 'nan'], 'timeout NaN'),
              (['ik', arm] + xyz + ['--position-tolerance', '-1'], 'negative tolerance'),
              (['gravity', arm, '--positions', '1 2'], 'wrong count'),
              (['gravity', arm, '--gravity', '0', '0'], 'two components'),
              (['gravity', arm, '--gravity', '0', 'nan', '-9.81'], 'gravity NaN'),
              (['gravity', missing], 'missing file')]
    return cases


def test_malformed_arguments_exit_2_with_one_line(files, capsys):
    for args, what in malformed(files):
        code = main(args)
        captured = capsys.readouterr()
        lines = captured.err.splitlines()
        assert code == 2, (args, what, captured.err)
        assert len(lines) == 1, (args, what, lines)
        # 'hrdf: error: ...', or an unreadable HRDF: 'robot.hrdf:0:0: error: cannot read'
        assert lines[0].startswith('hrdf') or DIAGNOSTIC.match(lines[0]), (args, lines)
        assert 'Traceback' not in captured.err + captured.out


def test_help_exits_0(capsys):
    assert main(['--help']) == 0 and main(['fk', '--help']) == 0
    assert '--strict' in capsys.readouterr().out


@pytest.mark.parametrize('path', INVALID, ids=os.path.basename)
def test_every_invalid_file_exits_1_through_every_subcommand(path, tmp_path, capsys):
    for args in (['validate'], ['validate', '--strict'], ['validate', '--json'], ['urdf'],
                 ['fk'], ['jacobian'], ['info'], ['info', '--json'],
                 ['moveit', '-o', str(tmp_path)], ['ik', '--xyz', '0.3', '0', '0.2'],
                 ['gravity']):
        code = main(args[:1] + [path] + args[1:])
        captured = capsys.readouterr()
        assert code == 1, (args, captured.err)
        if args[-1] == '--json':
            continue
        lines = captured.err.splitlines()
        assert lines and all(DIAGNOSTIC.match(line) for line in lines), (args, lines)


def _closed_pipe(args):
    """Run ``hrdf args`` with stdout a pipe whose reading end is already closed."""
    process = subprocess.Popen([sys.executable, '-m', 'hrdf_ros.cli'] + args,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()
    err = process.stderr.read().decode()
    return process.wait(timeout=60), err


@pytest.mark.parametrize('args', [['info', HEXAPOD], ['urdf', BUNDLED_ARM],
                                  ['validate', BUNDLED_ARM]])
def test_a_closed_pipe_exits_2_with_one_line(args):
    code, err = _closed_pipe(args)
    assert code == 2 and err == 'hrdf: error: output closed (broken pipe)\n'


def test_head_in_a_shell_pipeline():
    command = (f'set -o pipefail; "{sys.executable}" -m hrdf_ros.cli fk "{HEXAPOD}" '
               '--frame-type output | head -1')
    result = subprocess.run(['bash', '-c', command], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout == 'output[0]\n'
    assert result.returncode in (0, 2) and 'Traceback' not in result.stderr
    assert result.stderr in ('', 'hrdf: error: output closed (broken pipe)\n')
