"""HRDF value grammars: floating point values, formulas, rotation matrices, translations.

The grammars are HEBI's FORMAT.md / GRAMMAR.md (HRDF 1.1.0 and later):

* *floating point*: C-style decimal literal with an optional leading sign, no inner
  whitespace (``-3.24E-2``, ``.324``, ``1.``).
* *floating point formula*: numbers, the constant ``pi`` (case sensitive), unary ``+ -``,
  binary ``+ - * /`` with the usual precedence, parentheses; whitespace between tokens
  is ignored.
* *rotation matrix*: nine whitespace-separated floating point values (row major), or a
  product ``Rx(f)*Ry(f)*Rz(f)...`` of axis rotations whose arguments are formulas (rad).
* *translation vector*: three whitespace-separated floating point values (m).

Parsing is a hand-written tokenizer plus recursive descent with a nesting bound, so a
hostile attribute can neither execute code (nothing is ``eval``-ed) nor exhaust the
Python stack. Errors raise :class:`~hrdf_ros.hrdf.diagnostics.ExpressionError` carrying the
character offset of the problem.
"""
from __future__ import annotations

import math
import re
from typing import List, Tuple

import numpy as np

from ..reproducible import matmul
from .diagnostics import ExpressionError

#: The value of the constant ``pi`` in HRDF formulas. HEBI's reference implementation
#: (hebi-core, as shipped in hebi-py 2.16.1) evaluates ``pi`` as the single-precision
#: float nearest to pi, 3.1415927410125732 (measured: ``twist="pi"`` gives
#: sin(twist) = -8.742278e-08 there). hrdf_ros uses the same value so that every
#: frame agrees with HEBI's to 1e-9; the difference from ``math.pi`` is 8.7e-8 rad.
HEBI_PI = float(np.float32(math.pi))

#: Longest attribute value accepted by the grammars (characters).
MAX_VALUE_LENGTH = 4096
#: Deepest nesting of parentheses / unary operators accepted in a formula.
MAX_NESTING = 64

_FLOAT_RE = re.compile(r'[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?')
_NUMBER_TOKEN_RE = re.compile(r'(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?')
_IDENT_RE = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')
_WHITESPACE = ' \t\r\n'

# token kinds
_NUM, _IDENT, _OP, _END = 'number', 'name', 'operator', 'end'


def _tokenize(text: str) -> List[Tuple[str, object, int]]:
    """Split ``text`` into (kind, value, offset) tokens; whitespace separates tokens."""
    if len(text) > MAX_VALUE_LENGTH:
        raise ExpressionError(f'value longer than {MAX_VALUE_LENGTH} characters', 0)
    tokens = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _WHITESPACE:
            i += 1
            continue
        if c in '+-*/(),':
            tokens.append((_OP, c, i))
            i += 1
            continue
        m = _NUMBER_TOKEN_RE.match(text, i)
        if m:
            tokens.append((_NUM, float(m.group()), i))
            i = m.end()
            continue
        m = _IDENT_RE.match(text, i)
        if m:
            tokens.append((_IDENT, m.group(), i))
            i = m.end()
            continue
        raise ExpressionError(f"unexpected character '{c}'", i)
    tokens.append((_END, None, n))
    return tokens


class _Parser:
    """Recursive-descent parser over a token list; evaluates as it parses."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokenize(text)
        self.pos = 0
        self.depth = 0

    def peek(self):
        return self.tokens[self.pos]

    def take(self):
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expect_op(self, op: str):
        kind, value, offset = self.take()
        if kind != _OP or value != op:
            raise ExpressionError(f"expected '{op}' but found {_describe(kind, value)}", offset)

    def expect_end(self):
        kind, value, offset = self.peek()
        if kind != _END:
            raise ExpressionError(f'unexpected {_describe(kind, value)} after a complete value',
                                  offset)

    def _enter(self, offset: int):
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ExpressionError(f'nesting deeper than {MAX_NESTING} levels', offset)

    # additive := multiplicative (('+'|'-') multiplicative)*
    def additive(self) -> float:
        value = self.multiplicative()
        while True:
            kind, op, _ = self.peek()
            if kind == _OP and op in '+-':
                self.take()
                rhs = self.multiplicative()
                value = value + rhs if op == '+' else value - rhs
            else:
                return value

    # multiplicative := unary (('*'|'/') unary)*
    def multiplicative(self) -> float:
        value = self.unary()
        while True:
            kind, op, offset = self.peek()
            if kind == _OP and op in '*/':
                self.take()
                rhs = self.unary()
                if op == '*':
                    value = value * rhs
                else:
                    if rhs == 0.0:
                        raise ExpressionError('division by zero', offset)
                    value = value / rhs
            else:
                return value

    # unary := ('+'|'-') unary | primary
    def unary(self) -> float:
        sign = 1.0
        count = 0
        while True:  # iterate rather than recurse over runs of signs like '----1'
            kind, op, offset = self.peek()
            if kind == _OP and op in '+-':
                self.take()
                count += 1
                if count > MAX_NESTING:
                    raise ExpressionError(f'more than {MAX_NESTING} unary signs', offset)
                if op == '-':
                    sign = -sign
            else:
                break
        value = self.primary()
        return -value if sign < 0 else value

    # primary := number | 'pi' | '(' additive ')'
    def primary(self) -> float:
        kind, value, offset = self.take()
        if kind == _NUM:
            return value
        if kind == _IDENT:
            if value == 'pi':
                return HEBI_PI
            hint = " (the constant is lower-case 'pi')" if value.lower() == 'pi' else ''
            raise ExpressionError(f"unknown name '{value}'{hint}", offset)
        if kind == _OP and value == '(':
            self._enter(offset)
            inner = self.additive()
            self.expect_op(')')
            self.depth -= 1
            return inner
        raise ExpressionError(f'expected a number, pi or ( but found {_describe(kind, value)}',
                              offset)


def _describe(kind: str, value) -> str:
    if kind == _END:
        return 'end of value'
    if kind == _NUM:
        return f"number '{value:g}'"
    return f"'{value}'"


def parse_float(text: str) -> float:
    """Parse an HRDF *floating point* value (C-style literal with optional sign).

    Args:
        text: the attribute value; leading/trailing whitespace is ignored.

    Returns:
        The value as a Python float.

    Raises:
        ExpressionError: if ``text`` is not exactly one floating point literal.
    """
    stripped = text.strip(_WHITESPACE)
    if not _FLOAT_RE.fullmatch(stripped):
        raise ExpressionError(f"'{text}' is not a floating point number", 0)
    return float(stripped)


def parse_formula(text: str) -> float:
    """Evaluate an HRDF *floating point formula* (e.g. ``"(100 + 45) / (3*pi)"``).

    ``pi`` evaluates to :data:`HEBI_PI`.

    Args:
        text: the attribute value.

    Returns:
        The value as a Python float (finite).

    Raises:
        ExpressionError: on a syntax error, unknown name, division by zero, nesting
            deeper than :data:`MAX_NESTING`, or a non-finite result.
    """
    parser = _Parser(text)
    if parser.peek()[0] == _END:
        raise ExpressionError('empty formula', 0)
    value = parser.additive()
    parser.expect_end()
    if not math.isfinite(value):
        raise ExpressionError('formula does not evaluate to a finite number', 0)
    return value


def rotation_x(angle: float) -> np.ndarray:
    """Rotation matrix (3, 3) about x by ``angle`` rad."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rotation_y(angle: float) -> np.ndarray:
    """Rotation matrix (3, 3) about y by ``angle`` rad."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rotation_z(angle: float) -> np.ndarray:
    """Rotation matrix (3, 3) about z by ``angle`` rad."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


_AXIS_ROTATIONS = {'Rx': rotation_x, 'Ry': rotation_y, 'Rz': rotation_z}

#: Largest accepted deviation of a nine-number rotation from orthonormality,
#: max |R^T R - I| (HEBI's importer accepts 1e-7 deviations and rejects 2 0 0 ...).
ROTATION_TOLERANCE = 1e-6


def parse_rotation(text: str) -> np.ndarray:
    """Parse an HRDF *rotation matrix* value.

    Accepts nine whitespace-separated floating point values (row major) or a product of
    ``Rx(formula)``, ``Ry(formula)``, ``Rz(formula)`` terms joined by ``*`` (angles in
    rad, composed left to right as matrix products).

    Returns:
        A (3, 3) float64 rotation matrix.

    Raises:
        ExpressionError: on a syntax error, a wrong count of numbers, or a nine-number
            matrix that is not a proper rotation (orthonormal within
            :data:`ROTATION_TOLERANCE`, determinant +1).
    """
    if len(text) > MAX_VALUE_LENGTH:
        raise ExpressionError(f'value longer than {MAX_VALUE_LENGTH} characters', 0)
    stripped = text.strip(_WHITESPACE)
    if stripped[:1] == 'R':
        return _parse_rotation_product(text)
    parts = stripped.split()
    if len(parts) != 9:
        if stripped[:1].lower() == 'r':
            raise ExpressionError("rotation functions are 'Rx', 'Ry' and 'Rz' (case sensitive)",
                                  text.find(stripped[:1]))
        raise ExpressionError(
            f'a rotation needs 9 numbers or Rx/Ry/Rz terms, found {len(parts)} value(s)', 0)
    values = []
    for part in parts:
        if not _FLOAT_RE.fullmatch(part):
            raise ExpressionError(f"'{part}' is not a floating point number", text.find(part))
        values.append(float(part))
    matrix = np.array(values, dtype=float).reshape(3, 3)
    if not np.all(np.isfinite(matrix)):
        raise ExpressionError('rotation matrix has a non-finite entry', 0)
    error = np.max(np.abs(matmul(matrix.T, matrix) - np.eye(3)))
    if error > ROTATION_TOLERANCE or np.linalg.det(matrix) <= 0.0:
        raise ExpressionError(
            f'matrix is not a rotation (orthonormality error {error:.3g}, '
            f'determinant {np.linalg.det(matrix):.6g})', 0)
    return matrix


def _parse_rotation_product(text: str) -> np.ndarray:
    parser = _Parser(text)
    result = np.eye(3)
    while True:
        kind, name, offset = parser.take()
        if kind != _IDENT or name not in _AXIS_ROTATIONS:
            raise ExpressionError(
                f"expected Rx, Ry or Rz but found {_describe(kind, name)}", offset)
        parser.expect_op('(')
        angle = parser.additive()
        parser.expect_op(')')
        if not math.isfinite(angle):
            raise ExpressionError('rotation angle is not finite', offset)
        result = matmul(result, _AXIS_ROTATIONS[name](angle))
        kind, op, offset = parser.peek()
        if kind == _END:
            return result
        if kind == _OP and op == '*':
            parser.take()
            continue
        raise ExpressionError(f"expected '*' between rotations but found {_describe(kind, op)}",
                              offset)


def parse_translation(text: str) -> np.ndarray:
    """Parse an HRDF *translation vector*: three whitespace-separated floating point values.

    Returns:
        A (3,) float64 vector (m).

    Raises:
        ExpressionError: unless the value is exactly three floating point literals.
            (HEBI's importer silently reads ``"pi 0 0"`` as zero and ``"1/2 0 0"`` as 1;
            hrdf_ros rejects both.)
    """
    if len(text) > MAX_VALUE_LENGTH:
        raise ExpressionError(f'value longer than {MAX_VALUE_LENGTH} characters', 0)
    parts = text.split()
    if len(parts) != 3:
        raise ExpressionError(f'a translation needs 3 numbers, found {len(parts)}', 0)
    values = []
    for part in parts:
        if not _FLOAT_RE.fullmatch(part):
            raise ExpressionError(f"'{part}' is not a floating point number", text.find(part))
        values.append(float(part))
    vector = np.array(values, dtype=float)
    if not np.all(np.isfinite(vector)):
        raise ExpressionError('translation has a non-finite entry', 0)
    return vector
