"""HEBI's own formula grammar test list (hebi-hrdf grammar/test/tests.testcases, copied
unchanged to ../shared/hrdf/grammar): every good case evaluates to its stated value to
the precision it is written with, every bad case is rejected, by the grammar and inside
a 1.6.0 document (as a rigid body's ``ixx``, a formula attribute that takes any value).

Format (../shared/hrdf/grammar/README.md): a line ``# Good`` is followed by an
expression and its expected value; ``# Bad`` by one expression; other lines are comments.
"""
import os
import re

import pytest

from hrdf_ros import HrdfError, loads
from hrdf_ros.hrdf.diagnostics import ExpressionError
from hrdf_ros.hrdf.grammar import parse_formula

from conftest import REPO

LIST = os.path.join(REPO, '..', 'shared', 'hrdf', 'grammar', 'tests.testcases')


def read_cases(path):
    """[('good', expression, expected text) or ('bad', expression, None)], file order."""
    with open(path, encoding='utf-8') as handle:
        lines = handle.read().splitlines()
    cases, k = [], 0
    while k < len(lines):
        marker = lines[k].strip()
        if marker == '# Good':
            cases.append(('good', lines[k + 1], lines[k + 2].strip()))
            k += 3
        elif marker == '# Bad':
            cases.append(('bad', lines[k + 1], None))
            k += 2
        else:
            k += 1
    return cases


CASES = read_cases(LIST) if os.path.isfile(LIST) else []
pytestmark = pytest.mark.skipif(not CASES, reason=f'no grammar test list at {LIST}')


def tolerance(expected: str) -> float:
    """Half a unit of the last digit written: '0.785' -> 5e-4, '-.0324' -> 5e-5,
    '1440' -> 0.5, '3.24e2' -> 0.5."""
    match = re.fullmatch(r'[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?', expected)
    assert match, expected
    decimals = len(match.group(2) or '') - int(match.group(3) or 0)
    return 0.5 * 10.0 ** -decimals


def test_the_list_is_complete():
    assert len(CASES) == 43
    assert sum(kind == 'good' for kind, _, _ in CASES) == 29


@pytest.mark.parametrize('kind,expression,expected', CASES,
                         ids=[f'{k}:{e}' for k, e, _ in CASES])
def test_hebi_grammar_case(kind, expression, expected):
    document = f'<robot version="1.6.0"><rigid-body mass="0" ixx="{expression}"/></robot>'
    if kind == 'good':
        value = parse_formula(expression)
        assert abs(value - float(expected)) <= tolerance(expected), value
        assert loads(document).elements[0].inertia[0] == value
    else:
        with pytest.raises(ExpressionError):
            parse_formula(expression)
        with pytest.raises(HrdfError) as info:
            loads(document, 'case.hrdf')
        [error] = info.value.errors
        assert (error.line, error.element, error.attribute) == (1, 'rigid-body', 'ixx')
