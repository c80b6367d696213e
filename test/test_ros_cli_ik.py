"""``~/solve_ik`` and ``~/get_gravity_efforts`` through the real ``ros2 service call``, and
1 000 IK calls in a row against /tf's rate and the node's memory (an rclpy client).

One ``ros2 launch hrdf_ros hrdf.launch.py hrdf_file:=A-2085-06.hrdf publish_frequency:=0.0``
per kinematics path (numpy, the node's default; numba): a reachable pose is solved and
its FK (hebi-py's) equals the target within the tolerance; an unreachable pose gives
NO_IK_SOLUTION (-31); a bad link name INVALID_LINK_NAME (-18); a frame_id the node does
not know FRAME_TRANSFORM_FAILURE (-21); a NaN pose FAILURE (99999) with the node still
answering; a seed with wrong names INVALID_ROBOT_STATE (-17); a pose in another link of
the robot is taken at the seed. Gravity efforts equal hebi-py's get_grav_comp_efforts.
Then 1 000 calls while joint_states go out at 50 Hz: every one comes back as /tf, and
the node's resident memory stays flat; the calls' latency (p50, p95) is printed.
"""
import math
import os

import numpy as np
import pytest

from hrdf_ros import load
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.kinematics.rotations import quaternion_to_rotation, rotation_to_quaternion

from conftest import KITS_DIR

from cli_helpers import (IK_REQUESTS, KIT, launched, require_ros2_cli, service_call,
                         service_responses)
from ros_helpers import calls_under_joint_states

require_ros2_cli()
LAUNCH = f'ros2 launch hrdf_ros hrdf.launch.py hrdf_file:={KIT} publish_frequency:=0.0'
#: the reachable target of IK_REQUESTS['reachable'] (x y z, quaternion x y z w)
POSITION = np.array([0.353821, 0.044007, 0.095802])
QUATERNION = np.array([-0.734087, 0.539156, 0.136002, 0.389782])


@pytest.fixture(scope='module', params=['numpy', 'numba'])
def node(request, ros2_daemon, workdir):
    command = LAUNCH if request.param == 'numpy' else LAUNCH + ' kinematics:=numba'
    with launched(command, workdir) as running:
        yield request.param, running


def responses(running, *calls):
    return service_responses(calls, running.output)


def end_effector(hebi, solution):
    q = np.array(solution['position'])
    return np.asarray(hebi.get_end_effector(q))


def test_solve_ik_answers_with_moveits_codes(node, workdir, hebi_import):
    hebi = hebi_import[0](os.path.join(workdir, KIT))
    names = ['reachable', 'unreachable', 'bad_link', 'unknown_frame', 'nan', 'bad_seed',
             'in_link', 'status_after_nan']
    calls = [service_call('solve_ik', IK_REQUESTS[n]) for n in names[:-1]]
    answers = dict(zip(names, responses(node[1], *calls, service_call('get_model_status'))))
    reached = answers['reachable']
    assert (reached['success'], reached['error_code']) == (True, 1), reached
    assert reached['solution']['name'] == ['J1', 'J2', 'J3', 'J4', 'J5', 'J6']
    pose = end_effector(hebi, reached['solution'])
    rotation = quaternion_to_rotation(QUATERNION)
    angle = 2 * math.asin(min(np.linalg.norm(pose[:3, :3] - rotation) / (2 * math.sqrt(2)), 1))
    assert np.linalg.norm(pose[:3, 3] - POSITION) <= 1e-5 and angle <= 1e-5
    assert reached['position_error'] <= 1e-5 and reached['orientation_error'] <= 1e-5
    far = answers['unreachable']
    assert (far['success'], far['error_code']) == (False, -31), far
    # the request leaves avoid_collisions out: checked (SolveIk's default)
    assert far['position_error'] > 2.0 and 'no collision-free solution within' in far['message']
    assert answers['bad_link']['error_code'] == -18
    assert 'elbow' in answers['bad_link']['message']
    assert answers['unknown_frame']['error_code'] == -21
    assert "'map'" in answers['unknown_frame']['message']
    assert answers['nan']['error_code'] == 99999
    assert answers['bad_seed']['error_code'] == -17
    assert 'J9' in answers['bad_seed']['message']
    for name in ('bad_link', 'unknown_frame', 'nan', 'bad_seed'):
        assert answers[name]['success'] is False and answers[name]['solution']['name'] == []
    assert answers['status_after_nan']['valid']          # the node is up and answering
    # a position in link1 (moved by J1 and J2) is taken where the seed puts link1
    in_link = answers['in_link']
    assert in_link['error_code'] == 1, in_link
    seed = np.array([0.1, 0.5, 0.0, 0.0, 0.0, 0.0])
    element = build_frame_tree(load(os.path.join(workdir, KIT))).element_links.index('link1')
    link1 = np.asarray(hebi.get_forward_kinematics_mat('input', seed))[element]
    expected = link1 @ np.array([0.1, 0.0, 0.05, 1.0])
    np.testing.assert_allclose(end_effector(hebi, in_link['solution'])[:3, 3], expected[:3],
                               atol=1e-5)


def test_gravity_efforts_service_equals_hebi(node, workdir, hebi_import):
    hebi = hebi_import[0](os.path.join(workdir, KIT))
    [default, tilted] = responses(
        node[1],
        service_call('get_gravity_efforts', IK_REQUESTS['gravity']),
        service_call('get_gravity_efforts', IK_REQUESTS['gravity_tilted']))
    q = np.array([0.0, 1.0, 1.5, 0.0, 0.5, 0.0])
    assert default['success'] and default['gravity'] == {'x': 0.0, 'y': 0.0, 'z': -9.81}
    np.testing.assert_allclose(default['efforts'],
                               hebi.get_grav_comp_efforts(q, np.array([0, 0, -9.81])),
                               atol=1e-9, rtol=0)
    np.testing.assert_allclose(tilted['efforts'],
                               hebi.get_grav_comp_efforts(q, np.array([1.0, 0.0, -9.0])),
                               atol=1e-9, rtol=0)


def test_a_thousand_calls_keep_tf_at_its_rate_and_memory_flat(node, probe):
    """1 000 solve_ik calls in a row (targets of random configurations free of collision,
    20 out of reach; avoid_collisions left out: checked), joint_states at 50 Hz
    meanwhile: each comes back as /tf; the node's resident memory after the last call is
    within 2 MiB of the one after call 200."""
    from hrdf_ros_interfaces.srv import SolveIk
    path, launch = node
    [pid] = launch.started_pids()
    assert probe.wait_for_node()
    from hrdf_ros.motion import MotionPlanner
    planner = MotionPlanner(load(os.path.join(KITS_DIR, KIT)), kinematics='numpy')
    states = np.random.default_rng(3).uniform(-np.pi, np.pi, (1500, 6))
    states = states[planner.scene.free(states)][:1000]
    poses = planner.kinematics.end_effector(states)
    poses[::50, :3, 3] *= 4.0                              # 20 out of reach
    client = probe.create_client(SolveIk, '/hrdf_ros_node/solve_ik')
    assert client.wait_for_service(30.0)
    names = ['J1', 'J2', 'J3', 'J4', 'J5', 'J6']
    requests = []
    for pose, quaternion in zip(poses, rotation_to_quaternion(poses[:, :3, :3])):
        request = SolveIk.Request()
        p, o = request.target.pose.position, request.target.pose.orientation
        p.x, p.y, p.z = map(float, pose[:3, 3])
        o.x, o.y, o.z, o.w = map(float, quaternion)
        requests.append(request)
    sent, codes, latencies, memory = calls_under_joint_states(probe, client, requests, names,
                                                              pid, (200, 1000))
    probe.destroy_client(client)
    probe.spin_until(lambda: all(probe.has_tf_stamped(s) for s in sent), 30.0)
    back = sum(probe.has_tf_stamped(s) for s in sent)
    ms = np.array(latencies) * 1e3
    print(f'{path}: 1000 solve_ik calls, p50 {np.percentile(ms, 50):.2f} ms, p95 '
          f'{np.percentile(ms, 95):.2f} ms, max {ms.max():.1f} ms; codes '
          f'{ {c: codes.count(c) for c in set(codes)} }; /tf for {back} of {len(sent)} '
          f'joint_states; RSS {memory[200]} -> {memory[1000]} KiB')
    assert len(sent) >= 20 and back == len(sent)
    assert codes.count(1) >= 975 and set(codes) <= {1, -31}
    assert memory[1000] - memory[200] <= 2048
