"""Inverse dynamics (``Kinematics.inverse_dynamics``) against Pinocchio's RNEA and
hebi-py.

* Pinocchio 2.7.0 (``rnea``) on the ``--exact-masses`` URDF hrdf_ros writes (its joints
  made revolute so a configuration is one number per joint), at random positions,
  velocities and accelerations, on HEBI's kits and on a tree with prismatic joints,
  gear ratios and a turned base: equal to 1e-9 N m (the URDF's 12 significant digits
  leave ~1e-11).
* hebi-py 2.16.1's ``get_dynamic_comp_efforts`` is ``sum_i Jv_i^T m_i a_i`` with each COM's
  acceleration ``a_i`` the second difference of its position along the commanded
  quadratic over 10 ms (hebi-core's step: the ``dt`` argument is not passed on): equal
  to that difference of our COM frames through our Jacobians to 1e-9. The difference
  tends (Richardson over 1 and 0.5 ms, to 1e-7: rounding) to our efforts of the same
  robot without rotational inertia and gravity: hebi-py's is the translational part.
* At rest the efforts are the gravity efforts; they are linear in the accelerations.
"""
import dataclasses

import numpy as np
import pytest

from hrdf_ros import Kinematics, load, loads
from hrdf_ros.description.robot import describe
from hrdf_ros.export.urdf import to_urdf

from conftest import KITS
from consumers import GEARED_TREE

ROBOTS = [k for k in KITS if any(n in k for n in ('A-2085-06.', 'A-2240-06G', 'A-2302-01G',
                                                    'X-Series-Double-Shoulder'))]
STATES = 8
TOL = 1e-9


def _robot(which):
    return loads(GEARED_TREE) if which == 'geared' else load(which)


def _states(model, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-3.0, 3.0, (3, STATES, model.dof_count))


@pytest.mark.consumers
@pytest.mark.parametrize('which', ROBOTS + ['geared'])
def test_equal_to_pinocchio_rnea(which):
    import pinocchio as pin
    model = _robot(which)
    names = list(describe(model, 'robot').tree.dof_names)
    urdf = to_urdf(model, exact_masses=True, geometry=False, gripper_joints=False,
                   position_limits={n: (-10.0, 10.0) for n in names})
    reference = pin.buildModelFromXML(urdf)
    data = reference.createData()
    assert reference.nq == reference.nv == model.dof_count
    columns = [reference.joints[reference.getJointId(n)].idx_q for n in names]
    ratios = np.array([model.elements[e].gear_ratio for e in model.dof_elements])
    q, dq, ddq = _states(model, 7)
    ours = Kinematics(model).inverse_dynamics(q, dq, ddq)
    assert ours.shape == q.shape
    for k in range(STATES):
        x, v, a = (np.zeros(reference.nq) for _ in range(3))
        x[columns], v[columns], a[columns] = q[k] / ratios, dq[k] / ratios, ddq[k] / ratios
        # URDF torque = HEBI effort x gear ratio (the same power)
        expected = pin.rnea(reference, data, x, v, a)[columns] / ratios
        np.testing.assert_allclose(ours[k], expected, atol=TOL, rtol=0)
    assert np.abs(ours).max() > 1.0            # the motions ask for real efforts


def _second_difference(kinematics, model, q, dq, ddq, dt):
    """sum_i Jv_i^T m_i a_i, each COM's acceleration the second difference of its position
    over ``dt`` along q + dq t + ddq t^2 / 2 (hebi-core's dynamics compensation)."""
    def points(x):
        return kinematics.frames('com', x)[:, :3, 3]
    ahead = q + dq * dt + 0.5 * ddq * dt * dt
    behind = q - dq * dt + 0.5 * ddq * dt * dt
    a = (points(ahead) + points(behind) - 2.0 * points(q)) / (dt * dt)
    linear = kinematics.jacobians('com', q)[:, :3, :]
    return np.einsum('ird,ir->d', linear, model.masses[:, None] * a)


@pytest.mark.parametrize('which', ROBOTS[:2])
def test_translational_part_as_hebi_py_computes_it(which, hebi_import):
    import_from_hrdf, _ = hebi_import
    model = load(which)
    spinless = dataclasses.replace(model, elements=[
        dataclasses.replace(e, inertia=np.zeros(6)) if e.has_com_frame else e
        for e in model.elements])
    hebi = import_from_hrdf(which)
    ours, plain = Kinematics(spinless), Kinematics(model)
    q, dq, ddq = _states(model, 3)
    for k in range(STATES):
        # hebi-py 2.16.1 does not pass its dt to hebi-core, which differences over 10 ms
        given = hebi.get_dynamic_comp_efforts(q[k], q[k], dq[k], ddq[k], dt=1e-3)
        np.testing.assert_allclose(
            given, _second_difference(plain, model, q[k], dq[k], ddq[k], 1e-2),
            atol=TOL, rtol=0)
        exact = ours.inverse_dynamics(q[k], dq[k], ddq[k], gravity=(0.0, 0.0, 0.0))
        assert np.abs(given - exact).max() > 1e3 * TOL      # 10 ms is not the limit
        # the limit dt -> 0 (Richardson over 1 ms and 0.5 ms; rounding ~1e-9)
        coarse, fine = (_second_difference(plain, model, q[k], dq[k], ddq[k], dt)
                        for dt in (1e-3, 5e-4))
        np.testing.assert_allclose((4.0 * fine - coarse) / 3.0, exact, atol=1e-7, rtol=0)


@pytest.mark.parametrize('which', ROBOTS[:1] + ['geared'])
def test_at_rest_gravity_and_linear_in_accelerations(which):
    model = _robot(which)
    kinematics = Kinematics(model)
    q, dq, ddq = _states(model, 5)
    zero = np.zeros_like(q)
    np.testing.assert_allclose(kinematics.inverse_dynamics(q, zero, zero),
                               kinematics.gravity_efforts(q), atol=1e-12, rtol=0)
    both = kinematics.inverse_dynamics(q, dq, ddq + ddq[::-1])
    parts = (kinematics.inverse_dynamics(q, dq, ddq) + kinematics.inverse_dynamics(
        q, zero, ddq[::-1]) - kinematics.inverse_dynamics(q, zero, zero))
    np.testing.assert_allclose(both, parts, atol=1e-10, rtol=0)


def test_bad_arrays_are_refused():
    kinematics = Kinematics(load(ROBOTS[0]))
    q = np.zeros(kinematics.dof_count)
    with pytest.raises(ValueError, match='velocities'):
        kinematics.inverse_dynamics(q, q[:-1], q)
    with pytest.raises(ValueError, match='accelerations'):
        kinematics.inverse_dynamics(q, q, q + np.nan)
    with pytest.raises(ValueError, match='gravity'):
        kinematics.inverse_dynamics(q, q, q, gravity=(0.0, 9.81))
