"""Mechanical interface types of HRDF elements and the rule for connecting them.

From HEBI's FORMAT.md (HRDF 1.6.0, "Interface types"): every element has an input
interface and zero or more output interfaces. An interface has a *type* (``X-AH``,
``R8-AH``, ``R25-AH``: actuator housing; ``X-AO``, ``R8-AO``, ``R25-AO``: actuator output)
and a *polarity* (``A`` or ``B``). Two adjacent elements fit when the parent's output
and the child's input have the same type and different polarity. ``rigid-body`` and
``joint`` elements, and the input of a ``Custom`` end effector, fit anything; nothing
mounts after an end effector (it has no output interface). The T-series actuators share
the R8 (T5, T8) and R25 (T25) bolt patterns.

The table is the spec's; hebi-py 2.16.1 enforces exactly the same pairs (measured with
every pair of element families), in every HRDF version (the spec introduced the notion in
1.2.0, but 1.0.0/1.1.0 files only have X-series parts, so nothing that was mechanically
possible is rejected). The module is pure data and functions; it has no notion of files.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from . import catalogue


@dataclass(frozen=True)
class Interface:
    """One mechanical interface.

    Attributes:
        family: ``'X'``, ``'R8'`` or ``'R25'`` (the catalogue's ``series``).
        part: ``'AH'`` (actuator housing bolt pattern) or ``'AO'`` (actuator output).
        polarity: ``'A'`` or ``'B'``.
    """

    family: str
    part: str
    polarity: str

    def __str__(self) -> str:
        return f'{self.family}-{self.part}-{self.polarity}'


def fits(output: Optional[Interface], input_: Optional[Interface]) -> bool:
    """True when an element with input ``input_`` may mount on output ``output``.

    ``None`` stands for a wildcard ("any": rigid bodies, joints, Custom end effectors,
    and the robot's base frame).
    """
    if output is None or input_ is None:
        return True
    return (output.family == input_.family and output.part == input_.part
            and output.polarity != input_.polarity)


def input_interface(kind: str, type_name: Optional[str]) -> Optional[Interface]:
    """Input interface of an element, or ``None`` for "any".

    Args:
        kind: HRDF element name (``'actuator'``, ``'link'``, ...).
        type_name: its catalogue type (``None`` for rigid-body and joint).

    Raises:
        KeyError: for a type not in :mod:`hrdf_ros.hrdf.catalogue`.
    """
    if kind == 'actuator':
        return Interface(catalogue.ACTUATORS[type_name].series, 'AH', 'A')
    if kind == 'bracket':
        return Interface(catalogue.BRACKETS[type_name].series, 'AO', 'B')
    if kind == 'link':
        return Interface(catalogue.LINKS[type_name].input_series, 'AO', 'B')
    if kind == 'end-effector':
        series = catalogue.END_EFFECTORS[type_name].series
        return None if series is None else Interface(series, 'AO', 'B')
    return None  # rigid-body, joint


def output_interface(kind: str, type_name: Optional[str]) -> Optional[Interface]:
    """Output interface of an element (all outputs of one element share it).

    ``None`` means "any" for rigid-body and joint. End effectors have no output
    interface; callers must not mount anything on them (this returns ``None``).

    Raises:
        KeyError: for a type not in :mod:`hrdf_ros.hrdf.catalogue`.
    """
    if kind == 'actuator':
        return Interface(catalogue.ACTUATORS[type_name].series, 'AO', 'A')
    if kind == 'bracket':
        return Interface(catalogue.BRACKETS[type_name].series, 'AH', 'B')
    if kind == 'link':
        return Interface(catalogue.LINKS[type_name].output_series, 'AH', 'B')
    return None  # rigid-body, joint, end-effector


__all__ = ['Interface', 'fits', 'input_interface', 'output_interface']
