"""Differential tests against HEBI's own library (hebi-py 2.16.1, the test oracle).

Every kit: every input, output, COM and end-effector frame at 100 random configurations,
plus masses and degrees of freedom. Every catalogue type: a one-element robot at random
positions. Offsets/overrides and formula attributes on random values.
"""
import numpy as np
import pytest

from hrdf_ros import Kinematics, load, loads
from hrdf_ros.hrdf.catalogue import ACTUATORS, BRACKETS, END_EFFECTORS

from conftest import HEBI_FRAME_TYPES, KITS, hebi_frames, kit_id

TOLERANCE = 1e-9


def assert_same_model(ours, theirs, rng, configurations=100):
    assert ours.dof_count == theirs.dof_count
    np.testing.assert_allclose(ours.masses, theirs.masses, rtol=0, atol=1e-12)
    for frame_type in HEBI_FRAME_TYPES:
        assert ours.frame_count(frame_type) == theirs.get_frame_count(
            HEBI_FRAME_TYPES[frame_type])
    q = rng.uniform(-2 * np.pi, 2 * np.pi, (configurations, ours.dof_count))
    frames = Kinematics(ours).forward_kinematics(q)
    worst = 0.0
    for frame_type in HEBI_FRAME_TYPES:
        expected = hebi_frames(theirs, frame_type, q)
        assert frames[frame_type].shape == expected.shape, frame_type
        if expected.size:
            error = np.max(np.abs(frames[frame_type] - expected))
            assert error <= TOLERANCE, f'{frame_type}: max |error| {error:.3g}'
            worst = max(worst, error)
    return worst


@pytest.mark.parametrize('path', KITS, ids=kit_id)
def test_kit_matches_hebi(path, hebi_import):
    import_from_hrdf, _ = hebi_import
    rng = np.random.default_rng(abs(hash(kit_id(path))) % 2**32)
    assert_same_model(load(path), import_from_hrdf(path), rng)


def _one(body, hebi_import, version='1.6.0', seed=0):
    _, import_string = hebi_import
    text = f'<robot version="{version}">{body}</robot>'
    return assert_same_model(loads(text), import_string(text), np.random.default_rng(seed), 10)


@pytest.mark.parametrize('name', sorted(ACTUATORS))
def test_actuator_matches_hebi(name, hebi_import):
    _one(f'<actuator type="{name}"/><end-effector/>', hebi_import)


@pytest.mark.parametrize('name', sorted(BRACKETS))
def test_bracket_matches_hebi(name, hebi_import):
    _one(f'<bracket type="{name}"/><end-effector/>', hebi_import)


@pytest.mark.parametrize('name', sorted(END_EFFECTORS))
def test_end_effector_matches_hebi(name, hebi_import):
    _one(f'<end-effector type="{name}"/>', hebi_import)


# R25-R8 links have no Inline output (rejected by HEBI and by hrdf_ros; see test_parser).
LINK_CASES = [(link, (i, o)) for link in ('X5', 'R8', 'R25', 'R25-R8')
              for i in ('RightAngle', 'Inline') for o in ('RightAngle', 'Inline')
              if not (link == 'R25-R8' and o == 'Inline')]


@pytest.mark.parametrize('link,ends', LINK_CASES)
def test_links_match_hebi_over_random_geometry(link, ends, hebi_import):
    rng = np.random.default_rng(7)
    for _ in range(5):
        extension, twist = rng.uniform(0, 1), rng.uniform(-4, 4)
        _one(f'<link type="{link}" input="{ends[0]}" output="{ends[1]}" '
             f'extension="{extension!r}" twist="{twist!r}"/><end-effector/>', hebi_import)


@pytest.mark.parametrize('twist', ['pi', 'pi/2', '-pi/2', '3*pi/4 + 0.1', '(1 + 2) / (3*pi)'])
def test_formulas_match_hebi(twist, hebi_import):
    _one(f'<actuator type="X5-1"/><link type="X5" extension="0.3" twist="{twist}"/>'
         f'<actuator type="X5-1"/><end-effector/>', hebi_import)


def test_joints_rigid_bodies_and_custom_end_effector_match_hebi(hebi_import):
    body = ('<joint axis="rz"/><joint axis="tx"/><joint axis="ry"/><joint axis="ty"/>'
            '<joint axis="rx"/><joint axis="tz"/>'
            '<rigid-body mass="1.5" com_trans="0.1 0.2 0.3" com_rot="Rx(0.3)*Rz(1)" '
            'output_trans="0.4 -0.1 0.2" output_rot="Ry(pi/3)*Rx(-0.2)"/>'
            '<actuator type="X8-9" mass_offset="0.2" com_trans_offset="0.01 0 0"/>'
            '<bracket type="X5HeavyLeftInside" mass="0.3" com_trans="0 0.01 0.02"/>'
            '<actuator type="X5-4"/>'
            '<end-effector mass="0.3" com_trans="0 0 0.1" output_trans="0 0 0.2" '
            'output_rot="Rx(0.5)"/>')
    _one(body, hebi_import, version='1.2.0')


def test_base_frame_matches_hebi(hebi_import):
    _, import_string = hebi_import
    text = ('<robot version="1.2.0" rot="Rz(0.7)*Rx(0.2)" trans="0.5 -1 2">'
            '<actuator type="X5-9"/><link type="X5" extension="0.2" twist="pi/2"/>'
            '<actuator type="X5-1"/><end-effector type="X5Parallel"/></robot>')
    assert_same_model(loads(text), import_string(text), np.random.default_rng(3))


@pytest.mark.parametrize('version', ['1.0.0', '1.1.0'])
def test_implicit_end_effector_matches_hebi(version, hebi_import):
    _one('<actuator type="X5-1"/><link type="X5" extension="0.3" twist="1.5707963"/>'
         '<actuator type="X8-3"/>', hebi_import, version=version)
