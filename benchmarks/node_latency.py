"""hrdf_ros_node against its floor: latency, CPU and throughput next to a bare rclpy relay.

Run with ``make bench-node``. For each robot, two targets run side by side as their own
processes, each in its own namespace: ``hrdf_ros_node`` (``publish_frequency: 0``: /tf for
every joint_states message, no rate limit) and ``benchmarks/tf_relay.py`` (same QoS and executor,
same transforms, constant poses: the cost of rclpy receiving and sending, nothing else).
This process publishes stamped joint_states (reliable publishers) from one thread and
receives /tf in another, both as serialized bytes (the stamp patched in / read out of
the CDR data), so that the client costs little next to the targets.

Only one target is fed at a time, in alternating windows (node, relay, node, ...), so
that the load of a shared machine falls on both alike and their ratio stays meaningful.
Per target and rate (100 Hz and 1 kHz by default), over all its windows: latency from
each joint_states stamp (taken just before publishing) to the receipt of the /tf message
with that stamp (p50, p99), messages dropped (no /tf shortly after the window), and CPU
per message (user + system time of the target process from /proc over its windows,
divided by the messages it answered). Then the highest drop-free rate: rates are stepped
up by 10 %, each step fed to both targets in turn; a rate passes when one of three
windows drops nothing, and a target's search ends after two failed rates in a row.

Printed last: each target of the issue with pass/fail, computed from ratios of the node
to the relay measured in this same run.
"""
from __future__ import annotations

import argparse
import os
import struct
import subprocess
import sys
import threading
import time

import numpy as np
import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

from hrdf_ros import load
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.ros.qos import TF
from hrdf_ros.ros.probe import start_node_process, stop_node_process

HERE = os.path.dirname(os.path.abspath(__file__))
KITS_DIR = os.path.normpath(os.path.join(HERE, '..', '..', 'shared', 'hrdf', 'kits'))
ROBOTS = {
    'arm7': ('7-DoF arm (X-Series-Double-Shoulder-7DOF)',
             os.path.join(KITS_DIR, 'X-Series-Double-Shoulder-7DOF.hrdf')),
    'hexapod': ('18-DoF hexapod (tree)', os.path.join(HERE, 'data', 'hexapod_18dof.hrdf')),
}
TARGETS = ('node', 'relay')
#: The node's parameters for the benchmark: /tf only from joint_states.
NODE_PARAMETERS = {'publish_frequency': 0.0}
#: Rates of the drop-free search, Hz: 10 % steps from 1 kHz; windows tried per rate;
#: failed rates in a row that end a target's search.
RAMP = tuple(round(1000 * 1.1 ** k, -1) for k in range(32))
RAMP_TRIES, RAMP_MISSES = 3, 2
#: CDR offsets (4-byte encapsulation header first) of JointState.header.stamp and of
#: TFMessage.transforms[0].header.stamp (after the sequence length): int32 sec, uint32 ns.
JOINT_STATES_STAMP, TF_STAMP, STAMP = 4, 8, struct.Struct('<iI')
#: s to wait after a window for the last /tf messages.
SETTLE_S = 0.3
CLOCK_TICKS = os.sysconf('SC_CLK_TCK')
# Targets of the issue (ratios node / relay from one run).
CPU_RATIO_MAX, P99_MAX_MS, RATE_RATIO_MIN = 1.3, 5.0, 0.8


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, s (from /proc/<pid>/stat)."""
    with open(f'/proc/{pid}/stat') as handle:
        fields = handle.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


class Client(Node):
    """Publishes joint_states to each target and records when each stamp's /tf arrives."""

    def __init__(self):
        super().__init__('hrdf_latency_client')
        self.publishers_ = {t: self.create_publisher(JointState, f'/bench_{t}/joint_states', 100)
                            for t in TARGETS}
        self.received = {}
        self.create_subscription(TFMessage, '/tf', self._on_tf, TF.qos, raw=True)

    def _on_tf(self, data: bytes):
        now = time.time_ns()
        if len(data) >= TF_STAMP + 8:
            sec, nanosec = STAMP.unpack_from(data, TF_STAMP)
            self.received.setdefault(sec * 1_000_000_000 + nanosec, now)


class Bench:
    """Both targets of one robot and the client feeding them."""

    def __init__(self, path: str):
        self.processes = {
            'node': start_node_process(path, NODE_PARAMETERS, namespace='/bench_node'),
            'relay': subprocess.Popen([sys.executable, os.path.join(HERE, 'tf_relay.py'), path,
                                       '--ros-args', '-r', '__ns:=/bench_relay'],
                                      env=dict(os.environ)),
        }
        self.names = build_frame_tree(load(path)).dof_names
        self.client = Client()
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.client)
        self.spinning = threading.Event()
        self.spinning.set()
        self.spinner = threading.Thread(target=self._spin, daemon=True)
        self.spinner.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not all(
                p.get_subscription_count() for p in self.client.publishers_.values()):
            time.sleep(0.05)
        time.sleep(0.5)
        self.table = []
        for positions in np.random.default_rng(0).uniform(-np.pi, np.pi,
                                                           (1000, len(self.names))):
            msg = JointState(name=self.names, position=positions.tolist())
            self.table.append(bytearray(serialize_message(msg)))

    def _spin(self):
        while self.spinning.is_set():
            self.executor.spin_once(timeout_sec=0.05)

    def close(self):
        self.spinning.clear()
        self.spinner.join()
        for process in self.processes.values():
            stop_node_process(process)
        self.executor.shutdown()
        self.client.destroy_node()

    def window(self, target: str, rate: float, duration: float) -> dict:
        """Feed ``target`` at ``rate`` Hz for ``duration`` s; raw counts of the window."""
        sent = []
        publish = self.client.publishers_[target].publish
        pid = self.processes[target].pid
        self.client.received = {}
        cpu_start, start = cpu_seconds(pid), time.monotonic()
        period = 1.0 / rate
        k = 0
        while True:
            now = time.monotonic()
            if now - start >= duration:
                break
            wake = start + k * period
            if wake > now:
                time.sleep(wake - now)
            data = self.table[k % 1000]
            stamp_ns = time.time_ns()
            STAMP.pack_into(data, JOINT_STATES_STAMP, *divmod(stamp_ns, 1_000_000_000))
            publish(bytes(data))
            sent.append(stamp_ns)
            k += 1
        time.sleep(SETTLE_S)
        cpu = cpu_seconds(pid) - cpu_start
        received = self.client.received
        latencies = [(received[s] - s) / 1e6 for s in sent if s in received]
        return {'sent': len(sent), 'latencies': latencies, 'cpu': cpu}

    def interleaved(self, rate: float, duration: float, windows: int) -> dict:
        """Per target: totals over ``windows`` alternating windows of duration/windows s."""
        totals = {t: {'sent': 0, 'latencies': [], 'cpu': 0.0} for t in TARGETS}
        for _ in range(windows):
            for target in TARGETS:
                w = self.window(target, rate, duration / windows)
                totals[target]['sent'] += w['sent']
                totals[target]['latencies'] += w['latencies']
                totals[target]['cpu'] += w['cpu']
        return {t: summary(v) for t, v in totals.items()}

    def highest_drop_free_rates(self, step_duration: float) -> dict:
        """Per target, the highest rate of :data:`RAMP` at which one of
        :data:`RAMP_TRIES` windows drops nothing; a target leaves the search after
        :data:`RAMP_MISSES` failed rates in a row (a noise burst on a shared machine
        fails one rate, not the search)."""
        best = {t: 0.0 for t in TARGETS}
        misses = {t: 0 for t in TARGETS}
        for rate in RAMP:
            active = [t for t in TARGETS if misses[t] < RAMP_MISSES]
            if not active:
                break
            for target in active:
                if any(self._drop_free(target, rate, step_duration) for _ in range(RAMP_TRIES)):
                    best[target], misses[target] = rate, 0
                else:
                    misses[target] += 1
        return best

    def _drop_free(self, target: str, rate: float, duration: float) -> bool:
        w = self.window(target, rate, duration)
        return len(w['latencies']) == w['sent']


def summary(t: dict) -> dict:
    """p50/p99 latency (ms), drops, CPU per answered message (us) of a target's windows."""
    answered = len(t['latencies'])
    lat = np.array(t['latencies'])

    def pct(p):
        return float(np.percentile(lat, p)) if answered else float('nan')
    return {'sent': t['sent'], 'dropped': t['sent'] - answered, 'p50_ms': pct(50),
            'p99_ms': pct(99), 'cpu_us_per_msg': t['cpu'] / max(answered, 1) * 1e6}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--duration', type=float, default=10.0,
                        help='s per target and fixed rate, split into windows')
    parser.add_argument('--windows', type=int, default=10,
                        help='alternating windows per target and fixed rate')
    parser.add_argument('--rates', nargs='+', type=float, default=[100.0, 1000.0])
    parser.add_argument('--step-duration', type=float, default=1.5,
                        help='s per target and step of the drop-free rate search')
    parser.add_argument('--robots', nargs='+', default=list(ROBOTS), choices=list(ROBOTS))
    parser.add_argument('--no-ramp', action='store_true', help='skip the rate search')
    args = parser.parse_args(argv)
    rclpy.init()
    results = {}
    try:
        print(f'{"robot":<44}{"target":>8}{"rate":>7}{"sent":>7}{"dropped":>8}'
              f'{"p50 ms":>8}{"p99 ms":>8}{"CPU us/msg":>11}', flush=True)
        for key in args.robots:
            label, path = ROBOTS[key]
            bench = Bench(path)
            try:
                for rate in args.rates:
                    for target, r in bench.interleaved(rate, args.duration,
                                                       args.windows).items():
                        results[(key, target, rate)] = r
                        print(f'{label:<44}{target:>8}{rate:>7.0f}{r["sent"]:>7}'
                              f'{r["dropped"]:>8}{r["p50_ms"]:>8.2f}{r["p99_ms"]:>8.2f}'
                              f'{r["cpu_us_per_msg"]:>11.0f}', flush=True)
                if not args.no_ramp:
                    for target, best in bench.highest_drop_free_rates(
                            args.step_duration).items():
                        results[(key, target, 'max')] = best
                        print(f'{label:<44}{target:>8}  highest drop-free rate: '
                              f'{best:.0f} Hz', flush=True)
            finally:
                bench.close()
    finally:
        rclpy.try_shutdown()
    report(results, args)
    return 0


def report(results: dict, args) -> None:
    """Ratios node / relay per robot and rate, and the issue's targets with pass/fail."""
    print('\nnode / relay (same run):')
    for key in args.robots:
        for rate in args.rates:
            node, relay = results[(key, 'node', rate)], results[(key, 'relay', rate)]
            print(f'  {ROBOTS[key][0]:<44}{rate:>7.0f} Hz  CPU per message '
                  f'{node["cpu_us_per_msg"]:.0f} / {relay["cpu_us_per_msg"]:.0f} us = '
                  f'{node["cpu_us_per_msg"] / relay["cpu_us_per_msg"]:.2f}x')
        if not args.no_ramp:
            n, r = results[(key, 'node', 'max')], results[(key, 'relay', 'max')]
            print(f'  {ROBOTS[key][0]:<44}highest drop-free rate {n:.0f} / {r:.0f} Hz = '
                  f'{n / r if r else float("nan"):.2f}x')
    print('\nTargets:')
    checks = []
    for key in ('arm7', 'hexapod'):
        if key in args.robots and 1000.0 in args.rates:
            node, relay = results[(key, 'node', 1000.0)], results[(key, 'relay', 1000.0)]
            ratio = node['cpu_us_per_msg'] / relay['cpu_us_per_msg']
            checks.append((f'{key} 1 kHz: node CPU per message <= {CPU_RATIO_MAX}x relay',
                           f'{ratio:.2f}x', ratio <= CPU_RATIO_MAX))
    if 'hexapod' in args.robots and 1000.0 in args.rates:
        node, relay = results[('hexapod', 'node', 1000.0)], results[('hexapod', 'relay', 1000.0)]
        checks.append((f'hexapod 1 kHz: p99 < {P99_MAX_MS:.0f} ms, 0 drops',
                       f'p99 {node["p99_ms"]:.2f} ms, {node["dropped"]} dropped (relay: p99 '
                       f'{relay["p99_ms"]:.2f} ms, {relay["dropped"]} dropped)',
                       node['p99_ms'] < P99_MAX_MS and node['dropped'] == 0))
    if not args.no_ramp:
        for key in args.robots:
            n, r = results[(key, 'node', 'max')], results[(key, 'relay', 'max')]
            ratio = n / r if r else float('nan')
            checks.append((f'{key}: highest drop-free rate >= {RATE_RATIO_MIN}x relay',
                           f'{ratio:.2f}x ({n:.0f} / {r:.0f} Hz)', ratio >= RATE_RATIO_MIN))
    for name, value, ok in checks:
        print(f'  {"PASS" if ok else "FAIL"}  {name:<52} {value}')


if __name__ == '__main__':
    sys.exit(main())
