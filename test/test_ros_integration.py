"""hrdf_ros_node over real ROS 2 (rclpy, Fast DDS on loopback), as separate processes.

The node runs as its own process; a probe node in this process publishes JointState and
receives robot_description, /tf and /tf_static. The end-effector pose chained from TF
is compared with hebi-py. These tests need rclpy and tf2_msgs (``make env`` builds them);
they are never skipped.
"""
import os
import signal
import subprocess
import sys

import numpy as np
import pytest
import rclpy
from urdf_parser_py.urdf import URDF

from hrdf_ros import load
from hrdf_ros.frames import build_frame_tree
from hrdf_ros.ros.probe import NodeProbe, start_node_process, stop_node_process

from conftest import BUNDLED_ARM, KITS_DIR

ARM_KIT = os.path.join(KITS_DIR, 'A-2085-06.hrdf')
SEVEN_DOF_KIT = os.path.join(KITS_DIR, 'X-Series-Double-Shoulder-7DOF.hrdf')


@pytest.fixture(scope='module')
def ros():
    rclpy.init()
    yield
    rclpy.try_shutdown()


@pytest.fixture
def probe(ros, request):
    node = NodeProbe(f'probe_{abs(hash(request.node.name)) % 10**8}')
    yield node
    node.destroy_node()


def run_node(hrdf_file, **parameters):
    return start_node_process(hrdf_file, parameters, stderr=subprocess.PIPE)


@pytest.mark.parametrize('path', [ARM_KIT, SEVEN_DOF_KIT])
def test_tf_from_joint_states_matches_hebi(path, probe, hebi_import):
    import_from_hrdf, _ = hebi_import
    hebi = import_from_hrdf(path)
    model = load(path)
    names = build_frame_tree(model).dof_names
    process = run_node(path, publish_frequency=0.0)
    try:
        assert probe.spin_until(lambda: probe.robot_description is not None
                                and 'end_effector' in probe.buffer, 30.0), \
            'no robot_description / tf_static'
        urdf = URDF.from_xml_string(probe.robot_description)
        assert [j.name for j in urdf.joints if j.type != 'fixed'] == names
        assert probe.tf_static_messages, 'nothing on /tf_static'
        static_children = {t.child_frame_id for m in probe.tf_static_messages
                           for t in m.transforms}
        assert 'end_effector' in static_children
        rng = np.random.default_rng(2)
        for q in rng.uniform(-np.pi, np.pi, (10, model.dof_count)):
            stamp = probe.publish_positions(names, q)
            assert probe.spin_until(lambda: probe.has_tf_stamped(stamp), 10.0), 'no /tf'
            moving = [t for m in probe.tf_messages for t in m.transforms
                      if t.header.stamp == stamp]
            assert len(moving) == model.dof_count
            pose = probe.lookup('base_link', 'end_effector')
            np.testing.assert_allclose(pose, hebi.get_end_effector(q), atol=1e-9, rtol=0)
    finally:
        code = stop_node_process(process)
    assert code == 0


def test_frame_prefix_and_sigint(probe):
    process = run_node(BUNDLED_ARM, frame_prefix='left/', publish_frequency=50.0)
    try:
        assert probe.spin_until(lambda: 'left/end_effector' in probe.buffer, 30.0)
        model = load(BUNDLED_ARM)
        names = build_frame_tree(model).dof_names
        q = np.full(model.dof_count, 0.25)
        probe.publish_positions(names, q)
        # the timer re-publishes the latest positions at 50 Hz with fresh stamps
        count = len(probe.tf_messages)
        assert probe.spin_until(lambda: len(probe.tf_messages) >= count + 5, 10.0)
        frames = {t.child_frame_id for t in probe.tf_messages[-1].transforms}
        assert frames == {f'left/{c}' for c in ('bracket1', 'link1', 'link2', 'bracket2',
                                                 'bracket3', 'end_effector_mount1')}
        assert 'left/base_link' in {t.header.frame_id for m in probe.tf_static_messages
                                    for t in m.transforms}
    finally:
        code = stop_node_process(process, signal.SIGINT)
    assert code == 0


def test_bad_joint_states_do_not_crash_or_publish(probe):
    process = run_node(BUNDLED_ARM, publish_frequency=0.0)
    try:
        assert probe.spin_until(lambda: probe.robot_description is not None, 30.0)
        names = build_frame_tree(load(BUNDLED_ARM)).dof_names
        before = len(probe.tf_messages)
        probe.publish_positions(names, [0.0, float('nan'), 0, 0, 0, 0])
        probe.publish_positions(['nobody'], [1.0])
        probe.spin_until(lambda: False, 1.0)
        assert len(probe.tf_messages) == before
        stamp = probe.publish_positions(names[:2], [0.5, 0.5])  # partial: others stay
        assert probe.spin_until(lambda: probe.has_tf_stamped(stamp), 10.0)
        assert process.poll() is None
    finally:
        assert stop_node_process(process) == 0


@pytest.mark.parametrize('contents,expected', [
    ('<robot version="1.2.0">\n  <actuator type="X5-77"/>\n</robot>\n',
     ':2:3: error: <actuator> attribute "type": unknown value "X5-77"'),
    ('<robot version="1.2.0"><actuator', 'malformed XML'),
])
def test_invalid_hrdf_exits_nonzero_with_located_error(tmp_path, contents, expected):
    path = tmp_path / 'broken.hrdf'
    path.write_text(contents)
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.ros.node', '--ros-args', '-p',
                             f'hrdf_file:={path}'], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert expected in result.stderr
    assert 'Traceback' not in result.stderr


def test_missing_parameter_exits_nonzero():
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.ros.node'], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 1
    assert 'hrdf_file' in result.stderr and 'Traceback' not in result.stderr
