"""joint_states hygiene rules (hrdf_ros.ros.joint_input), without ROS."""
import numpy as np
import pytest

from hrdf_ros.ros.joint_input import MAX_REPORTED_UNKNOWN, JointInput

NAMES = ['J1', 'J2', 'J3']


@pytest.mark.parametrize('names,positions,reason', [
    ([], [], 'empty'),
    (['J1', 'J2'], [1.0], 'length mismatch'),
    (['J1', 'J1'], [1.0, 2.0], 'duplicate joint'),
    (['J1', 'J2'], [1.0, float('nan')], 'non-finite'),
    (['J3'], [float('-inf')], 'non-finite'),
    (['other'], [1.0], 'no known joint'),
    (['J1', 'J2', 'J3'], [1.0, float('nan'), 2.0], 'non-finite'),   # all joints, in order
    (['J1', 'J2', 'J3'], [1.0, 2.0], 'length mismatch'),
])
def test_rejected_messages_change_nothing(names, positions, reason):
    joints = JointInput(NAMES)
    assert joints.update(['J1', 'J2', 'J3'], [0.1, 0.2, 0.3], 5) is None
    assert joints.update(names, positions, 6) == reason
    np.testing.assert_array_equal(joints.positions, [0.1, 0.2, 0.3])
    assert joints.rejected[reason] == 1 and joints.accepted == 1


def test_unknown_names_beside_known_ones_are_skipped():
    joints = JointInput(NAMES)
    assert joints.update(['x', 'J2', 'y'], [float('nan'), 0.5, 7.0], 0) is None
    np.testing.assert_array_equal(joints.positions, [0, 0.5, 0])


def test_missing_joints_last_or_zero():
    last, zero = JointInput(NAMES, 'last'), JointInput(NAMES, 'zero')
    for joints in (last, zero):
        joints.update(NAMES, [1.0, 2.0, 3.0], 0)
        joints.update(['J2'], [5.0], 0)
    np.testing.assert_array_equal(last.positions, [1.0, 5.0, 3.0])
    np.testing.assert_array_equal(zero.positions, [0.0, 5.0, 0.0])
    with pytest.raises(ValueError, match='missing_joints'):
        JointInput(NAMES, 'previous')


def test_out_of_order_stamps_unless_ignored():
    strict, lenient = JointInput(NAMES), JointInput(NAMES, ignore_timestamp=True)
    for joints in (strict, lenient):
        assert joints.update(['J1'], [1.0], 2_000) is None
        joints.update(['J1'], [2.0], 1_000)
        joints.update(NAMES, [2.0, 2.0, 2.0], 1_500)        # all joints, in order
        assert joints.update(['J1'], [3.0], 0) is None     # unstamped: always in order
        assert joints.update(['J2'], [4.0], 2_000) is None  # equal stamp: in order
    assert strict.rejected['out of order'] == 2
    assert lenient.rejected['out of order'] == 0
    np.testing.assert_array_equal(lenient.positions, [3.0, 4.0, 2.0])
    np.testing.assert_array_equal(strict.positions, [3.0, 4.0, 0.0])


def test_unknown_name_memory_is_bounded():
    joints = JointInput(NAMES)
    reported = []
    for k in range(10 * MAX_REPORTED_UNKNOWN):
        reported += joints.new_unknown_names([f'n{k}', 'J1'])
    assert reported[:MAX_REPORTED_UNKNOWN] == [f'n{k}' for k in range(MAX_REPORTED_UNKNOWN)]
    assert reported[MAX_REPORTED_UNKNOWN:] == ['...']
    assert joints.new_unknown_names(['n0']) == []


def test_carry_over_keeps_positions_by_name():
    old = JointInput(['A', 'B', 'C'])
    old.update(['A', 'B', 'C'], [1.0, 2.0, 3.0], 7)
    old.update(['A'], [float('nan')], 8)
    new = JointInput(['C', 'D', 'A'])
    new.carry_over(old)
    np.testing.assert_array_equal(new.positions, [3.0, 0.0, 1.0])
    assert new.received and new.last_stamp_ns == 7 and new.rejected['non-finite'] == 1
    fresh = JointInput(NAMES)
    fresh.carry_over(JointInput(['x']))
    assert not fresh.received


def test_gripper_joints_keep_their_value_and_mimic_joints_are_accepted():
    """A gripper's finger joint (kept) stays when a message lacks it, also with
    missing_joints='zero'; arm-only messages take the fast path; mimic joints (ignored)
    are accepted, not read, and never reported as unknown."""
    names = NAMES + ['gripper_joint']
    for policy in ('last', 'zero'):
        joints = JointInput(names, policy, kept=1, ignored=['gripper_r_jaw_joint'])
        assert joints.update(names, [1.0, 2.0, 3.0, 0.5], 1) is None
        assert joints.update(NAMES, [4.0, 5.0, 6.0], 2) is None       # arm only
        assert joints.values == [4.0, 5.0, 6.0, 0.5]
        assert joints.update(['J2'], [7.0], 3) is None
        expected = [4.0, 7.0, 6.0, 0.5] if policy == 'last' else [0.0, 7.0, 0.0, 0.5]
        assert joints.values == expected
        message = ['gripper_joint', 'gripper_r_jaw_joint']
        assert joints.new_unknown_names(message + ['other']) == ['other']
        assert joints.update(message, [0.9, 42.0], 4) is None
        assert joints.values[3] == 0.9
        assert joints.update(['gripper_r_jaw_joint'], [1.0], 5) == 'no known joint'
        assert joints.update(NAMES, [1.0, float('nan'), 2.0], 6) == 'non-finite'
