"""The HEBI module catalogue: mass properties and frames of every built-in HRDF type.

Units: m, kg, rad, kg m^2, rad/s, N m. Frames: every geometric value is expressed in
the element's *input* frame (the interface it mounts by); actuator output frames rotate
about that frame's +z axis.

Sources. Masses, centres of mass, output frames, interface geometry, rated speeds and
efforts were read off HEBI's own library, hebi-py 2.16.1 (hebi-core), by importing
one-element HRDFs (e.g. ``<robot version="1.6.0"><actuator type="X5-1"/></robot>``) and
reading ``masses``, ``max_speeds``, ``max_efforts`` and the ``input``/``output``/``com``
forward kinematics; interface types are from HEBI's FORMAT.md (HRDF 1.6.0). hebi-core
stores some constants in single precision; those are written ``_f32(x)`` below so the
values here equal HEBI's bit for bit. Inertia tensors are documented per entry in
:mod:`hrdf_ros.hrdf.inertia`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Tuple

import numpy as np

from . import inertia as _inertia


def _f32(x: float) -> float:
    """The double nearest the single-precision value of ``x`` (hebi-core storage)."""
    return float(np.float32(x))


def _rpm(rpm: float) -> float:
    """Revolutions per minute to rad/s (as hebi-core computes rated speeds)."""
    return rpm * 2 * math.pi / 60


Vec3 = Tuple[float, float, float]
Inertia6 = Tuple[float, float, float, float, float, float]  # ixx iyy izz ixy ixz iyz


@dataclass(frozen=True)
class ActuatorSpec:
    """A HEBI actuator type.

    Attributes:
        name: HRDF type string (e.g. ``'X8-9'``).
        series: interface family, ``'X'``, ``'R8'`` or ``'R25'`` (FORMAT.md table).
        mass: kg (housing; the output side is massless in HEBI's model).
        com: (3,) centre of mass in the input frame, m.
        inertia: (ixx, iyy, izz, ixy, ixz, iyz) about the COM, axes of the input frame,
            kg m^2.
        output_height: m; output frame = input frame translated by (0, 0, h), then
            rotated about +z by the joint position.
        max_speed: rated speed, rad/s.
        max_effort: rated torque, N m.
    """

    name: str
    series: str
    mass: float
    com: Vec3
    inertia: Inertia6
    output_height: float
    max_speed: float
    max_effort: float


def _actuators() -> Dict[str, ActuatorSpec]:
    x5_com = (_f32(-0.0142), _f32(-0.0031), _f32(0.0165))
    x8_com = (_f32(-0.0145), _f32(-0.0031), _f32(0.0242))
    r8_com = (_f32(-0.024), _f32(-0.00161), _f32(0.0256))
    t5_com = (_f32(-0.024), _f32(-0.00161), _f32(0.0165))
    r25_com = (_f32(-0.0268), _f32(-0.000357), _f32(0.0349))
    t25_com = (_f32(-0.0241), _f32(-0.0001), _f32(0.0338))
    rows = [
        # name, series, mass, com, output height, rpm, N m
        ('X5-1', 'X', 0.315, x5_com, 0.03105, 90, 2.5),
        ('X5-4', 'X', 0.335, x5_com, 0.03105, 32, 7.0),
        ('X5-9', 'X', 0.360, x5_com, 0.03105, 14, 13.0),
        ('X8-3', 'X', 0.460, x8_com, 0.0451, 110, 8.0),
        ('X8-9', 'X', 0.480, x8_com, 0.0451, 39, 23.0),
        ('X8-16', 'X', 0.500, x8_com, 0.0451, 20, 44.0),
        ('R8-3', 'R8', 0.670, r8_com, 0.051, 110, 8.0),
        ('R8-9', 'R8', 0.685, r8_com, 0.051, 39, 23.0),
        ('R8-16', 'R8', 0.715, r8_com, 0.051, 20, 44.0),
        ('T5-1', 'R8', 0.450, t5_com, 0.034, 90, 2.5),
        ('T5-4', 'R8', 0.450, t5_com, 0.034, 32, 7.0),
        ('T5-9', 'R8', 0.450, t5_com, 0.034, 14, 13.0),
        ('T8-3', 'R8', 0.650, r8_com, 0.0475, 110, 8.0),
        ('T8-9', 'R8', 0.650, r8_com, 0.0475, 39, 23.0),
        ('T8-16', 'R8', 0.650, r8_com, 0.0475, 20, 44.0),
        ('R25-8', 'R25', 1.9, r25_com, 0.069, 118, 16.0),
        ('R25-20', 'R25', 1.9, r25_com, 0.069, 47, 40.0),
        ('R25-40', 'R25', 1.9, r25_com, 0.069, 23, 80.0),
        ('T25-8', 'R25', 1.5, t25_com, 0.067, 118, 16.0),
        ('T25-20', 'R25', 1.5, t25_com, 0.067, 47, 40.0),
        ('T25-40', 'R25', 1.5, t25_com, 0.067, 23, 80.0),
    ]
    return {name: ActuatorSpec(name, series, mass, com, _inertia.actuator(name, mass),
                               height, _rpm(rpm), effort)
            for name, series, mass, com, height, rpm, effort in rows}


ACTUATORS: Dict[str, ActuatorSpec] = _actuators()


@dataclass(frozen=True)
class BracketSpec:
    """A HEBI bracket type (one output).

    Attributes:
        name: HRDF type string (e.g. ``'X5LightRight'``).
        series: interface family, ``'X'``, ``'R8'`` or ``'R25'``.
        mass: kg.
        com: (3,) centre of mass in the input frame, m.
        inertia: about the COM, input-frame axes, kg m^2.
        output_translation: (3,) output frame origin in the input frame, m.
        output_rx: output frame rotation about the input x axis, rad (+pi/2 for right
            brackets, -pi/2 for left).
    """

    name: str
    series: str
    mass: float
    com: Vec3
    inertia: Inertia6
    output_translation: Vec3
    output_rx: float


def _brackets() -> Dict[str, BracketSpec]:
    # Left-hand geometry per family; right-hand brackets mirror y and the rotation.
    # light: (mass, output y, output z, com y, com z)
    # heavy: (mass, output z, com z, {mount: (output y, com y)})
    light = {
        'X5': ('X', 0.1, 0.043, 0.04, 0.0215, 0.02),
        'R8': ('R8', 0.14, 0.043, 0.04, 0.023, 0.02),
        'R25': ('R25', 0.264, 0.055, 0.055, 0.0275, 0.0275),
    }
    heavy = {
        'X5': (0.215, 0.055, 0.0275, {'Inside': (-0.0225, -0.02), 'Outside': (0.0375, 0.02)}),
        'R8': (0.212, 0.055, 0.025, {'Inside': (-0.0225, -0.02), 'Outside': (0.0375, 0.02)}),
        'R25': (0.472, 0.07, 0.035, {'Inside': (-0.035, -0.03), 'Outside': (0.055, 0.045)}),
    }
    out = {}
    for side, sign, rx in (('Left', 1.0, -math.pi / 2), ('Right', -1.0, math.pi / 2)):
        for prefix, (series, mass, y, z, com_y, com_z) in light.items():
            name = f'{prefix}Light{side}'
            out[name] = BracketSpec(name, series, _f32(mass),
                                    (0.0, sign * _f32(com_y), _f32(com_z)),
                                    _inertia.bracket(name, _f32(mass)),
                                    (0.0, sign * _f32(y), _f32(z)), rx)
        for prefix, (mass, z, com_z, mounts) in heavy.items():
            for mount, (y, com_y) in mounts.items():
                name = f'{prefix}Heavy{side}{mount}'
                out[name] = BracketSpec(name, light[prefix][0], _f32(mass),
                                        (0.0, sign * _f32(com_y), _f32(com_z)),
                                        _inertia.bracket(name, _f32(mass)),
                                        (0.0, sign * _f32(y), _f32(z)), rx)
    return out


BRACKETS: Dict[str, BracketSpec] = _brackets()


@dataclass(frozen=True)
class LinkSpec:
    """A HEBI tube link family (parameterised by extension and twist).

    Geometry (h = ``half_height``, e = extension in m, t = twist in rad), all in the
    input frame: with a right-angle input the tube axis runs along +x at height h; with
    an inline input it runs along +z.

    * RightAngle -> RightAngle: output = T(e, 0, h) Rx(t) T(0, 0, h)
    * RightAngle -> Inline:     output = T(e, 0, h) Rx(t) Ry(pi/2)
    * Inline -> RightAngle:     output = T(0, 0, e) Rz(t) T(-h, 0, 0) Ry(-pi/2)
    * Inline -> Inline:         output = T(0, 0, e) Rz(t)

    The centre of mass is the tube midpoint: (e/2, 0, h) for a right-angle input,
    (0, 0, e/2) for an inline input. Mass = base mass + ``mass_per_metre`` * e, with the
    base mass depending on the end styles.

    Attributes:
        name: HRDF type string.
        input_series / output_series: interface families at each end.
        half_height: m.
        mass_per_metre: kg/m.
        base_mass: kg for extension 0, keyed by (input, output) style.
        inline_output: whether an ``Inline`` output is available.
    """

    name: str
    input_series: str
    output_series: str
    half_height: float
    mass_per_metre: float
    base_mass: Dict[Tuple[str, str], float]
    inline_output: bool


def _link_masses(right_right: float, inline_output_extra: float, inline_input_extra: float):
    return {
        ('RightAngle', 'RightAngle'): right_right,
        ('RightAngle', 'Inline'): right_right + inline_output_extra,
        ('Inline', 'RightAngle'): right_right + inline_input_extra,
        ('Inline', 'Inline'): right_right + inline_output_extra + inline_input_extra,
    }


LINKS: Dict[str, LinkSpec] = {
    'X5': LinkSpec('X5', 'X', 'X', 0.02, 0.4, _link_masses(0.199, 0.013, 0.015), True),
    'R8': LinkSpec('R8', 'R8', 'R8', 0.02, 0.4, _link_masses(0.199, 0.013, 0.015), True),
    'R25': LinkSpec('R25', 'R25', 'R25', 0.0275, 0.56, _link_masses(0.525, 0.112, 0.001),
                    True),
    'R25-R8': LinkSpec('R25-R8', 'R25', 'R8', 0.0275, 0.56, _link_masses(0.525, 0.112, 0.001),
                       False),
}

LINK_INPUT_STYLES = ('RightAngle', 'Inline')
LINK_OUTPUT_STYLES = ('RightAngle', 'Inline')


@dataclass(frozen=True)
class EndEffectorSpec:
    """A built-in end effector type.

    Attributes:
        name: HRDF type string.
        series: required input interface family, or ``None`` for any (Custom).
        mass: kg.
        com: (3,) in the input frame, m.
        inertia: about the COM, kg m^2.
        output_translation: (3,) end-effector frame origin in the input frame, m.
    """

    name: str
    series: object
    mass: float
    com: Vec3
    inertia: Inertia6
    output_translation: Vec3


END_EFFECTORS: Dict[str, EndEffectorSpec] = {
    'Custom': EndEffectorSpec('Custom', None, 0.0, (0.0, 0.0, 0.0), (0.0,) * 6, (0.0, 0.0, 0.0)),
    'X5Parallel': EndEffectorSpec('X5Parallel', 'X', _f32(0.2464), (0.0, 0.0, _f32(0.045)),
                                  _inertia.gripper('X5Parallel', _f32(0.2464)),
                                  (0.0, 0.0, _f32(0.095))),
    'R8Parallel': EndEffectorSpec('R8Parallel', 'R8', _f32(0.2464), (0.0, 0.0, _f32(0.045)),
                                  _inertia.gripper('R8Parallel', _f32(0.2464)),
                                  (0.0, 0.0, _f32(0.095))),
}

#: Types added to the HRDF spec after 1.0.0, with the version that introduced them
#: (FORMAT.md CHANGELOG): R-series in 1.2.0, T-series in 1.4.0, R25/T25 in 1.6.0.
TYPE_MIN_VERSION: Dict[str, Tuple[int, int, int]] = {}
for _name in ACTUATORS:
    if _name.startswith(('R25', 'T25')):
        TYPE_MIN_VERSION[_name] = (1, 6, 0)
    elif _name.startswith('T'):
        TYPE_MIN_VERSION[_name] = (1, 4, 0)
    elif _name.startswith('R8'):
        TYPE_MIN_VERSION[_name] = (1, 2, 0)
for _name in BRACKETS:
    if _name.startswith('R25'):
        TYPE_MIN_VERSION[_name] = (1, 6, 0)
    elif _name.startswith('R8'):
        TYPE_MIN_VERSION[_name] = (1, 2, 0)
TYPE_MIN_VERSION.update({'link:R8': (1, 2, 0), 'link:R25': (1, 6, 0), 'link:R25-R8': (1, 6, 0)})
