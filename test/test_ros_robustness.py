"""hrdf_ros_node over real DDS: joint_states hygiene, reloads, two robots side by side.

Each bad input is followed by a good marker message on the same topic (same publisher,
delivered in order); once the marker's /tf arrives, the node has handled the
bad message, and its joint positions (read back with the Jacobian service) show whether
it was applied. No /tf may ever carry a bad message's stamp.
"""
import os
import signal
import time

import numpy as np
from builtin_interfaces.msg import Time
from urdf_parser_py.urdf import URDF

from hrdf_ros import Kinematics, load
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.ros.probe import NodeProbe

from conftest import BUNDLED_ARM, HEXAPOD, HEXAPOD_DIR, KITS_DIR
from ros_helpers import (assert_tf_matches_hebi, node_positions, robot_from_text, run_node,
                         stop)

SEVEN_DOF_KIT = os.path.join(KITS_DIR, 'X-Series-Double-Shoulder-7DOF.hrdf')
NAMES = build_frame_tree(load(BUNDLED_ARM)).dof_names


def stamp_at(seconds):
    return Time(sec=int(seconds), nanosec=int(round((seconds % 1) * 1e9)))


class Feed:
    """Publishes joint_states with increasing stamps and waits for the node's /tf."""

    def __init__(self, probe, start=1000.0):
        self.probe, self.t = probe, start

    def next_stamp(self):
        self.t += 0.01
        return stamp_at(self.t)

    def good(self, names, positions, stamp=None):
        stamp = self.next_stamp() if stamp is None else stamp
        self.probe.publish_positions(names, positions, stamp)
        assert self.probe.spin_until(lambda: self.probe.has_tf_stamped(stamp), 10.0), \
            f'no /tf for {names}={positions}'
        return stamp

    def first(self, names, positions):
        """The first message: sent again (new stamps) until its /tf comes back."""
        stamps = iter(self.next_stamp, None)
        stamp = self.probe.publish_until_tf(names, positions, stamps)
        assert stamp is not None, f'no /tf for {names}={positions}'
        return stamp

    def bad(self, names, positions, stamp=None):
        """Publish a message that must be rejected, then a marker that must not be."""
        stamp = self.next_stamp() if stamp is None else stamp
        before = node_positions(self.probe)
        self.probe.publish_positions(names, positions, stamp)
        self.good(['no_such_joint', NAMES[0]], [0.0, before[0]])  # J1 unchanged
        assert not self.probe.has_tf_stamped(stamp), f'/tf published for {names}'
        np.testing.assert_array_equal(node_positions(self.probe), before)


def test_bad_joint_states_are_dropped_and_nothing_wrong_is_published(probe):
    process = run_node(BUNDLED_ARM, publish_frequency=0.0)
    try:
        assert probe.wait_for_node()
        feed = Feed(probe)
        q = np.linspace(0.1, 0.6, 6)
        feed.first(NAMES, q)
        np.testing.assert_array_equal(node_positions(probe), q)
        feed.bad(NAMES, [0.0, float('nan'), 0, 0, 0, 0])            # NaN
        feed.bad(NAMES[:2], [float('inf'), 1.0])                     # inf
        feed.bad(NAMES, [1.0, 2.0])                                  # lengths differ
        feed.bad([], [])                                             # empty
        feed.bad([NAMES[0], NAMES[0]], [1.0, 2.0])                   # duplicate joint
        feed.bad(['nobody', 'else'], [1.0, 2.0])                     # other robot's joints
        feed.bad(NAMES, np.zeros(6), stamp=stamp_at(500.0))           # out of order
        # unknown names next to known ones: the known ones apply
        feed.good(['gripper', NAMES[1], 'other'], [9.0, -0.25, 3.0])
        expected = q.copy()
        expected[1] = -0.25
        np.testing.assert_array_equal(node_positions(probe), expected)
        # every /tf the node sent is finite and matches FK of the accepted positions
        last = [t for m in probe.tf_messages for t in m.transforms]
        assert all(np.isfinite([t.transform.translation.x, t.transform.rotation.w])
                   .all() for t in last)
        assert probe.spin_until(lambda: 'end_effector' in probe.buffer, 30.0), 'no /tf_static'
        pose = probe.lookup('base_link', 'end_effector')
        np.testing.assert_allclose(pose, Kinematics(load(BUNDLED_ARM)).end_effector(expected),
                                   atol=1e-9, rtol=0)
        assert process.poll() is None
    finally:
        err = stop(process)
    assert 'joint_states dropped' in err
    assert 'ignoring joints this robot does not have: "no_such_joint"' in err
    assert err.count('"no_such_joint"') == 1, 'unknown names are reported once'


def test_missing_joints_zero_and_ignore_timestamp(probe):
    process = run_node(BUNDLED_ARM, publish_frequency=0.0, missing_joints='zero',
                       ignore_timestamp=True)
    try:
        assert probe.wait_for_node()
        feed = Feed(probe)
        feed.first(NAMES, np.full(6, 0.5))
        feed.good(NAMES[2:3], [1.5])                                 # the others -> 0
        np.testing.assert_array_equal(node_positions(probe), [0, 0, 1.5, 0, 0, 0])
        feed.good(NAMES[:1], [0.7], stamp=stamp_at(10.0))            # older stamp accepted
        np.testing.assert_array_equal(node_positions(probe), [0.7, 0, 0, 0, 0, 0])
    finally:
        stop(process)


def set_parameter(probe, name, value):
    """Set one parameter of /hrdf_ros_node; returns the SetParametersResult."""
    from rcl_interfaces.srv import SetParameters
    from rclpy.parameter import Parameter
    response = probe.call(SetParameters, '/hrdf_ros_node/set_parameters',
                          SetParameters.Request(parameters=[
                              Parameter(name, value=value).to_parameter_msg()]))
    assert response is not None
    return response.results[0]


def set_hrdf_file(probe, path):
    return set_parameter(probe, 'hrdf_file', str(path))


def stamp_ns(ns):
    return Time(sec=ns // 10**9, nanosec=ns % 10**9)


def test_publish_frequency_and_ignore_timestamp_as_robot_state_publisher(probe):
    """publish_frequency limits /tf in joint_states stamp time (20 Hz: a stamp >= 50 ms
    after the last published one); every accepted message still updates the joint state.
    ignore_timestamp (set at run time) publishes every message, older stamps too."""
    process = run_node(BUNDLED_ARM, publish_frequency=20.0)
    base = 2000 * 10**9
    sent = {}

    def send(ms):
        """Publish J1 = ms / 1000 at stamp base + ms; wait until the node holds it."""
        stamp = sent[ms] = stamp_ns(base + int(ms * 10**6))
        probe.publish_positions(NAMES[:1], [ms / 1000], stamp)
        assert probe.spin_until(lambda: node_positions(probe)[0] == ms / 1000, 10.0)
        return stamp

    def published():
        probe.spin_until(lambda: False, 0.3)  # nothing late
        return sorted(ms for ms, stamp in sent.items() if probe.has_tf_stamped(stamp))

    try:
        assert probe.wait_for_node()
        for ms in range(0, 130, 10):
            send(ms)
        send(149)                                   # 49 ms after 100: not yet
        assert probe.spin_until(lambda: probe.has_tf_stamped(send(150)), 10.0)
        assert published() == [0, 50, 100, 150]
        assert probe.spin_until(lambda: 'end_effector' in probe.buffer, 30.0), 'no /tf_static'
        pose = probe.lookup('base_link', 'end_effector')
        np.testing.assert_allclose(pose, Kinematics(load(BUNDLED_ARM)).end_effector(
            [0.15, 0, 0, 0, 0, 0]), atol=1e-9, rtol=0)

        # out of range or of the wrong type: rejected, as by robot_state_publisher
        assert not set_parameter(probe, 'publish_frequency', 1000.5).successful
        assert not set_parameter(probe, 'publish_frequency', 10).successful
        assert set_parameter(probe, 'ignore_timestamp', True).successful
        for ms in (160, 161, 30):                   # every one, the older stamp too
            assert probe.spin_until(lambda: probe.has_tf_stamped(send(ms)), 10.0)
        assert published() == [0, 30, 50, 100, 150, 160, 161]

        # ignore_timestamp off again, 1000 Hz: stamps 1 ms apart
        assert set_parameter(probe, 'ignore_timestamp', False).successful
        assert set_parameter(probe, 'publish_frequency', 1000.0).successful
        for ms in (200, 201, 201.5):
            send(ms)
        assert probe.spin_until(lambda: probe.has_tf_stamped(send(202)), 10.0)
        assert published() == [0, 30, 50, 100, 150, 160, 161, 200, 201, 202]
        assert process.poll() is None
    finally:
        stop(process)


def model_status(probe):
    from hrdf_ros_interfaces.srv import GetModelStatus
    return probe.call(GetModelStatus, '/hrdf_ros_node/get_model_status',
                      GetModelStatus.Request())


def test_reload_good_and_bad_files_and_text(probe, tmp_path):
    from hrdf_ros_interfaces.srv import LoadHrdf
    bad = tmp_path / 'bad.hrdf'
    bad.write_text('<robot version="1.2.0">\n  <actuator type="X5-77"/>\n</robot>\n')
    process = run_node(BUNDLED_ARM, publish_frequency=0.0,
                       allowed_directories=f"['{tmp_path}', '{KITS_DIR}']")
    try:
        assert probe.wait_for_node()
        assert model_status(probe).dof == 6
        first_urdf = probe.robot_description
        feed = Feed(probe)
        feed.first(NAMES, np.full(6, 0.3))

        # a bad file: rejected with a located error, nothing changes
        result = set_hrdf_file(probe, bad)
        assert not result.successful
        assert 'bad.hrdf:2:3: error: <actuator> attribute "type"' in result.reason
        status = model_status(probe)
        assert (status.dof, status.hrdf_file) == (6, BUNDLED_ARM)
        probe.spin_until(lambda: False, 0.5)
        assert probe.robot_description == first_urdf

        # a good file: robot_description, /tf_static and the kinematics switch over
        assert set_hrdf_file(probe, SEVEN_DOF_KIT).successful
        assert probe.spin_until(lambda: probe.robot_description != first_urdf, 30.0)
        seven = load(SEVEN_DOF_KIT)
        names7 = build_frame_tree(seven).dof_names
        assert [j.name for j in URDF.from_xml_string(probe.robot_description).joints
                if j.type != 'fixed'] == names7
        status = model_status(probe)
        assert (status.dof, status.hrdf_file) == (7, SEVEN_DOF_KIT)
        q7 = np.linspace(-1, 1, 7)
        feed.good(names7, q7)
        assert probe.spin_until(lambda: 'end_effector' in probe.buffer, 30.0)
        np.testing.assert_allclose(probe.lookup('base_link', 'end_effector'),
                                   Kinematics(seven).end_effector(q7), atol=1e-9, rtol=0)

        # HRDF text through the service: bad keeps the model, good replaces it
        response = probe.call(LoadHrdf, '/hrdf_ros_node/load_hrdf', LoadHrdf.Request(
            hrdf_text='<robot version="1.2.0"><actuator type="X5-1" gear_ratio="2"/></robot>'))
        assert not response.success and response.errors
        assert (response.errors[0].element, response.errors[0].attribute) == \
            ('actuator', 'gear_ratio')
        assert model_status(probe).dof == 7
        response = probe.call(LoadHrdf, '/hrdf_ros_node/load_hrdf', LoadHrdf.Request(
            hrdf_text='<robot version="1.2.0"><actuator type="X5-1"/></robot>'))
        assert response.success, response.message
        assert model_status(probe).dof == 1
        response = probe.call(LoadHrdf, '/hrdf_ros_node/load_hrdf',
                              LoadHrdf.Request(hrdf_path=str(bad)))
        assert not response.success and response.errors[0].line == 2
        assert process.poll() is None
    finally:
        stop(process)


def test_two_prefixed_robots_side_by_side(ros):
    left_probe = NodeProbe('probe_left', namespace='/left')
    right_probe = NodeProbe('probe_right', namespace='/right')
    model = load(BUNDLED_ARM)
    kin = Kinematics(model)
    left = run_node(BUNDLED_ARM, namespace='/left', frame_prefix='left/',
                    publish_frequency=0.0)
    right = run_node(BUNDLED_ARM, namespace='/right', frame_prefix='right/',
                     publish_frequency=0.0)
    try:
        assert left_probe.wait_for_node() and right_probe.wait_for_node()
        # the left probe knows both nodes' /tf writers before either publishes
        assert left_probe.spin_until(lambda: left_probe.count_publishers('/tf') >= 2, 10.0)
        q_left, q_right = np.full(6, 0.2), np.linspace(-1, 1, 6)
        # discovery is not symmetric: the left probe may see the right node's /tf writer
        # before that writer has matched the probe's reader (and a node's joint_states
        # reader its probe's writer), so a first message can be lost; each robot's
        # positions are sent again, same values and a new stamp, until its /tf arrives
        sent_left, sent_right = [], []
        deadline = time.monotonic() + 30.0
        while time.monotonic() < deadline:
            sent_left.append(left_probe.publish_positions(NAMES, q_left))
            sent_right.append(right_probe.publish_positions(NAMES, q_right))
            if left_probe.spin_until(
                    lambda: any(map(left_probe.has_tf_stamped, sent_left))
                    and any(map(left_probe.has_tf_stamped, sent_right)), 0.5):
                break
        assert any(map(left_probe.has_tf_stamped, sent_left))
        assert any(map(left_probe.has_tf_stamped, sent_right))
        assert left_probe.spin_until(lambda: 'right/end_effector' in left_probe.buffer
                                     and 'left/end_effector' in left_probe.buffer, 10.0)
        np.testing.assert_allclose(left_probe.lookup('left/base_link', 'left/end_effector'),
                                   kin.end_effector(q_left), atol=1e-9, rtol=0)
        np.testing.assert_allclose(left_probe.lookup('right/base_link', 'right/end_effector'),
                                   kin.end_effector(q_right), atol=1e-9, rtol=0)
        # URDF link names, prefixed, are exactly the TF frame ids of each robot
        urdf = URDF.from_xml_string(left_probe.robot_description)
        frames = {t.child_frame_id for m in left_probe.tf_messages + left_probe.tf_static_messages
                  for t in m.transforms} | {t.header.frame_id for m in left_probe.tf_messages
                                            + left_probe.tf_static_messages
                                            for t in m.transforms}
        for prefix in ('left/', 'right/'):
            assert {prefix + link.name for link in urdf.links} == \
                {f for f in frames if f.startswith(prefix)}
    finally:
        left_probe.destroy_node()
        right_probe.destroy_node()
        stop(left, signal.SIGINT)
        stop(right)




def test_validate_service_and_text_with_includes(probe):
    from hrdf_ros_interfaces.msg import HrdfDiagnostic
    from hrdf_ros_interfaces.srv import LoadHrdf, ValidateHrdf
    hexapod = HEXAPOD
    with open(hexapod) as handle:
        text = handle.read()
    process = run_node(BUNDLED_ARM, publish_frequency=0.0,
                       allowed_directories=f"['{HEXAPOD_DIR}']")
    try:
        assert probe.wait_for_node()
        name = '/hrdf_ros_node/validate_hrdf'
        ok = probe.call(ValidateHrdf, name, ValidateHrdf.Request(hrdf_path=hexapod))
        assert ok.valid and not ok.errors
        # text: includes resolve against base_directory, and fail without one
        ok = probe.call(ValidateHrdf, name, ValidateHrdf.Request(
            hrdf_text=text, base_directory=HEXAPOD_DIR))
        assert ok.valid, [e.message for e in ok.errors]
        no_base = probe.call(ValidateHrdf, name, ValidateHrdf.Request(hrdf_text=text))
        assert not no_base.valid and no_base.errors[0].element == 'include'
        # every error is reported, located
        bad = probe.call(ValidateHrdf, name, ValidateHrdf.Request(hrdf_text=(
            '<robot version="1.2.0">\n  <actuator type="X5-77"/>\n'
            '  <link type="X5" extension="two" twist="0"/>\n</robot>')))
        assert not bad.valid
        assert [(e.line, e.element, e.attribute, e.severity) for e in bad.errors] == [
            (2, 'actuator', 'type', HrdfDiagnostic.ERROR),
            (3, 'link', 'extension', HrdfDiagnostic.ERROR)]
        both = probe.call(ValidateHrdf, name, ValidateHrdf.Request(hrdf_path=hexapod,
                                                                   hrdf_text=text))
        assert not both.valid and 'exactly one' in both.errors[0].message
        # validation leaves the running model alone; loading the text replaces it
        assert model_status(probe).dof == 6
        loaded = probe.call(LoadHrdf, '/hrdf_ros_node/load_hrdf', LoadHrdf.Request(
            hrdf_text=text, base_directory=HEXAPOD_DIR))
        assert loaded.success, loaded.message
        assert model_status(probe).dof == 18
    finally:
        stop(process)


def test_geared_joints_joint_states_are_urdf_values(probe, tmp_path, hebi_import):
    """joint_states carry URDF joint values; HEBI positions are gear_ratio times them."""
    text = ('<robot version="1.5.0"><actuator type="X8-9"/><joint axis="ry" gear_ratio="-2"/>'
            '<actuator type="X5-1"/><joint axis="tz" gear_ratio="4"/>'
            '<rigid-body mass="0.3" output_trans="0.1 0 0.2"/><end-effector/></robot>')
    path, _, names, ratios = robot_from_text(tmp_path, text, 'geared.hrdf')
    process = run_node(path, publish_frequency=0.0)
    try:
        assert probe.wait_for_node()
        assert_tf_matches_hebi(probe, names, np.array([0.3, 0.4, -0.7, 0.05]), ratios,
                               hebi_import[1](text))
    finally:
        stop(process)


def test_time_going_backwards_and_qos_overrides(probe):
    """As robot_state_publisher: when time goes backwards (use_sim_time, a bag replayed
    from its start), the stamps seen so far are forgotten, so joint_states are accepted
    and published again; qos_overrides.* parameters set the QoS at start."""
    from rclpy.qos import DurabilityPolicy, ReliabilityPolicy
    from rosgraph_msgs.msg import Clock
    process = run_node(BUNDLED_ARM, use_sim_time=True, publish_frequency=20.0, **{
        'qos_overrides./joint_states.subscription.reliability': 'reliable',
        'qos_overrides./tf.publisher.durability': 'transient_local'})
    clock = probe.create_publisher(Clock, '/clock', 10)
    try:
        assert probe.wait_for_node()

        def endpoints(get, topic):
            return [i for i in get(topic) if i.node_name == 'hrdf_ros_node']
        # the graph cache may lag the matched publisher by a discovery round
        assert probe.spin_until(
            lambda: endpoints(probe.get_subscriptions_info_by_topic, '/joint_states')
            and endpoints(probe.get_publishers_info_by_topic, '/tf'), 10.0)
        [sub] = endpoints(probe.get_subscriptions_info_by_topic, '/joint_states')
        assert sub.qos_profile.reliability == ReliabilityPolicy.RELIABLE
        [pub] = endpoints(probe.get_publishers_info_by_topic, '/tf')
        assert pub.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL
        assert probe.spin_until(lambda: clock.get_subscription_count() > 0, 10.0)
        feed = Feed(probe, start=100.0)
        clock.publish(Clock(clock=stamp_at(100.0)))
        feed.good(NAMES, np.full(6, 0.1))
        clock.publish(Clock(clock=stamp_at(200.0)))
        feed.good(NAMES, np.full(6, 0.2), stamp=stamp_at(200.0))
        clock.publish(Clock(clock=stamp_at(50.0)))               # back in time
        stamp, published = 50.0, False
        for _ in range(20):                                      # until the jump is seen
            stamp += 0.1
            probe.publish_positions(NAMES, np.full(6, 0.3), stamp_at(stamp))
            if probe.spin_until(lambda: probe.has_tf_stamped(stamp_at(stamp)), 0.5):
                published = True
                break
        assert published, 'joint_states after the clock went back were not published'
        np.testing.assert_array_equal(node_positions(probe), np.full(6, 0.3))
    finally:
        probe.destroy_publisher(clock)
        err = stop(process)
    assert 'Moved backwards in time' in err


def test_second_signal_during_shutdown_still_exits_0(ros):
    """Defect: a second SIGINT while the node shut down (``ros2 launch`` sends one after a
    Ctrl-C that already reached the node) met Python's restored handlers: exit code -2 or
    a KeyboardInterrupt traceback instead of 0. Sent 0 to 200 ms after the first."""
    import time
    for delay in (0.0, 0.05, 0.1, 0.2):
        process = run_node(BUNDLED_ARM)
        try:
            started = b''
            while b'robot "' not in started and process.poll() is None:
                started += process.stderr.readline()
            process.send_signal(signal.SIGINT)
            time.sleep(delay)
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
        finally:
            err = stop(process, signal.SIGINT)
        assert 'Traceback' not in err and 'KeyboardInterrupt' not in err, err
