"""Mesh references for the exported files, and web meshes downloaded once into a folder.

In: a :class:`~hrdf_ros.model.RobotModel` (its elements' ``mesh_file``) and, optionally,
a folder for web meshes. Out: ``{mesh_file: reference to write}``:

* a local mesh file: ``file://`` + its absolute path, not percent-encoded, as ROS's
  resource_retriever reads it (it strips ``file://`` and opens the rest; RViz, Gazebo,
  Drake, Pinocchio and PyBullet resolve it wherever the URDF is; a relative path would
  depend on the current directory of the program reading the URDF, and RViz opens only
  ``file://`` and ``package://``);
* a web mesh (``http(s)://``): the URL as written (RViz fetches it), or, with a mesh
  folder, the ``file://`` URI of a local copy ``<folder>/<host>/<path>``. A copy already
  there is used as it is (downloaded once). Downloads use :mod:`urllib` with a timeout
  and a size bound, only when asked for (never at import time).
"""
from __future__ import annotations

import os
import re
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from typing import Dict, Optional

from ..model import RobotModel
from .geometry import is_web_url

#: Largest mesh downloaded, bytes.
MAX_MESH_BYTES = 64 * 1024 * 1024
#: Seconds to wait for the server (connection and each read).
DOWNLOAD_TIMEOUT = 30.0

_SAFE = re.compile(r'[^A-Za-z0-9._-]')


class MeshDownloadError(Exception):
    """A web mesh could not be downloaded (the message names the URL and the reason)."""


def local_name(url: str) -> str:
    """Relative path of a URL's copy in the mesh folder: ``<host>/<path segments>``, each
    reduced to ``A-Za-z0-9._-`` (no ``..``, no absolute paths).

    Raises:
        MeshDownloadError: when the URL has no host or no file name.
    """
    parts = urllib.parse.urlsplit(url)
    segments = [urllib.parse.unquote(s) for s in parts.path.split('/')]
    segments = [_SAFE.sub('_', s) for s in segments if s not in ('', '.', '..')]
    host = _SAFE.sub('_', parts.hostname or '')
    if not host or not segments:
        raise MeshDownloadError(f'{url}: not a mesh URL (needs a host and a file name)')
    if parts.query:
        stem, dot, ext = segments[-1].rpartition('.')
        query = _SAFE.sub('_', parts.query)
        segments[-1] = f'{stem}_{query}.{ext}' if dot else f'{segments[-1]}_{query}'
    return os.path.join(host, *segments)


def download(url: str, path: str, timeout: float = DOWNLOAD_TIMEOUT,
             max_bytes: int = MAX_MESH_BYTES) -> None:
    """Download ``url`` to ``path`` (written whole or not at all).

    Raises:
        MeshDownloadError: on a network or HTTP error, a timeout, or more than
            ``max_bytes`` bytes.
    """
    os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310
            length = response.headers.get('Content-Length')
            if length is not None and length.isdigit() and int(length) > max_bytes:
                raise MeshDownloadError(f'{url}: {length} bytes, more than the limit of '
                                        f'{max_bytes}')
            data = response.read(max_bytes + 1)
    except MeshDownloadError:
        raise
    except urllib.error.HTTPError as exc:
        raise MeshDownloadError(f'{url}: download failed (HTTP {exc.code} {exc.reason})') \
            from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, 'reason', None) or exc
        raise MeshDownloadError(f'{url}: download failed ({reason})') from None
    if len(data) > max_bytes:
        raise MeshDownloadError(f'{url}: more than the limit of {max_bytes} bytes')
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path) or '.', suffix='.part')
    try:
        with os.fdopen(handle, 'wb') as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def file_uri(path: str) -> str:
    """``file://`` + the absolute path (not percent-encoded: resource_retriever reads it
    verbatim)."""
    return 'file://' + os.path.abspath(path)


def mesh_references(model: RobotModel, mesh_dir: Optional[str] = None,
                    timeout: float = DOWNLOAD_TIMEOUT,
                    max_bytes: int = MAX_MESH_BYTES) -> Dict[str, str]:
    """What to write for each element's mesh (see the module docstring).

    Args:
        model: the robot.
        mesh_dir: folder for copies of web meshes; ``None`` keeps the URLs.
        timeout: seconds, per download.
        max_bytes: size bound per download.

    Returns:
        ``{element.mesh_file: reference}`` for every element with a mesh.

    Raises:
        MeshDownloadError: when a web mesh that is not in ``mesh_dir`` yet cannot be
            downloaded.
    """
    references: Dict[str, str] = {}
    for element in model.elements:
        mesh = element.mesh_file
        if not mesh or mesh in references:
            continue
        if not is_web_url(mesh):
            references[mesh] = file_uri(mesh)
        elif mesh_dir is None:
            references[mesh] = mesh
        else:
            path = os.path.abspath(os.path.join(mesh_dir, local_name(mesh)))
            if not os.path.isfile(path):
                download(mesh, path, timeout, max_bytes)
            references[mesh] = file_uri(path)
    return references
