"""The examples of the README and the documentation run as written.

The ros2 command lines of the docs are run by the real-CLI tests (test_ros_cli_*.py;
test_package.py checks the docs show each one). Here: the Python examples of the README
and of the tutorials, and the `hrdf` commands they start from, each run in a folder
holding what they name (the bundled arm under ``config/``).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from conftest import REPO


def _blocks(path, language):
    """The ```<language> blocks of a Markdown file of the repository."""
    text = open(os.path.join(REPO, path), encoding='utf-8').read()
    return re.findall(rf'^```{language}\n(.*?)^```', text, re.M | re.S)


def _run_python(code, cwd):
    result = subprocess.run([sys.executable, '-c', code], cwd=cwd, capture_output=True,
                            text=True, timeout=300,
                            env=dict(os.environ, PYTHONPATH=REPO + os.pathsep
                                     + os.environ.get('PYTHONPATH', '')))
    assert result.returncode == 0, result.stderr


def _run_hrdf(line, cwd):
    """One ``hrdf ...`` line of a bash block (its comment dropped), as ``python -m``."""
    words = shlex.split(line, comments=True)
    assert words[0] == 'hrdf', line
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', *words[1:]], cwd=cwd,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


@pytest.fixture
def workdir(tmp_path):
    """A folder with config/x_series_arm_6dof.hrdf, as in the repository."""
    os.mkdir(tmp_path / 'config')
    shutil.copy(os.path.join(REPO, 'config', 'x_series_arm_6dof.hrdf'), tmp_path / 'config')
    return str(tmp_path)


@pytest.mark.parametrize('page', ['README.md', 'doc/tutorials/view_robot.md'])
def test_python_examples_run(page, workdir):
    [code] = _blocks(page, 'python')
    _run_python(code, workdir)


def test_simulators_tutorial_runs(workdir):
    """doc/tutorials/simulators.md: export the arm, then load it in Drake, MuJoCo,
    PyBullet and Pinocchio as the page shows (make test installs all four)."""
    for module in ('pydrake', 'mujoco', 'pybullet', 'pinocchio'):
        pytest.importorskip(module)
    page = 'doc/tutorials/simulators.md'
    [export] = [b for b in _blocks(page, 'bash') if b.startswith('hrdf urdf')]
    for line in export.splitlines():
        _run_hrdf(line, workdir)
    assert os.path.isfile(os.path.join(workdir, 'arm.urdf'))
    assert os.path.isfile(os.path.join(workdir, 'arm.sdf'))
    for code in _blocks(page, 'python'):
        _run_python(code, workdir)
