"""The node's motion services through the real ``ros2 service call``, on a 7-DoF kit
(A-2099-07), against the core (:class:`hrdf_ros.MotionPlanner`) on the same requests;
then 200 ``~/plan_motion`` calls in a row (an rclpy client) against /tf's rate and the
node's memory.

The node runs with ``params_file`` naming ``collision_objects`` (a sphere beside the arm);
``~/set_collision_objects`` then adds a box, and ``~/get_model_status`` counts them.
Requests whose answer is deterministic (a straight joint-space line, collision-free IK
whose first solve is free, a Cartesian path) must equal the core's: same error code,
same joints in the same order, same times and positions (1e-9). MoveIt's error codes for
an unknown link (-18), a start in collision (-10), a goal in collision (-12), NaN and a
zero quaternion (99999), no path within the planning time (-1).
"""
import contextlib
import os

import numpy as np
import pytest
import yaml

from hrdf_ros import load
from hrdf_ros.kinematics.rotations import rotation_to_quaternion

from conftest import KITS_DIR

from cli_helpers import launched, require_ros2_cli, service_call, service_responses
from cli_helpers import pose_yaml as _pose, state_yaml as _state
from ros_helpers import calls_under_joint_states

require_ros2_cli()
KIT7 = 'A-2099-07.hrdf'
#: the node's first collision object: a sphere well away from the states below
SPHERE = {'name': 'ball', 'type': 'sphere', 'dimensions': [0.05],
          'pose': {'position': [-0.6, -0.6, 0.6]}}
START = [0.1, -0.9, -0.2, -1.2, 0.6, 0.8, -0.9]
GOAL = [0.3, -0.6, 0.2, -0.9, 0.5, 1.2, -0.5]


@pytest.fixture(scope='module')
def planner():
    from hrdf_ros.motion import MotionPlanner
    return MotionPlanner(load(os.path.join(KITS_DIR, KIT7)), [SPHERE])


@pytest.fixture(scope='module')
def node(ros2_daemon, workdir):
    if not os.path.exists(os.path.join(workdir, KIT7)):     # robots() may link it
        os.symlink(os.path.join(KITS_DIR, KIT7), os.path.join(workdir, KIT7))
    with open(os.path.join(workdir, 'objects.yaml'), 'w', encoding='utf-8') as handle:
        yaml.safe_dump([SPHERE], handle)
    with open(os.path.join(workdir, 'motion.yaml'), 'w', encoding='utf-8') as handle:
        yaml.safe_dump({'/**/hrdf_ros_node': {'ros__parameters': {
            'collision_objects': os.path.join(workdir, 'objects.yaml'),
            'default_planning_time': 2.0}}}, handle)
    command = (f'ros2 launch hrdf_ros hrdf.launch.py hrdf_file:={KIT7} publish_frequency:=0.0 '
               'params_file:=motion.yaml')
    with launched(command, workdir) as running:
        yield running


#: free, but the straight lines from START to it (and to it with angles turned the other
#: way) collide: planned around
BEHIND = [1.0, 1.6, 2.4, 1.7, -0.4, 2.4, 2.4]


def _trajectory(message) -> str:
    """A trajectory_msgs/JointTrajectory (the parsed response's dict) as ``ros2`` YAML."""
    points = ', '.join(
        '{positions: %s, velocities: %s, accelerations: %s, time_from_start: {sec: %d, '
        'nanosec: %d}}' % (p['positions'], p['velocities'], p['accelerations'],
                           p['time_from_start']['sec'], p['time_from_start']['nanosec'])
        for p in message['points'])
    return f'{{joint_names: {message["joint_names"]}, points: [{points}]}}'.replace("'", '')


def _line(start, goal, seconds=2) -> str:
    """A two-point trajectory of positions only (the controller's straight line)."""
    names = [f'J{k + 1}' for k in range(len(start))]
    return (f'{{joint_names: [{", ".join(names)}], points: [{{positions: {list(start)}, '
            f'time_from_start: {{sec: 0}}}}, {{positions: {list(goal)}, time_from_start: '
            f'{{sec: {seconds}}}}}]}}')


def _same_trajectory(message, plan):
    trajectory = plan.trajectory
    assert message['joint_names'] == trajectory.joint_names
    points = message['points']
    assert len(points) == len(trajectory.time_from_start)
    times = [p['time_from_start']['sec'] + p['time_from_start']['nanosec'] * 1e-9
             for p in points]
    np.testing.assert_allclose(times, trajectory.time_from_start, atol=1e-9, rtol=0)
    for key in ('positions', 'velocities', 'accelerations'):
        np.testing.assert_allclose([p[key] for p in points], getattr(trajectory, key),
                                   atol=1e-9, rtol=0)


def test_motion_services_answer_as_the_core(node, planner):
    end_effector = planner.kinematics.end_effector(np.array(GOAL))
    target = planner.kinematics.end_effector(np.array(GOAL) + 0.05)
    inside = planner.kinematics.end_effector(np.array(START))
    line_end = end_effector.copy()
    line_end[:3, 3] += [0.0, 0.0, 0.05]
    scaling = 'max_velocity_scaling_factor: 0.5, max_acceleration_scaling_factor: 0.5'
    requests = {
        'joint': ('plan_motion', f'{{start_state: {_state(START)}, goal_state: {_state(GOAL)}, '
                                 f'avoid_collisions: true, {scaling}}}'),
        'pose': ('plan_motion', f'{{start_state: {_state(START)}, goal_pose: {{pose: '
                                f'{_pose(end_effector)}}}, avoid_collisions: true, {scaling}}}'),
        'cartesian': ('plan_cartesian_path', f'{{start_state: {_state(GOAL)}, waypoints: '
                                             f'[{_pose(line_end)}], max_step: 0.01, '
                                             f'avoid_collisions: true, {scaling}}}'),
        'ik': ('solve_ik', f'{{target: {{pose: {_pose(target)}}}, seed: {_state(GOAL)}, '
                           'avoid_collisions: true, timeout: {sec: 1}}'),
        'bad_link': ('plan_motion', f'{{goal_pose: {{pose: {_pose(end_effector)}}}, '
                                    'link_name: elbow, avoid_collisions: true}'),
        'nan': ('plan_motion', '{goal_pose: {pose: {position: {x: .nan}}}, '
                               'avoid_collisions: true}'),
        'zero_quaternion': ('plan_cartesian_path', '{waypoints: [{position: {x: 0.3}, '
                                                   'orientation: {w: 0.0}}]}'),
        'bad_scaling': ('plan_motion', f'{{goal_state: {_state(GOAL)}, '
                                       'max_velocity_scaling_factor: 2.0}'),
        'seeded': ('plan_motion', f'{{start_state: {_state(START)}, goal_state: '
                                  f'{_state(BEHIND)}, seed: 7, {scaling}}}'),
    }
    calls = [service_call(*request) for request in requests.values()]
    answers = dict(zip(requests, service_responses(calls, node.output, timeout=60.0)))
    joint = answers['joint']
    assert joint['error_code'] == 1, joint
    _same_trajectory(joint['trajectory'], planner.plan(
        np.array(START), np.array(GOAL), max_velocity_scaling_factor=0.5,
        max_acceleration_scaling_factor=0.5))
    pose = answers['pose']
    core = planner.plan(np.array(START), pose=end_effector, max_velocity_scaling_factor=0.5,
                        max_acceleration_scaling_factor=0.5)
    assert pose['error_code'] == core.error_code == 1, pose
    _same_trajectory(pose['trajectory'], core)
    cartesian = answers['cartesian']
    core = planner.cartesian_path(np.array(GOAL), [line_end], max_velocity_scaling_factor=0.5,
                                  max_acceleration_scaling_factor=0.5)
    assert cartesian['error_code'] == 1 and cartesian['fraction'] == core.fraction == 1.0
    _same_trajectory(cartesian['trajectory'], core)
    ik = answers['ik']
    core = planner.solve_ik(target, np.array(GOAL), timeout=1.0)
    assert (ik['success'], ik['error_code']) == (True, 1) and core.success, ik
    np.testing.assert_allclose(ik['solution']['position'], core.positions, atol=1e-9)
    assert not planner.in_collision(np.array(ik['solution']['position']))
    assert answers['bad_link']['error_code'] == -18
    assert 'elbow' in answers['bad_link']['message']
    assert answers['nan']['error_code'] == 99999
    assert answers['zero_quaternion']['error_code'] == 99999
    assert 'zero quaternion' in answers['zero_quaternion']['message']
    assert answers['bad_scaling']['error_code'] == 99999
    for name in ('bad_link', 'nan', 'zero_quaternion', 'bad_scaling'):
        assert answers[name]['trajectory']['points'] == []
    # a seeded plan around: the core's, bit for bit (counts, not time)
    seeded = planner.plan(np.array(START), np.array(BEHIND), seed=7,
                          max_velocity_scaling_factor=0.5, max_acceleration_scaling_factor=0.5)
    assert answers['seeded']['error_code'] == seeded.error_code == 1, answers['seeded']
    assert len(seeded.path) > 2                            # planned, not the line
    _same_trajectory(answers['seeded']['trajectory'], seeded)
    # the planned trajectory, as the controller plays it from START, is proven free
    [played] = service_responses([service_call(
        'check_state_validity', f'{{robot_state: {_state(START)}, trajectory: '
                                f'{_trajectory(joint["trajectory"])}}}')], node.output)
    assert (played['error_code'], played['valid']) == (1, True), played

    # a ball where the start's end effector is, and a floor: counted, and avoided
    crate = f'{{names: [crate], primitives: [{{type: 2, dimensions: [0.08]}}], poses: ' \
            f'[{_pose(inside)}], floors: [-0.3]}}'
    [placed] = service_responses([service_call('set_collision_objects', crate)], node.output)
    assert placed['success'] and placed['count'] == 2, placed
    ball = {'name': 'crate', 'type': 'sphere', 'dimensions': [0.08],
                      'pose': {'position': inside[:3, 3].tolist(),
                               'orientation': rotation_to_quaternion(inside[:3, :3]).tolist()}}
    planner.set_collision_objects([ball, {'name': 'floor', 'type': 'floor',
                                          'pose': {'position': [0.0, 0.0, -0.3]}}])
    assert planner.in_collision(np.array(START))
    beyond = 2 * np.array(START) - np.array(GOAL)    # the line to it passes the start
    assert not planner.in_collision(beyond)
    requests = {
        'start_in_collision': ('plan_motion', f'{{start_state: {_state(START)}, goal_state: '
                                              f'{_state(GOAL)}, avoid_collisions: true}}'),
        'goal_in_collision': ('plan_motion', f'{{start_state: {_state(GOAL)}, goal_state: '
                                             f'{_state(START)}, avoid_collisions: true}}'),
        'no_path_in_time': ('plan_motion', f'{{start_state: {_state(GOAL)}, goal_state: '
                                           f'{_state(beyond)}, avoid_collisions: true, '
                                           'planning_time: 0.001}'),
        'status': ('get_model_status', ''),
        'through': ('check_state_validity', f'{{robot_state: {_state(GOAL)}, trajectory: '
                                            f'{_line(GOAL, beyond)}}}'),
    }
    answers = dict(zip(requests, service_responses(
        [service_call(*request) for request in requests.values()], node.output)))
    assert answers['start_in_collision']['error_code'] == -10
    assert 'crate' in answers['start_in_collision']['message']
    assert answers['goal_in_collision']['error_code'] == -12
    assert answers['no_path_in_time']['error_code'] == -1, answers['no_path_in_time']
    assert answers['status']['collision_objects'] == 2
    # a straight line through the crate, played from GOAL: not proven free, the crate named
    through = answers['through']
    assert (through['error_code'], through['valid']) == (1, False), through
    assert through['link_b'] == ['crate'] and 'not proven free' in through['message']


def test_the_node_plans_the_same_trajectory_alone_and_busy(node):
    """One ``~/plan_motion`` request (a path around, seed 5) five times through the real
    ``ros2 service call``, the last two with both cores busy: the same trajectory, bit for
    bit (the CLI prints every float's repr), each time."""
    from test_same_plans import busy
    ball = ('{names: [ball], primitives: [{type: 2, dimensions: [0.05]}], poses: '
            '[{position: {x: -0.6, y: -0.6, z: 0.6}}]}')        # the node's first objects
    [placed] = service_responses([service_call('set_collision_objects', ball)], node.output)
    assert placed['success'], placed
    request = service_call('plan_motion', f'{{start_state: {_state(START)}, goal_state: '
                                          f'{_state(BEHIND)}, seed: 5, planning_time: 60.0}}')
    answers = []
    for run in range(5):
        with busy(2) if run >= 3 else contextlib.nullcontext():
            [answer] = service_responses([request], node.output, timeout=120.0)
        assert answer['error_code'] == 1, answer
        answers.append(answer['trajectory'])
    assert all(a == answers[0] for a in answers[1:])
    assert len(answers[0]['points']) > 10


def test_two_hundred_plans_keep_tf_at_its_rate_and_memory_flat(node, probe):
    """200 plan_motion calls in a row (joint goals around the start, lines and plans),
    joint_states at 50 Hz meanwhile: each comes back as /tf; the node's resident memory
    after the last call is within 2 MiB of the one after call 50."""
    from hrdf_ros_interfaces.srv import PlanMotion, SetCollisionObjects
    [pid] = node.started_pids()
    assert probe.wait_for_node()
    clear = probe.create_client(SetCollisionObjects, '/hrdf_ros_node/set_collision_objects')
    assert clear.wait_for_service(30.0)
    future = clear.call_async(SetCollisionObjects.Request())       # no objects
    probe.spin_until(future.done, 30.0)
    assert future.result().success and future.result().count == 0
    probe.destroy_client(clear)
    client = probe.create_client(PlanMotion, '/hrdf_ros_node/plan_motion')
    assert client.wait_for_service(30.0)
    names = [f'J{k + 1}' for k in range(7)]
    requests = []
    for goal in np.array(GOAL) + np.random.default_rng(5).uniform(-0.2, 0.2, (200, 7)):
        request = PlanMotion.Request()
        request.start_state.name = names
        request.start_state.position = [float(v) for v in GOAL]
        request.goal_state.name = names
        request.goal_state.position = goal.tolist()
        request.avoid_collisions = True
        request.planning_time = 0.5
        requests.append(request)
    sent, codes, latencies, memory = calls_under_joint_states(probe, client, requests, names,
                                                              pid, (50, 200))
    probe.destroy_client(client)
    probe.spin_until(lambda: all(probe.has_tf_stamped(s) for s in sent), 30.0)
    back = sum(probe.has_tf_stamped(s) for s in sent)
    ms = np.array(latencies) * 1e3
    print(f'200 plan_motion calls: p50 {np.percentile(ms, 50):.1f} ms, p95 '
          f'{np.percentile(ms, 95):.1f} ms; codes { {c: codes.count(c) for c in set(codes)} }; '
          f'/tf for {back} of {len(sent)} joint_states; RSS {memory[50]} -> {memory[200]} KiB')
    assert len(sent) >= 20 and back == len(sent)
    assert codes.count(1) >= 180 and set(codes) <= {1, -1, -12}
    assert memory[200] - memory[50] <= 2048


def test_after_the_warm_up_a_collision_free_ik_request_compiles_nothing():
    """The planner's warm-up (first motion request) loads every compiled kernel a
    collision-free ``~/solve_ik`` uses, the restarts' batched solve included: the
    tutorial's request, right after, adds no compiled signature and succeeds (on a cold
    cache, that compile used the request's whole 0.05 s: -31 in CI). Nor does a plan
    whose straight line collides (OMPL, and the certified checks with per-pair margins),
    which imports no module either (the margins once reached the kernels as a read-only
    array, a numba type of its own: 1.7 s of compiling in the first plan of a process on
    a cold cache)."""
    import subprocess
    import sys
    code = (
        "import numba\n"
        "from hrdf_ros_interfaces.srv import SolveIk\n"
        "from hrdf_ros.ros.ik_service import IkQueries\n"
        "from hrdf_ros.ros.loaded_robot import RobotOptions, load_robot\n"
        "from hrdf_ros.ros.motion_service import MotionDefaults, MotionQueries\n"
        "from hrdf_ros.kinematics import compiled, compiled_ik\n"
        "from hrdf_ros.motion import compiled_sieve\n"
        f"robot = load_robot(RobotOptions(), path={os.path.join(KITS_DIR, KIT7)!r})\n"
        "ik = IkQueries(robot, 0.05)\n"
        "queries = MotionQueries(robot, ik, MotionDefaults())\n"
        "queries.planner()\n"
        "import sys\n"
        "import numpy as np\n"
        "def signatures():\n"
        "    return sum(len(f.signatures) for name, m in list(sys.modules.items())\n"
        "               if name.startswith('hrdf_ros') for f in vars(m).values()\n"
        "               if isinstance(f, numba.core.registry.CPUDispatcher))\n"
        "before = signatures()\n"
        "request = SolveIk.Request()\n"
        "request.target.pose.position.x, request.target.pose.position.y = 0.3, -0.2\n"
        "request.target.pose.position.z = 0.1\n"
        "request.target.pose.orientation.x = 1.0\n"
        "request.seed.name = ['J1', 'J2', 'J3', 'J4', 'J5', 'J6', 'J7']\n"
        "request.seed.position = [0.1, -0.9, -0.2, -1.2, 0.6, 0.8, -0.9]\n"
        "request.avoid_collisions = True\n"
        "request.timeout.sec = 1\n"              # the answer, not its time, on a busy CI
        "answer = queries.solve_ik(request, SolveIk.Response(), None)\n"
        "after_ik, modules = signatures(), set(sys.modules)\n"
        f"start, goal = np.array({START!r}), np.array({BEHIND!r})\n"
        "planner = queries.planner()\n"
        "assert not planner.scene.segment_free(start, goal)\n"
        "plan = planner.plan(start, goal, planning_time=60.0)\n"
        "print(before, after_ik, signatures(), answer.error_code, len(plan.path),\n"
        "      ','.join(sorted(set(sys.modules) - modules)) or '-')\n")
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    before, after_ik, after_plan, code, waypoints, imported = result.stdout.split()
    assert int(before) > 0 and int(after_ik) == int(after_plan) == int(before), result.stdout
    assert code == '1' and int(waypoints) > 2 and imported == '-', result.stdout


def test_without_the_motion_extra_the_services_answer_99999_naming_it():
    """The node's motion requests, answered in a process where Pinocchio, OMPL and
    TOPP-RA cannot be imported: FAILURE (99999) with the message that names the extra;
    plain IK still answers."""
    import subprocess
    import sys
    code = (
        "import sys\n"
        "for name in ('pinocchio', 'ompl', 'toppra', 'hppfcl', 'coal'):\n"
        "    sys.modules[name] = None\n"
        "from hrdf_ros_interfaces.srv import PlanMotion, PlanCartesianPath, SolveIk\n"
        "from hrdf_ros.ros.ik_service import IkQueries\n"
        "from hrdf_ros.ros.loaded_robot import RobotOptions, load_robot\n"
        "from hrdf_ros.ros.motion_service import MotionDefaults, MotionQueries\n"
        f"robot = load_robot(RobotOptions(), path={os.path.join(KITS_DIR, KIT7)!r})\n"
        "ik = IkQueries(robot, 0.05)\n"
        "queries = MotionQueries(robot, ik, MotionDefaults())\n"
        "request = PlanMotion.Request()\n"
        "request.goal_state.name, request.goal_state.position = ['J1'], [0.3]\n"
        "answer = queries.plan_motion(request, PlanMotion.Response(), None)\n"
        "print(answer.error_code, answer.message)\n"
        "request = PlanCartesianPath.Request()\n"
        "from geometry_msgs.msg import Pose\n"
        "request.waypoints = [Pose()]\n"
        "request.waypoints[0].orientation.w = 1.0\n"
        "answer = queries.plan_cartesian_path(request, PlanCartesianPath.Response(), None)\n"
        "print(answer.error_code, answer.message)\n"
        "request = SolveIk.Request()\n"
        "request.target.pose.position.x = 0.3\n"
        "request.target.pose.orientation.w = 1.0\n"
        "request.avoid_collisions = True\n"
        "answer = queries.solve_ik(request, SolveIk.Response(), None)\n"
        "print(answer.error_code, answer.message)\n"
        "request.avoid_collisions = False\n"
        "answer = ik.solve(request, SolveIk.Response(), None)\n"
        "print(answer.error_code in (1, -31))\n")
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 4, result.stdout
    for line in lines[:3]:
        assert line.startswith('99999 ') and "pip install 'hrdf_ros[motion]'" in line, line
    assert lines[3] == 'True'


def test_the_tutorials_service_calls_plan(node):
    """The ``ros2 service call`` lines of the tutorial "Plan a motion", as written, on the
    tutorial's robot: each answers success."""
    import re
    page = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                             'doc', 'tutorials', 'plan_motion.md'), encoding='utf-8').read()
    assert f'hrdf_file:={KIT7} publish_frequency:=0.0' in page
    calls = [line for block in re.findall(r'```bash\n(.*?)```', page, flags=re.S)
             for line in block.splitlines() if line.startswith('ros2 service call ')]
    assert len(calls) == 4
    answers = service_responses(calls, node.output, timeout=60.0)
    placed, joint, pose, ik = answers
    assert placed['success'] and placed['count'] == 1
    assert joint['error_code'] == 1 and joint['trajectory']['points'], joint
    assert pose['error_code'] == 1 and pose['trajectory']['points'], pose
    assert ik['error_code'] == 1 and ik['success'], ik


@pytest.mark.parametrize('content, words', [
    (None, 'No such file'),
    ('- name: a\n  type: cone\n', "type must be one of box, sphere, cylinder, floor"),
    ('[1, 2', 'not YAML')])
def test_a_bad_collision_objects_file_stops_the_node_in_one_line(tmp_path, content, words):
    """``ros2 run hrdf_ros hrdf_ros_node`` with a ``collision_objects`` file that is
    missing, not the schema or not YAML: exit 1, the reason with the parameter's name on
    stderr, no traceback."""
    from cli_helpers import run
    path = tmp_path / 'objects.yaml'
    if content is not None:
        path.write_text(content)
    arm = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'config',
                       'x_series_arm_6dof.hrdf')
    result = run(f'ros2 run hrdf_ros hrdf_ros_node --ros-args -p hrdf_file:={arm} '
                 f'-p collision_objects:={path}', timeout=60)
    assert result.code == 1, result
    assert 'collision_objects' in result.output and words in result.output, result.output
    assert 'Traceback' not in result.output
