"""Servo node benchmark: through hrdf_ros_node (``servo.enabled``), the latency from a
twist message (geometry_msgs/TwistStamped on ``~/delta_twist_cmds``) to the first
controller command it causes (std_msgs/Float64MultiArray on
``/forward_position_controller/commands``), and the spacing of the commands while a twist
is held (the 1 ms ``servo.publish_period``: how well the node's servo thread keeps it).

The arm is this process: it mirrors every command into joint_states, as ros2_control's
mock hardware does, at 100 Hz. Each latency sample starts with the arm at rest and no
command for 0.3 s (the servo sends nothing then), publishes one twist and times the
first command received (both clocks are this process's). Then a twist is held for
``--hold`` s at 50 Hz and the gaps between commands are counted.

    python benchmarks/servo_node_benchmark.py [--kit A-2099-07] [--samples 100]

Target: latency p99 within a few periods (the servo waits at most one period for its
next step, then steps and publishes), command gaps p99 near 1 ms.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
KITS = os.path.normpath(os.path.join(HERE, '..', '..', 'shared', 'hrdf', 'kits'))
#: the 7-DoF kit's home-like state (free of collision, well conditioned)
START = [0.1, -0.9, -0.2, -1.2, 0.6, 0.8, -0.9]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--kit', default='A-2099-07')
    parser.add_argument('--samples', type=int, default=100)
    parser.add_argument('--hold', type=float, default=5.0, help='s of a held twist')
    args = parser.parse_args()
    import rclpy
    from geometry_msgs.msg import TwistStamped
    from rclpy.executors import SingleThreadedExecutor
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray
    from hrdf_ros import load
    from hrdf_ros.ros.probe import start_node_process, stop_node_process

    path = os.path.join(KITS, f'{args.kit}.hrdf')
    dof = load(path).dof_count
    names = [f'J{k + 1}' for k in range(dof)]
    state = {'q': list(START[:dof]) + [0.0] * max(0, dof - len(START)), 'times': []}
    lock = threading.Lock()
    node_process = start_node_process(path, {'servo.enabled': 'true',
                                             'publish_frequency': 0.0},
                                      stderr=open(os.devnull, 'w'))
    rclpy.init()
    node = rclpy.create_node('servo_node_benchmark')

    def on_command(message):
        now = time.perf_counter()
        with lock:
            state['q'] = list(message.data)
            state['times'].append(now)
    node.create_subscription(Float64MultiArray, '/forward_position_controller/commands',
                             on_command, 100)
    joint_states = node.create_publisher(JointState, 'joint_states', 10)
    twists = node.create_publisher(TwistStamped, '/hrdf_ros_node/delta_twist_cmds', 10)

    def publish_state():
        with lock:
            q = list(state['q'])
        message = JointState(name=names, position=q)
        message.header.stamp = node.get_clock().now().to_msg()
        joint_states.publish(message)
    node.create_timer(0.01, publish_state)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    spinning = threading.Thread(target=executor.spin, daemon=True)
    spinning.start()

    def twist(sign):
        message = TwistStamped()
        message.header.frame_id = 'base_link'
        message.twist.linear.z = 0.02 * sign
        return message

    def quiet(seconds):
        """Wait until no command came for ``seconds``."""
        while True:
            with lock:
                last = state['times'][-1] if state['times'] else 0.0
            if time.perf_counter() - last >= seconds:
                return
            time.sleep(0.05)

    try:
        # the servo is ready once a twist gets an answer (its planning scene is built)
        deadline = time.monotonic() + 120
        while not state['times']:
            if time.monotonic() > deadline:
                print('FAIL: no command from the servo in 120 s')
                return 1
            twists.publish(twist(1))
            time.sleep(0.2)
        latencies = []
        for k in range(args.samples):
            quiet(0.3)
            with lock:
                seen = len(state['times'])
            sent = time.perf_counter()
            twists.publish(twist(1 if k % 2 else -1))     # up and down in turn
            while True:
                with lock:
                    if len(state['times']) > seen:
                        latencies.append(state['times'][seen] - sent)
                        break
                if time.perf_counter() - sent > 1.0:
                    latencies.append(np.inf)
                    break
                time.sleep(0.0002)
        quiet(0.3)
        with lock:
            first = len(state['times'])
        began = time.perf_counter()
        k = 0
        while time.perf_counter() - began < args.hold:
            twists.publish(twist(1 if (k // 50) % 2 else -1))
            k += 1
            time.sleep(0.02)
        with lock:
            times = np.array(state['times'][first:])
        gaps = np.diff(times[(times > began + 0.2) & (times < began + args.hold)])
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
        stop_node_process(node_process)
    latencies = np.array(latencies) * 1e3
    lost = int(np.sum(~np.isfinite(latencies)))
    found = latencies[np.isfinite(latencies)]
    print(f'{args.kit} ({dof} DoF), through hrdf_ros_node\'s servo, 1 ms publish_period')
    print(f'twist -> first controller command: {len(found)} of {args.samples} answered'
          + (f' ({lost} not within 1 s)' if lost else '')
          + f'; p50 {np.percentile(found, 50):.2f} ms, p99 {np.percentile(found, 99):.2f} ms, '
          f'max {found.max():.2f} ms')
    print(f'held twist: {len(gaps) + 1} commands in {args.hold - 0.2:.1f} s '
          f'({(len(gaps) + 1) / (args.hold - 0.2):.0f} per s); gaps p50 '
          f'{np.percentile(gaps, 50) * 1e3:.3f} ms, p99 {np.percentile(gaps, 99) * 1e3:.3f} ms, '
          f'max {gaps.max() * 1e3:.2f} ms')
    return 0 if not lost else 1


if __name__ == '__main__':
    sys.exit(main())
