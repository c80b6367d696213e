"""The node's hot path without DDS: MovingTransforms fills /tf from joint values exactly
as the kinematics say, reuses one message and one stamp, and JointInput's cached name
plans follow a publisher that changes its name order."""
import os

import numpy as np
import pytest

from hrdf_ros.ros.joint_input import JointInput
from hrdf_ros.ros.loaded_robot import RobotOptions, load_robot, prepare
from hrdf_ros.ros.tf_messages import from_transform_msg
from hrdf_ros import loads

from conftest import BUNDLED_ARM, REPO

GEARED = ('<robot version="1.5.0"><joint axis="tx" gear_ratio="3"/>'
          '<joint axis="ry" gear_ratio="-2"/><actuator type="X5-1"/><joint axis="tz"/>'
          '<rigid-body mass="1" output_trans="0.1 0.2 0.3"/><end-effector/></robot>')


@pytest.mark.parametrize('name', ['arm', 'hexapod', 'geared'])
def test_filled_message_equals_dof_transforms(name):
    from hrdf_ros.ros.moving_tf import MovingTransforms
    if name == 'geared':
        robot = prepare(loads(GEARED), '<text>', RobotOptions(frame_prefix='p/'))
    else:
        path = BUNDLED_ARM if name == 'arm' else os.path.join(
            REPO, 'benchmarks', 'data', 'hexapod_18dof.hrdf')
        robot = load_robot(RobotOptions(frame_prefix='p/'), path=path)
    moving = MovingTransforms(robot)
    rng = np.random.default_rng(1)
    message = None
    for k in range(10):
        values = rng.uniform(-3, 3, robot.model.dof_count)      # URDF joint values
        filled = moving.fill(values, 100 + k, 5 * k)
        assert message is None or filled is message            # one message, refilled
        message = filled
        expected = robot.kinematics.dof_transforms(values * robot.gear_ratios)
        assert len(filled.transforms) == robot.model.dof_count
        for t, (parent, child), matrix in zip(filled.transforms, robot.moving_pairs,
                                              expected):
            assert (t.header.frame_id, t.child_frame_id) == (parent, child)
            assert (t.header.stamp.sec, t.header.stamp.nanosec) == (100 + k, 5 * k)
            np.testing.assert_allclose(from_transform_msg(t), matrix, atol=1e-14, rtol=0)


def test_name_plans_follow_a_changing_order():
    joints = JointInput(['J1', 'J2', 'J3'])
    assert joints.update(['J3', 'x', 'J1'], [3.0, 9.0, 1.0], 1) is None
    assert joints.update(['J3', 'x', 'J1'], [4.0, 9.0, 2.0], 2) is None     # cached plan
    np.testing.assert_array_equal(joints.positions, [2.0, 0.0, 4.0])
    assert joints.update(['J2', 'J2'], [1.0, 1.0], 3) == 'duplicate joint'
    assert joints.update(['J3', 'x', 'J1'], [5.0, float('nan'), 6.0], 4) is None
    assert joints.update(['J3', 'x', 'J1'], [float('inf'), 0.0, 6.0], 5) == 'non-finite'
    assert joints.update(['J1', 'J2', 'J3'], [1e308, 1e308, 1e308], 6) is None  # sum overflows
    np.testing.assert_array_equal(joints.positions, [1e308, 1e308, 1e308])
    assert joints.update(['J1', 'J2', 'J3'], [1.0, float('nan'), 1.0], 7) == 'non-finite'
