"""Reach maps that avoid collisions (``reach_map(avoid_collisions=True)``, ``hrdf reach
--avoid-collisions``), checked by mplib 0.2.1 (FCL in C++, on the URDF and SRDF of
``hrdf moveit``, with the same ball added to its planning world):

* every configuration the map keeps (``positions`` of each reachable point) is free in
  mplib, of the links with each other and with the ball, and puts the end effector at
  its point (hrdf_ros's FK, 2e-5 m); the same kit's map without the check keeps
  configurations mplib finds in collision (so the check is what made them free);
* points deep inside the ball are not reachable; the check only removes: the map
  without it reaches (nearly) every point the checked map reaches, and solves more
  (point, direction) pairs.
"""
import os

import numpy as np
import pytest

from hrdf_ros import Kinematics, ReachMap, load, reach_map

from conftest import KITS_DIR
from motion_helpers import Mplib

pytestmark = pytest.mark.consumers
pytest.importorskip('mplib', reason='mplib not installed (make test installs it)')

KIT = 'A-2099-07'
VOXEL = 0.1
DIRECTIONS = 20
#: A ball in front of the arm, away from its base (the scene does not check the links no
#: joint moves against objects; mplib does).
CENTRE, RADIUS = np.array([0.4, 0.0, 0.2]), 0.15
BALL = {'name': 'ball', 'type': 'sphere', 'dimensions': [RADIUS],
        'pose': {'position': CENTRE.tolist()}}


@pytest.fixture(scope='module')
def maps(tmp_path_factory):
    import mplib
    from mplib.collision_detection import fcl
    model = load(os.path.join(KITS_DIR, KIT + '.hrdf'))
    plain = reach_map(model, voxel=VOXEL, directions=DIRECTIONS, threads=2)
    free = reach_map(model, voxel=VOXEL, directions=DIRECTIONS, threads=2,
                     avoid_collisions=True, collision_objects=[BALL])
    oracle = Mplib(model, tmp_path_factory.mktemp('reach'))
    oracle.planner.planning_world.add_object(fcl.FCLObject(
        'ball', mplib.Pose(p=CENTRE), [fcl.CollisionObject(fcl.Sphere(RADIUS))],
        [mplib.Pose()]))
    return model, plain, free, oracle


def test_kept_configurations_are_free_in_mplib_and_at_their_points(maps):
    model, plain, free, oracle = maps
    assert free.avoid_collisions and not plain.avoid_collisions
    rows = np.flatnonzero(free.reachable)
    assert len(rows) > 1000
    hits = [k for k in rows if oracle.collides(free.positions[k])]
    assert hits == []
    tips = Kinematics(model).end_effector(free.positions[rows])[:, :3, 3]
    assert np.abs(tips - free.centers[rows]).max() < 2e-5
    # without the check, the map keeps configurations in collision
    plain_rows = np.flatnonzero(plain.reachable)
    assert sum(oracle.collides(plain.positions[k]) for k in plain_rows) > 20


def test_points_in_the_ball_are_out_of_reach_and_the_check_only_removes(maps):
    _, plain, free, _ = maps
    np.testing.assert_array_equal(free.centers, plain.centers)
    inside = np.linalg.norm(free.centers - CENTRE, axis=1) < RADIUS - 0.03
    assert inside.sum() >= 5 and plain.reachable[inside].all()
    assert not free.reachable[inside].any()
    assert free.reachable.sum() < plain.reachable.sum()
    # a free configuration is a configuration: what the check keeps, the plain map
    # reaches, but where the neighbour passes took another path (a few points)
    assert (free.reachable & ~plain.reachable).sum() <= 0.01 * free.reachable.sum()
    assert free.solved.sum() < plain.solved.sum()
    np.testing.assert_array_equal(free.reachability, free.solved.mean(axis=1))


def test_the_check_is_saved_with_the_map(maps, tmp_path):
    _, plain, free, _ = maps
    free.save(str(tmp_path / 'free.npz'))
    assert ReachMap.load(str(tmp_path / 'free.npz')).avoid_collisions
    plain.save(str(tmp_path / 'plain.npz'))
    assert not ReachMap.load(str(tmp_path / 'plain.npz')).avoid_collisions


def test_collision_options_are_checked():
    model = load(os.path.join(KITS_DIR, KIT + '.hrdf'))
    with pytest.raises(ValueError, match='only with avoid_collisions=True'):
        reach_map(model, voxel=0.3, directions=4, collision_objects=[BALL])
    with pytest.raises(ValueError, match='avoid_collisions must be True or False'):
        reach_map(model, voxel=0.3, directions=4, avoid_collisions='yes')
    with pytest.raises(ValueError, match='ball'):
        reach_map(model, voxel=0.3, directions=4, avoid_collisions=True,
                  collision_objects=[dict(BALL, dimensions=[-1.0])])
