"""Poses as XML attribute text, and XML document text, shared by the writers.

In: (4, 4) transforms (m, rad). Out: strings by the one rule for numbers
(:mod:`.numbers`), and the XML document text of an element tree (xml.etree, never string
concatenation).
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from typing import Tuple

import numpy as np

from ..kinematics.rotations import rotation_to_rpy
from ..numbers import ANGLE, LENGTH, nums


def xyz_rpy(transform: np.ndarray) -> Tuple[str, str]:
    """(``'x y z'`` in m, ``'roll pitch yaw'`` in rad, URDF/SDFormat fixed-axis XYZ) of a
    (4, 4) transform."""
    transform = np.asarray(transform, dtype=float)
    return nums(transform[:3, 3], LENGTH), nums(rotation_to_rpy(transform[:3, :3]), ANGLE)


def source_name(path: str) -> str:
    """How a generated file names the HRDF it was made from: its file name alone, so that
    the same robot written from any folder, or by any path to it, gives the same bytes
    (``'<text>'`` for a model read from text)."""
    return os.path.basename(path) if path else '<text>'


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
