"""Which files a reader may open, for readers that serve other programs (the node's
services, a ``hrdf_file`` set at run time, the web view's meshes).

In: the directories files may come from. Out: :class:`FileAccess`, which says whether a
path lies inside one of them once symbolic links and ``..`` are resolved, and
:data:`REFUSED`, the one message for every file that may not be read: a file outside
the directories, a missing file, a directory or an unreadable file all get it, so an
answer never tells whether a file exists.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Iterable, Tuple

from .sources import package_of

#: The message of every refused file (it does not say whether the file exists).
REFUSED = 'not a file this node may read (allowed_directories)'


@dataclass(frozen=True)
class FileAccess:
    """Directories a reader may open files in.

    Attributes:
        directories: absolute paths with symbolic links resolved; a file may be read
            when its own resolved path lies inside one of them.
    """

    directories: Tuple[str, ...]

    @classmethod
    def of(cls, directories: Iterable[str]) -> 'FileAccess':
        """The access to ``directories`` (empty entries dropped; each resolved)."""
        resolved = []
        for directory in directories:
            if directory:
                real = os.path.realpath(directory)
                if real not in resolved:
                    resolved.append(real)
        return cls(tuple(resolved))

    @classmethod
    def around(cls, files: Iterable[str]) -> 'FileAccess':
        """The folders of ``files`` (and, for a symbolic link, of its target), and the
        root of the ROS package each lies in (a share folder once installed): the
        node's default ``allowed_directories``."""
        directories = []
        for path in files:
            for where in (os.path.abspath(path), os.path.realpath(path)) if path else ():
                directories.append(os.path.dirname(where))
                package = package_of(where)
                if package is not None:
                    directories.append(package[1])
        return cls.of(directories)

    def allows(self, path: str) -> bool:
        """True when ``path``, resolved, lies inside an allowed directory (whether or not
        it exists)."""
        real = os.path.realpath(path)
        return any(real == d or real.startswith(d.rstrip(os.sep) + os.sep)
                   for d in self.directories)

    def readable(self, path: str) -> bool:
        """True when ``path`` is allowed and is a regular file that can be opened for
        reading (checked without reading it)."""
        if not self.allows(path):
            return False
        try:
            return stat.S_ISREG(os.stat(path).st_mode) and os.access(path, os.R_OK)
        except OSError:
            return False


__all__ = ['FileAccess', 'REFUSED']
