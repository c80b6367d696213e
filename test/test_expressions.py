"""HRDF value grammars: every valid and invalid example of FORMAT.md / GRAMMAR.md."""
import math

import numpy as np
import pytest

from hrdf_ros.hrdf.diagnostics import ExpressionError
from hrdf_ros.hrdf.grammar import (HEBI_PI, MAX_NESTING, parse_float, parse_formula,
                                  parse_rotation, parse_translation)

# FORMAT.md "floating point": valid and invalid values.
SPEC_VALID_FLOATS = {'3.24': 3.24, '0.324': 0.324, '.324': 0.324, '324': 324.0,
                     '3.24e2': 324.0, '-3.24E-2': -0.0324, '-3.24e+2': -324.0,
                     '-32E4': -320000.0, '1.': 1.0}
SPEC_INVALID_FLOATS = ['2.4.3', '2,000', '32,45', '3e2.4', '.', '- 1.3', '1. 02']

# FORMAT.md "floating point formula" and hebi-hrdf grammar/test/tests.testcases.
P = HEBI_PI
SPEC_VALID_FORMULAS = {
    'pi / 4': P / 4, '1 + 4': 5.0, '32*45': 1440.0, '1 + 2 / 3 - 4 * 5': 1 + 2 / 3 - 20,
    '1 + 2 / (3 - 4) * 5': -9.0, '1 + 2 / (3-4) * 5': -9.0, '1+2/(3 - 4)*5': -9.0,
    '(100 + 45) / (3*pi)': 145 / (3 * P), '32e-2*pi': 0.32 * P,
    'pi': P, '1 + 2.0': 3.0, '----1': 1.0, '-1': -1.0, '-(-(-(-(-1))))': -1.0,
    '-(-(-1)-(-1))': -2.0, '1': 1.0, '1 + 324.5 * (4 - pi)': 1 + 324.5 * (4 - P),
    '1 + 2 + 3': 6.0, 'pi / 2': P / 2, '4/5': 0.8, '- 1.3': -1.3,
}
SPEC_INVALID_FORMULAS = ['2 pi', 'PI', '2 4', '1 2 3 . 4 5', 'PI2', 'PI_2', '2PI', 'M_PI',
                         '2.4.3', '2,000', '32,45', '3e2.4', '.', '1. 02']


@pytest.mark.parametrize('text,value', SPEC_VALID_FLOATS.items())
def test_spec_valid_floats(text, value):
    assert parse_float(text) == value
    assert parse_formula(text) == value  # floats are a subset of formulas


@pytest.mark.parametrize('text', SPEC_INVALID_FLOATS)
def test_spec_invalid_floats(text):
    with pytest.raises(ExpressionError):
        parse_float(text)


@pytest.mark.parametrize('text,value', SPEC_VALID_FORMULAS.items())
def test_spec_valid_formulas(text, value):
    assert parse_formula(text) == pytest.approx(value, rel=1e-15, abs=1e-15)


@pytest.mark.parametrize('text', SPEC_INVALID_FORMULAS)
def test_spec_invalid_formulas(text):
    with pytest.raises(ExpressionError):
        parse_formula(text)


def test_pi_is_hebis_single_precision_value():
    assert HEBI_PI == float(np.float32(math.pi))
    assert abs(HEBI_PI - math.pi) < 1e-7


def test_formula_precedence_and_associativity():
    assert parse_formula('8 / 4 / 2') == 1.0
    assert parse_formula('8 - 4 - 2') == 2.0
    assert parse_formula('2 * 3 + 4 * 5') == 26.0
    assert parse_formula('-2 * -3') == 6.0


@pytest.mark.parametrize('text', ['', '   ', '1 +', '(1', '1)', '()', '1 / 0', '1 / (pi - pi)',
                                  'eval(1)', '__import__', '1e999', '1;2', 'pi()'])
def test_formula_rejects_garbage(text):
    with pytest.raises(ExpressionError):
        parse_formula(text)


def test_error_position_points_at_offending_token():
    with pytest.raises(ExpressionError) as info:
        parse_formula('1 + 2 PI')
    assert info.value.position == 6


def test_nesting_is_bounded_without_recursion_error():
    deep = '(' * (MAX_NESTING + 1) + '1' + ')' * (MAX_NESTING + 1)
    with pytest.raises(ExpressionError, match='nesting'):
        parse_formula(deep)
    assert parse_formula('(' * MAX_NESTING + '1' + ')' * MAX_NESTING) == 1.0
    with pytest.raises(ExpressionError):
        parse_formula('-' * 100000 + '1')


def _rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _ry(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def _rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@pytest.mark.parametrize('text,expected', [
    ('1 0 0 0 1 0 0 0 1', np.eye(3)),
    ('1 0 0\n0 1 0\n0 0 1', np.eye(3)),          # spec: rows on separate lines
    ('\t1 0 0 0 1 0 0 0 1 ', np.eye(3)),
    ('Rz(pi/2)', _rz(P / 2)),
    ('Rz(3 * pi/4 + 0.1)', _rz(3 * P / 4 + 0.1)),
    ('Rx(pi/2)*Rz(-pi/4)*Ry(pi/2)', _rx(P / 2) @ _rz(-P / 4) @ _ry(P / 2)),
    (' Rx( 0.5 ) * Ry(-pi) ', _rx(0.5) @ _ry(-P)),
    ('0 -1 0 1 0 0 0 0 1', _rz(math.pi / 2).round(12)),
])
def test_spec_rotations(text, expected):
    np.testing.assert_allclose(parse_rotation(text), expected, atol=1e-15)


@pytest.mark.parametrize('text', ['rx(0.5)', 'Rx(0.5)Ry(0.2)', 'Rx(0.5)*', 'Rw(1)', 'Rx()',
                                  '1 0 0 0 1 0 0 0', '1 0 0 0 1 0 0 0 1 0', '2 0 0 0 1 0 0 0 1',
                                  '1 0 0 0 1 0 0 0 -1', '1 0 0 0 1 0 0 0 1,', 'Rx(pi',
                                  '1 0 0 0 1 0 0 0 pi', 'identity', ''])
def test_invalid_rotations(text):
    with pytest.raises(ExpressionError):
        parse_rotation(text)


@pytest.mark.parametrize('text,expected', [('0 0 0', [0, 0, 0]), ('1e-1 +2 -3.0', [0.1, 2, -3]),
                                           ('\n0.1\t0.2  0.3\n', [0.1, 0.2, 0.3])])
def test_translations(text, expected):
    np.testing.assert_array_equal(parse_translation(text), expected)


@pytest.mark.parametrize('text', ['1 2', '1 2 3 4', '1,2,3', 'pi 0 0', '1/2 0 0', 'a b c',
                                  '1e999 0 0', ''])
def test_invalid_translations(text):
    with pytest.raises(ExpressionError):
        parse_translation(text)
