"""HRDF document -> :class:`~hrdf_ros.model.RobotModel`.

Reads an HRDF file (HEBI FORMAT.md, versions 1.0.0-1.6.0) and resolves every element
against :mod:`hrdf_ros.catalogue`. Problems are collected as located diagnostics (file,
line, column, element, attribute) and raised together as one
:class:`~hrdf_ros.diagnostics.HrdfError`; warnings (e.g. enum case mismatches) are kept on
the model.
"""
from __future__ import annotations

import math
import os
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from . import catalogue, inertia
from .diagnostics import (ERROR, WARNING, Diagnostic, DiagnosticSink, ExpressionError,
                          HrdfError)
from .expressions import (HEBI_PI, parse_float, parse_formula, parse_rotation, parse_translation,
                          rotation_x, rotation_y, rotation_z)
from .model import Element, RobotModel
from .xmltree import XmlError, XmlNode, parse_xml

Version = Tuple[int, int, int]

#: HRDF versions this parser implements (FORMAT.md 1.6.0).
SUPPORTED_VERSIONS: Dict[str, Version] = {
    f'1.{minor}.0': (1, minor, 0) for minor in range(7)
}

V100, V110, V120, V130, V140, V150 = (1, 0, 0), (1, 1, 0), (1, 2, 0), (1, 3, 0), (1, 4, 0), \
    (1, 5, 0)

_INERTIA = ('ixx', 'iyy', 'izz', 'ixy', 'ixz', 'iyz')
# Offsets and overrides of built-in elements (FORMAT.md "Offsetting and overwriting").
_BUILTIN_MASS_ATTRS = {name: V110 for name in
                       ('mass_offset', 'com_trans_offset', 'mass', 'com_rot', 'com_trans')
                       + _INERTIA}

#: attribute -> first HRDF version that allows it, per element (FORMAT.md + CHANGELOG).
ATTRIBUTES: Dict[str, Dict[str, Version]] = {
    'actuator': {'type': V100, 'tag': V140, **_BUILTIN_MASS_ATTRS},
    'link': {'type': V100, 'extension': V100, 'twist': V100, 'input': V120, 'output': V120,
             'tag': V140, **_BUILTIN_MASS_ATTRS},
    'bracket': {'type': V100, 'tag': V140, **_BUILTIN_MASS_ATTRS},
    'end-effector': {'type': V120, 'output_rot': V120, 'output_trans': V120, 'tag': V140,
                     **{k: V120 for k in _BUILTIN_MASS_ATTRS}},
    'rigid-body': {'mass': V100, 'com_rot': V100, 'com_trans': V100, 'output_rot': V100,
                   'output_trans': V100, 'tag': V140, 'mesh_path': V130, 'mesh_rot': V130,
                   'mesh_trans': V130, **{k: V110 for k in _INERTIA}},
    'joint': {'axis': V100, 'gear_ratio': V150, 'tag': V140},
}
REQUIRED: Dict[str, Tuple[str, ...]] = {
    'actuator': ('type',), 'link': ('type', 'extension', 'twist'), 'bracket': ('type',),
    'rigid-body': ('mass',), 'joint': ('axis',), 'end-effector': (),
}
ELEMENT_MIN_VERSION: Dict[str, Version] = {'end-effector': V120, 'output': V130,
                                           'include': V130}
ROBOT_ATTRIBUTES = ('version', 'rot', 'trans', 'description')


def _fmt(version: Version) -> str:
    return '.'.join(str(v) for v in version)


def _homogeneous(rotation: np.ndarray, translation) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = rotation
    out[:3, 3] = translation
    return out


def _translation(x: float, y: float, z: float) -> np.ndarray:
    return _homogeneous(np.eye(3), (x, y, z))


def _rot(matrix: np.ndarray) -> np.ndarray:
    return _homogeneous(matrix, (0.0, 0.0, 0.0))


class _Reader:
    """One pass over one document; collects diagnostics in ``self.sink``."""

    def __init__(self, path: str):
        self.path = path
        self.sink = DiagnosticSink(path)
        self.version: Version = V100
        self.elements: List[Element] = []
        self.tags: Dict[str, XmlNode] = {}

    # -- diagnostics -------------------------------------------------------------------
    def error(self, node: XmlNode, message: str, attribute: Optional[str] = None,
              column: Optional[int] = None):
        self.sink.add(ERROR, message, node.line, node.column if column is None else column,
                      node.tag, attribute)

    def warn(self, node: XmlNode, message: str, attribute: Optional[str] = None):
        self.sink.add(WARNING, message, node.line, node.column, node.tag, attribute)

    # -- typed attribute access (None when absent or invalid; errors recorded) ---------
    def _value(self, node: XmlNode, name: str, parse: Callable):
        text = node.attrs.get(name)
        if text is None:
            return None
        try:
            return parse(text)
        except ExpressionError as exc:
            self.error(node, f'invalid value "{text}": {exc}', name)
            return None

    def formula(self, node, name, default=None):
        value = self._value(node, name, self._formula_grammar)
        return default if value is None else value

    def _formula_grammar(self, text: str) -> float:
        if self.version >= V110:
            return parse_formula(text)
        try:
            return parse_float(text)
        except ExpressionError:
            parse_formula(text)  # a valid formula: say that formulas need 1.1.0
            raise ExpressionError('formulas need HRDF 1.1.0 or later (file declares 1.0.0); '
                                  'write a plain number') from None

    def _rotation_grammar(self, text: str) -> np.ndarray:
        if self.version < V110 and text.strip()[:1] == 'R':
            raise ExpressionError('Rx/Ry/Rz rotations need HRDF 1.1.0 or later (file '
                                  'declares 1.0.0); write the 9 matrix entries')
        return parse_rotation(text)

    def rotation(self, node, name, default=None):
        value = self._value(node, name, self._rotation_grammar)
        return (np.eye(3) if default is None else default) if value is None else value

    def translation(self, node, name, default=None):
        value = self._value(node, name, parse_translation)
        return (np.zeros(3) if default is None else default) if value is None else value

    def enum(self, node: XmlNode, name: str, allowed, default=None) -> Optional[str]:
        """Case-insensitive enum lookup (FORMAT.md): warn on case mismatch."""
        text = node.attrs.get(name)
        if text is None:
            return default
        if text in allowed:
            return text
        folded = {a.casefold(): a for a in allowed}
        match = folded.get(text.strip().casefold())
        if match is not None:
            self.warn(node, f'"{text}" matched "{match}" ignoring case; write "{match}"', name)
            return match
        self.error(node, f'unknown value "{text}"; expected one of: ' + ', '.join(allowed),
                   name)
        return None

    # -- document ----------------------------------------------------------------------
    def read(self, root: XmlNode) -> RobotModel:
        if root.tag != 'robot':
            self.error(root, f'root element must be <robot>, found <{root.tag}>')
            self.sink.raise_if_errors()
        version_text = root.attrs.get('version')
        if version_text is None:
            self.version = V100  # FORMAT.md: defaults to 1.0.0 when absent
        elif version_text.strip() in SUPPORTED_VERSIONS:
            self.version = SUPPORTED_VERSIONS[version_text.strip()]
        else:
            self.error(root, f'unsupported HRDF version "{version_text}"; supported: '
                       + ', '.join(SUPPORTED_VERSIONS), 'version')
            self.sink.raise_if_errors()
        for name in root.attrs:
            if name not in ROBOT_ATTRIBUTES:
                self.error(root, f'unknown attribute "{name}" on <robot>', name)
        base = _homogeneous(self.rotation(root, 'rot'), self.translation(root, 'trans'))
        last = self.chain(root.children, -1, 0)
        if self.version <= V110 and not self.sink.has_errors:
            # FORMAT.md: <= 1.1.0 files get an implicit end effector at the chain's end.
            self.elements.append(self.end_effector_element(None, last, implicit=True))
        self.sink.raise_if_errors()
        return RobotModel(self.version, base, self.elements, root.attrs.get('description'),
                          self.path, self.sink.warnings)

    def chain(self, nodes: List[XmlNode], parent: int, parent_output: int) -> Tuple[int, int]:
        """Attach ``nodes`` one after another starting at (parent, output); return the end."""
        at = (parent, parent_output)
        ended_by: Optional[XmlNode] = None
        for node in nodes:
            if ended_by is not None:
                self.error(node, f'<{node.tag}> cannot follow <{ended_by.tag}> (line '
                           f'{ended_by.line}): nothing attaches after an end effector or '
                           'an element whose outputs are given with <output>')
                continue
            index = self.element(node, *at)
            if index is None:
                continue
            element = self.elements[index]
            if element.is_end_effector or any(c.tag == 'output' for c in node.children):
                ended_by = node
            at = (index, 0)
        return at

    def element(self, node: XmlNode, parent: int, parent_output: int) -> Optional[int]:
        kind = node.tag
        if kind in ('include', 'output'):
            if self.version < ELEMENT_MIN_VERSION[kind]:
                self.error(node, f'<{kind}> needs HRDF {_fmt(ELEMENT_MIN_VERSION[kind])} or '
                           f'later (file declares {_fmt(self.version)})')
            elif kind == 'include':
                self.error(node, '<include> is not supported by this hrdf_ros release')
            else:
                self.error(node, '<output> is only allowed inside <bracket> or <rigid-body>')
            return None
        if kind not in ATTRIBUTES:
            self.error(node, f'unknown element <{kind}>; expected one of: '
                       + ', '.join(f'<{k}>' for k in ATTRIBUTES))
            return None
        if kind in ELEMENT_MIN_VERSION and self.version < ELEMENT_MIN_VERSION[kind]:
            self.error(node, f'<{kind}> needs HRDF {_fmt(ELEMENT_MIN_VERSION[kind])} or later '
                       f'(file declares {_fmt(self.version)})')
            return None
        self.check_attributes(node)
        builder = {
            'actuator': self.actuator, 'link': self.link, 'bracket': self.bracket,
            'rigid-body': self.rigid_body, 'joint': self.joint,
            'end-effector': lambda n, p, o: self.end_effector_element(n, (p, o)),
        }[kind]
        element = builder(node, parent, parent_output)
        if element is None:
            return None
        element.line, element.column, element.path = node.line, node.column, self.path
        self.check_tag(node, element)
        self.elements.append(element)
        index = len(self.elements) - 1
        self.outputs(node, element, index)
        return index

    def check_attributes(self, node: XmlNode):
        allowed = ATTRIBUTES[node.tag]
        for name in node.attrs:
            if name not in allowed:
                self.error(node, f'unknown attribute "{name}" on <{node.tag}>', name)
            elif self.version < allowed[name]:
                self.error(node, f'attribute "{name}" needs HRDF {_fmt(allowed[name])} or '
                           f'later (file declares {_fmt(self.version)})', name)
        for name in REQUIRED[node.tag]:
            if name not in node.attrs:
                self.error(node, f'missing required attribute "{name}"', name)
        for plain, offset in (('mass', 'mass_offset'), ('com_trans', 'com_trans_offset')):
            if plain in node.attrs and offset in node.attrs:
                self.error(node, f'"{plain}" and "{offset}" cannot both be given', offset)
        for child in node.children:
            if child.tag != 'output' or node.tag not in ('bracket', 'rigid-body'):
                self.error(child, f'<{node.tag}> cannot contain <{child.tag}>')

    def check_tag(self, node: XmlNode, element: Element):
        tag = element.tag
        if tag is None:
            return
        if tag in self.tags:
            first = self.tags[tag]
            self.error(node, f'tag "{tag}" is already used by <{first.tag}> at line '
                       f'{first.line}; tags must be unique', 'tag')
        else:
            self.tags[tag] = node

    def outputs(self, node: XmlNode, element: Element, index: int):
        outputs = [c for c in node.children if c.tag == 'output']
        if not outputs or node.tag not in ('bracket', 'rigid-body'):
            return
        if self.version < V130:
            self.error(outputs[0], f'<output> needs HRDF 1.3.0 or later (file declares '
                       f'{_fmt(self.version)})')
            return
        if node.tag == 'bracket':
            if len(outputs) > len(element.outputs):
                self.error(outputs[len(element.outputs)],
                           f'bracket {element.type} has {len(element.outputs)} output(s); '
                           f'found {len(outputs)} <output> elements')
        else:
            default_rot = self.rotation(node, 'output_rot')
            default_trans = self.translation(node, 'output_trans')
            element.outputs = []
        for k, out in enumerate(outputs):
            for name in out.attrs:
                if name not in ('rot', 'trans'):
                    self.error(out, f'unknown attribute "{name}" on <output>', name)
                elif node.tag != 'rigid-body':
                    self.error(out, f'"{name}" is only allowed on the outputs of a '
                               '<rigid-body>; bracket outputs are fixed', name)
            if node.tag == 'rigid-body':
                element.outputs.append(_homogeneous(
                    self.rotation(out, 'rot', default_rot),
                    self.translation(out, 'trans', default_trans)))
            if k < len(element.outputs):
                self.chain(out.children, index, k)

    # -- mass properties ---------------------------------------------------------------
    def mass_properties(self, node: XmlNode, mass: float, com, inertia):
        """Apply FORMAT.md offsets/overrides to catalogue mass properties."""
        if 'mass' in node.attrs:
            mass = self.formula(node, 'mass', mass)
        else:
            mass = mass + self.formula(node, 'mass_offset', 0.0)
        if 'com_trans' in node.attrs:
            com_trans = self.translation(node, 'com_trans')
        else:
            com_trans = np.asarray(com, float) + self.translation(node, 'com_trans_offset')
        com_frame = _homogeneous(self.rotation(node, 'com_rot'), com_trans)
        values = np.array([self.formula(node, name, inertia[i])
                           for i, name in enumerate(_INERTIA)], dtype=float)
        self.check_mass(node, mass)
        return mass, com_frame, values

    def check_mass(self, node: XmlNode, mass: float):
        if not math.isfinite(mass) or mass < 0.0:
            attr = 'mass' if 'mass' in node.attrs else 'mass_offset'
            self.error(node, f'mass must be finite and >= 0 kg, got {mass:g} kg', attr)

    def typed(self, node: XmlNode, table: Dict, label: str, default: Optional[str] = None):
        name = self.enum(node, 'type', list(table), default)
        if name is None:
            return None
        needed = catalogue.TYPE_MIN_VERSION.get(label + name if label else name)
        if needed and self.version < needed:
            self.error(node, f'type "{name}" needs HRDF {_fmt(needed)} or later (file '
                       f'declares {_fmt(self.version)})', 'type')
        return table[name]

    # -- element builders --------------------------------------------------------------
    def actuator(self, node: XmlNode, parent: int, output: int) -> Optional[Element]:
        spec = self.typed(node, catalogue.ACTUATORS, '')
        if spec is None:
            return None
        mass, com, inertia = self.mass_properties(node, spec.mass, spec.com, spec.inertia)
        return Element('actuator', spec.name, node.attrs.get('tag'), parent, output, mass,
                       com, inertia, [_translation(0.0, 0.0, spec.output_height)],
                       motion='rz', max_speed=spec.max_speed, max_effort=spec.max_effort)

    def bracket(self, node: XmlNode, parent: int, output: int) -> Optional[Element]:
        spec = self.typed(node, catalogue.BRACKETS, '')
        if spec is None:
            return None
        mass, com, inertia = self.mass_properties(node, spec.mass, spec.com, spec.inertia)
        out = _homogeneous(rotation_x(spec.output_rx), spec.output_translation)
        return Element('bracket', spec.name, node.attrs.get('tag'), parent, output, mass, com,
                       inertia, [out])

    def link(self, node: XmlNode, parent: int, output: int) -> Optional[Element]:
        spec = self.typed(node, catalogue.LINKS, 'link:')
        extension = self.formula(node, 'extension')
        twist = self.formula(node, 'twist')
        in_style = self.enum(node, 'input', catalogue.LINK_INPUT_STYLES, 'RightAngle')
        out_style = self.enum(node, 'output', catalogue.LINK_OUTPUT_STYLES, 'RightAngle')
        if None in (spec, extension, twist, in_style, out_style):
            return None
        if out_style == 'Inline' and not spec.inline_output:
            self.error(node, f'link type {spec.name} has no Inline output', 'output')
            return None
        h = spec.half_height
        if in_style == 'RightAngle':
            tube = _translation(extension, 0.0, h) @ _rot(rotation_x(twist))
            out = tube @ (_translation(0.0, 0.0, h) if out_style == 'RightAngle'
                          else _rot(rotation_y(math.pi / 2)))
            com = (extension / 2, 0.0, h)
        else:
            tube = _translation(0.0, 0.0, extension) @ _rot(rotation_z(twist))
            out = tube @ (_translation(-h, 0.0, 0.0) @ _rot(rotation_y(-math.pi / 2))
                          if out_style == 'RightAngle' else np.eye(4))
            com = (0.0, 0.0, extension / 2)
        base_mass = spec.base_mass[(in_style, out_style)] + spec.mass_per_metre * extension
        nominal = inertia.link(spec.name, in_style, out_style, extension, base_mass)
        mass, com_frame, tensor = self.mass_properties(node, base_mass, com, nominal)
        return Element('link', spec.name, node.attrs.get('tag'), parent, output, mass,
                       com_frame, tensor, [out])

    def rigid_body(self, node: XmlNode, parent: int, output: int) -> Optional[Element]:
        mass = self.formula(node, 'mass')
        if mass is None:
            return None
        self.check_mass(node, mass)
        com = _homogeneous(self.rotation(node, 'com_rot'), self.translation(node, 'com_trans'))
        inertia = np.array([self.formula(node, name, 0.0) for name in _INERTIA])
        for name in ('mesh_rot', 'mesh_trans'):
            if name in node.attrs and 'mesh_path' not in node.attrs:
                self.error(node, f'"{name}" needs a "mesh_path"', name)
        out = _homogeneous(self.rotation(node, 'output_rot'),
                           self.translation(node, 'output_trans'))
        return Element('rigid-body', None, node.attrs.get('tag'), parent, output, mass, com,
                       inertia, [out])

    def joint(self, node: XmlNode, parent: int, output: int) -> Optional[Element]:
        axis = self.enum(node, 'axis', ('rx', 'ry', 'rz', 'tx', 'ty', 'tz'))
        ratio = self.formula(node, 'gear_ratio', 1.0)
        if ratio == 0.0:
            self.error(node, 'gear_ratio must not be zero', 'gear_ratio')
            return None
        if axis is None:
            return None
        return Element('joint', None, node.attrs.get('tag'), parent, output, 0.0,
                       np.eye(4), np.zeros(6), [np.eye(4)], motion=axis, gear_ratio=ratio)

    def end_effector_element(self, node: Optional[XmlNode], at: Tuple[int, int],
                             implicit: bool = False) -> Optional[Element]:
        spec = catalogue.END_EFFECTORS['Custom']
        if node is not None:
            spec = self.typed(node, catalogue.END_EFFECTORS, '', 'Custom')
            if spec is None:
                return None
        default_out = _translation(*spec.output_translation)
        if node is None:
            mass, com, inertia = spec.mass, np.eye(4), np.zeros(6)
            out = default_out
        else:
            mass, com, inertia = self.mass_properties(node, spec.mass, spec.com, spec.inertia)
            out = _homogeneous(self.rotation(node, 'output_rot', default_out[:3, :3]),
                               self.translation(node, 'output_trans', default_out[:3, 3]))
        return Element('end-effector', spec.name, None if node is None else node.attrs.get('tag'),
                       at[0], at[1], mass, com, inertia, [out], is_end_effector=True,
                       implicit=implicit)


def loads(text, path: str = '<string>') -> RobotModel:
    """Parse HRDF text.

    Args:
        text: the document as ``str`` or ``bytes``.
        path: name used in diagnostics.

    Returns:
        The :class:`~hrdf_ros.model.RobotModel`.

    Raises:
        HrdfError: with every located error found (malformed XML stops at the first).
    """
    data = text.encode('utf-8') if isinstance(text, str) else bytes(text)
    try:
        root = parse_xml(data, path)
    except XmlError as exc:
        raise HrdfError([exc.diagnostic]) from None
    return _Reader(path).read(root)


def load(path) -> RobotModel:
    """Parse an HRDF file.

    Args:
        path: file path (str or os.PathLike).

    Returns:
        The :class:`~hrdf_ros.model.RobotModel`.

    Raises:
        HrdfError: when the file cannot be read or is not a valid HRDF document; the
            diagnostics name the file, line, column, element and attribute.
    """
    path = os.fspath(path)
    try:
        with open(path, 'rb') as handle:
            data = handle.read()
    except OSError as exc:
        raise HrdfError([Diagnostic(ERROR, f'cannot read file: {exc.strerror}', path)]) \
            from None
    return loads(data, path)


__all__ = ['load', 'loads', 'SUPPORTED_VERSIONS', 'HrdfError', 'HEBI_PI']
