"""Loading and validating HRDF for the node's services and its ``hrdf_file`` parameter,
under the node's file rules (doc/explanation/trust.md).

In: the node's naming options and strictness, its ``allowed_directories`` and
``allow_load``, and requests (a path, or text with a base directory). Out: prepared
:class:`~hrdf_ros.ros.loaded_robot.LoadedRobot` s, or :class:`LoadError` with the located
diagnostics; filled ValidateHrdf responses. Files and includes are read only from the
allowed directories (:mod:`hrdf_ros.hrdf.access`); service requests are read in a worker
thread (:mod:`.background`) so that the executor goes on with joint_states and /tf.
"""
from __future__ import annotations

from typing import Optional

from ..hrdf.access import FileAccess
from .background import Background
from .loaded_robot import LoadedRobot, LoadError, RobotOptions, load_robot
from .model_services import validate

#: Why a load is refused with ``allow_load: false``.
LOAD_OFF = 'loading is switched off (allow_load: false)'


class ModelLoader:
    """What the node may load and validate, and the thread it is read in (``wake``: see
    :class:`~.background.Background`)."""

    def __init__(self, naming: RobotOptions, strict: bool, access: FileAccess,
                 allow_load: bool, wake=None):
        self.naming, self.strict = naming, strict
        self.access, self.allow_load = access, allow_load
        self.prepared: Optional[LoadedRobot] = None   # read by a request, for hrdf_file
        self._background = Background(wake=wake)

    def describe(self) -> str:
        """One line for the log: where files are read from."""
        return 'files read from: ' + ', '.join(self.access.directories) + (
            '' if self.allow_load else ' (loading switched off: allow_load false)')

    def for_parameter(self, path: str) -> LoadedRobot:
        """The robot of a run-time ``hrdf_file`` (the one a request already read, or read
        now, on the caller's thread).

        Raises:
            LoadError: loading is off, the file may not be read, or is invalid.
        """
        if not self.allow_load:
            raise LoadError(LOAD_OFF)
        prepared, self.prepared = self.prepared, None
        if prepared is not None and prepared.source == path:
            return prepared
        return load_robot(self.naming, path=path, strict=self.strict, access=self.access)

    async def for_request(self, executor, request) -> LoadedRobot:
        """The robot of a LoadHrdf request, read in the worker thread.

        Raises:
            LoadError: loading is off, neither or both of path and text, a file that may
                not be read, or an invalid HRDF.
        """
        if not self.allow_load:
            raise LoadError(LOAD_OFF)
        return await self._background.run(
            executor, load_robot, self.naming, path=request.hrdf_path,
            text=request.hrdf_text, base_directory=request.base_directory,
            strict=self.strict, access=self.access)

    async def validate(self, executor, request, response):
        """A filled ValidateHrdf response, read in the worker thread."""
        return await self._background.run(executor, validate, request, response,
                                          self.strict, self.access)

    def shutdown(self) -> None:
        """Drop requests not started."""
        self._background.shutdown()
