"""How every output spells a number: one rule, with a precision per quantity.

In: a float and the :class:`Quantity` it measures. Out: its text (XML, the command line's
tables) or a float whose ``repr`` is that text (for YAML, which writes ``repr``).

The rule (doc/explanation/conventions.md, "Numbers in files"):

1. A value whose magnitude is below its quantity's :attr:`Quantity.zero` is written
   ``0``: it is rounding left over from a computation (``-8.0e-19`` m as a centre of
   mass on an axis, ``6.1e-17`` as a quaternion component), far below anything a
   consumer can measure.
2. Any other value is rounded to :data:`DIGITS` significant digits and written as
   Python's shortest round-trip text of that rounded value: a value a few ulps from a
   shorter decimal is that decimal (``6.580000000000001e-05`` -> ``6.58e-05``,
   ``0.0049999999999999975`` -> ``0.005``).
3. Limits are rounded inward, not to the nearest: a lower position limit up, an upper
   one down, a velocity, acceleration or effort limit toward zero. A written limit then
   never admits more than the bound it stands for (a HEBI gains file's 32 rpm is
   3.35103216382 rad/s, not 3.35103216383).

Twelve digits are 3 orders of magnitude below every figure a consumer of the files
checks (forward kinematics to 1e-9 m, masses and inertias to 1e-9 relative) and 4 above
the rounding of a double (1.1e-16 relative), which is where results differ between
machines (BLAS kernels, SIMD paths). HEBI's float32 constants keep their float32 values
to 12 digits (X5's 0.0195000004023 m, not 0.0195): their difference from the decimal
in HEBI's documentation (2e-8 relative) is what makes hrdf_ros's kinematics equal
hebi-py's, and it is written.

Rounding does not make every machine write the same digits by itself (a value can sit
right on a rounding boundary); the values are also computed the same way everywhere
(:mod:`hrdf_ros.reproducible`).
"""
from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from typing import Iterable, Optional

#: Significant digits of every written number.
DIGITS = 12


@dataclass(frozen=True)
class Quantity:
    """What a number measures, and below which magnitude it is written 0.

    Attributes:
        name: the quantity (``length``, ``inertia``, ...).
        unit: its SI unit, as the conventions page writes it.
        zero: magnitudes below this are rounding noise, written 0 (in ``unit``).
    """

    name: str
    unit: str
    zero: float


#: Positions, sizes, radii (m).
LENGTH = Quantity('length', 'm', 1e-12)
#: Roll, pitch, yaw (rad).
ANGLE = Quantity('angle', 'rad', 1e-12)
#: Joint positions and their limits (rad, or m for prismatic joints).
POSITION = Quantity('joint position', 'rad or m', 1e-12)
#: Dimensionless: quaternion components, colours, mesh scales, gear ratios, multipliers.
RATIO = Quantity('ratio', '1', 1e-12)
#: Masses (kg).
MASS = Quantity('mass', 'kg', 1e-12)
#: Moments and products of inertia (kg m^2): HEBI's smallest moment is 3e-8, the
#: physical fill's 4e-10, and rounding leaves 1e-19.
INERTIA = Quantity('inertia', 'kg m^2', 1e-15)
#: Joint velocities (rad/s, m/s).
VELOCITY = Quantity('velocity', 'rad/s or m/s', 1e-12)
#: Joint accelerations (rad/s^2, m/s^2).
ACCELERATION = Quantity('acceleration', 'rad/s^2 or m/s^2', 1e-12)
#: Joint efforts (N m, N).
EFFORT = Quantity('effort', 'N m or N', 1e-12)
#: Controller gains (MuJoCo kp in N m/rad, kv in N m s/rad, armature in kg m^2).
GAIN = Quantity('gain', 'N m/rad, N m s/rad, kg m^2', 1e-12)
#: Times (s).
TIME = Quantity('time', 's', 1e-12)

#: Every quantity, in the order of the conventions page's table.
QUANTITIES = (LENGTH, ANGLE, POSITION, RATIO, MASS, INERTIA, VELOCITY, ACCELERATION,
              EFFORT, GAIN, TIME)


#: Directions of rounding: the nearest (ties to even), or toward zero, up, down.
_MODES = {None: decimal.ROUND_HALF_EVEN, 'zero': decimal.ROUND_DOWN,
          'up': decimal.ROUND_CEILING, 'down': decimal.ROUND_FLOOR}


def rounded(value: float, quantity: Quantity, toward: Optional[str] = None) -> float:
    """``value`` as written (module docstring): 0 below ``quantity.zero``, else rounded to
    :data:`DIGITS` significant digits. Not-finite values are returned as they are.

    Args:
        toward: ``None``: to the nearest; ``'zero'``, ``'up'`` or ``'down'``: in that
            direction, for limits, which are written inside the bound they stand for
            (:func:`lower_limit`, :func:`upper_limit`, :func:`magnitude_limit`).
    """
    value = float(value)
    if not math.isfinite(value):
        return value
    if abs(value) < quantity.zero:
        return 0.0
    nearest = float(f'{value:.{DIGITS}g}')
    if toward is None or nearest == value or _inward(nearest, value, toward):
        return nearest
    # the 12-digit decimal on the right side (the value's exact binary expansion is
    # rounded in that direction: 32 rpm, 3.3510321638291125 rad/s, gives 3.35103216382)
    context = decimal.Context(prec=DIGITS, rounding=_MODES[toward])
    return float(context.create_decimal(value))


def _inward(candidate: float, value: float, toward: str) -> bool:
    """True when ``candidate`` lies on the ``toward`` side of ``value``."""
    return {'zero': abs(candidate) <= abs(value), 'up': candidate >= value,
            'down': candidate <= value}[toward]


def lower_limit(value: float, quantity: Quantity) -> float:
    """A lower bound as written: rounded up, so that it never admits a value below it."""
    return rounded(value, quantity, 'up')


def upper_limit(value: float, quantity: Quantity) -> float:
    """An upper bound as written: rounded down, so that it never admits a value above it."""
    return rounded(value, quantity, 'down')


def magnitude_limit(value: float, quantity: Quantity) -> float:
    """A velocity, acceleration or effort limit as written: rounded toward zero, so that it
    never exceeds the rated or configured bound it comes from."""
    return rounded(value, quantity, 'zero')


def text(value: float) -> str:
    """The text of an already rounded value: ``'0'`` for zero, else its ``repr``."""
    value = float(value)
    return '0' if value == 0.0 else repr(value)


def num(value: float, quantity: Quantity, toward: Optional[str] = None) -> str:
    """The text of ``value`` as written: :func:`text` of :func:`rounded`."""
    return text(rounded(value, quantity, toward))


def nums(values: Iterable[float], quantity: Quantity, toward: Optional[str] = None) -> str:
    """Space-separated :func:`num` of each value."""
    return ' '.join(num(v, quantity, toward) for v in values)


def table_number(value: float, decimals: int = 9) -> str:
    """``value`` with ``decimals`` decimals and a sign column (``' 0.100000000'``,
    ``'-0.250000000'``), the command line's tables: rounded first, so that noise
    below the last decimal is ``' 0.000000000'``, never ``'-0.000000000'``."""
    return f'{round(float(value), decimals) + 0.0: .{decimals}f}'
