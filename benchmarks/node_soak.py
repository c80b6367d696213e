"""Soak test of hrdf_ros_node: minutes of random and garbage input, then a verdict.

Run with ``make soak`` (10 minutes; ``SOAK_ARGS="--duration 60"`` for a short run). The
node runs as its own process on the 7-DoF kit with ``publish_frequency: 0`` (every
accepted message published) and ``republish_frequency: 50``. This
process sends, for the whole duration, joint_states at about 500 Hz drawn at random
from: valid full and partial messages, unknown and random names, NaN / inf / 1e300
positions, mismatched lengths, empty messages, duplicate names, zero, old and future
stamps; and every few seconds a service call with bad arguments, and a reload with an
invalid and then a valid HRDF file.

Checks: the node is alive at the end and exits 0 on SIGTERM; its resident memory grows
by less than 10 MB between the end of warm-up and the end; every transform it published
on /tf and /tf_static is finite. Exit code 0 when all hold.
"""
from __future__ import annotations

import argparse
import math
import os
import random
import string
import sys
import tempfile
import threading
import time

import rclpy
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import SetParameters
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

from hrdf_ros import load
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.ros.qos import TF
from hrdf_ros.ros.probe import STATIC_LISTENER_QOS, start_node_process, stop_node_process
from hrdf_ros_interfaces.srv import GetForwardKinematics, GetJacobian

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.normpath(os.path.join(HERE, '..', '..', 'shared', 'hrdf', 'kits',
                                    'X-Series-Double-Shoulder-7DOF.hrdf'))
MEMORY_LIMIT_MB = 10.0


def rss_mb(pid: int) -> float:
    """Resident set size of a process, MB (from /proc/<pid>/status)."""
    with open(f'/proc/{pid}/status') as handle:
        for line in handle:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024
    raise RuntimeError('no VmRSS')


class Soak(Node):
    def __init__(self, names):
        super().__init__('hrdf_soak')
        self.names = names
        self.publisher = self.create_publisher(JointState, 'joint_states', 100)
        self.transforms = 0
        self.non_finite = 0
        self.create_subscription(TFMessage, '/tf', self._on_tf, TF.qos)
        self.create_subscription(TFMessage, '/tf_static', self._on_tf, STATIC_LISTENER_QOS)
        self.jacobian = self.create_client(GetJacobian, '/hrdf_ros_node/get_jacobian')
        self.fk = self.create_client(GetForwardKinematics,
                                     '/hrdf_ros_node/get_forward_kinematics')
        self.parameters = self.create_client(SetParameters, '/hrdf_ros_node/set_parameters')

    def _on_tf(self, msg):
        for t in msg.transforms:
            self.transforms += 1
            values = (t.transform.translation.x, t.transform.translation.y,
                      t.transform.translation.z, t.transform.rotation.x,
                      t.transform.rotation.y, t.transform.rotation.z, t.transform.rotation.w)
            if not all(math.isfinite(v) for v in values):
                self.non_finite += 1

    def random_message(self, rng: random.Random, now_ns: int) -> JointState:
        msg = JointState()
        names, dof = list(self.names), len(self.names)
        kind = rng.randrange(12)
        positions = [rng.uniform(-4, 4) for _ in range(dof)]
        if kind == 1:                                       # partial
            keep = sorted(rng.sample(range(dof), rng.randrange(1, dof)))
            names, positions = [names[k] for k in keep], [positions[k] for k in keep]
        elif kind == 2:                                     # unknown names mixed in
            names = names + [''.join(rng.choices(string.printable, k=rng.randrange(1, 40)))]
            positions = positions + [rng.uniform(-1e300, 1e300)]
        elif kind == 3:                                     # non-finite
            positions[rng.randrange(dof)] = rng.choice([math.nan, math.inf, -math.inf])
        elif kind == 4:                                     # lengths differ
            positions = positions[:rng.randrange(dof)]
        elif kind == 5:                                     # empty
            names, positions = [], []
        elif kind == 6:                                     # duplicates
            names[1] = names[0]
        elif kind == 7:                                     # huge but finite
            positions[rng.randrange(dof)] = rng.choice([1e300, -1e300, 1e15])
        elif kind == 8:                                     # random names only
            names = [f'joint_{rng.randrange(10**9)}' for _ in range(dof)]
        msg.name, msg.position = names, positions
        stamp = {9: 0, 10: now_ns - 10**9, 11: now_ns + 10**9}.get(kind, now_ns)
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(max(stamp, 0), 10**9)
        return msg


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--duration', type=float, default=600.0, help='s (default 600)')
    parser.add_argument('--rate', type=float, default=500.0, help='joint_states per s')
    parser.add_argument('--warmup', type=float, default=20.0, help='s before the memory '
                        'baseline')
    args = parser.parse_args(argv)
    names = build_frame_tree(load(KIT)).dof_names
    bad_file = os.path.join(tempfile.mkdtemp(), 'bad.hrdf')
    with open(bad_file, 'w') as handle:
        handle.write('<robot version="1.2.0">\n  <actuator type="X5-77"/>\n</robot>\n')

    rclpy.init()
    process = start_node_process(KIT, {'publish_frequency': 0.0, 'republish_frequency': 50.0},
                                 stderr=open(os.devnull, 'w'))
    soak = Soak(names)
    executor = SingleThreadedExecutor()
    executor.add_node(soak)
    running = threading.Event()
    running.set()
    thread = threading.Thread(target=lambda: [executor.spin_once(timeout_sec=0.05)
                                              for _ in iter(running.is_set, False)],
                              daemon=True)
    thread.start()
    rng = random.Random(0)
    sent = calls = reloads = 0
    baseline = None
    start = time.monotonic()
    next_report = start + 60
    try:
        while soak.publisher.get_subscription_count() == 0:
            if time.monotonic() - start > 30:
                raise RuntimeError('the node did not subscribe to joint_states')
            time.sleep(0.05)
        start = time.monotonic()
        while (elapsed := time.monotonic() - start) < args.duration:
            if process.poll() is not None:
                break
            if baseline is None and elapsed >= args.warmup:
                baseline = rss_mb(process.pid)
            soak.publisher.publish(soak.random_message(rng, time.time_ns()))
            sent += 1
            if sent % int(args.rate * 2) == 0:              # every ~2 s: a bad request
                q = [rng.choice([math.nan, 1e300, 0.0]) for _ in range(rng.randrange(9))]
                soak.jacobian.call_async(GetJacobian.Request(
                    positions=q, frame_type=rng.choice(['', 'com', 'mesh', 'output']),
                    frame_index=rng.randrange(-3, 30)))
                soak.fk.call_async(GetForwardKinematics.Request(
                    use_latest_joint_states=True, tag=rng.choice(['', 'nope'])))
                calls += 2
            if sent % int(args.rate * 15) == 0:             # every ~15 s: reloads
                for path in (bad_file, KIT):
                    value = ParameterValue(type=ParameterType.PARAMETER_STRING,
                                           string_value=path)
                    soak.parameters.call_async(SetParameters.Request(
                        parameters=[Parameter(name='hrdf_file', value=value)]))
                reloads += 2
            if time.monotonic() >= next_report:
                next_report += 60
                print(f'  {elapsed:6.0f} s: {sent} sent, {soak.transforms} transforms '
                      f'received, node RSS {rss_mb(process.pid):.1f} MB', flush=True)
            time.sleep(max(0.0, start + sent / args.rate - time.monotonic()))
        alive = process.poll() is None
        end_rss = rss_mb(process.pid) if alive else float('nan')
        time.sleep(1.0)
    finally:
        running.clear()
        thread.join()
        try:
            code = stop_node_process(process)
        except Exception:  # noqa: BLE001  (reported below)
            code = None
        executor.shutdown()
        soak.destroy_node()
        rclpy.try_shutdown()
    growth = end_rss - (baseline if baseline is not None else end_rss)
    checks = {
        'node alive at the end': alive,
        'clean exit on SIGTERM (code 0)': code == 0,
        f'memory growth < {MEMORY_LIMIT_MB} MB ({growth:+.2f} MB)': growth < MEMORY_LIMIT_MB,
        f'every transform finite ({soak.non_finite} of {soak.transforms} not)':
            soak.transforms > 0 and soak.non_finite == 0,
    }
    print(f'soak: {elapsed:.0f} s, {sent} joint_states sent ({sent / elapsed:.0f}/s), '
          f'{calls} bad service calls, {reloads} reloads (half invalid); node RSS '
          f'{baseline:.1f} MB after {args.warmup:.0f} s -> {end_rss:.1f} MB at the end')
    for label, ok in checks.items():
        print(f'  [{"ok" if ok else "FAIL"}] {label}')
    return 0 if all(checks.values()) else 1


if __name__ == '__main__':
    sys.exit(main())
