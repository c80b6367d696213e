"""HEBI's colours for the links of a model whose URDF names none.

In: a :class:`~hrdf_ros.model.RobotModel` and its frame tree. Out: ``{URDF link: RGB}``
(0..1) for the view to paint visuals that have no ``<material>`` (a material in the
URDF always wins).

Colours are those of HEBI's ROS description (hebi_description's ``hebi.xacro``
materials, as its ``actuator.xacro``, ``link.xacro``, ``bracket.xacro`` and
``end_effector.xacro`` use them): X-series actuators red (0.82 0.06 0.06), T-series
tangerine (0.91 0.43 0.218), R-series black; links, brackets and rigid bodies black
(0.1 0.1 0.1); end effectors silver (0.6 0.6 0.6).
"""
from __future__ import annotations

from typing import Dict, Tuple

from ..export.frame_tree import FrameTree
from ..model import Element, RobotModel

RED = (0.82, 0.06, 0.06)
TANGERINE = (0.91, 0.43, 0.218)
BLACK = (0.1, 0.1, 0.1)
SILVER = (0.6, 0.6, 0.6)


def element_colour(element: Element) -> Tuple[float, float, float]:
    """HEBI's colour of one element (see the module docstring)."""
    if element.kind == 'actuator':
        family = (element.type or '')[:1]
        return {'X': RED, 'T': TANGERINE}.get(family, BLACK)
    if element.kind == 'end-effector':
        return SILVER
    return BLACK


def link_colours(model: RobotModel, tree: FrameTree) -> Dict[str, Tuple[float, float, float]]:
    """HEBI's colour per element link of ``tree`` (URDF link name -> RGB, 0..1)."""
    return {tree.element_links[i]: element_colour(e) for i, e in enumerate(model.elements)}
