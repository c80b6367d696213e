"""The one rule for writing numbers (hrdf_ros.numbers) and the arithmetic that makes them
the same on every machine (hrdf_ros.reproducible); ``hrdf --version``."""
import math
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import hrdf_ros
from hrdf_ros import reproducible
from hrdf_ros.numbers import (ANGLE, DIGITS, INERTIA, LENGTH, MASS, POSITION, QUANTITIES,
                              VELOCITY, lower_limit, magnitude_limit, num, nums, rounded,
                              table_number, upper_limit)

from conftest import REPO

FINITE = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


def test_noise_is_written_as_what_it_stands_for():
    assert num(-8.00798810698049e-19, LENGTH) == '0'
    assert num(6.1e-17, LENGTH) == '0'
    assert num(-3.796405077356795e-19, INERTIA) == '0'
    assert num(6.580000000000001e-05, INERTIA) == '6.58e-05'
    assert num(0.0049999999999999975, LENGTH) == '0.005'
    assert num(0.29960000000000003, LENGTH) == '0.2996'
    assert num(4.0000000000000007e-10, INERTIA) == '4e-10'
    assert nums((0.1 + 0.2, -0.0, 1.0), LENGTH) == '0.3 0 1.0'


def test_single_precision_constants_keep_their_value_to_twelve_digits():
    x5_offset = float(np.float32(0.0195))          # HEBI stores it in single precision
    assert num(x5_offset, LENGTH) == '0.0195000004023'
    assert abs(float(num(x5_offset, LENGTH)) - x5_offset) < 1e-13
    assert float(num(x5_offset, LENGTH)) != 0.0195


def test_every_quantity_has_a_unit_and_a_zero_below_any_physical_value():
    assert len({q.name for q in QUANTITIES}) == len(QUANTITIES)
    for quantity in QUANTITIES:
        assert quantity.unit and 0 < quantity.zero <= 1e-12
    assert INERTIA.zero < 4e-10       # the physical fill's smallest moment stays


@given(FINITE)
def test_a_written_value_is_within_twelve_digits_and_reads_back_as_itself(value):
    for quantity in (LENGTH, ANGLE, MASS):
        text = num(value, quantity)
        written = float(text)
        if abs(value) < quantity.zero:
            assert text == '0'
            continue
        assert abs(written - value) <= 5e-12 * abs(value)
        digits = text.lstrip('-').split('e')[0].replace('.', '').strip('0')
        assert len(digits) <= DIGITS
        assert num(written, quantity) == text                   # idempotent


@given(FINITE)
@settings(max_examples=300)
def test_limits_are_rounded_inward(value):
    low, high = lower_limit(value, POSITION), upper_limit(value, POSITION)
    magnitude = magnitude_limit(value, VELOCITY)
    assert low >= value or abs(value) < POSITION.zero
    assert high <= value or abs(value) < POSITION.zero
    assert abs(magnitude) <= abs(value)
    for limit in (low, high, magnitude):
        assert abs(limit - value) <= 1e-11 * abs(value) + POSITION.zero


def test_a_limit_that_is_a_short_decimal_stays_and_a_rating_is_never_exceeded():
    assert magnitude_limit(1.502675, VELOCITY) == 1.502675      # HEBI's gripper spool
    rpm32 = 32 * 2 * math.pi / 60                               # a HEBI gains bound
    assert magnitude_limit(rpm32, VELOCITY) == 3.35103216382 < rpm32
    assert upper_limit(math.pi, POSITION) == 3.14159265358
    assert lower_limit(-math.pi, POSITION) == -3.14159265358


def test_tables_never_print_minus_zero():
    assert table_number(-1e-16) == ' 0.000000000'
    assert table_number(-0.25) == '-0.250000000'
    assert table_number(0.1) == ' 0.100000000'


def test_rounded_leaves_non_finite_values():
    assert math.isnan(rounded(float('nan'), LENGTH)) and rounded(math.inf, LENGTH) == math.inf


# -- reproducible arithmetic ------------------------------------------------------------

def test_products_equal_numpys_to_rounding():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(50, 4, 4)), rng.normal(size=(4, 4))
    np.testing.assert_allclose(reproducible.matmul(a, b), a @ b, atol=1e-14, rtol=0)
    np.testing.assert_allclose(reproducible.apply(a, b[0]), a @ b[0], atol=1e-14, rtol=0)
    np.testing.assert_allclose(reproducible.dot(a[:, 0], b[0]), a[:, 0] @ b[0], atol=1e-14)
    np.testing.assert_allclose(reproducible.cross(a[:, 0, :3], b[0, :3]),
                               np.cross(a[:, 0, :3], b[0, :3]), atol=1e-14)
    with pytest.raises(ValueError, match='do not chain'):
        reproducible.matmul(a, rng.normal(size=(3, 4)))


def test_sums_run_left_to_right_as_documented():
    """0.1 * 1 + 0.2 * 1 + 0.3 * 1 in that order is 0.6000000000000001; a BLAS kernel may
    add in another order or fuse a multiply into an add."""
    row = np.array([[0.1, 0.2, 0.3]])
    assert reproducible.matmul(row, np.ones((3, 1)))[0, 0] == (0.1 + 0.2) + 0.3
    assert reproducible.dot([1e16, 1.0, -1e16], [1.0, 1.0, 1.0]) == 0.0


def test_rigid_transforms_compose_and_invert():
    from hrdf_ros.kinematics.rotations import rpy_to_rotation
    rng = np.random.default_rng(1)
    poses = np.tile(np.eye(4), (20, 1, 1))
    for pose in poses:
        pose[:3, :3] = rpy_to_rotation(*rng.uniform(-3, 3, 3))
        pose[:3, 3] = rng.normal(size=3)
    np.testing.assert_allclose(reproducible.compose(poses[:-1], poses[1:]),
                               poses[:-1] @ poses[1:], atol=1e-14)
    np.testing.assert_allclose(reproducible.rigid_inverse(poses), np.linalg.inv(poses),
                               atol=1e-13)


def test_trigonometry_is_the_c_librarys():
    angles = np.linspace(-7, 7, 1001)
    assert np.array_equal(reproducible.sin(angles), [math.sin(x) for x in angles])
    assert np.array_equal(reproducible.cos(angles.reshape(7, 143)),
                          np.reshape([math.cos(x) for x in angles], (7, 143)))


def test_eigenvalues_and_singular_values_equal_lapacks():
    rng = np.random.default_rng(2)
    symmetric = rng.normal(size=(100, 7, 7))
    symmetric += np.swapaxes(symmetric, -1, -2)
    np.testing.assert_allclose(reproducible.symmetric_eigenvalues(symmetric),
                               np.linalg.eigvalsh(symmetric), atol=1e-12)
    for shape in ((100, 6, 7), (100, 3, 7), (100, 6, 3)):
        matrices = rng.normal(size=shape)
        np.testing.assert_allclose(reproducible.singular_values(matrices),
                                   np.linalg.svd(matrices, compute_uv=False), atol=1e-12)
    # rank deficient (a column twice): the small singular value is found, not noise
    matrices = rng.normal(size=(50, 6, 6))
    matrices[:, :, 5] = 2 * matrices[:, :, 4]
    assert np.abs(reproducible.singular_values(matrices)[:, -1]).max() < 1e-13
    inertia = np.diag([3e-8, 4e-10, 1.0])               # 8 orders of magnitude apart
    np.testing.assert_allclose(reproducible.symmetric_eigenvalues(inertia),
                               [4e-10, 3e-8, 1.0], rtol=1e-12)


def test_gram_root_determinant_is_the_product_of_singular_values():
    rng = np.random.default_rng(4)
    for shape in ((200, 6, 7), (200, 6, 6), (200, 5, 6)):
        jacobians = rng.normal(size=shape)
        gram = reproducible.matmul(jacobians, np.swapaxes(jacobians, -1, -2))
        expected = np.prod(np.linalg.svd(jacobians, compute_uv=False), axis=-1)
        np.testing.assert_allclose(reproducible.gram_root_determinant(gram), expected,
                                   rtol=1e-9)
        np.testing.assert_allclose(reproducible.gram_root_determinant(gram),
                                   np.sqrt(np.linalg.det(gram)), rtol=1e-9)
    # singular: a row twice (a Jacobian at a singularity) gives 0, or the square root of
    # rounding (the last pivot ~1e-15 of the others; LAPACK's sqrt(det) does no better)
    jacobians = rng.normal(size=(50, 6, 7))
    regular = reproducible.gram_root_determinant(
        reproducible.matmul(jacobians, np.swapaxes(jacobians, -1, -2)))
    jacobians[:, 5] = jacobians[:, 4]
    gram = reproducible.matmul(jacobians, np.swapaxes(jacobians, -1, -2))
    assert (reproducible.gram_root_determinant(gram) < 1e-6 * np.median(regular)).all()
    assert reproducible.gram_root_determinant(np.zeros((2, 3, 3))).tolist() == [0.0, 0.0]


def test_version_is_the_manifests(tmp_path):
    manifest = open(f'{REPO}/package.xml', encoding='utf-8').read()
    version = re.search(r'<version>([^<]+)</version>', manifest).group(1)
    assert hrdf_ros.__version__ == version
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', '--version'],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, f'hrdf_ros {version}\n',
                                                                  '')
