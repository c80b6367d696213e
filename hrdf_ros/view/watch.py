"""Noticing that files changed on disk, by polling (no extra dependency, works on every
file system, network mounts included).

In: a set of paths. Out: :meth:`FileWatcher.changed`, true once per change of any of
them (modified, replaced, created or deleted), reported only when the files have stayed
the same for one more poll: an editor that writes a file in several steps is seen once,
whole.
"""
from __future__ import annotations

import os
from typing import Dict, Iterable, Optional, Tuple

Stamp = Optional[Tuple[int, int, int]]


def stamp(path: str) -> Stamp:
    """(modification time ns, size, inode) of a file, or ``None`` when it is missing."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size, status.st_ino


class FileWatcher:
    """Polled stamps of a set of files (see the module docstring)."""

    def __init__(self, paths: Iterable[str] = ()):
        self._known: Dict[str, Stamp] = {}
        self._pending: Optional[Dict[str, Stamp]] = None
        self.watch(paths)

    def watch(self, paths: Iterable[str]) -> None:
        """Watch exactly ``paths`` from now on, as they are now."""
        self._known = {os.path.abspath(p): stamp(p) for p in paths}
        self._pending = None

    def add(self, paths: Iterable[str]) -> None:
        """Watch ``paths`` too, as they are now."""
        for path in paths:
            path = os.path.abspath(path)
            self._known.setdefault(path, stamp(path))

    @property
    def paths(self):
        """The watched paths (absolute)."""
        return sorted(self._known)

    def changed(self) -> bool:
        """True when a watched file differs from what :meth:`watch` saw and has not
        changed since the previous call (then the new state counts as seen)."""
        now = {p: stamp(p) for p in self._known}
        if now == self._known:
            self._pending = None
            return False
        if now != self._pending:
            self._pending = now
            return False
        self._known, self._pending = now, None
        return True
