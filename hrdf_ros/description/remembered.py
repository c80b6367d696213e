"""The sampled part of a robot's semantics, remembered on disk between processes.

In: a key (the fingerprint :func:`~.semantics.semantics` computes from everything the
result depends on) and the result's sampled part: the disabled pairs of the collision
matrix, the ``home`` states and the floor height. Out: that part again in a later
process that asks with the same key, or None.

Each ``hrdf plan``, ``hrdf ik``, ``hrdf moveit`` and ``hrdf mjcf`` run and each node that
plans needs the collision matrix, which samples 10 000 states (a quarter to one second
for a 6- or 7-DoF arm). It is kept as one JSON file per key in ``semantics/`` under the
user cache folder (:func:`~hrdf_ros.cache_dir.cache_dir`: ``HRDF_ROS_CACHE_DIR``, else
``~/.cache/hrdf_ros``), beside the meshes and compiled kernels. The key also holds a
digest of the code that computes the result (every module of hrdf_ros) and the versions
of numpy and python-fcl, so that a result is never read by other code than the one that
computed it. Numbers go through JSON as Python's shortest round-trip text: a result read
back is the one written, bit for bit.

A file that cannot be read or does not hold what it should is ignored (and replaced by
the next result computed); a folder that cannot be written keeps nothing. Files are
written whole (a temporary file, then renamed), so two processes never read half a file.
"""
from __future__ import annotations

import functools
import glob
import hashlib
import json
import math
import os
import tempfile
from typing import Any, Dict, Optional

from ..cache_dir import cache_dir

#: Sub-folder of the cache folder.
FOLDER = 'semantics'


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 of the code behind a result: every module of hrdf_ros (the collision
    matrix depends on the reading, the kinematics, the parts' shapes and the collision
    checks, not only on this folder: a digest of description/ alone let a matrix computed
    by older collision code be read back after that code changed) and the versions of
    numpy and python-fcl."""
    return tree_digest(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tree_digest(package: str) -> str:
    """SHA-256 of every ``*.py`` below the folder ``package`` (by relative name and
    content, in name order) and the versions of numpy and python-fcl."""
    from importlib import metadata
    digest = hashlib.sha256()
    paths = glob.glob(os.path.join(package, '**', '*.py'), recursive=True)
    for path in sorted(paths, key=lambda p: os.path.relpath(p, package)):
        with open(path, 'rb') as handle:
            name = os.path.relpath(path, package).replace(os.sep, '/')
            digest.update(name.encode() + b'\0' + handle.read())
    for distribution in ('numpy', 'python-fcl'):
        try:
            version = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            version = '-'
        digest.update(f'{distribution}={version}'.encode())
    return digest.hexdigest()


def _path(key: str) -> str:
    name = hashlib.sha256((code_digest() + key).encode()).hexdigest()
    return os.path.join(cache_dir(), FOLDER, name + '.json')


def _valid(value: Any) -> bool:
    """What :func:`store` writes: {'disabled': [[link, link, reason], ...], 'homes':
    {group: {joint: finite float}}, 'floor': finite float}."""
    if not isinstance(value, dict) or set(value) != {'disabled', 'homes', 'floor'}:
        return False
    disabled, homes, floor = value['disabled'], value['homes'], value['floor']
    return (isinstance(disabled, list)
            and all(isinstance(d, list) and len(d) == 3 and all(isinstance(s, str) for s in d)
                    for d in disabled)
            and isinstance(homes, dict)
            and all(isinstance(g, str) and isinstance(v, dict)
                    and all(isinstance(j, str) and isinstance(x, float) and math.isfinite(x)
                            for j, x in v.items()) for g, v in homes.items())
            and isinstance(floor, float) and math.isfinite(floor))


def load(key: str) -> Optional[Dict[str, Any]]:
    """The value stored under ``key`` by this code, or None (none, unreadable or not
    what :func:`store` writes)."""
    try:
        with open(_path(key), encoding='utf-8') as handle:
            value = json.load(handle)
    except (OSError, ValueError):
        return None
    return value if _valid(value) else None


def store(key: str, value: Dict[str, Any]) -> None:
    """Keep ``value`` ({'disabled': [[link, link, reason], ...], 'homes': {group: {joint:
    value}}, 'floor': m}) under ``key``; nothing when the folder cannot be written.

    Raises:
        ValueError: ``value`` is not of that form.
    """
    if not _valid(value):
        raise ValueError(f'not a semantics result: {value!r:.200}')
    path = _path(key)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), suffix='.tmp')
        try:
            with os.fdopen(handle, 'w', encoding='utf-8') as out:
                json.dump(value, out)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return
