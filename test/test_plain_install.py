"""A plain ``pip install .`` (no extras, a fresh venv) runs every writer's default path.

``hrdf mjcf`` and ``hrdf moveit`` compute the self-collision matrix by default
(python-fcl, a core dependency in setup.py: the same command writes the same files on
every install). This installs the repository into a new venv with the pip index this
machine is configured with, then runs both commands on a kit with default options.
"""
import os
import subprocess
import sys

import pytest

from conftest import KITS_DIR, REPO

KIT = os.path.join(KITS_DIR, 'A-2085-06G.hrdf')


@pytest.fixture(scope='module')
def plain_venv(tmp_path_factory):
    venv = tmp_path_factory.mktemp('plain') / 'venv'
    subprocess.run([sys.executable, '-m', 'venv', str(venv)], check=True, timeout=120)
    result = subprocess.run([str(venv / 'bin' / 'pip'), 'install', '-q', REPO],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return venv


def _environment(tmp_path):
    """No ROS, no project venv: the plain install alone (user cache in tmp_path)."""
    keep = ('PATH', 'LANG', 'LC_ALL', 'TMPDIR')
    env = {k: v for k, v in os.environ.items() if k in keep}
    env['HOME'] = str(tmp_path)
    env['XDG_CACHE_HOME'] = str(tmp_path / 'cache')
    return env


@pytest.mark.parametrize('command,output,written', [
    ('mjcf', 'robot/robot.xml', ['robot/robot.xml', 'robot/scene.xml']),
    ('moveit', 'pkg', ['pkg/config/A-2085-06G.srdf', 'pkg/package.xml'])])
def test_default_path_works_on_a_plain_install(plain_venv, tmp_path, command, output,
                                               written):
    if not os.path.isfile(KIT):
        pytest.skip('../shared/hrdf/kits is not here')
    result = subprocess.run([str(plain_venv / 'bin' / 'hrdf'), command, KIT, '-o', output],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env=_environment(tmp_path))
    assert result.returncode == 0, result.stderr
    assert 'python-fcl' not in result.stderr and 'Traceback' not in result.stderr
    for name in written:
        assert (tmp_path / name).is_file(), name
    if command == 'moveit':     # the matrix was sampled: more than the adjacent pairs
        srdf = (tmp_path / 'pkg/config/A-2085-06G.srdf').read_text()
        assert 'reason="Never"' in srdf
