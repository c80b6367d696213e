"""A robot model written as HRDF text: :func:`to_hrdf`, the inverse of :mod:`.reader`.

In: a :class:`~hrdf_ros.model.RobotModel` (read from a file, or built). Out: an HRDF 1.6.0
document (FORMAT.md) that :func:`~hrdf_ros.loads` and HEBI's library read back as the
same robot: the same elements in the same order, so the same frames, masses, degrees of
freedom and joint names. Included files are written in place (one flat document).

What is written, element by element:

* catalogue parts (actuators, brackets, links, typed end effectors) by their ``type``
  (and a link's styles, ``extension`` and ``twist``), plus FORMAT.md's overrides
  (``mass``, ``com_trans``, ``com_rot``, ``ixx`` ... ``iyz``) where the model's values
  differ from what the type alone gives (the reader's own result for the bare element,
  compared bit for bit), and an end effector's ``output_trans``/``output_rot`` where they
  differ from its type's;
* rigid bodies and ``Custom`` end effectors with every value; joints by ``axis`` (a
  negative axis as read: ``-rz``), ``gear_ratio`` unless 1;
* an element with several outputs (a bracket or rigid body that branches) with one
  ``<output>`` child per output, each holding the chain mounted there; otherwise the
  chain goes on as the element's next sibling;
* the ``<robot>``'s ``trans``/``rot`` where the base frame is not the identity, its
  ``description``, and each element's ``tag``; a rigid body's ``mesh_path`` as written
  in its file (relative to that file's folder: write the text beside it, or the mesh is
  missing on reading, a warning).

Numbers are written as Python's shortest exact decimal (``repr``) and rotations as nine
numbers, row major: the values read back are the same doubles. XML comes from the
standard library's ElementTree.
"""
from __future__ import annotations

import functools
import xml.etree.ElementTree as ET
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..model import Element, RobotModel
from .versions import INERTIA_ATTRIBUTES

#: The version written: the newest FORMAT.md, which allows every element, attribute and
#: type (R25/T25 parts: 1.6.0).
VERSION = '1.6.0'


def _number(value: float) -> str:
    """The shortest decimal that reads back as the same double (-0.0 as 0)."""
    return repr(float(value) + 0.0)


def _translation(vector) -> str:
    return ' '.join(_number(v) for v in np.asarray(vector, dtype=float)[:3])


def _rotation(matrix) -> str:
    return ' '.join(_number(v) for v in np.asarray(matrix, dtype=float)[:3, :3].ravel())


def _set_transform(node: ET.Element, transform: np.ndarray, rot: str, trans: str,
                   default: Optional[np.ndarray] = None) -> None:
    """``rot``/``trans`` attributes of a (4, 4) transform, each left out where it equals
    ``default``'s (the identity when None)."""
    default = np.eye(4) if default is None else default
    if not np.array_equal(transform[:3, :3], default[:3, :3]):
        node.set(rot, _rotation(transform))
    if not np.array_equal(transform[:3, 3], default[:3, 3]):
        node.set(trans, _translation(transform[:3, 3]))


@functools.lru_cache(maxsize=256)
def _bare(kind: str, attributes: Tuple[Tuple[str, str], ...]) -> Element:
    """The element the reader builds from ``attributes`` alone (no overrides): what the
    catalogue gives a part of that type."""
    from .reader import loads  # noqa: PLC0415 - the reader imports nothing of this
    node = ET.Element(kind, dict(attributes))
    robot = ET.Element('robot', {'version': VERSION})
    robot.append(node)
    return loads(ET.tostring(robot, encoding='unicode')).elements[0]


def _mass_overrides(node: ET.Element, element: Element, bare: Element) -> None:
    """FORMAT.md's overrides where the model's mass properties differ from ``bare``'s."""
    if element.mass != bare.mass:
        node.set('mass', _number(element.mass))
    if not np.array_equal(element.com[:3, 3], bare.com[:3, 3]):
        node.set('com_trans', _translation(element.com[:3, 3]))
    if not np.array_equal(element.com[:3, :3], bare.com[:3, :3]):
        node.set('com_rot', _rotation(element.com))
    for k, name in enumerate(INERTIA_ATTRIBUTES):
        if element.inertia[k] != bare.inertia[k]:
            node.set(name, _number(element.inertia[k]))


def _catalogue_part(element: Element) -> ET.Element:
    """An actuator, bracket, link or typed end effector: its type (and link geometry),
    overrides where the model differs from the type alone."""
    attributes = {'type': element.type}
    if element.link is not None:
        attributes.update(input=element.link.input, output=element.link.output,
                          extension=_number(element.link.extension),
                          twist=_number(element.link.twist))
    bare = _bare(element.kind, tuple(sorted(attributes.items())))
    node = ET.Element(element.kind, attributes)
    _mass_overrides(node, element, bare)
    if element.is_end_effector:
        _set_transform(node, element.outputs[0], 'output_rot', 'output_trans',
                       bare.outputs[0])
    return node


def _rigid_body(element: Element) -> ET.Element:
    node = ET.Element('rigid-body', {'mass': _number(element.mass)})
    _set_transform(node, element.com, 'com_rot', 'com_trans')
    for k, name in enumerate(INERTIA_ATTRIBUTES):
        if element.inertia[k] != 0.0:
            node.set(name, _number(element.inertia[k]))
    if len(element.outputs) == 1:
        _set_transform(node, element.outputs[0], 'output_rot', 'output_trans')
    if element.mesh_path is not None:
        node.set('mesh_path', element.mesh_path)
        _set_transform(node, element.mesh_transform, 'mesh_rot', 'mesh_trans')
    return node


def _joint(element: Element) -> ET.Element:
    node = ET.Element('joint', {'axis': ('-' if element.axis_sign < 0 else '')
                                + element.motion})
    if element.gear_ratio != 1.0:
        node.set('gear_ratio', _number(element.gear_ratio))
    return node


def _element_node(element: Element) -> ET.Element:
    if element.kind == 'rigid-body':
        node = _rigid_body(element)
    elif element.kind == 'joint':
        node = _joint(element)
    elif element.kind == 'end-effector' and element.type == 'Custom':
        node = ET.Element('end-effector', {'type': 'Custom'})
        _mass_overrides(node, element, _bare('end-effector', (('type', 'Custom'),)))
        _set_transform(node, element.outputs[0], 'output_rot', 'output_trans')
    else:
        node = _catalogue_part(element)
    if element.tag is not None:
        node.set('tag', element.tag)
    return node


def _chain(parent: ET.Element, model: RobotModel,
           children: Dict[Tuple[int, int], List[int]], index: int) -> None:
    """Append element ``index`` and what hangs off its outputs to ``parent``: the next
    element of a one-output chain as a sibling, several outputs as ``<output>``
    children."""
    while True:
        element = model.elements[index]
        node = _element_node(element)
        parent.append(node)
        outputs = len(element.outputs)
        if outputs > 1:
            for k in range(outputs):
                out = ET.SubElement(node, 'output')
                if element.kind == 'rigid-body':
                    _set_transform(out, element.outputs[k], 'rot', 'trans')
                for child in children.get((index, k), []):
                    _chain(out, model, children, child)
            return
        following = children.get((index, 0), [])
        if not following:
            return
        if len(following) > 1:
            raise ValueError(f'element {index} ({element.kind}) has {len(following)} '
                             'elements on its one output: HRDF chains do not branch there')
        index = following[0]


def to_hrdf(model: RobotModel) -> str:
    """The model as an HRDF 1.6.0 document (module docstring).

    Args:
        model: the robot.

    Returns:
        the document, UTF-8 text with an XML declaration.

    Raises:
        ValueError: a model HRDF cannot state: more than one element mounted on one
            output, or elements on the base frame beside the first.
    """
    robot = ET.Element('robot', {'version': VERSION})
    _set_transform(robot, model.base_frame, 'rot', 'trans')
    if model.description is not None:
        robot.set('description', model.description)
    children: Dict[Tuple[int, int], List[int]] = {}
    for index, element in enumerate(model.elements):
        children.setdefault((element.parent, element.parent_output), []).append(index)
    roots = children.get((-1, 0), [])
    if len(roots) > 1:
        raise ValueError(f'{len(roots)} elements mount on the base frame: an HRDF robot '
                         'is one chain from its base')
    if roots:
        _chain(robot, model, children, roots[0])
    ET.indent(robot, space='  ')
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + \
        ET.tostring(robot, encoding='unicode') + '\n'
