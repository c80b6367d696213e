"""Driving the real ``ros2`` command line from tests, as a user types it.

Every command runs as its own process with the environment ``source env.sh`` gives a
shell (the venv on PATH and first on AMENT_PREFIX_PATH) and in its own session, so a
command that hangs is killed whole. ``ros2 launch`` gets SIGINT at its default action
(a process started from a non-interactive shell may inherit it ignored, and launch
never installs a handler) and is stopped like a Ctrl-C: SIGINT to its process group.
Every PID the launch started is recorded (its "process started with pid [N]" lines and
the processes of its session) and checked gone afterwards.

Traps these helpers avoid (measured on 2 cores, see doc/tutorials/ros.md, "The ros2
command line, step by step"):
``ros2 service call`` has no timeout option (it waits for ever, so every command here
has a timeout); ``ros2 topic echo --once --timeout N`` exits 0 with no output when
nothing came (outputs are checked, not only exit codes); ``ros2 topic pub --once``
waits for a matching subscription (``-w 1``) for at most ``--max-wait-time-secs``;
discovery without the daemon is slow and sometimes misses nodes, so each test module
starts the daemon once and stops it at its end (it is per ROS_DOMAIN_ID).
"""
from __future__ import annotations

import ast
import atexit
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Dict, List, Optional, Tuple

import numpy as np
import pytest
import yaml

from hrdf_ros.kinematics.rotations import quaternion_to_rotation

from conftest import KITS_DIR

VENV = sys.prefix
ROS2 = os.path.join(VENV, 'bin', 'ros2')
#: TMPDIR of every command: launch_ros writes a params file per node start there and
#: never removes it; this directory goes when the test run ends.
TMPDIR = tempfile.mkdtemp(prefix='hrdf_ros_cli_')
atexit.register(shutil.rmtree, TMPDIR, True)


def ros_env(prefixes=()) -> Dict[str, str]:
    """os.environ plus what ``source env.sh`` sets (venv on PATH, on AMENT_PREFIX_PATH),
    with further ament ``prefixes`` in front (stand-in packages)."""
    env = dict(os.environ)
    prefixes = list(prefixes) + [
        p for p in env.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p]
    if VENV not in prefixes:
        prefixes.append(VENV)
    env['AMENT_PREFIX_PATH'] = os.pathsep.join(prefixes)
    env['PATH'] = os.path.join(VENV, 'bin') + os.pathsep + env.get('PATH', '')
    env['PYTHONUNBUFFERED'] = '1'  # launch output reaches the log as it happens
    env['TMPDIR'] = TMPDIR
    return env


def require_ros2_cli():
    """Skip the calling test module when the ros2 CLI and launch are not installed
    (.ci/run fails on any skipped ROS test)."""
    if not os.access(ROS2, os.X_OK):
        pytest.skip('the ros2 CLI is not installed in the venv: run make env with '
                    '../shared/ros2-extra present', allow_module_level=True)


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _ignored_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Result:
    """Exit code and combined stdout/stderr of a finished command."""

    def __init__(self, args, code, output):
        self.args, self.code, self.output = args, code, output

    def __repr__(self):
        return f'$ {shlex.join(self.args)}\n(exit code {self.code})\n{self.output}'


def run(command: str, timeout: float = 30.0, cwd: Optional[str] = None,
        prefixes=()) -> Result:
    """Run a shell-style command line (``ros2 ...``) and wait for it, at most
    ``timeout`` s (then its whole session is killed and the test fails); ``prefixes``:
    further ament prefixes (:func:`ros_env`)."""
    args = shlex.split(command)
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=ros_env(prefixes), cwd=cwd,
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        raise AssertionError(f'no exit within {timeout} s: $ {command}\n{output}') from None
    return Result(args, process.returncode, output)


def run_all(commands, timeout: float = 60.0, cwd: Optional[str] = None,
            workers: int = 4) -> List[Result]:
    """:func:`run` for independent commands, a few at a time (most of a CLI call is
    waiting for discovery); results in the order of ``commands``."""
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda c: run(c, timeout=timeout, cwd=cwd), commands))


def start(command: str, cwd: Optional[str] = None) -> subprocess.Popen:
    """Start a command in the background (own session); its output goes to a pipe."""
    return subprocess.Popen(shlex.split(command), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=ros_env(), cwd=cwd,
                            start_new_session=True)


@contextmanager
def launched(command: str, cwd: str):
    """A ``ros2 launch`` running in the background until the node is up; closed (SIGINT
    to its session) on exit."""
    launch = Background(command, cwd=cwd)
    try:
        launch.wait_for(r'robot "[^"]*" from ')
        wait_for_node()
        yield launch
    finally:
        launch.close()


def finish(process: subprocess.Popen, timeout: float = 30.0) -> str:
    """Wait for a background command; returns its output (killed after ``timeout``)."""
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    return output


def alive(pid: int) -> bool:
    """True when the process exists and is not a zombie."""
    try:
        with open(f'/proc/{pid}/stat') as handle:
            return handle.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def session_pids(sid: int) -> List[int]:
    """PIDs of the live processes of session ``sid``."""
    pids = []
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open(f'/proc/{entry}/stat') as handle:
                    fields = handle.read().rsplit(')', 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != 'Z':
                pids.append(int(entry))
    return pids


class Background:
    """A long-running command (``ros2 launch``, ``ros2 run``) in its own session, its
    output in a temporary file.

    Args:
        command: the command line.
        cwd: working directory (relative ``hrdf_file`` values resolve against it).
        prefixes: ament prefixes put before the venv (see :func:`ros_env`).
        sigint_ignored: start it with SIGINT ignored, as a background job of a
            non-interactive shell starts (default: SIGINT at its default action).
    """

    def __init__(self, command: str, cwd: Optional[str] = None, prefixes=(),
                 sigint_ignored: bool = False):
        self.command = command
        self._log = tempfile.TemporaryFile(mode='w+')
        self.process = subprocess.Popen(
            shlex.split(self.command), stdout=self._log, stderr=subprocess.STDOUT,
            env=ros_env(prefixes), cwd=cwd, start_new_session=True,
            preexec_fn=_ignored_sigint if sigint_ignored else _default_sigint)
        self.code: Optional[int] = None
        self._seen = {self.process.pid}

    def output(self) -> str:
        self._log.seek(0)
        return self._log.read()

    def started_pids(self) -> List[int]:
        """PIDs the launch reported ("process started with pid [N]")."""
        return [int(p) for p in re.findall(r'process started with pid \[(\d+)\]',
                                           self.output())]

    def wait_for(self, pattern: str, timeout: float = 30.0) -> re.Match:
        """Wait until the output matches the regular expression ``pattern``."""
        deadline = time.monotonic() + timeout
        while True:
            match = re.search(pattern, self.output())
            if match:
                self._seen.update(self.started_pids() + session_pids(self.process.pid))
                return match
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f'no "{pattern}" from $ {self.command} (exit code '
                                     f'{self.process.poll()}):\n{self.output()}')
            time.sleep(0.05)

    def wait_exit(self, timeout: float = 30.0) -> int:
        """Wait for the launch to end by itself; returns its exit code."""
        try:
            self.code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f'$ {self.command} did not end:\n{self.output()}') from None
        return self.code

    def interrupt(self, timeout: float = 30.0) -> int:
        """Ctrl-C: SIGINT to the process group; returns the exit code."""
        self._seen.update(self.started_pids() + session_pids(self.process.pid))
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
        return self.wait_exit(timeout)

    def leftovers(self) -> List[int]:
        """Every PID ever seen for this launch that is still running."""
        self._seen.update(self.started_pids())
        return sorted(pid for pid in self._seen if alive(pid))

    def kill(self):
        """Clean-up after a failure: SIGKILL to everything still running."""
        for pid in self.leftovers() + session_pids(self.process.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def close(self):
        """Stop (SIGINT, then SIGKILL if needed) and release the log."""
        if self.process.poll() is None:
            try:
                self.interrupt()
            except AssertionError:
                pass
        self.kill()
        self._log.close()


# -- outputs -------------------------------------------------------------------------

def echoed(output: str) -> List[dict]:
    """The messages printed by ``ros2 topic echo`` (YAML documents separated by
    ``---``); floats are printed with Python's repr, so they are exact."""
    return [doc for doc in yaml.safe_load_all(output) if isinstance(doc, dict)]


def transforms(messages) -> Dict[str, Tuple[str, np.ndarray]]:
    """child frame -> (parent frame, 4x4) from echoed tf2_msgs/TFMessage messages."""
    out = {}
    for message in messages:
        for t in message['transforms']:
            pose = np.eye(4)
            r, p = t['transform']['rotation'], t['transform']['translation']
            pose[:3, :3] = quaternion_to_rotation((r['x'], r['y'], r['z'], r['w']))
            pose[:3, 3] = (p['x'], p['y'], p['z'])
            out[t['child_frame_id']] = (t['header']['frame_id'], pose)
    return out


def chain(tree: Dict[str, Tuple[str, np.ndarray]], root: str, tip: str) -> np.ndarray:
    """Pose of ``tip`` in ``root`` through the transforms of :func:`transforms`."""
    pose, frame = np.eye(4), tip
    while frame != root:
        assert frame in tree, f'no transform to {frame} (have {sorted(tree)})'
        parent, step = tree[frame]
        pose, frame = step @ pose, parent
    return pose


def _message_value(node):
    """A printed message's value from its syntax tree: a call with fields (a message)
    becomes a dict of them, a call with positional arguments (``array('d', [...])``) the
    list of its last one, a list or tuple a list, a literal its value (``nan`` and
    ``inf``, as Python prints those floats, too)."""
    if isinstance(node, ast.Call):
        if node.keywords or not node.args:
            return {k.arg: _message_value(k.value) for k in node.keywords}
        return list(_message_value(node.args[-1]))
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_message_value(e) for e in node.elts]
    if isinstance(node, ast.Name) and node.id in ('nan', 'inf'):    # repr of a float
        return float(node.id)
    return ast.literal_eval(node)


#: One syntax tree built at a time: CPython 3.11 keeps the AST constructor's recursion
#: depth in interpreter-wide state, so trees built in two threads at once corrupt it
#: (``SystemError: AST constructor recursion depth mismatch``, seen in a CI run where
#: :func:`service_responses`' threads parsed together; CPython gh-106905 and gh-95185).
_AST_LOCK = threading.Lock()


def service_response(result: Result) -> dict:
    """The response of a finished ``ros2 service call`` (its :class:`Result`; every test
    reads a CLI response here) as nested dicts, read from its syntax tree (nothing is
    evaluated). ros2service/verb/call.py prints ``response:``, the message's repr (e.g.
    ``pkg.srv.X_Response(success=True, poses=[geometry_msgs.msg....])``) and a blank
    line: that whole text must be there and parse.

    The command must have exited 0, or died of SIGSEGV *after* that whole response
    (faulthandler's text may follow it). That crash is upstream, in Fast DDS: seen in CI
    (test_text_includes_stay_inside) and reproduced here (1 of 1 200 calls, two calls at
    once beside a busy loop; Fast DDS 3.2.2, rmw_fastrtps_cpp 9.3.3, rclpy 9.1.2). After
    printing, call.py leaves ``with rclpy.init()``: rclpy's try_shutdown destroys the node,
    rmw_destroy_node deletes the last node's DDS participant, and
    ``TypeLookupManager::~TypeLookupManager()`` (Fast DDS
    src/cpp/fastdds/builtin/type_lookup_service/TypeLookupManager.cpp, lines 95-101 at
    v3.2.2, the same in v3.4.3) deletes its reply writer's history before it deletes the
    request listener whose thread answers other participants' type-lookup requests: a
    request still being answered (TypeLookupRequestListener::answer_request -> send ->
    WriterHistory::create_change) locks the deleted history's mutex (NULL) and SIGSEGVs.
    The request was served once and its answer arrived whole, so that answer is read (a
    second run would send a second request: load_hrdf and set_collision_objects change
    the node). Any other exit, or a missing, cut or unparsable response, fails.
    """
    printed = re.search(r'^response:\n(.*?)\n\n', result.output, re.S | re.M)
    assert printed and result.code in (0, -signal.SIGSEGV), result
    with _AST_LOCK:
        try:
            tree = ast.parse(printed.group(1), mode='eval')
        except SyntaxError:
            raise AssertionError(f'no whole response:\n{result}') from None
        response = _message_value(tree.body)
    if result.code:
        print(f'ros2 died of SIGSEGV after its whole response (teardown, see '
              f'service_response): {shlex.join(result.args)}')
    return response


#: what rclpy logs when the middleware drops a response: the server waited its
#: max_blocking_time for the client's response reader and gave up (rmw_fastrtps, known
#: with clients that start while many others do: ros2/rmw_fastrtps#842, ros2/ros2#922)
DROPPED_RESPONSE = 'failed to send response'


def service_responses(commands, node_output, timeout: float = 45.0) -> List[dict]:
    """Run ``ros2 service call`` commands (a few at a time); their responses, in order.

    ``node_output``: a callable giving the serving node's log so far. A call that gets
    no response is repeated once, and only when the node logged :data:`DROPPED_RESPONSE`
    for it (the node answered; DDS lost the answer); any other silence fails. Each
    response is read by :func:`service_response` (a SIGSEGV in the CLI's teardown after
    its whole response is not a failure; see there).
    """
    def call(command):
        try:
            result = run(command, timeout=timeout)
        except AssertionError:
            if node_output().count(DROPPED_RESPONSE) <= dropped_before:
                raise
            result = run(command, timeout=timeout)
        return service_response(result)

    dropped_before = node_output().count(DROPPED_RESPONSE)
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(call, commands))


def wait_until(predicate, timeout: float = 30.0, interval: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


# -- the commands the documentation shows --------------------------------------------
# Tests run exactly these strings (test_package.test_docs_show_the_commands_the_cli_tests_run
# checks that doc/tutorials/ros.md or doc/howto/several_robots.md shows each one); they
# run in a directory holding the files they name (robots()).

KIT, OTHER_KIT = 'A-2085-06.hrdf', 'A-2099-07.hrdf'      # HEBI kits: 6 and 7 DoF
BAD_HRDF = '<robot version="1.2.0">\n  <actuator type="X5-77"/>\n</robot>\n'
Q = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
#: joint_states with a stamp of its own, so that /tf can be matched to it (the node
#: stamps /tf with the joint_states stamp); sec 1000 + k for the k-th try
STAMP_NSEC = 424242
JOINT_STATES = ('ros2 topic pub --once -w 1 --max-wait-time-secs 10 /joint_states '
                'sensor_msgs/msg/JointState "{header: {stamp: {sec: 1000, nanosec: 424242}}, '
                'name: [J1, J2, J3, J4, J5, J6], position: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}"')
ECHO_TF = ('ros2 topic echo /tf tf2_msgs/msg/TFMessage --once --full-length --timeout 30 '
           '--filter "m.transforms[0].header.stamp.nanosec == 424242"')
ECHO_TF_STATIC = ('ros2 topic echo /tf_static tf2_msgs/msg/TFMessage --once --full-length '
                  '--qos-durability transient_local --qos-reliability reliable --timeout 20')
ECHO_DESCRIPTION = ('ros2 topic echo /robot_description std_msgs/msg/String --once '
                    '--full-length --qos-durability transient_local '
                    '--qos-reliability reliable --timeout 20')
POSITIONS = '{positions: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}'


#: The services whose type is not their name in CamelCase (MoveIt's names).
SERVICE_TYPES = {'check_state_validity': 'GetStateValidity'}


def service_call(service: str, values: str = '', node: str = '/hrdf_ros_node') -> str:
    """The command ``ros2 service call <node>/<service> <type> ['<values>']``."""
    kind = SERVICE_TYPES.get(service) or ''.join(word.title() for word in service.split('_'))
    command = f'ros2 service call {node}/{service} hrdf_ros_interfaces/srv/{kind}'
    return command + (f" '{values}'" if values else '')


def state_yaml(values) -> str:
    """A sensor_msgs/JointState of joints J1, J2, ... at ``values``, as ``ros2`` YAML."""
    return '{name: [' + ', '.join(f'J{k + 1}' for k in range(len(values))) + \
        '], position: [' + ', '.join(repr(float(v)) for v in values) + ']}'


def pose_yaml(matrix) -> str:
    """A geometry_msgs/Pose of a (4, 4) transform, as ``ros2`` YAML."""
    from hrdf_ros.kinematics.rotations import rotation_to_quaternion
    x, y, z = matrix[:3, 3]
    qx, qy, qz, qw = rotation_to_quaternion(matrix[:3, :3])
    return (f'{{position: {{x: {x!r}, y: {y!r}, z: {z!r}}}, orientation: {{x: {qx!r}, '
            f'y: {qy!r}, z: {qz!r}, w: {qw!r}}}}}')


def left(command: str) -> str:
    """The same command for the robot in namespace ``left``."""
    for name in ('/robot_description', '/joint_states', '/hrdf_ros_node/'):
        command = command.replace(f' {name}', f' /left{name}')
    return command


LAUNCH = f'ros2 launch hrdf_ros hrdf.launch.py hrdf_file:={KIT} publish_frequency:=10'
LAUNCH_LEFT = (f'ros2 launch hrdf_ros hrdf.launch.py hrdf_file:={KIT} namespace:=left '
               'frame_prefix:=left/')
LAUNCH_XML = (f'ros2 launch hrdf_ros hrdf.launch.xml hrdf_file:={KIT} publish_frequency:=0 '
              'robot_name:=123')
#: launch files with an invalid HRDF: each must end with exit code 1
LAUNCH_BAD = {name: f'ros2 launch hrdf_ros {name} hrdf_file:=bad.hrdf'
              for name in ('hrdf.launch.py', 'hrdf.launch.xml', 'view.launch.py')}
SHOW_ARGS = {name: f'ros2 launch hrdf_ros {name} --show-args'
             for name in ('hrdf.launch.py', 'hrdf.launch.xml', 'view.launch.py')}
VIEW_HEADLESS = 'ros2 launch hrdf_ros view.launch.py rviz:=false gui:=false'
VIEW = 'ros2 launch hrdf_ros view.launch.py'
#: the robot in the browser: the node + the web view, whose sliders publish joint_states
VIEW_WEB = f'ros2 launch hrdf_ros view.launch.py hrdf_file:={KIT} rviz:=false web:=true web_port:=0'
#: the web view beside a running robot (here LAUNCH_LEFT's: namespace left, prefix left/)
WEB_VIEW_LEFT = ('ros2 run hrdf_ros hrdf_ros_web_view --ros-args -r __ns:=/left '
                 '-p frame_prefix:=left/ -p port:=0')
RUN = f'ros2 run hrdf_ros hrdf_ros_node --ros-args -p hrdf_file:={KIT}'
HRDF_URDF = f'hrdf urdf {KIT} -o {KIT[:-5]}.urdf'
PARAM_GET = {name: f'ros2 param get /hrdf_ros_node {name}'
             for name in ('publish_frequency', 'robot_name', 'ignore_timestamp')}
PARAM_SET_BAD = 'ros2 param set /hrdf_ros_node hrdf_file missing.hrdf'
PARAM_SET = f'ros2 param set /hrdf_ros_node hrdf_file {OTHER_KIT}'
NODE_LIST = 'ros2 node list'
TF_SUBSCRIBERS = 'ros2 topic info /tf -v'
PACKAGE = ['ros2 pkg prefix hrdf_ros', 'ros2 pkg executables hrdf_ros',
           'python -c "from ament_index_python.packages import get_package_share_directory; '
           'print(get_package_share_directory(\'hrdf_ros\'))"']
#: (service, request): a good and a bad request for each service with request fields
SERVICES = [
    ('get_model_status', ''),
    ('get_forward_kinematics', POSITIONS),
    ('get_forward_kinematics', '{positions: [0.1]}'),
    ('get_jacobian', POSITIONS),
    ('get_jacobian', '{positions: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], frame_type: elbow}'),
    ('validate_hrdf', f'{{hrdf_path: {OTHER_KIT}}}'),
    ('validate_hrdf', '{hrdf_path: bad.hrdf}'),
    ('load_hrdf', '{hrdf_path: bad.hrdf}'),
    ('load_hrdf', f'{{hrdf_path: {KIT}}}'),
]
#: requests of ``~/solve_ik`` and ``~/get_gravity_efforts`` (test_ros_cli_ik.py): a
#: reachable pose of A-2085-06 (its end effector at 0.3 1.1 1.7 -0.4 0.9 0.2, rounded),
#: one out of reach, each error code, a position in one of the robot's links
IK_REQUESTS = {
    'reachable': '{target: {header: {frame_id: base_link}, pose: {position: {x: 0.353821, '
                 'y: 0.044007, z: 0.095802}, orientation: {x: -0.734087, y: 0.539156, '
                 'z: 0.136002, w: 0.389782}}}}',
    'unreachable': '{target: {pose: {position: {x: 3.0, y: 0.0, z: 0.5}}}}',
    'bad_link': '{target: {pose: {position: {x: 0.4}}}, link_name: elbow}',
    'unknown_frame': '{target: {header: {frame_id: map}, pose: {position: {x: 0.4}}}}',
    'nan': '{target: {pose: {position: {x: .nan, y: 0.0, z: 0.3}}}}',
    'bad_seed': '{target: {pose: {position: {x: 0.4}}}, seed: {name: [J9], position: [0.0]}}',
    'in_link': '{target: {header: {frame_id: link1}, pose: {position: {x: 0.1, z: 0.05}}}, '
               'seed: {name: [J1, J2], position: [0.1, 0.5]}, orientation: none}',
    'gravity': '{positions: [0.0, 1.0, 1.5, 0.0, 0.5, 0.0]}',
    'gravity_tilted': '{positions: [0.0, 1.0, 1.5, 0.0, 0.5, 0.0], gravity: {x: 1.0, '
                      'z: -9.0}}',
}
IK_CALLS = [service_call('get_gravity_efforts' if name.startswith('gravity') else 'solve_ik',
                         request) for name, request in IK_REQUESTS.items()]
#: the tutorial Jog the arm (test_ros_cli_servo.py): the node with its servo on the 7-DoF
#: kit, a twist up at 3 cm/s for 2 s, the status, pause and resume
SERVO_LAUNCH = ('ros2 launch hrdf_ros hrdf.launch.py hrdf_file:=A-2099-07.hrdf servo:=true '
                'publish_frequency:=0.0 params_file:=servo.yaml')
SERVO_TWIST = ('ros2 topic pub -r 100 -t 200 -w 1 /hrdf_ros_node/delta_twist_cmds '
               'geometry_msgs/msg/TwistStamped '
               '"{header: {frame_id: base_link}, twist: {linear: {z: 0.03}}}"')
SERVO_STATUS = 'ros2 topic echo /hrdf_ros_node/status std_msgs/msg/Int8 --timeout 30'
SERVO_PAUSE = ('ros2 service call /hrdf_ros_node/pause_servo std_srvs/srv/SetBool '
               '"{data: true}"')
SERVO_RESUME = ('ros2 service call /hrdf_ros_node/pause_servo std_srvs/srv/SetBool '
                '"{data: false}"')
#: the web view beside it, whose Jog folder sends those commands
SERVO_WEB_VIEW = 'ros2 run hrdf_ros hrdf_ros_web_view --ros-args -p port:=0'
#: every command line the real-CLI tests run (the ROS tutorial, the how-to for several
#: robots and the tutorials Move the end effector and Jog the arm show each one,
#: DOC_COMMAND_PAGES)
DOC_COMMANDS = (
    [LAUNCH, LAUNCH_LEFT, LAUNCH_XML, VIEW_HEADLESS, VIEW, VIEW_WEB, WEB_VIEW_LEFT, RUN,
     HRDF_URDF, PARAM_SET_BAD,
     PARAM_SET, NODE_LIST, TF_SUBSCRIBERS, ECHO_DESCRIPTION, ECHO_TF, ECHO_TF_STATIC,
     JOINT_STATES, left(ECHO_DESCRIPTION), left(JOINT_STATES),
     left(service_call('get_model_status')), 'ros2 daemon start', 'ros2 daemon stop',
     'ros2 launch hrdf_ros view.launch.py gui:=true',
     'ros2 launch hrdf_ros view.launch.py gui:=false']
    + list(LAUNCH_BAD.values()) + list(SHOW_ARGS.values()) + list(PARAM_GET.values())
    + PACKAGE + [service_call(*request) for request in SERVICES] + IK_CALLS
    + [SERVO_LAUNCH, SERVO_TWIST, SERVO_STATUS, SERVO_PAUSE, SERVO_RESUME, SERVO_WEB_VIEW])


def robots(directory) -> str:
    """Fill ``directory`` with the files the commands name: the two kits (links to
    ../shared/hrdf/kits) and bad.hrdf (an unknown actuator type on line 2)."""
    for name in (KIT, OTHER_KIT):
        os.symlink(os.path.join(KITS_DIR, name), os.path.join(directory, name))
    with open(os.path.join(directory, 'bad.hrdf'), 'w') as handle:
        handle.write(BAD_HRDF)
    return str(directory)


def wait_for_node(name: str = '/hrdf_ros_node', timeout: float = 30.0):
    """Wait until ``ros2 node list`` (the daemon's graph) shows the node."""
    assert wait_until(lambda: name in run(NODE_LIST).output.split(), timeout), \
        f'{name} not in ros2 node list'


def pose_from_tf(namespace: str = '', prefix: str = '', cwd: Optional[str] = None):
    """The ROS tutorial's steps: echo /tf in the background (only the /tf of our stamp),
    publish one joint_states (again, 1 s later in stamp time, if no /tf came: delivery is
    best effort), echo the latched /tf_static; returns the end-effector pose in the base
    link chained from both, and the /tf message."""
    echo = start(ECHO_TF, cwd=cwd)
    echo_static = start(ECHO_TF_STATIC, cwd=cwd)
    try:
        # the echo's node (named after its PID) must be on /tf before joint_states go out
        assert wait_until(lambda: f'_{echo.pid}' in run(TF_SUBSCRIBERS).output,
                          30.0), 'ros2 topic echo /tf did not subscribe'
        time.sleep(0.5)  # the daemon saw the echo; give the node's publisher time to match
        publish = left(JOINT_STATES) if namespace == '/left' else JOINT_STATES
        for attempt in range(3):
            result = run(publish.replace('sec: 1000,', f'sec: {1000 + attempt},'), timeout=30)
            assert result.code == 0 and 'publishing #1' in result.output, result
            if wait_until(lambda: echo.poll() is not None, 3.0):
                break
        moving = echoed(finish(echo, 30))
        static = echoed(finish(echo_static, 30))
    finally:
        for process in (echo, echo_static):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
    assert moving, 'nothing from ros2 topic echo /tf'
    assert static, 'nothing from ros2 topic echo /tf_static'
    assert {t['header']['stamp']['nanosec'] for t in moving[0]['transforms']} == {STAMP_NSEC}
    tree = transforms(static + moving)
    return chain(tree, f'{prefix}base_link', f'{prefix}end_effector'), moving
