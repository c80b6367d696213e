"""Mass properties and gravity compensation: vs hebi-py and vs the potential energy."""
import numpy as np
import pytest

from hrdf_ros import Kinematics, load, loads
from hrdf_ros.kinematics import HEBI_GRAVITY
from hrdf_ros.kinematics.mass_properties import STANDARD_GRAVITY, MassProperties

from conftest import BUNDLED_ARM, KITS, kit_id


@pytest.mark.parametrize('path', KITS, ids=kit_id)
def test_gravity_compensation_matches_hebi(path, hebi_import):
    import_from_hrdf, _ = hebi_import
    model, hebi = load(path), import_from_hrdf(path)
    mass = MassProperties(Kinematics(model))
    rng = np.random.default_rng(12)
    q = rng.uniform(-np.pi, np.pi, (20, model.dof_count))
    for x in q:
        gravity = rng.normal(size=3) * 5
        expected = hebi.get_grav_comp_efforts(x, gravity)
        assert np.max(np.abs(mass.gravity_compensation(x, gravity) - expected)) <= 1e-9
    batch = mass.gravity_compensation(q)
    single = [hebi.get_grav_comp_efforts(x, np.array([0, 0, -STANDARD_GRAVITY])) for x in q]
    assert np.max(np.abs(batch - np.array(single))) <= 1e-9
    np.testing.assert_allclose(mass.masses, hebi.masses, rtol=0, atol=1e-12)
    assert mass.total_mass == pytest.approx(float(hebi.masses.sum()), abs=1e-12)


@pytest.mark.parametrize('path', KITS + [BUNDLED_ARM], ids=kit_id)
def test_gravity_efforts_match_hebi(path, hebi_import):
    """Kinematics.gravity_efforts: HEBI's arm API gravity by default, any other given;
    one configuration or a batch; to 1e-9 of hebi-py's get_grav_comp_efforts."""
    model, hebi = load(path), hebi_import[0](path)
    kinematics = Kinematics(model)
    q = np.random.default_rng(21).uniform(-np.pi, np.pi, (20, model.dof_count))
    expected = np.stack([hebi.get_grav_comp_efforts(x, np.array(HEBI_GRAVITY)) for x in q])
    assert HEBI_GRAVITY == (0.0, 0.0, -9.81)
    assert np.abs(kinematics.gravity_efforts(q) - expected).max() <= 1e-9
    for x, e in zip(q[:5], expected):
        assert np.abs(kinematics.gravity_efforts(x) - e).max() <= 1e-9
    tilted = np.array([2.0, -1.0, -9.0])
    expected = np.stack([hebi.get_grav_comp_efforts(x, tilted) for x in q])
    out = np.empty((20, model.dof_count))
    assert kinematics.gravity_efforts(q, tilted, out=out) is out
    assert np.abs(out - expected).max() <= 1e-9
    with pytest.raises(ValueError):
        kinematics.gravity_efforts(q, (0.0, np.nan, -9.81))
    with pytest.raises(ValueError):
        kinematics.gravity_efforts(q, (0.0, -9.81))


def potential_energy(mass, q, gravity):
    """V(q) = - sum m_i g . p_i(q), J (independent of the Jacobian code)."""
    points = mass.com_frames(q)[..., :3, 3]
    return -np.einsum('i,...ij,j->...', mass.masses, points, gravity)


def test_gravity_compensation_is_the_potential_energy_gradient():
    model = loads('<robot version="1.5.0"><actuator type="X8-9"/><joint axis="ty" gear_ratio="2"/>'
                  '<link type="X5" extension="0.3" twist="0.5"/><actuator type="X5-4"/>'
                  '<bracket type="X5HeavyLeftOutside"/><actuator type="X5-1"/>'
                  '<end-effector type="X5Parallel"/></robot>')
    mass = MassProperties(Kinematics(model))
    gravity = np.array([0.3, -1.2, -9.7])
    h = 1e-6
    for q in np.random.default_rng(13).uniform(-2, 2, (10, model.dof_count)):
        steps = np.eye(model.dof_count) * h
        gradient = (potential_energy(mass, q + steps, gravity)
                    - potential_energy(mass, q - steps, gravity)) / (2 * h)
        np.testing.assert_allclose(mass.gravity_compensation(q, gravity), gradient,
                                   atol=1e-6, rtol=0)


def test_center_of_mass_and_inertia_of_two_point_masses():
    # Two 1 kg rigid bodies at x = 0 and x = 1 on a slider along x: COM at 0.5 + d/2.
    model = loads('<robot version="1.5.0"><rigid-body mass="1" output_trans="0 0 0"/>'
                  '<joint axis="tx"/><rigid-body mass="1" com_trans="1 0 0" '
                  'output_trans="0 0 0"/></robot>')
    mass = MassProperties(Kinematics(model))
    for d in (-0.5, 0.0, 0.7):
        np.testing.assert_allclose(mass.center_of_mass([d]), [0.5 + d / 2, 0, 0], atol=1e-15)
        # point masses 0.5 + d/2 away from the COM: I_yy = I_zz = 2 * (0.5 + d/2)^2
        arm = 0.5 + d / 2
        np.testing.assert_allclose(mass.inertia_about_center_of_mass([d]),
                                   np.diag([0.0, 2 * arm ** 2, 2 * arm ** 2]), atol=1e-15)


def test_inertia_is_rotated_into_the_reference_frame():
    model = load(BUNDLED_ARM)
    mass = MassProperties(Kinematics(model))
    q = np.random.default_rng(14).uniform(-3, 3, (4, model.dof_count))
    inertia = mass.inertia_about_center_of_mass(q)
    assert inertia.shape == (4, 3, 3)
    np.testing.assert_allclose(inertia, np.swapaxes(inertia, -1, -2), atol=1e-15)
    assert np.all(np.linalg.eigvalsh(inertia) > 0)
    # a rotation of the base about z rotates the tensor: I' = Rz I Rz^T
    angle = 0.7
    rotated_model = load(BUNDLED_ARM)
    rz = np.array([[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0],
                   [0, 0, 1]])
    rotated_model.base_frame = rotated_model.base_frame.copy()
    rotated_model.base_frame[:3, :3] = rz @ rotated_model.base_frame[:3, :3]
    rotated = MassProperties(Kinematics(rotated_model)).inertia_about_center_of_mass(q)
    np.testing.assert_allclose(rotated, rz @ inertia @ rz.T, atol=1e-14)


def test_errors():
    mass = MassProperties(Kinematics(load(BUNDLED_ARM)))
    with pytest.raises(ValueError, match='gravity'):
        mass.gravity_compensation(np.zeros(6), gravity=(0, 0))
    with pytest.raises(ValueError, match='gravity'):
        mass.gravity_compensation(np.zeros(6), gravity=(0, 0, np.nan))
    with pytest.raises(ValueError):
        mass.center_of_mass(np.zeros(5))
    massless = MassProperties(Kinematics(loads('<robot version="1.5.0"><joint axis="rz"/>'
                                               '</robot>')))
    with pytest.raises(ValueError, match='no mass'):
        massless.center_of_mass([0.0])
