"""Demo: the bundled 6-DoF arm's HRDF becomes robot_description and live TF.

Run ``python -m hrdf_ros.demo [HRDF]`` (``make demo``). It starts ``hrdf_ros_node`` as
its own process, publishes a sweep of ``joint_states`` from a second rclpy node, chains
the received ``/tf`` + ``/tf_static`` from ``base_link`` to ``end_effector``, prints that
pose next to hrdf_ros's own forward kinematics, stops the node with SIGTERM, and says how
to see the robot in a browser (``hrdf view``). Exit code 0 when every step agreed
(1e-9 m) and the node exited cleanly.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from .description.frame_tree import build_frame_tree
from .kinematics import Kinematics
from .hrdf.reader import load

BUNDLED_HRDF = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            'config', 'x_series_arm_6dof.hrdf')


def bundled_hrdf() -> str:
    """Path of the example arm: the source tree's config/ or the installed share/."""
    if os.path.exists(BUNDLED_HRDF):
        return BUNDLED_HRDF
    from ament_index_python.packages import get_package_share_directory
    return os.path.join(get_package_share_directory('hrdf_ros'), 'config',
                        'x_series_arm_6dof.hrdf')


def main(argv=None) -> int:
    """Run the demo; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('hrdf', nargs='?', default=None, help='HRDF file (default: bundled arm)')
    parser.add_argument('--steps', type=int, default=12, help='joint_states to publish')
    args = parser.parse_args(argv)
    path = args.hrdf or bundled_hrdf()

    import rclpy
    from .ros.probe import NodeProbe, start_node_process, stop_node_process

    model = load(path)
    tree = build_frame_tree(model)
    kinematics = Kinematics(model, 'numpy')     # as the node computes by default
    print(f'HRDF {path}: {model.dof_count} DoF, joints {tree.dof_names}')
    process = start_node_process(path, {'publish_frequency': 0.0})
    rclpy.init()
    probe = NodeProbe('hrdf_ros_demo')
    ok = True
    try:
        ready = probe.wait_for_node(30.0) and probe.spin_until(
            lambda: 'end_effector' in probe.buffer, 30.0)
        if not ready:
            print('error: no robot_description / tf_static from hrdf_ros_node within 30 s')
            return 1
        print(f'robot_description: {len(probe.robot_description)} bytes of URDF, '
              f'{probe.robot_description.count("<link ")} links')
        print(f'{"step":>4}  {"end_effector in base_link from TF (x y z, m)":>46}  '
              f'{"|TF - FK| (m)":>13}')
        for step in range(args.steps):
            phase = 2 * np.pi * step / args.steps
            q = 0.6 * np.sin(phase + np.arange(model.dof_count))
            # wait for the previous stamp's TF before publishing a new sweep point
            probe.spin_until(lambda: False, 0.05)
            stamp = probe.publish_positions(tree.dof_names, q)
            if not probe.spin_until(lambda: probe.has_tf_stamped(stamp), 10.0):
                print(f'{step:>4}  no /tf received for this joint_states')
                ok = False
                continue
            from_tf = probe.lookup('base_link', 'end_effector')
            from_fk = kinematics.end_effector(q)
            error = float(np.max(np.abs(from_tf - from_fk)))
            ok &= error < 1e-9
            x, y, z = from_tf[:3, 3]
            print(f'{step:>4}  {x:>14.6f} {y:>14.6f} {z:>14.6f}  {error:>13.2e}')
    finally:
        probe.destroy_node()
        rclpy.try_shutdown()
        code = stop_node_process(process)
        print(f'hrdf_ros_node stopped by SIGTERM, exit code {code}')
        ok &= code == 0
    print('demo OK' if ok else 'demo FAILED')
    hrdf = os.path.join(os.path.dirname(sys.executable), 'hrdf')
    print(f'\nSee the robot in your browser (sliders, live reload; no ROS needed):\n'
          f'  {os.path.relpath(hrdf) if hrdf.startswith(os.getcwd()) else hrdf} view '
          f'{os.path.relpath(path) if path.startswith(os.getcwd()) else path}\n'
          '  then open the URL it prints (http://127.0.0.1:8080/); Ctrl-C stops it.\n'
          'With ROS 2: ros2 launch hrdf_ros view.launch.py web:=true (after source env.sh)')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
