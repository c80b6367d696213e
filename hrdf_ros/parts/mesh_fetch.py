"""Downloads of mesh files, only when asked: ``hrdf meshes fetch``.

In: a base URL (HEBI's public repository at the pinned commit, or a local mirror) or a
robot model with web meshes. Out: files in the user cache (:mod:`.mesh_sources`), or
:class:`MeshDownloadError` naming the URL and the reason.

* :func:`fetch_hebi_meshes`: every file of :data:`.hebi_mesh_files.FILES` from
  ``<base>/meshes/<file>``, each checked against its SHA-256. All or nothing: the files
  are downloaded into a temporary folder next to the cache folder and moved in only when
  every one has been checked, so a failed fetch (a server that cannot be reached, an
  HTTP error, a digest that differs) leaves the cache as it was. Files already in the
  cache with the right digest are not downloaded again.
* :func:`fetch_web_meshes`: the ``http(s)://`` ``mesh_path`` files of a robot into
  ``<folder>/<host>/<path>`` (default: the cache's ``web`` folder); their digests are
  unknown, so they are only bounded in size.

Downloads use :mod:`urllib` (timeout :data:`DOWNLOAD_TIMEOUT` per connection and read,
size bound :data:`MAX_MESH_BYTES`), and show tqdm's progress bar on a terminal.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from typing import Callable, List, Mapping, Optional

from ..model import RobotModel
from .hebi_mesh_files import DEFAULT_URL, FILES
from .mesh_sources import hebi_cache_folder, local_name, web_cache_folder

#: Largest mesh downloaded, bytes.
MAX_MESH_BYTES = 64 * 1024 * 1024
#: Seconds to wait for the server (connection and each read).
DOWNLOAD_TIMEOUT = 30.0
_CHUNK = 1 << 16


class MeshDownloadError(Exception):
    """A mesh could not be downloaded or was refused (the message names the URL and the
    reason)."""


def _progress(total: int, description: str):
    """A tqdm byte counter on stderr (silent when stderr is not a terminal)."""
    from tqdm import tqdm  # noqa: PLC0415 - only when downloading
    return tqdm(total=total or None, unit='B', unit_scale=True, unit_divisor=1024,
                desc=description, disable=None, leave=False)


def download(url: str, path: str, timeout: float = DOWNLOAD_TIMEOUT,
             max_bytes: int = MAX_MESH_BYTES, sha256: Optional[str] = None,
             advance: Optional[Callable[[int], None]] = None) -> int:
    """Download ``url`` to ``path``, written whole or not at all.

    Args:
        url: an ``http(s)://`` (or ``file://``) URL.
        path: the file to write (its folder is created).
        timeout: s, per connection and read.
        max_bytes: size bound.
        sha256: expected hex digest; a different one is refused.
        advance: called with the number of bytes of each chunk read (progress).

    Returns:
        The number of bytes written.

    Raises:
        MeshDownloadError: on a network or HTTP error, a timeout, more than
            ``max_bytes`` bytes, or a digest that differs from ``sha256``.
    """
    os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
    digest = hashlib.sha256()
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path) or '.', suffix='.part')
    size = 0
    try:
        with os.fdopen(handle, 'wb') as out:
            try:
                with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310
                    length = response.headers.get('Content-Length')
                    if length is not None and length.isdigit() and int(length) > max_bytes:
                        raise MeshDownloadError(f'{url}: {length} bytes, more than the '
                                                f'limit of {max_bytes}')
                    while True:
                        chunk = response.read(_CHUNK)
                        if not chunk:
                            break
                        size += len(chunk)
                        if size > max_bytes:
                            raise MeshDownloadError(f'{url}: more than the limit of '
                                                    f'{max_bytes} bytes')
                        digest.update(chunk)
                        out.write(chunk)
                        if advance is not None:
                            advance(len(chunk))
            except urllib.error.HTTPError as exc:
                raise MeshDownloadError(f'{url}: download failed (HTTP {exc.code} '
                                        f'{exc.reason})') from None
            except (urllib.error.URLError, OSError, ValueError) as exc:
                reason = getattr(exc, 'reason', None) or exc
                raise MeshDownloadError(f'{url}: download failed ({reason})') from None
        if sha256 is not None and digest.hexdigest() != sha256:
            raise MeshDownloadError(f'{url}: SHA-256 {digest.hexdigest()} differs from the '
                                    f'pinned {sha256} (corrupted or not the pinned file); '
                                    'nothing was kept')
        os.replace(temporary, path)
        return size
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def file_digest(path: str) -> str:
    """SHA-256 hex digest of a file."""
    digest = hashlib.sha256()
    with open(path, 'rb') as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b''):
            digest.update(chunk)
    return digest.hexdigest()


def verified(folder: str) -> List[str]:
    """The pinned files present in ``folder`` with the right digest."""
    return [name for name, (_, sha) in sorted(FILES.items())
            if os.path.isfile(os.path.join(folder, name))
            and file_digest(os.path.join(folder, name)) == sha]


def fetch_hebi_meshes(base_url: str = DEFAULT_URL, folder: Optional[str] = None,
                      environ: Optional[Mapping[str, str]] = None,
                      timeout: float = DOWNLOAD_TIMEOUT) -> List[str]:
    """Download the pinned HEBI part meshes that ``folder`` lacks (all or nothing).

    Args:
        base_url: ``<base_url>/meshes/<file>`` is downloaded (a trailing ``/`` is fine).
        folder: default: the cache's hebi_description folder
            (:func:`.mesh_sources.hebi_cache_folder`).
        environ: environment for the cache location (default ``os.environ``).
        timeout: s, per connection and read.

    Returns:
        The file names downloaded (empty when the folder was complete).

    Raises:
        MeshDownloadError: the first failure; the folder is then unchanged.
    """
    folder = folder or hebi_cache_folder(environ)
    have = set(verified(folder)) if os.path.isdir(folder) else set()
    needed = [name for name in sorted(FILES) if name not in have]
    if not needed:
        return []
    parent = os.path.dirname(folder)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix='.fetch-', dir=parent)
    base = base_url.rstrip('/')
    try:
        with _progress(sum(FILES[n][0] for n in needed), 'hebi_description meshes') as bar:
            for name in needed:
                size, sha = FILES[name]
                download(f'{base}/meshes/{name}', os.path.join(staging, name), timeout,
                         max(size, 1), sha, bar.update)
        os.makedirs(folder, exist_ok=True)
        for name in needed:
            os.replace(os.path.join(staging, name), os.path.join(folder, name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if os.path.isdir(folder) and not os.listdir(folder):
            os.rmdir(folder)
    return needed


def web_meshes(model: RobotModel) -> List[str]:
    """The distinct ``http(s)://`` mesh URLs of a model, in element order."""
    urls: List[str] = []
    for element in model.elements:
        url = element.mesh_file or ''
        if url.startswith(('http://', 'https://')) and url not in urls:
            urls.append(url)
    return urls


def fetch_web_meshes(model: RobotModel, folder: Optional[str] = None,
                     environ: Optional[Mapping[str, str]] = None,
                     timeout: float = DOWNLOAD_TIMEOUT,
                     max_bytes: int = MAX_MESH_BYTES) -> List[str]:
    """Download the web meshes of ``model`` not yet in ``folder`` (default: the cache's
    ``web`` folder) to ``<folder>/<host>/<path>``.

    Returns:
        The URLs downloaded.

    Raises:
        MeshDownloadError: the first download that fails (the ones before it are kept:
            each is a whole file).
        hrdf_ros.parts.mesh_sources.MeshSourceError: a URL without host or file name.
    """
    folder = folder or web_cache_folder(environ)
    fetched = []
    for url in web_meshes(model):
        path = os.path.join(folder, local_name(url))
        if os.path.isfile(path):
            continue
        with _progress(0, os.path.basename(path)) as bar:
            download(url, path, timeout, max_bytes, advance=bar.update)
        fetched.append(url)
    return fetched
