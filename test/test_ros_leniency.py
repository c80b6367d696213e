"""hrdf_ros_node over real DDS with HEBI's real-world files: negative joint axes, robots
without degrees of freedom, and the ``strict`` parameter.

* a negative axis (``-rz``) with a gear ratio: joint_states carry URDF joint values; the
  URDF axis is ``0 0 -1``; TF equals hebi-py's FK at the HEBI positions;
* a robot with no degree of freedom: robot_description (fixed joints only) and
  /tf_static are published, joint_states are ignored without a warning, FK takes ``[]``
  and the Jacobian is 6 x 0;
* ``strict``: a deviating file stops the node at start (exit 1, located error with its
  code), ~/validate_hrdf and ~/load_hrdf apply it; without it the deviations are
  logged as warnings and ~/validate_hrdf can still ask for strictness.
"""
import subprocess
import sys

import numpy as np
from urdf_parser_py.urdf import URDF


from ros_helpers import assert_tf_matches_hebi, robot_from_text, run_node, stop
from test_ros_robustness import model_status

NEGATIVE = ('<robot version="1.6.0"><actuator type="X8-9"/>'
            '<joint axis="-rz" gear_ratio="2"/><rigid-body mass="0.4" com_trans="0 0 0.05" '
            'output_trans="0.1 0 0.2" output_rot="Rx(0.4)"/><joint axis="-tx"/>'
            '<rigid-body mass="0.1" output_trans="0 0.1 0"/><end-effector/></robot>')
ZERO_DOF = ('<robot version="1.6.0"><rigid-body mass="2" com_trans="0 0 0.1" '
            'output_trans="0.1 0 0.2" output_rot="Rz(0.5)"/>'
            '<end-effector mass="0.5" output_trans="0 0 0.05"/></robot>')


def test_negative_axis_tf_equals_hebi_fk(probe, tmp_path, hebi_import):
    path, _, names, ratios = robot_from_text(tmp_path, NEGATIVE, 'negative.hrdf')
    process = run_node(path, publish_frequency=0.0)
    try:
        assert probe.wait_for_node()
        axes = {j.name: list(j.axis) for j in URDF.from_xml_string(
            probe.robot_description).joints if j.type != 'fixed'}
        assert axes == {names[0]: [0, 0, 1], names[1]: [0, 0, -1], names[2]: [-1, 0, 0]}
        assert_tf_matches_hebi(probe, names, np.array([0.3, -0.8, 0.05]), ratios,
                               hebi_import[1](NEGATIVE))
    finally:
        err = stop(process)
    assert err.count('[negative-axis]') == 2 and 'warning' in err.lower()


def test_robot_without_degrees_of_freedom(probe, tmp_path, hebi_import):
    from hrdf_ros_interfaces.srv import GetForwardKinematics, GetJacobian
    path = tmp_path / 'chassis.hrdf'
    path.write_text(ZERO_DOF)
    process = run_node(str(path), publish_frequency=50.0)
    try:
        assert probe.wait_for_node()
        robot = URDF.from_xml_string(probe.robot_description)
        assert {j.type for j in robot.joints} == {'fixed'}
        assert probe.spin_until(lambda: 'end_effector' in probe.buffer, 30.0)
        hebi = hebi_import[1](ZERO_DOF)
        np.testing.assert_allclose(probe.lookup('base_link', 'end_effector'),
                                   hebi.get_end_effector(np.zeros(0)), atol=1e-12, rtol=0)
        for names in (['J1'], [], ['a', 'a']):            # someone else's, empty, garbage
            probe.publish_positions(names, [0.5] * len(names))
        probe.spin_until(lambda: False, 0.5)
        assert probe.tf_messages == []
        status = model_status(probe)
        assert status.dof == 0 and list(status.joint_names) == []
        for request in (GetForwardKinematics.Request(positions=[]),
                        GetForwardKinematics.Request(use_latest_joint_states=True)):
            fk = probe.call(GetForwardKinematics,
                            '/hrdf_ros_node/get_forward_kinematics', request)
            assert fk.success, fk.message
            p = fk.poses[0].pose.position
            np.testing.assert_allclose([p.x, p.y, p.z], hebi.get_end_effector([])[:3, 3],
                                       atol=1e-12)
        jac = probe.call(GetJacobian, '/hrdf_ros_node/get_jacobian',
                         GetJacobian.Request(positions=[]))
        assert jac.success and (jac.rows, jac.cols) == (6, 0) and list(jac.data) == []
        bad = probe.call(GetJacobian, '/hrdf_ros_node/get_jacobian',
                         GetJacobian.Request(positions=[0.1]))
        assert not bad.success and '0 degrees of freedom' in bad.message
        assert process.poll() is None
    finally:
        err = stop(process)
    assert 'joint_states' not in err and 'WARN' not in err


def test_strict_parameter_refuses_deviations_at_start(tmp_path):
    path = tmp_path / 'negative.hrdf'
    path.write_text(NEGATIVE)
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.ros.node', '--ros-args',
                             '-p', f'hrdf_file:={path}', '-p', 'strict:=true'],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert f'{path}:1:' in result.stderr and 'error' in result.stderr
    assert result.stderr.count('[negative-axis]') == 2
    assert 'Traceback' not in result.stderr


def test_strict_validation_and_loading_services(probe, tmp_path):
    from hrdf_ros_interfaces.msg import HrdfDiagnostic
    from hrdf_ros_interfaces.srv import LoadHrdf, ValidateHrdf
    name = '/hrdf_ros_node/validate_hrdf'
    lenient = run_node(str(_write(tmp_path, 'zero.hrdf', ZERO_DOF)), publish_frequency=0.0)
    try:
        assert probe.wait_for_node()
        ok = probe.call(ValidateHrdf, name, ValidateHrdf.Request(hrdf_text=NEGATIVE))
        assert ok.valid and [w.code for w in ok.warnings] == ['negative-axis'] * 2
        assert ok.warnings[0].severity == HrdfDiagnostic.WARNING
        strict = probe.call(ValidateHrdf, name, ValidateHrdf.Request(hrdf_text=NEGATIVE,
                                                                     strict=True))
        assert not strict.valid and [e.code for e in strict.errors] == ['negative-axis'] * 2
        assert strict.errors[0].line == 1 and strict.errors[0].attribute == 'axis'
        loaded = probe.call(LoadHrdf, '/hrdf_ros_node/load_hrdf',
                            LoadHrdf.Request(hrdf_text=NEGATIVE))
        assert loaded.success and [w.code for w in loaded.warnings] == ['negative-axis'] * 2
        assert model_status(probe).dof == 3
    finally:
        stop(lenient)
    probe.robot_description = None
    process = run_node(str(_write(tmp_path, 'zero.hrdf', ZERO_DOF)), publish_frequency=0.0,
                       strict=True)
    try:
        assert probe.wait_for_node()
        refused = probe.call(ValidateHrdf, name, ValidateHrdf.Request(hrdf_text=NEGATIVE))
        assert not refused.valid and refused.errors[0].code == 'negative-axis'
        loaded = probe.call(LoadHrdf, '/hrdf_ros_node/load_hrdf',
                            LoadHrdf.Request(hrdf_text=NEGATIVE))
        assert not loaded.success and [e.code for e in loaded.errors] == ['negative-axis'] * 2
        assert model_status(probe).dof == 0          # the running model is kept
    finally:
        stop(process)


def _write(folder, name, text):
    path = folder / name
    path.write_text(text)
    return path
