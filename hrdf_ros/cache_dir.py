"""The user cache folder of hrdf_ros: downloaded meshes (:mod:`hrdf_ros.parts.mesh_sources`)
and compiled kinematics kernels (:mod:`hrdf_ros.kinematics.compiled`).

In: the environment. Out: a folder path (not created here). ``HRDF_ROS_CACHE_DIR`` when
set, else platformdirs' user cache folder of ``hrdf_ros`` (``~/.cache/hrdf_ros`` on
Linux). Imports nothing of the package (the lowest layer, beside :mod:`hrdf_ros.model`).
"""
from __future__ import annotations

import os
from typing import Mapping, Optional

#: Environment variable that overrides the cache folder.
CACHE_DIR_VARIABLE = 'HRDF_ROS_CACHE_DIR'


def cache_dir(environ: Optional[Mapping[str, str]] = None) -> str:
    """The user cache folder of hrdf_ros (``HRDF_ROS_CACHE_DIR``, else platformdirs')."""
    environ = os.environ if environ is None else environ
    if environ.get(CACHE_DIR_VARIABLE):
        return os.path.abspath(environ[CACHE_DIR_VARIABLE])
    import platformdirs  # noqa: PLC0415 - only when the cache is consulted
    return platformdirs.user_cache_dir('hrdf_ros', appauthor=False)
