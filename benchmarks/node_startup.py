"""hrdf_ros_node start-up: wall time from starting the process to robot_description.

Run with ``python benchmarks/node_startup.py`` (after ``source env.sh``). For each robot,
this process (an rclpy node already spinning, subscribed to ``robot_description`` with
its latched QoS) starts ``hrdf_ros_node`` as a process (``python -m hrdf_ros.ros.node``,
as the tests do), waits for the description and stops the node; ``--runs`` times per
robot, printed as median (min-max). Two clocks: until the node logs that it published
the description (its ``robot "..." from ...`` line, written right after publishing: the
node's own start-up) and until this process received it (adds DDS discovery, which on a
busy machine is bimodal: about 0.5 s or 2.5 s). Also printed: the in-process cost of
building what the node publishes (``loaded_robot.load_robot``: read the HRDF, frame tree,
URDF with its geometry), median of 20, the part of start-up that depends on hrdf_ros
rather than on Python and rclpy start-up.

``--param name:=value`` passes node parameters (e.g. ``meshes:=primitives`` or
``mesh_dir:=DIR``) to every start.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import threading
import time

import rclpy

from hrdf_ros.ros.loaded_robot import RobotOptions, load_robot
from hrdf_ros.ros.probe import NodeProbe, start_node_process, stop_node_process

HERE = os.path.dirname(os.path.abspath(__file__))
KITS_DIR = os.path.normpath(os.path.join(HERE, '..', '..', 'shared', 'hrdf', 'kits'))
ROBOTS = {
    'A-2085-06': os.path.join(KITS_DIR, 'A-2085-06.hrdf'),
    'A-2085-06G': os.path.join(KITS_DIR, 'A-2085-06G.hrdf'),
    'hexapod-18': os.path.join(HERE, 'data', 'hexapod_18dof.hrdf'),
}


def start_to_description(probe: NodeProbe, path: str, parameters: dict):
    """(s until the node logged its published description, s until it was received)."""
    probe.robot_description = None
    logged = []

    def read(stream, start):
        for line in stream:
            if not logged and ': robot "' in line:
                logged.append(time.monotonic() - start)

    start = time.monotonic()
    process = start_node_process(path, parameters, stderr=subprocess.PIPE)
    reader = threading.Thread(target=read, args=(
        (line.decode(errors='replace') for line in process.stderr), start), daemon=True)
    reader.start()
    try:
        if not probe.spin_until(lambda: probe.robot_description is not None and logged,
                                60.0):
            raise RuntimeError(f'no robot_description within 60 s for {path}')
        received = time.monotonic() - start
    finally:
        stop_node_process(process)
        reader.join(5.0)
    return logged[0], received


def build_seconds(path: str, options: RobotOptions, runs: int = 20) -> float:
    """Median seconds of load_robot (HRDF -> model -> URDF) in this process."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        load_robot(options, path=path)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=7)
    parser.add_argument('--param', action='append', default=[], metavar='NAME:=VALUE')
    parser.add_argument('robots', nargs='*', default=list(ROBOTS))
    args = parser.parse_args()
    parameters = dict(p.split(':=', 1) for p in args.param)
    option_names = {f for f in RobotOptions.__dataclass_fields__}
    options = RobotOptions(**{k: v for k, v in parameters.items() if k in option_names})
    rclpy.init()
    probe = NodeProbe('startup_probe')
    try:
        for name in args.robots:
            path = ROBOTS.get(name, name)
            runs = [start_to_description(probe, path, parameters) for _ in range(args.runs)]
            published, received = ([r[k] for r in runs] for k in (0, 1))
            print(f'{name}: start -> published (node log) {statistics.median(published):.3f} s'
                  f' (min {min(published):.3f}, max {max(published):.3f}); -> received '
                  f'{statistics.median(received):.3f} s (min {min(received):.3f}, max '
                  f'{max(received):.3f}); {len(runs)} runs; load_robot in process '
                  f'{build_seconds(path, options) * 1e3:.1f} ms (median of 20)', flush=True)
    finally:
        probe.destroy_node()
        rclpy.try_shutdown()


if __name__ == '__main__':
    main()
