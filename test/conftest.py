"""Shared test fixtures: the HEBI kit corpus, the hebi-py oracle, ROS set-up."""
import atexit
import glob
import os
import random
import shutil
import tempfile

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KITS_DIR = os.path.join(REPO, '..', 'shared', 'hrdf', 'kits')
KITS = sorted(glob.glob(os.path.join(KITS_DIR, '*.hrdf')))
BUNDLED_ARM = os.path.join(REPO, 'config', 'x_series_arm_6dof.hrdf')
#: The project's own hexapod (body, left/right leg files, a shared foot via ``..``).
HEXAPOD_DIR = os.path.join(REPO, 'test', 'data', 'hexapod')
HEXAPOD = os.path.join(HEXAPOD_DIR, 'hexapod.hrdf')
#: The 18-DoF hexapod of the benchmarks (one file).
HEXAPOD_18 = os.path.join(REPO, 'benchmarks', 'data', 'hexapod_18dof.hrdf')
#: Files hold 12 significant digits (hrdf_ros.numbers, doc/explanation/conventions.md
#: "Numbers in files"): a value read back is within 5e-13 of the one it stands for,
#: relative; the tests allow WRITTEN_RTOL. Poses computed from a file's chain of rounded
#: origins and angles are within WRITTEN_ATOL (m, and per unit of a rotation matrix) of
#: hrdf_ros's own (measured: 2.5e-11 on every kit and real HEBI file).
WRITTEN_RTOL = 1e-11
WRITTEN_ATOL = 5e-11

# hrdf_ros's user cache (mesh sources, compiled kernels, collision matrices): one of this
# test session only, and no mesh folder from the developer's environment, so that tests
# neither read nor fill the user's own cache and the rule starts from nothing. The
# pytest-xdist workers share the controller's (HRDF_ROS_TEST_CACHE), as two processes of a
# user share theirs.
if os.environ.get('PYTEST_XDIST_WORKER') and os.environ.get('HRDF_ROS_TEST_CACHE'):
    os.environ['HRDF_ROS_CACHE_DIR'] = os.environ['HRDF_ROS_TEST_CACHE']
else:
    os.environ['HRDF_ROS_CACHE_DIR'] = tempfile.mkdtemp(prefix='hrdf_ros_test_cache_')
    os.environ['HRDF_ROS_TEST_CACHE'] = os.environ['HRDF_ROS_CACHE_DIR']
    atexit.register(shutil.rmtree, os.environ['HRDF_ROS_CACHE_DIR'], True)

# The suite tests the numpy kinematics path (as the CLI and the node run by default);
# test_kinematics_paths.py runs the compiled one against it, hebi-py and the API default.
from hrdf_ros.kinematics import backend  # noqa: E402

backend.set_default('numpy')
os.environ.pop('HRDF_ROS_MESH_DIR', None)

# Results several test files compute alike (the MoveIt packages of every robot:
# moveit_robots.generated), computed once per test run and shared by the pytest-xdist
# workers through this folder (the controller makes it; workers inherit the variable).
if 'HRDF_ROS_TEST_SHARED' not in os.environ:
    os.environ['HRDF_ROS_TEST_SHARED'] = tempfile.mkdtemp(prefix='hrdf_ros_test_shared_')
    atexit.register(shutil.rmtree, os.environ['HRDF_ROS_TEST_SHARED'], True)

# As the Makefile: a ROS graph of our own (a domain id in 1..100 unless one was chosen,
# discovery on this host only), also when pytest runs without make.
os.environ.setdefault('ROS_DOMAIN_ID', str(random.randint(1, 100)))
# pytest-xdist (make test: -n 4): worker k (gw0, gw1, ...) gets the next domain id
# after worker k - 1's (wrapping in 1..100), so that two workers' nodes, named alike,
# and their ros2 daemons never meet.
_WORKER = os.environ.get('PYTEST_XDIST_WORKER', '')
if _WORKER.startswith('gw'):
    os.environ['ROS_DOMAIN_ID'] = str(
        (int(os.environ['ROS_DOMAIN_ID']) - 1 + int(_WORKER[2:])) % 100 + 1)
os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')

#: hrdf_ros frame type -> hebi-py frame type name
HEBI_FRAME_TYPES = {'input': 'input', 'output': 'output', 'com': 'com',
                    'end_effector': 'EndEffector'}


def pytest_configure(config):
    config.addinivalue_line(
        'markers', 'consumers: the exported URDF/SDF in Drake, MuJoCo, PyBullet, Pinocchio, '
        'KDL, urdfdom and SDFormat (installed by make test-consumers)')


#: The longest modules, longest first (s of test time in a clean-clone CI run, 3 workers
#: on 2 cores: 188 s down to 49 s): xdist's --dist loadfile hands modules out in
#: collection order, and a long one handed out last keeps one worker busy alone at the
#: end (longest first is the classic greedy schedule for that). Every test of these
#: counts, none is timed, so the load of their neighbours changes no verdict.
LONG_MODULES = ('test_design_tasks', 'test_docs', 'test_view_browser', 'test_ros_cli_servo',
                'test_certified', 'test_consumers_sdf', 'test_servo', 'test_consumers_urdf',
                'test_view_browser_ik', 'test_collision_matrix', 'test_view_browser_task',
                'test_same_bytes', 'test_design_search', 'test_hebi_visuals', 'test_ik',
                'test_cli_reach', 'test_reach', 'test_ros_cli_web_view',
                'test_ros_cli_file_access', 'test_moveit_package', 'test_ros_cli_motion',
                'test_view_browser_collisions', 'test_view_cli', 'test_ros_integration',
                'test_view_browser_jog', 'test_ros_cli_hrdf_launch', 'test_ros_move_to',
                'test_consumers_mjcf')


def pytest_collection_modifyitems(session, config, items):
    """The modules of :data:`LONG_MODULES` first, in that order; the others as collected
    (the same order on every worker, as xdist requires)."""
    rank = {name: k for k, name in enumerate(LONG_MODULES)}
    items.sort(key=lambda item: rank.get(item.module.__name__ if item.module else '',
                                         len(rank)))


#: consumer -> largest pose error vs hebi-py, gathered from every xdist worker
_WORST = {}


def _merge_worst(worst):
    for who, error in (worst or {}).items():
        _WORST[who] = max(error, _WORST.get(who, 0.0))


def pytest_sessionfinish(session):
    """On an xdist worker: hand its consumers' largest errors to the controller."""
    import sys
    worst = getattr(sys.modules.get('consumers'), 'WORST', None)
    if hasattr(session.config, 'workeroutput'):
        session.config.workeroutput['consumers_worst'] = dict(worst or {})
    else:
        _merge_worst(worst)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """On the xdist controller: a worker's largest errors (see pytest_sessionfinish)."""
    _merge_worst(getattr(node, 'workeroutput', {}).get('consumers_worst'))


def pytest_terminal_summary(terminalreporter):
    """The largest pose error against hebi-py per consumer (consumer tests only)."""
    if _WORST:
        terminalreporter.write_sep('-', 'largest pose error vs hebi-py, per consumer')
        for who, error in sorted(_WORST.items()):
            terminalreporter.write_line(f'{who}: {error:.2g}')


def kit_id(path):
    return os.path.splitext(os.path.basename(path))[0]


def test_kit_corpus_present():
    assert len(KITS) == 26, f'expected the 26 HEBI kits in {KITS_DIR}'


def hebi_frames(hebi_model, frame_type, positions):
    """(N, n, 4, 4) frames from hebi-py for each configuration in ``positions``."""
    return np.stack([hebi_model.get_forward_kinematics_mat(HEBI_FRAME_TYPES[frame_type], q)
                     .reshape(-1, 4, 4) for q in positions])


@pytest.fixture(scope='session')
def hebi_import():
    """hebi-py's HRDF importer (the test oracle; a test-only dependency)."""
    from hebi.robot_model import import_from_hrdf, import_from_hrdf_string
    return import_from_hrdf, import_from_hrdf_string


@pytest.fixture(scope='module')
def ros():
    """rclpy initialised for the ROS 2 integration tests of one module."""
    import rclpy
    rclpy.init()
    yield
    rclpy.try_shutdown()


@pytest.fixture
def probe(ros, request):
    """A NodeProbe (joint_states publisher, TF/robot_description listener) per test."""
    from hrdf_ros.ros.probe import NodeProbe
    node = NodeProbe(f'probe_{abs(hash(request.node.name)) % 10**8}')
    yield node
    node.destroy_node()


@pytest.fixture(scope='module')
def ros2_daemon():
    """The ros2 CLI daemon of this ROS_DOMAIN_ID, started for one test module and
    stopped at its end (CLI discovery without it is slow and misses nodes)."""
    from cli_helpers import run
    assert run('ros2 daemon start').code == 0
    yield
    run('ros2 daemon stop')


@pytest.fixture(scope='module')
def workdir(tmp_path_factory):
    """A folder with the files the real-CLI tests' commands name (two kits and a bad
    HRDF, :func:`cli_helpers.robots`), one per test module, so the commands run there
    exactly as the documentation writes them."""
    from cli_helpers import robots
    return robots(tmp_path_factory.mktemp('robots'))
