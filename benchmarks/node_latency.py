"""Latency and throughput of hrdf_ros_node: joint_states publish -> /tf receipt.

Run with ``make bench-node``. For each robot and publishing rate (100 Hz, 1 kHz and as
fast as possible), the node runs as its own process (``publish_frequency: 0``: /tf for
every joint_states message, no rate limit); this process publishes stamped joint_states from one
thread and receives /tf in another. For every joint_states message, latency is the time
from its stamp (taken just before publishing) to the receipt of the /tf message with
the same stamp, on the same clock. Reported: median, p99 and max latency, messages
published and dropped (no /tf 1 s after the run), and the node's CPU use (user + system
time from /proc over the run, as a fraction of one core).
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time

import numpy as np
import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

from hrdf_ros import load
from hrdf_ros.export.frame_tree import build_frame_tree
from hrdf_ros.ros.node import TF_QOS
from hrdf_ros.ros.probe import start_node_process, stop_node_process

HERE = os.path.dirname(os.path.abspath(__file__))
KITS_DIR = os.path.normpath(os.path.join(HERE, '..', '..', 'shared', 'hrdf', 'kits'))
ROBOTS = {
    '7-DoF arm (X-Series-Double-Shoulder-7DOF)':
        os.path.join(KITS_DIR, 'X-Series-Double-Shoulder-7DOF.hrdf'),
    '18-DoF hexapod (tree)': os.path.join(HERE, 'data', 'hexapod_18dof.hrdf'),
}
ROBOT_KEYS = dict(zip(('arm7', 'hexapod'), ROBOTS))
CLOCK_TICKS = os.sysconf('SC_CLK_TCK')


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, s (from /proc/<pid>/stat)."""
    with open(f'/proc/{pid}/stat') as handle:
        fields = handle.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


class Client(Node):
    """Publishes joint_states and records when each stamp's /tf arrives."""

    def __init__(self):
        super().__init__('hrdf_latency_client')
        self.publisher = self.create_publisher(JointState, 'joint_states', 100)
        self.received = {}
        self.create_subscription(TFMessage, '/tf', self._on_tf, TF_QOS)

    def _on_tf(self, msg: TFMessage):
        now = time.time_ns()
        if msg.transforms:
            s = msg.transforms[0].header.stamp
            self.received.setdefault(s.sec * 1_000_000_000 + s.nanosec, now)


def run_case(path: str, rate: float, duration: float) -> dict:
    model = load(path)
    names = build_frame_tree(model).dof_names
    process = start_node_process(path, {'publish_frequency': 0.0})
    client = Client()
    executor = SingleThreadedExecutor()
    executor.add_node(client)
    spinning = threading.Event()
    spinning.set()

    def spin():
        while spinning.is_set():
            executor.spin_once(timeout_sec=0.05)

    spinner = threading.Thread(target=spin, daemon=True)
    spinner.start()
    try:
        deadline = time.monotonic() + 30
        while client.publisher.get_subscription_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        rng = np.random.default_rng(0)
        table = rng.uniform(-np.pi, np.pi, (1000, len(names))).tolist()
        msg = JointState()
        msg.name = names
        sent = []
        cpu_start, start = cpu_seconds(process.pid), time.monotonic()
        period = 1.0 / rate if rate else 0.0
        k = 0
        while True:
            now = time.monotonic()
            if now - start >= duration:
                break
            if period:
                target = start + k * period
                if target > now:
                    time.sleep(target - now)
            stamp_ns = time.time_ns()
            msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
            msg.position = table[k % 1000]
            client.publisher.publish(msg)
            sent.append(stamp_ns)
            k += 1
        elapsed = time.monotonic() - start
        cpu = cpu_seconds(process.pid) - cpu_start
        time.sleep(1.0)
    finally:
        spinning.clear()
        spinner.join()
        stop_node_process(process)
        executor.shutdown()
        client.destroy_node()
    latencies = np.array([client.received[s] - s for s in sent if s in client.received]) / 1e6
    return {
        'sent': len(sent), 'rate': len(sent) / elapsed,
        'dropped': sum(1 for s in sent if s not in client.received),
        'median_ms': float(np.median(latencies)) if len(latencies) else float('nan'),
        'p99_ms': float(np.percentile(latencies, 99)) if len(latencies) else float('nan'),
        'max_ms': float(latencies.max()) if len(latencies) else float('nan'),
        'cpu': cpu / elapsed,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--duration', type=float, default=5.0, help='s per case')
    parser.add_argument('--rates', nargs='+', default=['100', '1000', 'max'])
    parser.add_argument('--robots', nargs='+', default=list(ROBOT_KEYS),
                        choices=list(ROBOT_KEYS), help='which robots')
    args = parser.parse_args(argv)
    rclpy.init()
    try:
        print(f'{"robot":<44}{"rate":>8}{"sent":>8}{"Hz":>8}{"dropped":>8}'
              f'{"median ms":>11}{"p99 ms":>9}{"max ms":>9}{"node CPU":>10}')
        for key in args.robots:
            label, path = ROBOT_KEYS[key], ROBOTS[ROBOT_KEYS[key]]
            for rate in args.rates:
                r = run_case(path, 0.0 if rate == 'max' else float(rate), args.duration)
                print(f'{label:<44}{rate:>8}{r["sent"]:>8}{r["rate"]:>8.0f}{r["dropped"]:>8}'
                      f'{r["median_ms"]:>11.3f}{r["p99_ms"]:>9.3f}{r["max_ms"]:>9.3f}'
                      f'{r["cpu"] * 100:>9.0f}%', flush=True)
    finally:
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
