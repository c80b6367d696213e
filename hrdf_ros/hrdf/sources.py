"""Where HRDF bytes come from: bounded file reads and the path rules of FORMAT.md.

FORMAT.md (HRDF 1.3.0+) has two kinds of file references, both relative to the HRDF
file that contains them: ``<include path>`` (another HRDF file) and a rigid body's
``mesh_path`` (a mesh file, or from 1.4.0 an ``http://``/``https://`` URL). Both use
``/`` as the separator, may climb with ``..``, and must not be absolute.

Reads are bounded: only regular files (so a path to ``/dev/zero`` or a FIFO cannot hang
the reader), at most :data:`~hrdf_ros.hrdf.safe_xml.MAX_DOCUMENT_BYTES` bytes.
"""
from __future__ import annotations

import os
import re
import stat
from typing import Mapping, Optional, Tuple

import defusedxml.ElementTree as SafeET

from .safe_xml import MAX_DOCUMENT_BYTES

_SCHEME_RE = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*://')
_DRIVE_RE = re.compile(r'^[A-Za-z]:')
WEB_PREFIXES = ('http://', 'https://')


class SourceError(Exception):
    """A file could not be read (the message says why, without a location)."""


def read_document(path: str) -> bytes:
    """Read an HRDF file's bytes.

    Args:
        path: file path.

    Returns:
        The file contents.

    Raises:
        SourceError: when the file does not exist, is not a regular file, cannot be read,
            or is larger than ``MAX_DOCUMENT_BYTES``.
    """
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise SourceError('cannot read file: it is a directory')
        if not stat.S_ISREG(info.st_mode):
            raise SourceError('cannot read file: not a regular file')
        if info.st_size > MAX_DOCUMENT_BYTES:
            raise SourceError(f'file larger than {MAX_DOCUMENT_BYTES} bytes')
        with open(path, 'rb') as handle:
            data = handle.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as exc:
        raise SourceError(f'cannot read file: {exc.strerror or exc}') from None
    if len(data) > MAX_DOCUMENT_BYTES:
        raise SourceError(f'file larger than {MAX_DOCUMENT_BYTES} bytes')
    return data


def is_web_url(text: str) -> bool:
    """True when ``text`` starts with ``http://`` or ``https://`` (FORMAT.md mesh URLs)."""
    return text.startswith(WEB_PREFIXES)


def relative_path_problem(text: str, what: str) -> Optional[str]:
    """Why ``text`` is not an acceptable FORMAT.md relative file path, or ``None``.

    Rules: not empty; not absolute (``/x``, ``\\x``, ``C:x``); ``/`` as the separator (a
    backslash would name different files on different systems); no URL scheme; no NUL.

    Args:
        text: the attribute value.
        what: what the path refers to, for the message (e.g. ``'include'``).
    """
    if not text.strip():
        return f'{what} path is empty'
    if '\0' in text:
        return f'{what} path contains a NUL character'
    if text.startswith(('/', '\\')) or _DRIVE_RE.match(text) or os.path.isabs(text):
        return f'{what} path "{text}" is absolute; FORMAT.md allows only paths relative ' \
               'to the HRDF file that contains them'
    if _SCHEME_RE.match(text):
        return f'{what} path "{text}" is a URL; a relative file path is required'
    if '\\' in text:
        return f'{what} path "{text}" contains "\\"; FORMAT.md paths use "/" as the ' \
               'separator'
    return None


def resolve(base_dir: str, relative: str) -> str:
    """The path of ``relative`` (``/``-separated) relative to directory ``base_dir``,
    normalised (``.`` and ``..`` folded) but not made absolute."""
    return os.path.normpath(os.path.join(base_dir, *relative.split('/')))


def identity(path: str) -> str:
    """A key naming the file ``path`` refers to, the same for every spelling of it
    (symbolic links resolved), used to detect include cycles."""
    return os.path.normcase(os.path.realpath(path))


def package_share(package: str, environ: Optional[Mapping[str, str]] = None
                  ) -> Optional[str]:
    """The share folder of an installed ROS package (the ament index on
    ``AMENT_PREFIX_PATH``, as ament_index_python finds it), or ``None``."""
    environ = os.environ if environ is None else environ
    for prefix in environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep):
        marker = os.path.join(prefix, 'share', 'ament_index', 'resource_index', 'packages',
                              package)
        if prefix and os.path.isfile(marker):
            return os.path.join(prefix, 'share', package)
    return None


def package_of(path: str) -> Optional[Tuple[str, str]]:
    """(name, root folder) of the ROS package a file lies in: the nearest folder above
    ``path`` with a ``package.xml`` that names a package (a source package, or an
    installed one's share folder), or ``None``."""
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        manifest = os.path.join(folder, 'package.xml')
        if os.path.isfile(manifest):
            try:
                name = SafeET.fromstring(read_document(manifest)).findtext('name')
            except (SourceError, SafeET.ParseError, ValueError):
                name = None
            if name and name.strip():
                return name.strip(), folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


__all__ = ['SourceError', 'WEB_PREFIXES', 'identity', 'is_web_url', 'package_of', 'package_share', 'read_document',
           'relative_path_problem', 'resolve']
