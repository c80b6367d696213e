"""Numbers and poses as XML attribute text, shared by the URDF and SDFormat writers.

In: floats and (4, 4) transforms (m, rad). Out: strings with full double precision
(``repr``), so a reader recovers every bit of the value; and the XML document text of an
element tree (xml.etree, never string concatenation).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Tuple

import numpy as np

from ..kinematics.rotations import rotation_to_rpy


def num(value: float) -> str:
    """``repr`` of a float, ``'0'`` for zero (either sign)."""
    value = float(value)
    if value == 0.0:
        return '0'
    return repr(value)


def nums(values) -> str:
    """Space-separated :func:`num` of each value."""
    return ' '.join(num(v) for v in values)


def xyz_rpy(transform: np.ndarray) -> Tuple[str, str]:
    """(``'x y z'`` in m, ``'roll pitch yaw'`` in rad, URDF/SDFormat fixed-axis XYZ) of a
    (4, 4) transform."""
    transform = np.asarray(transform, dtype=float)
    return nums(transform[:3, 3]), nums(rotation_to_rpy(transform[:3, :3]))


def comment(text: str) -> ET.Element:
    """An XML comment; ``--`` (not allowed in comments) becomes ``- -``."""
    while '--' in text:
        text = text.replace('--', '- -')
    return ET.Comment(f' {text.strip()} ')


def document(root: ET.Element) -> str:
    """The indented UTF-8 XML document text of ``root`` (with an XML declaration)."""
    ET.indent(root, space='  ')
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding='unicode') \
        + '\n'


def axis_text(axis) -> str:
    """``'0 0 1'``, ``'0 0 -1'``: a principal unit axis as URDF/SDFormat/MJCF text."""
    return ' '.join(f'{float(v) + 0.0:g}' for v in axis)
