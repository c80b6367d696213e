"""The robots every MoveIt config package test runs on: each HEBI kit, the bundled arm,
both hexapods, and the files in ../shared/hrdf/real that load (selected at run time, so
the set grows as the reader accepts more of them). Each gets a unique robot name."""
import functools
import glob
import os

from hrdf_ros import HrdfError, load
from hrdf_ros.export.moveit import moveit_package, ros_name

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


ROBOTS = KITS + [BUNDLED_ARM, HEXAPOD, HEXAPOD_18] + real_files()
NAMES = [robot_name(p) for p in ROBOTS]
assert len(set(NAMES)) == len(NAMES), 'robot names must be unique'


@functools.lru_cache(maxsize=None)
def generated(path):
    """(model, MoveItPackage) of a robot with the default options (cached per session)."""
    model = load(path)
    return model, moveit_package(model, robot_name(path), timestamp=0)
