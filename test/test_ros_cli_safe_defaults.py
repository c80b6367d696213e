"""An omitted ``avoid_collisions`` is checked: every motion service of the node, through
the real ``ros2 service call``, with requests that leave the field out
(hrdf_ros_interfaces declares ``bool avoid_collisions true``). The action's goal is
tested the same way in test_ros_move_to.py, with rclpy's action client: the ``ros2`` CLI
of ../shared/ros2-extra has no ``action`` verb (no ros2action on PyPI or there).

The robot is HEBI's X-Series-Double-Shoulder-7DOF. START has its yoke (rigid_body1)
against the base actuator (actuator1), as the core and mplib both find; GOAL_BEHIND is
free, but the straight line to it passes the yoke through the base, so a checked
request must plan around. An explicit ``avoid_collisions: false`` still gets the plain
answer (the straight line through the robot), so the field is read, not ignored.
"""
import os

import numpy as np
import pytest

from hrdf_ros import load
from hrdf_ros.motion.joint_path import segment_free
from hrdf_ros.motion.trajectory import playback

from conftest import KITS_DIR
from cli_helpers import launched, require_ros2_cli, service_call, service_responses
from cli_helpers import pose_yaml as _pose, state_yaml as _state

require_ros2_cli()
pytest.importorskip('mplib', reason='mplib not installed (make test installs it)')
KIT = 'X-Series-Double-Shoulder-7DOF.hrdf'
#: the yoke against the base actuator
IN_COLLISION = [0.0, 2.2, 0.0, 1.2, 0.0, 0.8, 0.0]
START = [0.0, 0.5, 0.0, 1.2, 0.0, 0.8, 0.0]
#: free, but the straight line from START puts the yoke into the base
GOAL_BEHIND = [-1.7, 1.7, 0.7, 1.2, 0.6, -0.2, -0.8]
#: a free state whose end effector pose, solved from START without checks, lands in
#: collision (actuator5 - actuator7)
IK_STATE = [1.83, 0.614, 1.311, 0.135, -1.835, 0.145, 0.519]


@pytest.fixture(scope='module')
def planner():
    from hrdf_ros.motion import MotionPlanner
    return MotionPlanner(load(os.path.join(KITS_DIR, KIT)))


@pytest.fixture(scope='module')
def mplib(tmp_path_factory):
    from motion_helpers import Mplib
    return Mplib(load(os.path.join(KITS_DIR, KIT)), tmp_path_factory.mktemp('mplib'))


@pytest.fixture(scope='module')
def node(ros2_daemon, workdir):
    if not os.path.exists(os.path.join(workdir, KIT)):
        os.symlink(os.path.join(KITS_DIR, KIT), os.path.join(workdir, KIT))
    with launched(f'ros2 launch hrdf_ros hrdf.launch.py hrdf_file:={KIT} '
                  'publish_frequency:=0.0', workdir) as running:
        yield running


def _played(trajectory_message, start):
    """(M, 7) the trajectory as joint_trajectory_controller plays it, at 1 kHz."""
    from hrdf_ros.motion.trajectory import JointTrajectory
    points = trajectory_message['points']
    times = [p['time_from_start']['sec'] + p['time_from_start']['nanosec'] * 1e-9
             for p in points]
    trajectory = JointTrajectory(trajectory_message['joint_names'], np.array(times),
                                 *(np.array([p[k] for p in points])
                                   for k in ('positions', 'velocities', 'accelerations')))
    _, played = playback(trajectory)
    assert trajectory.joint_names == [f'J{k + 1}' for k in range(len(start))]
    return played


def test_the_cases_are_what_they_say(planner, mplib):
    assert planner.in_collision(np.array(IN_COLLISION)) and mplib.collides(IN_COLLISION)
    assert ('actuator1', 'rigid_body1') in planner.colliding_pairs(np.array(IN_COLLISION))
    for q in (START, GOAL_BEHIND, IK_STATE):
        assert not planner.in_collision(np.array(q)) and not mplib.collides(q)
    assert not segment_free(planner.scene, np.array(START),
                            np.array(GOAL_BEHIND))
    target = planner.kinematics.end_effector(np.array(IK_STATE))
    plain = planner.solve_ik(target, np.array(START), avoid_collisions=False, timeout=None,
                             max_iterations=500)
    assert plain.success and mplib.collides(plain.positions)


def test_services_check_collisions_when_the_field_is_omitted(node, planner, mplib):
    target = planner.kinematics.end_effector(np.array(IK_STATE))
    requests = {
        'start': ('plan_motion', f'{{start_state: {_state(IN_COLLISION)}, '
                                 f'goal_state: {_state(START)}}}'),
        'goal': ('plan_motion', f'{{start_state: {_state(START)}, '
                                f'goal_state: {_state(IN_COLLISION)}}}'),
        'behind': ('plan_motion', f'{{start_state: {_state(START)}, '
                                  f'goal_state: {_state(GOAL_BEHIND)}, planning_time: 5.0}}'),
        'behind_unchecked': ('plan_motion', f'{{start_state: {_state(START)}, goal_state: '
                                            f'{_state(GOAL_BEHIND)}, avoid_collisions: false}}'),
        'cartesian': ('plan_cartesian_path', f'{{start_state: {_state(IN_COLLISION)}, '
                                             f'waypoints: [{_pose(target)}]}}'),
        'ik': ('solve_ik', f'{{target: {{pose: {_pose(target)}}}, seed: {_state(START)}, '
                           'timeout: {sec: 1}}'),
        'ik_unchecked': ('solve_ik', f'{{target: {{pose: {_pose(target)}}}, seed: '
                                     f'{_state(START)}, timeout: {{sec: 1}}, '
                                     'avoid_collisions: false}'),
    }
    answers = dict(zip(requests, service_responses(
        [service_call(*request) for request in requests.values()], node.output,
        timeout=60.0)))
    assert answers['start']['error_code'] == -10, answers['start']
    assert 'actuator1 - rigid_body1' in answers['start']['message']
    assert answers['goal']['error_code'] == -12, answers['goal']
    assert answers['cartesian']['error_code'] == -10, answers['cartesian']

    behind = answers['behind']
    assert behind['error_code'] == 1, behind
    played = _played(behind['trajectory'], START)
    np.testing.assert_allclose(played[0], START, atol=1e-9)
    np.testing.assert_allclose(played[-1], GOAL_BEHIND, atol=1e-6)
    assert planner.scene.free(played).all()
    assert not any(mplib.collides(q) for q in played[::4]), 'collides as played'
    unchecked = _played(answers['behind_unchecked']['trajectory'], START)
    assert answers['behind_unchecked']['error_code'] == 1
    assert any(mplib.collides(q) for q in unchecked[::4])      # the line through the yoke

    ik = answers['ik']
    assert (ik['success'], ik['error_code']) == (True, 1), ik
    solution = np.array(ik['solution']['position'])
    assert not mplib.collides(solution) and not planner.in_collision(solution)
    reached = planner.kinematics.end_effector(solution)
    assert np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= 1e-5
    plain = np.array(answers['ik_unchecked']['solution']['position'])
    assert answers['ik_unchecked']['success'] and mplib.collides(plain)
