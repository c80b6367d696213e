"""Forward kinematics API: batch/single agreement, shapes, errors, transforms helpers."""
import math

import numpy as np
import pytest

from hrdf_ros import Kinematics, load
from hrdf_ros.kinematics.rotations import (quaternion_to_rotation, rotation_to_quaternion,
                                 rotation_to_rpy, rpy_to_rotation)

from conftest import BUNDLED_ARM


@pytest.fixture(scope='module')
def arm():
    model = load(BUNDLED_ARM)
    return model, Kinematics(model)


def test_batch_equals_single(arm):
    model, kin = arm
    q = np.random.default_rng(0).uniform(-3, 3, (7, model.dof_count))
    batch = kin.forward_kinematics(q)
    for i in range(len(q)):
        single = kin.forward_kinematics(q[i])
        for key in batch:
            # different code paths (vectorised across the batch vs one configuration)
            np.testing.assert_allclose(batch[key][i], single[key], atol=1e-14, rtol=0)
    assert batch['output'].shape == (7, model.frame_count('output'), 4, 4)
    assert kin.end_effector(q).shape == (7, 4, 4)
    assert kin.end_effector(q[0]).shape == (4, 4)


def test_dof_transforms_chain_to_output_frames(arm):
    model, kin = arm
    q = np.linspace(-2, 2, model.dof_count)
    local = kin.dof_transforms(q)
    inputs = kin.frames('input', q)
    outputs = kin.frames('output', q)
    for k, element in enumerate(model.dof_elements):
        np.testing.assert_allclose(inputs[element] @ local[k], outputs[element], atol=1e-15)


def test_frames_are_rigid_transforms(arm):
    model, kin = arm
    frames = kin.frames('output', np.ones(model.dof_count))
    rotations = frames[:, :3, :3]
    np.testing.assert_allclose(rotations @ rotations.transpose(0, 2, 1),
                               np.broadcast_to(np.eye(3), rotations.shape), atol=1e-13)
    np.testing.assert_array_equal(frames[:, 3], np.broadcast_to([0, 0, 0, 1], (len(frames), 4)))


@pytest.mark.parametrize('bad', [np.zeros(5), np.zeros((2, 7)), np.zeros((2, 3, 6)),
                                 np.full(6, np.nan), np.full(6, np.inf)])
def test_bad_positions_raise_value_error(arm, bad):
    _, kin = arm
    with pytest.raises(ValueError):
        kin.forward_kinematics(bad)


def test_unknown_frame_type(arm):
    _, kin = arm
    with pytest.raises(ValueError, match='unknown frame type'):
        kin.frames('mesh', np.zeros(6))


def test_rpy_round_trip_including_gimbal_lock():
    rng = np.random.default_rng(5)
    angles = list(rng.uniform(-math.pi, math.pi, (200, 3)))
    angles += [(0.3, math.pi / 2, 0.0), (-1.0, -math.pi / 2, 0.0), (0.2, math.pi / 2 - 4e-8, 0.1)]
    for roll, pitch, yaw in angles:
        r = rpy_to_rotation(roll, pitch, yaw)
        np.testing.assert_allclose(rpy_to_rotation(*rotation_to_rpy(r)), r, atol=1e-14)


def test_quaternion_round_trip_and_sign():
    rng = np.random.default_rng(6)
    rotations = [rpy_to_rotation(*a) for a in rng.uniform(-math.pi, math.pi, (300, 3))]
    rotations += [np.diag([1.0, -1, -1]), np.diag([-1.0, 1, -1]), np.diag([-1.0, -1, 1]),
                  np.eye(3)]
    q = rotation_to_quaternion(np.array(rotations))
    np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-15)
    assert np.all(q[:, 3] >= 0)
    for r, quat in zip(rotations, q):
        np.testing.assert_allclose(quaternion_to_rotation(quat), r, atol=1e-14)


def _flip_axes(model, elements):
    """The same robot with the given degrees of freedom about their negative axes."""
    import copy
    flipped = copy.deepcopy(model)
    for e in elements:
        flipped.elements[e].axis_sign = -1.0
    return flipped


@pytest.mark.parametrize('geared', [False, True])
def test_negative_axis_is_the_positive_axis_with_the_position_negated(geared):
    """axis_sign = -1 (HRDF's "-rz" style axes) moves about the negative axis: every
    frame equals the positive-axis robot's at the negated position, in every code path
    (every-frame single and batched, one-frame chains, Jacobians, joint transforms)."""
    from hrdf_ros import loads
    model = loads('<robot version="1.5.0"><actuator type="X5-9"/><bracket type="X5LightRight"/>'
                  f'<joint axis="ty" gear_ratio="{2.5 if geared else 1}"/>'
                  '<link type="X5" extension="0.3" twist="0.4"/><joint axis="rx"/>'
                  '<actuator type="X5-4"/><end-effector/></robot>')
    flipped_dofs = [1, 2]
    flipped = _flip_axes(model, [model.dof_elements[k] for k in flipped_dofs])
    kin, kin_flipped = Kinematics(model), Kinematics(flipped)
    q = np.random.default_rng(3).uniform(-2, 2, (5, model.dof_count))
    q_neg = q.copy()
    q_neg[:, flipped_dofs] *= -1
    for frame_type in ('input', 'output', 'com', 'end_effector'):
        np.testing.assert_allclose(kin_flipped.frames(frame_type, q),
                                   kin.frames(frame_type, q_neg), atol=1e-14)
        np.testing.assert_allclose(kin_flipped.frames(frame_type, q[0]),
                                   kin.frames(frame_type, q_neg[0]), atol=1e-14)
        sign = np.ones(model.dof_count)
        sign[flipped_dofs] = -1
        np.testing.assert_allclose(kin_flipped.jacobians(frame_type, q),
                                   kin.jacobians(frame_type, q_neg) * sign, atol=1e-13)
    np.testing.assert_allclose(kin_flipped.end_effector(q), kin.end_effector(q_neg),
                               atol=1e-14)
    np.testing.assert_allclose(kin_flipped.end_effector_jacobian(q[1]),
                               kin.end_effector_jacobian(q_neg[1]) * sign, atol=1e-13)
    np.testing.assert_allclose(kin_flipped.dof_transforms(q), kin.dof_transforms(q_neg),
                               atol=1e-14)
