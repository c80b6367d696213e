"""Geometric Jacobians: equal to hebi-py (1e-9) and to central differences of FK (1e-6)."""
import numpy as np
import pytest

from hrdf_ros import Kinematics, load, loads

from conftest import BUNDLED_ARM, HEBI_FRAME_TYPES, KITS, kit_id


@pytest.mark.parametrize('path', KITS, ids=kit_id)
def test_kit_jacobians_match_hebi(path, hebi_import):
    import_from_hrdf, _ = hebi_import
    model, hebi = load(path), import_from_hrdf(path)
    kin = Kinematics(model)
    q = np.random.default_rng(21).uniform(-np.pi, np.pi, (100, model.dof_count))
    for frame_type, hebi_type in HEBI_FRAME_TYPES.items():
        expected = np.stack([hebi.get_jacobians_mat(hebi_type, x) for x in q])
        error = np.max(np.abs(kin.jacobians(frame_type, q) - expected))
        assert error <= 1e-9, f'{frame_type}: {error:.3g}'
    np.testing.assert_allclose(kin.end_effector_jacobian(q[0]),
                               hebi.get_jacobian_end_effector(q[0]), atol=1e-9, rtol=0)


def test_gear_ratios_and_prismatic_joints_match_hebi(hebi_import):
    _, import_string = hebi_import
    text = ('<robot version="1.5.0"><joint axis="tx" gear_ratio="3"/>'
            '<joint axis="ry" gear_ratio="-2"/><actuator type="X5-1"/><joint axis="tz"/>'
            '<rigid-body mass="1" output_trans="0.1 0.2 0.3"/><end-effector/></robot>')
    model, hebi = loads(text), import_string(text)
    kin = Kinematics(model)
    for x in np.random.default_rng(4).uniform(-2, 2, (20, model.dof_count)):
        for frame_type, hebi_type in HEBI_FRAME_TYPES.items():
            np.testing.assert_allclose(kin.jacobians(frame_type, x),
                                       hebi.get_jacobians_mat(hebi_type, x), atol=1e-9, rtol=0)
            np.testing.assert_allclose(kin.frames(frame_type, x),
                                       hebi.get_forward_kinematics_mat(hebi_type, x),
                                       atol=1e-9, rtol=0)


def finite_difference_jacobian(kin, frame_type, q, h=1e-6):
    """(n, 6, dof) by central differences: linear part from positions, angular part from
    the skew-symmetric part of dR R^T."""
    frames = kin.frames(frame_type, q)
    out = np.zeros((frames.shape[0], 6, len(q)))
    for k in range(len(q)):
        dq = np.zeros(len(q))
        dq[k] = h
        plus, minus = kin.frames(frame_type, q + dq), kin.frames(frame_type, q - dq)
        out[:, :3, k] = (plus[:, :3, 3] - minus[:, :3, 3]) / (2 * h)
        omega = (plus[:, :3, :3] - minus[:, :3, :3]) / (2 * h) @ frames[:, :3, :3].transpose(
            0, 2, 1)
        out[:, 3:, k] = np.stack([omega[:, 2, 1], omega[:, 0, 2], omega[:, 1, 0]], axis=1)
    return out


@pytest.mark.parametrize('path', [BUNDLED_ARM] + [k for k in KITS if '7DOF' in k], ids=kit_id)
def test_jacobians_equal_finite_differences(path):
    model = load(path)
    kin = Kinematics(model)
    for q in np.random.default_rng(8).uniform(-np.pi, np.pi, (20, model.dof_count)):
        for frame_type in ('output', 'com', 'end_effector'):
            np.testing.assert_allclose(kin.jacobians(frame_type, q),
                                       finite_difference_jacobian(kin, frame_type, q),
                                       atol=1e-6, rtol=0)


def test_batch_shapes_and_errors():
    model = load(BUNDLED_ARM)
    kin = Kinematics(model)
    q = np.zeros((5, model.dof_count))
    assert kin.jacobians('output', q).shape == (5, 12, 6, 6)
    assert kin.end_effector_jacobian(q).shape == (5, 6, 6)
    assert kin.end_effector_jacobian(q[0]).shape == (6, 6)
    with pytest.raises(ValueError):
        kin.jacobians('mesh', q)
    with pytest.raises(IndexError, match='0 end_effector frames'):
        Kinematics(loads('<robot version="1.2.0"><actuator type="X5-1"/></robot>')
                   ).end_effector_jacobian([0.0])
