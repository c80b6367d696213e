"""HEBI's own ROS description (``../shared/hebi_description``) as a test oracle.

HEBI's kit URDFs are xacro files that find their components and meshes with
``$(find hebi_description)``. :func:`ament_prefix` lays the shared copy out as a colcon
install would (an ament prefix with ``share/hebi_description`` and its index marker),
and :func:`kit_urdf` expands a kit with the real ``xacro`` (the PyPI package, run as a
process with that prefix first on ``AMENT_PREFIX_PATH``), so the oracle is HEBI's model
exactly as a ROS user gets it. Nothing is copied: the prefix links to the shared folder.

Tests that need it call :func:`require_hebi_description` (skip when ../shared is absent;
.ci/run fails on any skip).
"""
from __future__ import annotations

import atexit
import functools
import glob
import os
import shutil
import subprocess
import sys
import tempfile
from typing import List

import pytest

from conftest import KITS_DIR, REPO

HEBI_DESCRIPTION = os.path.realpath(os.path.join(REPO, '..', 'shared', 'hebi_description'))
KIT_XACROS = os.path.join(HEBI_DESCRIPTION, 'urdf', 'kits')


def require_hebi_description():
    """Skip the calling test module when ../shared/hebi_description is absent."""
    if not os.path.isdir(os.path.join(HEBI_DESCRIPTION, 'meshes')):
        pytest.skip(f'HEBI\'s description package not found at {HEBI_DESCRIPTION}',
                    allow_module_level=True)


def hebi_kits() -> List[str]:
    """Kit names with both HEBI's kit URDF and the kit's HRDF in ../shared/hrdf/kits."""
    names = [os.path.basename(p)[:-len('.urdf.xacro')]
             for p in glob.glob(os.path.join(KIT_XACROS, '*.urdf.xacro'))]
    return sorted(n for n in names if os.path.exists(os.path.join(KITS_DIR, n + '.hrdf')))


@functools.lru_cache(maxsize=None)
def ament_prefix() -> str:
    """An ament prefix holding ``share/hebi_description`` (a link to the shared copy) and
    its package marker, made once per test process in a temporary directory."""
    prefix = tempfile.mkdtemp(prefix='hebi_description_prefix_')
    atexit.register(shutil.rmtree, prefix, True)
    index = os.path.join(prefix, 'share', 'ament_index', 'resource_index', 'packages')
    os.makedirs(index)
    open(os.path.join(index, 'hebi_description'), 'w').close()
    os.symlink(HEBI_DESCRIPTION, os.path.join(prefix, 'share', 'hebi_description'))
    return prefix


def prefix_env(base=None) -> dict:
    """``base`` (default os.environ) with :func:`ament_prefix` first on
    AMENT_PREFIX_PATH."""
    env = dict(os.environ if base is None else base)
    paths = [ament_prefix()] + [p for p in env.get('AMENT_PREFIX_PATH', '').split(':') if p]
    env['AMENT_PREFIX_PATH'] = ':'.join(paths)
    return env


@functools.lru_cache(maxsize=None)
def kit_urdf(kit: str) -> str:
    """HEBI's URDF of ``kit`` (e.g. ``A-2085-06G``): its kit xacro expanded by the real
    xacro. Raises AssertionError with xacro's message when it fails."""
    path = os.path.join(KIT_XACROS, f'{kit}.urdf.xacro')
    xacro = os.path.join(os.path.dirname(sys.executable), 'xacro')
    result = subprocess.run([xacro, path], capture_output=True,
                            text=True, env=prefix_env(), timeout=120)
    assert result.returncode == 0, f'xacro {path} failed:\n{result.stderr}'
    return result.stdout
