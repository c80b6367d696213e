"""Rotational inertia of HEBI modules (kg m^2, about the COM, axes of the input frame).

HEBI's own library (hebi-core in hebi-py 2.16.1) does not use rotational inertia: its
dynamics compensation ignores it and no API exposes it. The only public numbers are in
HEBI's ROS package ``hebi_description`` (``urdf/components/*.xacro``, ros2 branches at
commit 49ee000, same values on humble/iron/compass). Where that package has no number,
the value below is an estimate, labelled as such. Masses always come from the catalogue
(hebi-core), so a tensor is scaled to that mass where the sources' masses differ.

Tuples are (ixx, iyy, izz, ixy, ixz, iyz).
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np

from ..reproducible import symmetric_eigenvalues
Inertia6 = Tuple[float, float, float, float, float, float]

# hebi_description urdf/components/actuator.xacro:147-149 (X5), 153-155 (X8), 159-161 (R8);
# the same package uses the X5 tensor for T5 (165-167) and the X8 tensor for T8 (171-173).
_X5 = (1.5e-4, 2.55e-4, 3.5e-4, 3.41e-5, 1.18e-5, 2.29e-6)
_X8 = (2.46e-4, 3.8e-4, 4.63e-4, 4.44e-5, 2.66e-5, 4.22e-6)
_R8 = (4.88e-4, 1.009e-3, 1.186e-3, 1.297e-5, 5.78e-5, 4.94e-6)
_R8_MASS = 0.685  # mass the R8 tensor was published with (R8-9), kg
_R8_HEIGHT = 0.051  # R8 output height (hebi-core), m

#: Radius of the sphere hebi_description models every bracket as (bracket.xacro: "small
#: sphere"), m.
BRACKET_SPHERE_RADIUS = 0.06

# hebi_description end_effector.xacro:267-424, parallel gripper: 13 bodies at zero joint
# angles summed about their composite COM (mass 0.206 kg); derived, not a published number.
_GRIPPER = (2.4630135074632265e-4, 9.05083000492488e-5, 1.852845506970739e-4, 0.0, 0.0, 0.0)
_GRIPPER_MASS = 0.206


def _scaled(tensor: Inertia6, factor: float) -> Inertia6:
    return tuple(v * factor for v in tensor)


def actuator(name: str, mass: float) -> Inertia6:
    """Inertia of an actuator type about its COM.

    X5-*, X8-*, R8-*: hebi_description's published tensors. T5-* / T8-*: the X5 / X8
    tensors, as hebi_description uses them. R25-* / T25-*: no public value; estimated as
    the R8 tensor scaled by mass and by the square of the output-height ratio
    (0.069/0.051 resp. 0.067/0.051), a size-similarity estimate.
    """
    family = name.split('-')[0]
    if family in ('X5', 'T5'):
        return _X5
    if family == 'X8' or family == 'T8':
        return _X8
    if family == 'R8':
        return _R8
    height = 0.069 if family == 'R25' else 0.067
    return _scaled(_R8, (mass / _R8_MASS) * (height / _R8_HEIGHT) ** 2)


def bracket(name: str, mass: float) -> Inertia6:
    """Inertia of a bracket: a solid sphere of radius 0.06 m (hebi_description's model for
    X5 brackets, bracket.xacro:49/191), applied to every bracket with its hebi-core mass."""
    i = 0.4 * mass * BRACKET_SPHERE_RADIUS ** 2
    return (i, i, i, 0.0, 0.0, 0.0)


def gripper(name: str, mass: float) -> Inertia6:
    """Inertia of the X5/R8 parallel gripper: hebi_description's 13-body gripper summed
    about its COM (derived), scaled from its 0.206 kg to the hebi-core mass."""
    return _scaled(_GRIPPER, mass / _GRIPPER_MASS)


def link(name: str, input_style: str, output_style: str, extension: float,
         mass: float) -> Inertia6:
    """Inertia of a tube link about its COM.

    hebi_description's link rule (link.xacro:111): a tube of radius r = the link's half
    height (0.02 m X5/R8, 0.0275 m R25), axial inertia m r^2 / 2, transverse
    m (e^2 + 6 r^2) / 12. The tube runs along x for a RightAngle input, along z for an
    Inline input (hebi-core's COM placement). R25 links use the same rule (no public
    value).
    """
    r = 0.0275 if name.startswith('R25') else 0.02
    axial = mass * r * r / 2
    transverse = mass * (extension * extension + 6 * r * r) / 12
    if input_style == 'Inline':
        return (transverse, transverse, axial, 0.0, 0.0, 0.0)
    return (axial, transverse, transverse, 0.0, 0.0, 0.0)


def tensor_problem(values: Sequence[float]) -> Optional[str]:
    """Why an inertia tensor is not physical, or ``None``.

    Args:
        values: (ixx, iyy, izz, ixy, ixz, iyz) about the COM, kg m^2.

    Returns:
        A message when the tensor is not positive semi-definite or its principal moments
        break the triangle inequality (each at most the sum of the other two), both with
        a relative tolerance of 1e-9 of the largest moment (rounding of written values).
    """
    ixx, iyy, izz, ixy, ixz, iyz = (float(v) for v in values)
    matrix = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    if not np.all(np.isfinite(matrix)):
        return 'inertia is not finite'
    moments = symmetric_eigenvalues(matrix)
    tolerance = 1e-9 * max(abs(moments).max(), 0.0)
    shown = ', '.join(f'{m:.6g}' for m in moments)
    if moments[0] < -tolerance:
        return f'inertia is not positive semi-definite (principal moments {shown} kg m^2)'
    if moments[0] + moments[1] < moments[2] - tolerance:
        return (f'inertia breaks the triangle inequality (principal moments {shown} kg m^2; '
                'the largest must not exceed the sum of the other two)')
    return None
