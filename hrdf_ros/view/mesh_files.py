"""Where a URDF mesh reference is on this machine.

In: a ``<mesh filename>`` as the URDF writes it. Out: the path of a local file, or
:class:`MeshNotFound` saying why there is none. Handled as ROS's resource_retriever
reads them (RViz's rule):

* ``file:///abs/path`` (``file://`` + an absolute path, not percent-encoded; what
  :func:`hrdf_ros.export.meshes.file_uri` writes);
* ``package://<package>/<path>``: ``<share directory of package>/<path>``, the share
  directory found through the ament index (``ament_index_python``, on
  ``AMENT_PREFIX_PATH``: a sourced ROS 2 install or this repository's ``.venv``);
* a plain path: absolute, or relative to ``base_directory`` (the URDF's folder);
* ``http(s)://``: never fetched here (the view makes no request to other hosts); the
  export's mesh folder (``hrdf view --mesh-dir DIR``) turns web meshes into local copies.
"""
from __future__ import annotations

import os
import urllib.parse
from typing import Optional


class MeshNotFound(Exception):
    """A mesh reference without a local file (the message says which and why)."""


def package_share(package: str) -> str:
    """The share directory of a ROS package on the ament index.

    Raises:
        MeshNotFound: the ament index is not available, or does not have the package.
    """
    try:
        from ament_index_python.packages import (PackageNotFoundError,
                                                 get_package_share_directory)
    except ImportError:
        raise MeshNotFound(f'package://{package}: ament_index_python is not installed '
                           '(source a ROS 2 install)') from None
    try:
        return get_package_share_directory(package)
    except (PackageNotFoundError, ValueError, LookupError):
        prefixes = os.environ.get('AMENT_PREFIX_PATH', '')
        raise MeshNotFound(f'package://{package}: no package "{package}" on the ament '
                           f'index (AMENT_PREFIX_PATH={prefixes or "<unset>"})') from None


def resolve_mesh(reference: str, base_directory: Optional[str] = None) -> str:
    """The local file a URDF mesh reference names (see the module docstring).

    Args:
        reference: the ``<mesh filename>`` value.
        base_directory: folder that relative paths are relative to (default: the current
            directory).

    Returns:
        An absolute path of an existing file.

    Raises:
        MeshNotFound: a web URL, an unknown package, or no such file.
    """
    parts = urllib.parse.urlsplit(reference)
    scheme = parts.scheme.lower()
    if scheme in ('http', 'https'):
        raise MeshNotFound(f'{reference}: a web mesh (not fetched; hrdf view --mesh-dir '
                           'DIR downloads it once)')
    if scheme == 'package':
        path = os.path.join(package_share(parts.netloc), parts.path.lstrip('/'))
    elif scheme == 'file':
        path = reference[len('file://'):]
    elif scheme and len(scheme) > 1:  # one letter: a Windows drive
        raise MeshNotFound(f'{reference}: unsupported URI scheme "{scheme}"')
    else:
        path = os.path.join(base_directory or os.getcwd(), reference)
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise MeshNotFound(f'{reference}: no such file ({path})')
    return path
