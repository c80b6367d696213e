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
from urdf_parser_py.urdf import URDF

from hrdf_ros import load
from hrdf_ros.description.frame_tree import build_frame_tree

from conftest import BUNDLED_ARM, KITS_DIR
from ros_helpers import run_node, stop

ARM_KIT = os.path.join(KITS_DIR, 'A-2085-06.hrdf')
SEVEN_DOF_KIT = os.path.join(KITS_DIR, 'X-Series-Double-Shoulder-7DOF.hrdf')


@pytest.mark.parametrize('path', [ARM_KIT, SEVEN_DOF_KIT])
def test_tf_from_joint_states_matches_hebi(path, probe, hebi_import):
    import_from_hrdf, _ = hebi_import
    hebi = import_from_hrdf(path)
    model = load(path)
    names = build_frame_tree(model).dof_names
    process = run_node(path, publish_frequency=0.0)
    try:
        assert probe.wait_for_node(), 'no robot_description or joint_states subscriber'
        assert probe.spin_until(lambda: 'end_effector' in probe.buffer, 30.0), 'no tf_static'
        urdf = URDF.from_xml_string(probe.robot_description)
        assert [j.name for j in urdf.joints if j.type != 'fixed'] == names
        assert probe.tf_static_messages, 'nothing on /tf_static'
        static_children = {t.child_frame_id for m in probe.tf_static_messages
                           for t in m.transforms}
        assert 'end_effector' in static_children
        rng = np.random.default_rng(2)
        for k, q in enumerate(rng.uniform(-np.pi, np.pi, (10, model.dof_count))):
            if k == 0:  # the first /tf may go out before the node's publisher matched ours
                stamp = probe.publish_until_tf(names, q)
                assert stamp is not None, 'no /tf'
            else:
                stamp = probe.publish_positions(names, q)
            assert probe.spin_until(lambda: probe.has_tf_stamped(stamp), 10.0), 'no /tf'
            moving = [t for m in probe.tf_messages for t in m.transforms
                      if t.header.stamp == stamp]
            assert len(moving) == model.dof_count
            pose = probe.lookup('base_link', 'end_effector')
            np.testing.assert_allclose(pose, hebi.get_end_effector(q), atol=1e-9, rtol=0)
    finally:
        stop(process)


def test_frame_prefix_and_sigint(probe):
    process = run_node(BUNDLED_ARM, frame_prefix='left/', republish_frequency=50.0)
    try:
        assert probe.wait_for_node()
        assert probe.spin_until(lambda: 'left/end_effector' in probe.buffer, 30.0)
        model = load(BUNDLED_ARM)
        names = build_frame_tree(model).dof_names
        q = np.full(model.dof_count, 0.25)
        probe.publish_positions(names, q)
        # republish_frequency: the latest positions again at 50 Hz with fresh stamps
        count = len(probe.tf_messages)
        assert probe.spin_until(lambda: len(probe.tf_messages) >= count + 5, 10.0)
        frames = {t.child_frame_id for t in probe.tf_messages[-1].transforms}
        assert frames == {f'left/{c}' for c in ('bracket1', 'link1', 'link2', 'bracket2',
                                                 'bracket3', 'end_effector_mount1')}
        assert 'left/base_link' in {t.header.frame_id for m in probe.tf_static_messages
                                    for t in m.transforms}
    finally:
        stop(process, signal.SIGINT)


def test_robot_description_parameter_is_read_only(probe):
    from rcl_interfaces.msg import Parameter, ParameterValue, ParameterType
    from rcl_interfaces.srv import GetParameters, SetParameters
    process = run_node(BUNDLED_ARM)
    try:
        assert probe.wait_for_node()
        response = probe.call(GetParameters, '/hrdf_ros_node/get_parameters',
                              GetParameters.Request(names=['robot_description']))
        urdf = response.values[0].string_value
        assert urdf == probe.robot_description and urdf.startswith('<?xml')
        value = ParameterValue(type=ParameterType.PARAMETER_STRING, string_value='<robot/>')
        response = probe.call(SetParameters, '/hrdf_ros_node/set_parameters',
                              SetParameters.Request(parameters=[
                                  Parameter(name='robot_description', value=value)]))
        assert response.results[0].successful is False
        assert 'set hrdf_file' in response.results[0].reason
    finally:
        stop(process)


def test_bad_joint_states_do_not_crash_or_publish(probe):
    process = run_node(BUNDLED_ARM, publish_frequency=0.0)
    try:
        assert probe.wait_for_node()
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
        stop(process)


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


@pytest.mark.parametrize('kinematics,said', [
    ('numpy', 'kinematics: numpy (numba installed; --kinematics numba or '),
    ('numba', 'kinematics: numba (compiled kernels, hrdf_ros[fast])')])
def test_the_start_up_log_says_the_kinematics_path(kinematics, said):
    process = subprocess.Popen([sys.executable, '-m', 'hrdf_ros.ros.node', '--ros-args',
                                '-p', f'hrdf_file:={BUNDLED_ARM}', '-p',
                                f'kinematics:={kinematics}'], stderr=subprocess.PIPE,
                               env={k: v for k, v in os.environ.items()
                                    if k != 'HRDF_ROS_KINEMATICS'})
    try:
        lines = []
        for line in process.stderr:
            lines.append(line.decode(errors='replace'))
            if 'robot "' in lines[-1]:
                break
        assert any(said in line for line in lines), lines
    finally:
        stop(process)


@pytest.mark.parametrize('value,expected', [
    ('fortran', 'kinematics must be one of auto, numpy, numba'),
    ('5', "Trying to set parameter 'kinematics' to '5' of type 'INTEGER'")])
def test_unknown_kinematics_path_exits_nonzero_with_a_message(value, expected):
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.ros.node', '--ros-args', '-p',
                             f'hrdf_file:={BUNDLED_ARM}', '-p', f'kinematics:={value}'],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert expected in result.stderr
    assert 'Traceback' not in result.stderr


def test_missing_parameter_exits_nonzero():
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.ros.node'], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 1
    assert 'hrdf_file' in result.stderr and 'Traceback' not in result.stderr


@pytest.mark.parametrize('value,expected', [
    ('10', "'publish_frequency' to '10' of type 'INTEGER', expecting type 'DOUBLE'"
           ': publish_frequency (a double needs a decimal point: 10.0, not 10)'),
    ('1000.5', 'Parameter publish_frequency out of range Min: 0.0, Max: 1000.0'),
    ('-1.0', 'Parameter publish_frequency out of range'),
])
def test_bad_publish_frequency_exits_nonzero_with_a_message(value, expected):
    """A value rclcpp's robot_state_publisher would also refuse (an integer for a
    double, outside 0..1000 Hz) stops the node with a message, not a traceback."""
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.ros.node', '--ros-args', '-p',
                             f'hrdf_file:={BUNDLED_ARM}', '-p', f'publish_frequency:={value}'],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert expected in result.stderr and 'Traceback' not in result.stderr


SERVICE_ROBOT = ('<robot version="1.4.0"><actuator type="X8-9" tag="shoulder"/>'
                 '<bracket type="X5HeavyRightOutside"/><actuator type="X8-9" tag="elbow"/>'
                 '<link type="X5" extension="0.325" twist="pi"/><actuator type="X5-1"/>'
                 '<end-effector tag="tool"/></robot>')


@pytest.mark.parametrize('kinematics', ['numpy', 'numba'])
def test_kinematics_services_match_hebi(kinematics, probe, hebi_import, tmp_path):
    """On both kinematics paths (node parameter ``kinematics``; numba: the extra
    hrdf_ros[fast], which make test installs)."""
    from geometry_msgs.msg import Pose  # noqa: F401  (message package must import)
    from hrdf_ros_interfaces.srv import GetForwardKinematics, GetJacobian, GetModelStatus
    from hrdf_ros.kinematics.rotations import quaternion_to_rotation

    path = tmp_path / 'service_robot.hrdf'
    path.write_text(SERVICE_ROBOT)
    hebi = hebi_import[0](str(path))
    model = load(str(path))
    names = build_frame_tree(model).dof_names
    process = run_node(str(path), publish_frequency=0.0, frame_prefix='left/',
                       kinematics=kinematics)
    try:
        assert probe.wait_for_node()
        status = probe.call(GetModelStatus, '/hrdf_ros_node/get_model_status',
                            GetModelStatus.Request())
        assert status is not None and status.valid
        assert (status.dof, list(status.joint_names)) == (3, names)
        assert status.output_frames == model.frame_count('output')
        assert status.total_mass == pytest.approx(float(hebi.masses.sum()), abs=1e-12)

        q = np.random.default_rng(15).uniform(-np.pi, np.pi, 3)
        # every output frame at given positions
        fk = probe.call(GetForwardKinematics, '/hrdf_ros_node/get_forward_kinematics',
                        GetForwardKinematics.Request(positions=q.tolist(),
                                                     frame_type='output', frame_index=-1))
        assert fk.success, fk.message
        expected = hebi.get_forward_kinematics_mat('output', q)
        assert list(fk.frame_indices) == list(range(len(expected)))
        for pose, frame in zip(fk.poses, expected):
            assert pose.header.frame_id == 'left/base_link'
            p, o = pose.pose.position, pose.pose.orientation
            np.testing.assert_allclose([p.x, p.y, p.z], frame[:3, 3], atol=1e-9, rtol=0)
            np.testing.assert_allclose(quaternion_to_rotation([o.x, o.y, o.z, o.w]),
                                       frame[:3, :3], atol=1e-9, rtol=0)

        # the latest joint_states, the end effector selected by tag
        q2 = np.array([0.4, -1.1, 2.0])
        stamp = probe.publish_positions(names, q2)
        assert probe.spin_until(lambda: probe.has_tf_stamped(stamp), 10.0)
        jac = probe.call(GetJacobian, '/hrdf_ros_node/get_jacobian',
                         GetJacobian.Request(use_latest_joint_states=True,
                                             frame_type='end_effector', tag='tool'))
        assert jac.success, jac.message
        assert (jac.rows, jac.cols, jac.frame_id) == (6, 3, 'left/base_link')
        assert list(jac.joint_names) == names
        np.testing.assert_array_equal(jac.positions, q2)
        np.testing.assert_allclose(np.reshape(jac.data, (6, 3)),
                                   hebi.get_jacobian_end_effector(q2), atol=1e-9, rtol=0)
        fk = probe.call(GetForwardKinematics, '/hrdf_ros_node/get_forward_kinematics',
                        GetForwardKinematics.Request(use_latest_joint_states=True,
                                                     frame_type='com', tag='elbow'))
        assert fk.success and fk.poses[0].header.stamp == stamp
        com = hebi.get_forward_kinematics_mat('com', q2)[model.element_index('elbow')]
        p = fk.poses[0].pose.position
        np.testing.assert_allclose([p.x, p.y, p.z], com[:3, 3], atol=1e-9, rtol=0)

        # bad requests: answered with a reason, and the node keeps serving
        bad = [
            (dict(positions=[0.0, 1.0]), 'has 2 values; the robot has 3'),
            (dict(positions=[0.0, float('nan'), 1.0]), 'finite'),
            (dict(positions=q.tolist(), frame_type='mesh'), "unknown frame_type 'mesh'"),
            (dict(positions=q.tolist(), frame_type='output', frame_index=99), 'out of range'),
            (dict(positions=q.tolist(), tag='nope'), "no element has tag 'nope'"),
            (dict(positions=q.tolist(), frame_type='end_effector', tag='elbow'),
             'has no end_effector frame'),
            (dict(positions=q.tolist(), use_latest_joint_states=True), 'not both'),
        ]
        for fields, message in bad:
            for service_type, name in ((GetJacobian, 'get_jacobian'),
                                       (GetForwardKinematics, 'get_forward_kinematics')):
                response = probe.call(service_type, f'/hrdf_ros_node/{name}',
                                      service_type.Request(**fields))
                assert response is not None and not response.success, (name, fields)
                assert message in response.message, (name, response.message)
        response = probe.call(GetJacobian, '/hrdf_ros_node/get_jacobian',
                              GetJacobian.Request(positions=q.tolist(), frame_index=-1))
        assert not response.success and 'out of range' in response.message
        assert process.poll() is None, 'the node died'
    finally:
        stop(process)


def test_latest_joint_states_before_any_arrived(probe, tmp_path):
    from hrdf_ros_interfaces.srv import GetJacobian

    path = tmp_path / 'service_robot.hrdf'
    path.write_text(SERVICE_ROBOT)
    process = run_node(str(path))
    try:
        assert probe.wait_for_node()
        response = probe.call(GetJacobian, '/hrdf_ros_node/get_jacobian',
                              GetJacobian.Request(use_latest_joint_states=True))
        assert response is not None and not response.success
        assert 'no joint_states received yet' in response.message
    finally:
        stop(process)
