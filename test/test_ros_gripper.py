"""hrdf_ros_node with a parallel gripper (a G kit), over real DDS.

The finger joint ``gripper_joint`` in joint_states moves every gripper part on /tf; each
part's pose, chained from /tf and /tf_static, equals the URDF's forward kinematics as
robot_state_publisher computes it (KDL on the tree kdl_parser builds from the node's own
robot_description, mimic joints at multiplier * finger + offset) to 1e-9. joint_states
without the finger joint move the arm and leave the fingers; joint_states that also
carry the mimic joints (as joint_state_publisher publishes them) are accepted; the real
joint_state_publisher 2.4.0, reading the node's robot_description, drives the gripper;
the FK and Jacobian services answer for the arm as before.
"""
import os
import subprocess
import sys

import numpy as np
import pytest
from sensor_msgs.msg import JointState

from hrdf_ros import load
from hrdf_ros.description.frame_tree import build_frame_tree

from conftest import KITS_DIR
from consumers import mimic_values
from ros_helpers import node_positions, run_node, stop

KIT = os.path.join(KITS_DIR, 'A-2085-06G.hrdf')
MODEL = load(KIT)
TREE = build_frame_tree(MODEL)
GRIPPER = TREE.grippers[0]
ARM = TREE.dof_names
PARTS = [GRIPPER.base_link] + list(GRIPPER.links.values())
#: Largest /tf vs KDL difference seen (printed).
WORST = {'tf vs KDL': 0.0}


def kdl_poses(urdf_text, tmp_path, values):
    """{link: (4, 4) in base_link} of every gripper link, by KDL on kdl_parser's tree of
    ``urdf_text`` with the mimic joints computed as robot_state_publisher does."""
    kdl = pytest.importorskip('PyKDL', reason='python3-pykdl (make test installs it)')
    from test_consumers_urdf import _kdl_chain_values, _kdl_matrix, kdl_tree
    path = tmp_path / 'robot_description.urdf'
    path.write_text(urdf_text)
    tree, warnings = kdl_tree(kdl, str(path))
    assert warnings == []
    values = dict(values, **mimic_values(GRIPPER, values[GRIPPER.joint]))
    out = {}
    for link in PARTS + ['end_effector']:
        chain = tree.getChain('base_link', link)
        q, _ = _kdl_chain_values(kdl, chain, values)
        frame = kdl.Frame()
        assert kdl.ChainFkSolverPos_recursive(chain).JntToCart(q, frame) >= 0
        out[link] = _kdl_matrix(frame)
    return out


def assert_tf_equals_kdl(probe, tmp_path, values):
    expected = kdl_poses(probe.robot_description, tmp_path, values)
    for link, pose in expected.items():
        error = np.abs(probe.lookup('base_link', link) - pose).max()
        WORST['tf vs KDL'] = max(WORST['tf vs KDL'], error)
        assert error < 1e-9, (link, error)


def publish(probe, names, positions):
    stamp = probe.publish_positions(names, positions)
    assert probe.spin_until(lambda: probe.has_tf_stamped(stamp), 10.0), 'no /tf'
    return [t for m in probe.tf_messages for t in m.transforms if t.header.stamp == stamp]


def test_finger_joint_moves_the_gripper_on_tf(probe, tmp_path, hebi_import):
    hebi = hebi_import[0](KIT)
    process = run_node(KIT, publish_frequency=0.0)
    try:
        assert probe.wait_for_node()
        assert probe.spin_until(lambda: GRIPPER.links['hub'] in probe.buffer, 30.0)
        rng = np.random.default_rng(20)
        for g in (0.0, 0.5, 1.1):
            q = rng.uniform(-np.pi, np.pi, len(ARM))
            moving = publish(probe, ARM + [GRIPPER.joint], list(q) + [g])
            assert len(moving) == len(ARM) + len(GRIPPER.moving_joints)
            values = dict(zip(ARM, q), **{GRIPPER.joint: g})
            assert_tf_equals_kdl(probe, tmp_path, values)
            np.testing.assert_allclose(probe.lookup('base_link', 'end_effector'),
                                       hebi.get_end_effector(q), atol=1e-9)
        # without the finger joint: the arm moves, the fingers stay (finger at 1.1)
        before = {link: np.linalg.inv(probe.lookup('base_link', GRIPPER.base_link))
                  @ probe.lookup('base_link', link) for link in PARTS}
        q = rng.uniform(-np.pi, np.pi, len(ARM))
        publish(probe, ARM, q)
        assert_tf_equals_kdl(probe, tmp_path, dict(zip(ARM, q), **{GRIPPER.joint: 1.1}))
        np.testing.assert_allclose(probe.lookup('base_link', 'end_effector'),
                                   hebi.get_end_effector(q), atol=1e-9)
        for link in PARTS:
            after = np.linalg.inv(probe.lookup('base_link', GRIPPER.base_link)) @ \
                probe.lookup('base_link', link)
            np.testing.assert_allclose(after, before[link], atol=1e-12)
        # the finger joint alone: the arm stays
        publish(probe, [GRIPPER.joint], [0.3])
        assert_tf_equals_kdl(probe, tmp_path, dict(zip(ARM, q), **{GRIPPER.joint: 0.3}))
        # with the mimic joints too (any values): computed from the finger joint
        mimic = GRIPPER.mimic_joints
        publish(probe, ARM + [GRIPPER.joint] + mimic, list(q) + [0.7] + [9.0] * len(mimic))
        assert_tf_equals_kdl(probe, tmp_path, dict(zip(ARM, q), **{GRIPPER.joint: 0.7}))
        # the services answer for the arm (HRDF joints only)
        np.testing.assert_allclose(node_positions(probe), q, atol=1e-15)
        print(f'/tf vs KDL (robot_state_publisher\'s mimic rule): {WORST["tf vs KDL"]:.2g}')
    finally:
        err = stop(process)
    assert 'ignoring joints this robot does not have' not in err


def test_the_planning_scene_holds_the_gripper_where_joint_states_put_it(probe):
    """~/check_state_validity of the last joint_states: one arm state, free with the
    fingers open, collides with them closed (link2 against the right finger and jaw), and
    the other way round for another; as MoveIt checks an arm with its gripper where the
    robot state has it."""
    from hrdf_ros_interfaces.srv import GetStateValidity
    from hrdf_ros.kinematics.gripper import GRIPPER_UPPER
    free_open = [-0.63, 2.95, 2.54, -2.09, 0.54, 1.18]
    free_closed = [-2.61, 0.7, 1.89, -0.82, -0.3, -1.18]
    process = run_node(KIT, publish_frequency=0.0)
    try:
        assert probe.wait_for_node()
        answers = {}
        for q in (free_open, free_closed):
            for finger in (0.0, GRIPPER_UPPER):
                publish(probe, ARM + [GRIPPER.joint], q + [finger])
                answer = probe.call(GetStateValidity, '/hrdf_ros_node/check_state_validity',
                                    GetStateValidity.Request(), timeout=60.0)
                assert answer.error_code == 1, answer.message
                answers[tuple(q), finger] = (answer.valid, set(answer.link_b))
        assert answers[tuple(free_open), 0.0][0]
        valid, hit = answers[tuple(free_open), GRIPPER_UPPER]
        assert not valid and hit == {'gripper_r_finger', 'gripper_r_jaw'}, hit
        assert not answers[tuple(free_closed), 0.0][0]
        assert answers[tuple(free_closed), GRIPPER_UPPER][0]
    finally:
        stop(process)


def test_real_joint_state_publisher_drives_the_gripper(probe, tmp_path):
    """joint_state_publisher 2.4.0 publishes the finger joint (at its ``zeros`` value)
    and every mimic joint (multiplier * finger + offset); the node accepts it."""
    received = []
    probe.create_subscription(JointState, 'joint_states', received.append, 10)
    process = run_node(KIT, publish_frequency=0.0)
    jsp = None
    try:
        assert probe.wait_for_node()
        program = os.path.join(sys.prefix, 'lib', 'joint_state_publisher',
                               'joint_state_publisher')
        assert os.path.exists(program), 'joint_state_publisher (make env installs it)'
        jsp = subprocess.Popen([program, '--ros-args', '-p', f'zeros.{GRIPPER.joint}:=0.5',
                                '-p', 'rate:=20'], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
        assert probe.spin_until(lambda: any(m.name for m in received), 30.0), 'no jsp'
        message = next(m for m in received if m.name)
        positions = dict(zip(message.name, message.position))
        assert set(positions) == set(ARM) | set(GRIPPER.moving_joints)
        assert positions[GRIPPER.joint] == 0.5
        for name, value in mimic_values(GRIPPER, 0.5).items():
            assert positions[name] == value, name
        stamp = message.header.stamp
        assert probe.spin_until(lambda: probe.has_tf_stamped(stamp), 30.0), 'node ignored it'
        assert probe.spin_until(lambda: GRIPPER.links['r_jaw'] in probe.buffer, 30.0)
        assert_tf_equals_kdl(probe, tmp_path, dict({n: 0.0 for n in ARM},
                                                   **{GRIPPER.joint: 0.5}))
    finally:
        if jsp is not None:
            jsp.terminate()
            jsp.wait(timeout=30)
        err = stop(process)
    assert 'ignoring joints this robot does not have' not in err


def test_gripper_joints_false_gives_the_rigid_end_effector(probe):
    process = run_node(KIT, gripper_joints=False)
    try:
        assert probe.wait_for_node()
        assert 'mimic' not in probe.robot_description
        assert f'name="{GRIPPER.joint}"' not in probe.robot_description
    finally:
        stop(process)
