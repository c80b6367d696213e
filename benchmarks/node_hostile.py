#!/usr/bin/env python3
"""hrdf_ros_node against hostile input: how soon ``~/load_hrdf`` and ``~/validate_hrdf``
refuse it, and whether /tf keeps coming meanwhile.

Usage (after ``source env.sh``):
    .venv/bin/python benchmarks/node_hostile.py [--runs 5] [--bodies 20000]

One ``hrdf_ros_node`` (``python -m hrdf_ros.ros.node``, ``publish_frequency: 0``: /tf for
every joint_states message) on a link to the kit A-2085-06 in a temporary folder that
also holds the hostile files of test/test_ros_cli_file_access.py: a 50 MiB file, 10 000
levels of nesting, a 10 MiB attribute (the last two also as text). This process, an
rclpy client, calls each service with each ``--runs`` times, one call at a time, while
it publishes joint_states at 50 Hz. Reported per request, median and worst: seconds from
the call to its answer (all are refused by the bounds of doc/explanation/trust.md, and
the answer's first error says which). Then a legal but slow request, ``~/validate_hrdf``
of a robot of ``--bodies`` rigid bodies as text: its seconds, and how many of the
joint_states sent meanwhile came back as /tf (the request is read in the node's worker
thread; its executor goes on).

A benchmark, not a test: it asserts nothing (the test asserts the refusals, their
reasons and the /tf counts).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import rclpy

from hrdf_ros.ros.probe import NodeProbe, start_node_process, stop_node_process

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.normpath(os.path.join(HERE, '..', '..', 'shared', 'hrdf', 'kits',
                                    'A-2085-06.hrdf'))
NAMES = ['J1', 'J2', 'J3', 'J4', 'J5', 'J6']
DEEP = '<robot version="1.2.0">' + '<rigid-body mass="1">' * 10000 + '</robot>'
WIDE = '<robot version="1.2.0"><rigid-body mass="1" com_trans="' + '1' * (10 << 20) \
    + ' 0 0"/></robot>'


def timed(probe, srv, name, request, sent):
    """Call ``~/name`` while publishing joint_states at 50 Hz (stamps into ``sent``);
    (response, seconds). RuntimeError without an answer in 120 s."""
    client = probe.create_client(srv, f'/hrdf_ros_node/{name}')
    if not client.wait_for_service(60.0):
        raise RuntimeError(f'no ~/{name}')
    future = client.call_async(request)
    start, last = time.monotonic(), 0.0
    while not future.done():
        if time.monotonic() - last >= 0.02:
            last = time.monotonic()
            sent.append(probe.publish_positions(NAMES, np.full(6, 0.001 * len(sent))))
        probe.spin_until(future.done, 0.005)
        if time.monotonic() - start > 120:
            raise RuntimeError(f'no answer from ~/{name} in 120 s')
    elapsed = time.monotonic() - start
    probe.destroy_client(client)
    return future.result(), elapsed


def main(argv=None) -> int:
    from hrdf_ros_interfaces.srv import LoadHrdf, ValidateHrdf
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--bodies', type=int, default=20000)
    args = parser.parse_args(argv)
    print(f'load average before: {" ".join(f"{v:.1f}" for v in os.getloadavg())}')
    with tempfile.TemporaryDirectory() as folder:
        kit = os.path.join(folder, os.path.basename(KIT))
        os.symlink(KIT, kit)
        big, deep, wide = (os.path.join(folder, n) for n in ('big.hrdf', 'deep.hrdf',
                                                            'wide.hrdf'))
        with open(big, 'wb') as handle:
            handle.truncate(50 << 20)                   # 50 MiB
        for path, text in ((deep, DEEP), (wide, WIDE)):
            with open(path, 'w') as handle:
                handle.write(text)
        hostile = [
            ('load_hrdf 50 MiB file', LoadHrdf, 'load_hrdf', LoadHrdf.Request(hrdf_path=big)),
            ('load_hrdf 10 000 levels, file', LoadHrdf, 'load_hrdf',
             LoadHrdf.Request(hrdf_path=deep)),
            ('load_hrdf 10 MiB attribute, file', LoadHrdf, 'load_hrdf',
             LoadHrdf.Request(hrdf_path=wide)),
            ('load_hrdf 10 000 levels, text', LoadHrdf, 'load_hrdf',
             LoadHrdf.Request(hrdf_text=DEEP)),
            ('load_hrdf 10 MiB attribute, text', LoadHrdf, 'load_hrdf',
             LoadHrdf.Request(hrdf_text=WIDE)),
            ('validate_hrdf 50 MiB file', ValidateHrdf, 'validate_hrdf',
             ValidateHrdf.Request(hrdf_path=big)),
            ('validate_hrdf 10 000 levels, text', ValidateHrdf, 'validate_hrdf',
             ValidateHrdf.Request(hrdf_text=DEEP)),
            ('validate_hrdf 10 MiB attribute, text', ValidateHrdf, 'validate_hrdf',
             ValidateHrdf.Request(hrdf_text=WIDE))]
        rclpy.init()
        probe = NodeProbe('hostile_probe')
        process = start_node_process(kit, {'publish_frequency': 0.0},
                                     stderr=subprocess.DEVNULL)
        try:
            if not probe.wait_for_node(60.0):
                raise RuntimeError('hrdf_ros_node did not come up in 60 s')
            sent = []
            for label, srv, name, request in hostile:
                times, reason = [], ''
                for _ in range(args.runs):
                    response, seconds = timed(probe, srv, name, request, sent)
                    refused = not (response.success if srv is LoadHrdf else response.valid)
                    reason = response.errors[0].message if response.errors else '?'
                    times.append(seconds)
                    if not refused:
                        reason = 'NOT REFUSED'
                print(f'{label:<38} {statistics.median(times):.3f} / {max(times):.3f} s '
                      f'({reason})', flush=True)
            bodies = '<rigid-body mass="1" output_trans="0.001 0 0"/>' * args.bodies
            request = ValidateHrdf.Request(hrdf_text=f'<robot version="1.2.0">{bodies}</robot>')
            times, counts = [], []
            for _ in range(args.runs):
                before = len(sent)
                response, seconds = timed(probe, ValidateHrdf, 'validate_hrdf', request, sent)
                probe.spin_until(lambda: all(probe.has_tf_stamped(s) for s in sent[-3:]),
                                 30.0)
                during = sent[before:]
                counts.append((sum(probe.has_tf_stamped(s) for s in during), len(during)))
                times.append(seconds)
            print(f'validate_hrdf {args.bodies} bodies, text       '
                  f'{statistics.median(times):.3f} / {max(times):.3f} s (valid: '
                  f'{response.valid}); /tf for ' + ', '.join(f'{g} of {n}' for g, n in counts)
                  + ' joint_states sent meanwhile', flush=True)
        finally:
            stop_node_process(process)
            probe.destroy_node()
            rclpy.try_shutdown()
    print(f'(median / worst of {args.runs} runs; load average after: '
          f'{" ".join(f"{v:.1f}" for v in os.getloadavg())})')
    return 0


if __name__ == '__main__':
    sys.exit(main())
