"""The robot in the browser (viser): ``hrdf view`` and the ROS web view's drawing.

The only part of hrdf_ros that imports viser, yourdfpy and trimesh (the ``view`` extra:
``pip install 'hrdf_ros[view]'``); nothing else imports this package, except
``hrdf view`` and the ROS web view node, when they run.

* :mod:`.server` the viser server: bound address, URL, camera, nothing leaving the host;
* :mod:`.robot_scene` a URDF drawn link by link, posed from joint values or TF;
* :mod:`.mesh_files` mesh references (``file://``, ``package://``) -> local files;
* :mod:`.joint_sliders` one slider per movable joint, zero / random;
* :mod:`.fk_panel` hrdf_ros's FK: end-effector readout, output/COM/end-effector frames;
* :mod:`.watch` files changed on disk (polling);
* :mod:`.file_view` ``hrdf view``'s page: all of the above for one HRDF file, reloaded
  when it changes.

This file itself imports nothing of the extra, so that :func:`missing_packages` can say
what to install before anything fails.
"""
import importlib
import os
import sys
import threading
import time
from typing import List

#: Name prefix of the view's background threads (building the collision checks, solving
#: a task's targets, computing a reach map, playing a plan).
THREAD_PREFIX = 'hrdf_view_'
#: s that :func:`exit_cleanly` waits for them.
BACKGROUND_WAIT = 5.0
#: The ``view`` extra (setup.py ``extras_require['view']``).
PACKAGES = ('viser', 'yourdfpy', 'trimesh')
INSTALL_HINT = "the view extra (viser, yourdfpy, trimesh): pip install 'hrdf_ros[view]'"


def missing_packages() -> List[str]:
    """The packages of the ``view`` extra that do not import."""
    missing = []
    for name in PACKAGES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


def exit_cleanly(code: int, timeout: float = BACKGROUND_WAIT) -> int:
    """Return ``code`` once the view's background threads (:data:`THREAD_PREFIX`) have
    ended, waiting up to ``timeout`` s; if any thread but the main one is still running
    then (one of those, or viser's), flush stdout and stderr and end the process now with
    ``code`` (``os._exit``).

    Why: they are daemon threads, and one may be inside C++ (OMPL, Pinocchio) with the
    GIL released when the interpreter finalizes. CPython 3.11-3.13 then ends such a
    thread with ``pthread_exit`` as it asks for the GIL again, whose forced unwinding
    through a C++ ``catch (...)`` that does not rethrow aborts the whole process
    ("FATAL: exception not rethrown", exit -6; seen when ``hrdf view`` got SIGINT a
    second after starting, while its collision checks warmed up). Not finalizing under a
    running thread avoids it (and a hang of a process finalized under one: one SIGTERM of
    a CI run waited 30 s, not seen again in 40 tries here)."""
    deadline = time.monotonic() + timeout
    for thread in threading.enumerate():
        if thread.name.startswith(THREAD_PREFIX) and thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))
    if any(t.is_alive() and t is not threading.main_thread() for t in threading.enumerate()):
        # any thread still running (viser's too) could hold what finalization needs
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code
