"""The robots every MoveIt config package test runs on: each HEBI kit, the bundled arm,
both hexapods, and the files in ../shared/hrdf/real that load (selected at run time, so
the set grows as the reader accepts more of them) and are no robot listed before them
(distinct_robots.py). Each gets a unique robot name."""
import fcntl
import functools
import glob
import hashlib
import os
import pickle

from hrdf_ros import HrdfError, load
from hrdf_ros.export.moveit import moveit_package, ros_name

from distinct_robots import distinct
from conftest import BUNDLED_ARM, HEXAPOD, HEXAPOD_18, KITS, REPO

REAL_DIR = os.path.join(REPO, '..', 'shared', 'hrdf', 'real')


def _loads(path):
    try:
        load(path)
    except HrdfError:
        return False
    return True


def real_files():
    """Loadable HRDF files under ../shared/hrdf/real (empty when absent)."""
    return [p for p in sorted(glob.glob(os.path.join(REAL_DIR, '**', '*.hrdf'),
                                        recursive=True)) if _loads(p)]


def robot_name(path):
    """Unique robot name: the file stem, or for real files ``real_`` + the path."""
    if os.path.abspath(path).startswith(os.path.abspath(REAL_DIR)):
        relative = os.path.splitext(os.path.relpath(path, REAL_DIR))[0]
        return 'real_' + ros_name(relative.replace('HebiRobotics_', ''))
    return os.path.splitext(os.path.basename(path))[0]


ROBOTS = distinct(KITS + [BUNDLED_ARM, HEXAPOD, HEXAPOD_18] + real_files())
NAMES = [robot_name(p) for p in ROBOTS]
assert len(set(NAMES)) == len(NAMES), 'robot names must be unique'


def _cached(path):
    stem = hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:16]
    return os.path.join(os.environ['HRDF_ROS_TEST_SHARED'], f'moveit_{stem}.pickle')


def _compute(path, lock) -> None:
    """Compute the package of ``path`` into its cache file (``lock`` held)."""
    model = load(path)
    result = model, moveit_package(model, robot_name(path), timestamp=0)
    with open(_cached(path) + '.tmp', 'wb') as handle:
        pickle.dump(result, handle)
    os.replace(_cached(path) + '.tmp', _cached(path))


@functools.lru_cache(maxsize=None)
def generated(path):
    """(model, MoveItPackage) of a robot with the default options, computed once per test
    run and shared by the pytest-xdist workers (HRDF_ROS_TEST_SHARED, conftest): a
    worker that finds a robot being computed by another computes robots nobody has
    started meanwhile, then waits for it."""
    cached = _cached(path)
    if not os.path.isfile(cached):
        with open(cached + '.lock', 'w') as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                for other in ROBOTS:              # help with the others meanwhile
                    if os.path.isfile(_cached(other)):
                        continue
                    with open(_cached(other) + '.lock', 'w') as other_lock:
                        try:
                            fcntl.flock(other_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        except BlockingIOError:
                            continue
                        if not os.path.isfile(_cached(other)):
                            _compute(other, other_lock)
                fcntl.flock(lock, fcntl.LOCK_EX)
            if not os.path.isfile(cached):
                _compute(path, lock)
    with open(cached, 'rb') as handle:
        return pickle.load(handle)
