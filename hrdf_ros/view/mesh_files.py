"""Where a URDF mesh reference is on this machine, for drawing it.

In: a ``<mesh filename>`` as the URDF writes it. Out: the path of a local file, or
:class:`MeshNotFound` saying why there is none. The lookup is the export's own
(:func:`hrdf_ros.parts.mesh_sources.local_mesh_path`, the one rule for where meshes
are), as ROS's resource_retriever reads references:

* ``file:///abs/path`` (``file://`` + an absolute path;
  :func:`hrdf_ros.parts.mesh_sources.file_uri` writes them);
* ``package://<package>/<path>``: ``<share directory of package>/<path>``, the share
  directory found through the ament index (``AMENT_PREFIX_PATH``: a sourced ROS 2
  install or this repository's ``.venv``);
* ``http(s)://``: the copy in the web mesh cache that ``hrdf meshes fetch FILE.hrdf``
  fills; never fetched here (the view makes no request to other hosts);
* a plain path: absolute, or relative to ``base_directory`` (the URDF's folder).

With an access policy (:class:`hrdf_ros.hrdf.access.FileAccess`: a URDF from the ROS
graph, which any participant can publish), a file outside its directories is not read,
with one message that never says whether it exists.
"""
from __future__ import annotations

import os
import urllib.parse
from typing import Optional

from ..parts.mesh_sources import local_mesh_path, package_share
from ..hrdf.access import REFUSED, FileAccess


class MeshNotFound(Exception):
    """A mesh reference without a local file (the message says which and why)."""


def resolve_mesh(reference: str, base_directory: Optional[str] = None,
                 access: Optional[FileAccess] = None) -> str:
    """The local file a URDF mesh reference names (see the module docstring).

    Args:
        reference: the ``<mesh filename>`` value.
        base_directory: folder that relative paths are relative to (default: the current
            directory).
        access: where mesh files may be read from (``None``: anywhere).

    Returns:
        An absolute path of an existing file.

    Raises:
        MeshNotFound: a web mesh not in the cache, an unknown package, an unsupported
            URI scheme, no such file, or (with ``access``) a file it does not allow.
    """
    if access is None:
        return _resolve(reference, base_directory)
    try:
        path = _resolve(reference, base_directory)
    except MeshNotFound:
        path = None
    if path is None or not access.readable(path):   # one answer, whatever the reason
        raise MeshNotFound(f'{reference}: {REFUSED}')
    return os.path.realpath(path)


def _resolve(reference: str, base_directory: Optional[str]) -> str:
    parts = urllib.parse.urlsplit(reference)
    scheme = parts.scheme.lower()
    if scheme in ('http', 'https', 'package', 'file'):
        path = local_mesh_path(reference)
        if path is not None:
            return os.path.abspath(path)
        if scheme in ('http', 'https'):
            raise MeshNotFound(f'{reference}: a web mesh not in the cache (never fetched '
                               'here; hrdf meshes fetch FILE.hrdf downloads it once)')
        if scheme == 'package' and package_share(parts.netloc) is None:
            prefixes = os.environ.get('AMENT_PREFIX_PATH', '')
            raise MeshNotFound(f'{reference}: no package "{parts.netloc}" on the ament '
                               f'index (AMENT_PREFIX_PATH={prefixes or "<unset>"})')
        raise MeshNotFound(f'{reference}: no such file')
    if scheme and len(scheme) > 1:  # one letter: a Windows drive
        raise MeshNotFound(f'{reference}: unsupported URI scheme "{scheme}"')
    path = os.path.abspath(os.path.join(base_directory or os.getcwd(), reference))
    if not os.path.isfile(path):
        raise MeshNotFound(f'{reference}: no such file ({path})')
    return path
