"""HRDF document -> :class:`~hrdf_ros.model.RobotModel`.

Reads an HRDF file (HEBI FORMAT.md, versions 1.0.0-1.6.0) and resolves every element
against :mod:`hrdf_ros.catalogue`: kinematic chains and trees (``<output>``),
``<include>``-d files, mesh references, tags, and the mechanical interface rule of
:mod:`hrdf_ros.compatibility`. Every rule is checked against the version the file
declares: an element, attribute or type newer than that version is an error.

Problems are collected as located diagnostics (file, line, column, element, attribute)
and raised together as one :class:`~hrdf_ros.diagnostics.HrdfError`; warnings (enum case
mismatches, ignored attributes of included files, missing mesh files) are kept on the
model. Only malformed XML stops the reading of a file at its first problem. A diagnostic
about an included file names that file and its line, and says where it was included from.

Hostile input is bounded: XML limits per file (:mod:`hrdf_ros.xmltree`), at most
:data:`MAX_INCLUDE_DEPTH` nested includes and :data:`MAX_INCLUDES` includes in all,
at most :data:`MAX_TREE_DEPTH` nested ``<output>`` levels across all files, and
:data:`~hrdf_ros.xmltree.MAX_ELEMENTS` elements in the whole robot, so the reader's
recursion stays far below Python's limit.
"""
from __future__ import annotations

import math
import os
import urllib.parse
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from . import catalogue, compatibility, inertia, sources
from .diagnostics import (ERROR, WARNING, Diagnostic, DiagnosticSink, ExpressionError,
                          HrdfError)
from .expressions import (HEBI_PI, parse_float, parse_formula, parse_rotation, parse_translation,
                          rotation_x, rotation_y, rotation_z)
from .model import Element, RobotModel
from .xmltree import MAX_ELEMENTS, XmlError, XmlNode, parse_xml

Version = Tuple[int, int, int]

#: HRDF versions this parser implements (FORMAT.md 1.6.0).
SUPPORTED_VERSIONS: Dict[str, Version] = {
    f'1.{minor}.0': (1, minor, 0) for minor in range(7)
}

V100, V110, V120, V130, V140, V150 = (1, 0, 0), (1, 1, 0), (1, 2, 0), (1, 3, 0), (1, 4, 0), \
    (1, 5, 0)

#: Deepest chain of files including files (the root file is depth 0).
MAX_INCLUDE_DEPTH = 16
#: Most ``<include>`` elements expanded while reading one robot (all files together).
MAX_INCLUDES = 1024
#: Deepest nesting of ``<output>`` elements, counted across included files.
MAX_TREE_DEPTH = 64

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
#: ``<robot>`` attributes and the version that introduced each.
ROBOT_ATTRIBUTES: Dict[str, Version] = {'version': V100, 'rot': V100, 'trans': V100,
                                        'description': V120}
#: Element names a chain (``<robot>`` or ``<output>`` content) may contain.
CHAIN_CONTENT = tuple(ATTRIBUTES) + ('include',)
#: First version that allows ``http(s)://`` URLs in ``mesh_path`` (CHANGELOG 1.4.0).
MESH_URL_VERSION = V140


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


@dataclass
class _Source:
    """The file being read: where diagnostics point and what includes resolve against.

    Attributes:
        path: file name shown in diagnostics.
        directory: directory relative paths resolve against (``''`` = current
            directory), or ``None`` when unknown (text without a base directory).
        identity: :func:`~hrdf_ros.sources.identity` of the file, ``None`` for text.
        included_from: ``'main.hrdf:4, ...'`` include chain, ``''`` for the root file.
    """

    path: str
    directory: Optional[str]
    identity: Optional[str]
    included_from: str = ''


@dataclass
class _Chain:
    """Where the next element of a chain mounts (an element output, or the base)."""

    parent: int = -1
    output: int = 0
    ended_by: Optional[Tuple[str, XmlNode, str]] = None  # (why, node, path)
    lost: bool = False  # the previous element could not be built: skip interface checks


class _TooComplex(Exception):
    pass


class _Reader:
    """One pass over one robot (its root document and every file it includes)."""

    def __init__(self, source: _Source):
        self.source = source
        self.root_path = source.path
        self.sink = DiagnosticSink(source.path)
        self.version: Version = V100
        self.version_label = '1.0.0'
        self.elements: List[Element] = []
        self.tags: Dict[str, Tuple[XmlNode, str]] = {}
        self.open_files: List[Tuple[Optional[str], str]] = [(source.identity, source.path)]
        self.parsed: Dict[str, Optional[XmlNode]] = {}
        self.include_count = 0
        self.tree_depth = 0
        self._seen = set()

    # -- diagnostics -------------------------------------------------------------------
    def _add(self, severity: str, node: XmlNode, message: str, attribute: Optional[str],
             at: Optional[Tuple[int, int]] = None):
        line, column = at or (node.line, node.column)
        key = (severity, self.source.path, line, column, node.tag, attribute, message)
        if key in self._seen:  # the same problem in a file included several times
            return
        self._seen.add(key)
        if self.source.included_from:
            message += f' [in a file included from {self.source.included_from}]'
        self.sink.add(severity, message, line, column, node.tag, attribute,
                      path=self.source.path)

    def error(self, node: XmlNode, message: str, attribute: Optional[str] = None,
              at: Optional[Tuple[int, int]] = None):
        """Record an error about ``node`` (at its start tag, or at ``at`` = (line, col))."""
        self._add(ERROR, node, message, attribute, at)

    def warn(self, node: XmlNode, message: str, attribute: Optional[str] = None):
        self._add(WARNING, node, message, attribute)

    def _needs(self, what: str, version: Version) -> str:
        return f'{what} needs HRDF {_fmt(version)} or later (file declares ' \
               f'{self.version_label})'

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
            raise ExpressionError(f'formulas need HRDF 1.1.0 or later (file declares '
                                  f'{self.version_label}); write a plain number') from None

    def _rotation_grammar(self, text: str) -> np.ndarray:
        if self.version < V110 and text.strip()[:1] == 'R':
            raise ExpressionError(f'Rx/Ry/Rz rotations need HRDF 1.1.0 or later (file '
                                  f'declares {self.version_label}); write the 9 matrix '
                                  'entries')
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
        match = folded.get(text.casefold())
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
            self.version_label = 'no version, so 1.0.0'
        elif version_text in SUPPORTED_VERSIONS:
            self.version = SUPPORTED_VERSIONS[version_text]
            self.version_label = _fmt(self.version)
        else:
            self.error(root, f'unsupported HRDF version "{version_text}"; supported: '
                       + ', '.join(SUPPORTED_VERSIONS), 'version')
            self.sink.raise_if_errors()
        self.check_robot_attributes(root)
        self.check_text(root)
        base = _homogeneous(self.rotation(root, 'rot'), self.translation(root, 'trans'))
        state = _Chain()
        try:
            self.chain(root.children, state)
        except _TooComplex as exc:
            self.sink.add(ERROR, f'robot too complex: {exc}', root.line, root.column, 'robot')
        if self.version <= V110 and not self.sink.has_errors:
            # FORMAT.md: <= 1.1.0 files get an implicit end effector at the chain's end.
            self.elements.append(self.end_effector_element(None, (state.parent, state.output),
                                                           implicit=True))
        self.sink.raise_if_errors()
        return RobotModel(self.version, base, self.elements, root.attrs.get('description'),
                          self.root_path, self.sink.warnings)

    def check_robot_attributes(self, root: XmlNode):
        for name in root.attrs:
            if name not in ROBOT_ATTRIBUTES:
                self.error(root, f'unknown attribute "{name}" on <robot>', name)
            elif self.version < ROBOT_ATTRIBUTES[name]:
                self.error(root, self._needs(f'attribute "{name}"', ROBOT_ATTRIBUTES[name]),
                           name)

    def check_text(self, node: XmlNode):
        """HRDF elements hold elements only; stray text is an error (as in hebi-py)."""
        if node.text_at is not None:
            self.error(node, f'text is not allowed inside <{node.tag}>', at=node.text_at)

    def chain(self, nodes: List[XmlNode], state: _Chain) -> None:
        """Attach ``nodes`` one after another at ``state``, which is updated in place."""
        for node in nodes:
            if node.tag == 'include':
                self.include(node, state)
                continue
            if state.ended_by is not None:
                why, last, path = state.ended_by
                where = f'line {last.line}' if path == self.source.path else \
                    f'{path}:{last.line}'
                self.error(node, f'<{node.tag}> cannot follow <{last.tag}> ({where}): '
                           f'nothing attaches after {why}')
                state.lost, state.ended_by = True, None  # report once per chain
            self.element(node, state)

    def element(self, node: XmlNode, state: _Chain) -> None:
        """Read one chain element, mount it at ``state`` and advance ``state``."""
        kind = node.tag
        self.check_text(node)
        if kind == 'output':
            if self.version < ELEMENT_MIN_VERSION[kind]:
                self.error(node, self._needs('<output>', ELEMENT_MIN_VERSION[kind]))
            else:
                self.error(node, '<output> is only allowed inside <bracket> or <rigid-body>')
            state.lost = True
            return
        if kind not in ATTRIBUTES:
            self.error(node, f'unknown element <{kind}>; expected one of: '
                       + ', '.join(f'<{k}>' for k in CHAIN_CONTENT))
            state.lost = True
            return
        if kind in ELEMENT_MIN_VERSION and self.version < ELEMENT_MIN_VERSION[kind]:
            self.error(node, self._needs(f'<{kind}>', ELEMENT_MIN_VERSION[kind]))
            state.lost = True
            return
        if len(self.elements) >= MAX_ELEMENTS:
            raise _TooComplex(f'more than {MAX_ELEMENTS} elements (included files counted)')
        self.check_attributes(node)
        builder = {
            'actuator': self.actuator, 'link': self.link, 'bracket': self.bracket,
            'rigid-body': self.rigid_body, 'joint': self.joint,
            'end-effector': lambda n, p, o: self.end_effector_element(n, (p, o)),
        }[kind]
        element = builder(node, state.parent, state.output)
        if element is None:
            # Still read what hangs off its outputs, for those elements' own errors.
            if self.outputs(node, None, state.parent):
                state.ended_by = ('an element whose outputs are given with <output>', node,
                                  self.source.path)
            state.lost = True
            return
        element.line, element.column, element.path = node.line, node.column, self.source.path
        if not state.lost:
            self.check_interface(node, element, state)
        self.check_tag(node, element)
        self.elements.append(element)
        index = len(self.elements) - 1
        has_outputs = self.outputs(node, element, index)
        state.parent, state.output, state.lost = index, 0, False
        if element.is_end_effector:
            state.ended_by = ('an end effector', node, self.source.path)
        elif has_outputs:
            state.ended_by = ('an element whose outputs are given with <output>', node,
                              self.source.path)

    def check_attributes(self, node: XmlNode):
        allowed = ATTRIBUTES[node.tag]
        for name in node.attrs:
            if name not in allowed:
                self.error(node, f'unknown attribute "{name}" on <{node.tag}>', name)
            elif self.version < allowed[name]:
                self.error(node, self._needs(f'attribute "{name}"', allowed[name]), name)
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
        if tag not in self.tags:
            self.tags[tag] = (node, self.source.path)
            return
        first, path = self.tags[tag]
        if first is node:
            self.error(node, f'tag "{tag}" is in a file that is included more than once; tags '
                       'must be unique in the whole robot', 'tag')
        else:
            where = f'line {first.line}' if path == self.source.path else \
                f'{path}:{first.line}'
            self.error(node, f'tag "{tag}" is already used by <{first.tag}> ({where}); tags '
                       'must be unique in the whole robot, included files too', 'tag')

    def _describe(self, element: Element, node: Optional[XmlNode] = None) -> str:
        what = f'<{element.kind}'
        if element.type is not None and element.kind != 'end-effector' or \
                (node is not None and 'type' in node.attrs):
            what += f' type="{element.type}"'
        what += '>'
        where = f'line {element.line}' if element.path == self.source.path else \
            f'{element.path}:{element.line}'
        return f'{what} ({where})'

    def check_interface(self, node: XmlNode, element: Element, state: _Chain):
        """FORMAT.md "Interface types": the parent's output must fit this element's input."""
        if state.parent < 0:
            return  # the base frame fits anything
        parent = self.elements[state.parent]
        if parent.is_end_effector:
            return  # reported as "cannot follow"
        out = compatibility.output_interface(parent.kind, parent.type)
        into = compatibility.input_interface(element.kind, element.type)
        if compatibility.fits(out, into):
            return
        on = f'output {state.output + 1} of ' if len(parent.outputs) > 1 else ''
        self.error(node, f'{self._describe(element, node)} has input interface {into}, which '
                   f'does not fit {on}{self._describe(parent)} with output interface {out}: '
                   'adjacent interfaces must have the same type and opposite polarity '
                   '(FORMAT.md "Interface types")', 'type' if 'type' in node.attrs else None)

    def outputs(self, node: XmlNode, element: Optional[Element], index: int) -> bool:
        """Read the ``<output>`` children of a bracket/rigid body; True when there are any.

        A rigid body gets one output per ``<output>`` (each defaulting to the body's
        ``output_rot``/``output_trans``); a bracket keeps its catalogue outputs. The
        content of each output is a chain mounted on that output. ``element`` is ``None``
        when the bracket/rigid body itself could not be built: the outputs' content is then
        read only for its own errors.
        """
        outputs = [c for c in node.children if c.tag == 'output']
        if not outputs or node.tag not in ('bracket', 'rigid-body'):
            return False
        if self.version < V130:
            self.error(outputs[0], self._needs('<output>', V130))
            return True
        available = len(outputs)
        if element is not None and node.tag == 'bracket':
            available = len(element.outputs)
            if len(outputs) > available:
                self.error(outputs[available],
                           f'bracket {element.type} has {available} output(s); found '
                           f'{len(outputs)} <output> elements')
        elif element is not None:
            default_rot = self.rotation(node, 'output_rot')
            default_trans = self.translation(node, 'output_trans')
            element.outputs = [_homogeneous(self.rotation(out, 'rot', default_rot),
                                            self.translation(out, 'trans', default_trans))
                               for out in outputs]
        if self.tree_depth >= MAX_TREE_DEPTH:
            raise _TooComplex(f'<output> elements nested deeper than {MAX_TREE_DEPTH} levels '
                              '(included files counted)')
        self.tree_depth += 1
        for k, out in enumerate(outputs):
            self.check_text(out)
            for name in out.attrs:
                if name not in ('rot', 'trans'):
                    self.error(out, f'unknown attribute "{name}" on <output>', name)
                elif node.tag != 'rigid-body':
                    self.error(out, f'"{name}" is only allowed on the outputs of a '
                               '<rigid-body>; bracket outputs are fixed', name)
            # Content of outputs that do not exist is read for its own errors only.
            lost = element is None or k >= available
            self.chain(out.children, _Chain(index, 0 if lost else k, lost=lost))
        self.tree_depth -= 1
        return True

    # -- includes ----------------------------------------------------------------------
    def include(self, node: XmlNode, state: _Chain) -> None:
        """FORMAT.md ``<include path>``: splice the included file's chain in at ``state``."""
        if self.version < ELEMENT_MIN_VERSION['include']:
            self.error(node, self._needs('<include>', ELEMENT_MIN_VERSION['include']))
            state.lost = True
            return
        for name in node.attrs:
            if name != 'path':
                self.error(node, f'unknown attribute "{name}" on <include>', name)
        for child in node.children:
            self.error(child, f'<include> cannot contain <{child.tag}>')
        self.check_text(node)
        root = self._included_root(node)
        if root is None:
            state.lost = True
            return
        target, directory, root_node = root
        outer = self.source
        self.source = _Source(target, directory, sources.identity(target),
                              self._include_note(node))
        self.open_files.append((self.source.identity, target))
        try:
            if self.check_included_root(root_node, outer):
                self.chain(root_node.children, state)
            else:
                state.lost = True
        finally:
            self.open_files.pop()
            self.source = outer

    def _included_root(self, node: XmlNode) -> Optional[Tuple[str, str, XmlNode]]:
        """Resolve, check and parse an include's target; None (error recorded) if unusable."""
        text = node.attrs.get('path')
        if text is None:
            self.error(node, 'missing required attribute "path"', 'path')
            return None
        problem = sources.relative_path_problem(text, 'include')
        if problem:
            self.error(node, problem, 'path')
            return None
        if self.source.directory is None:
            self.error(node, f'cannot resolve include path "{text}": includes need a base '
                       'directory, and this HRDF was given as text without one', 'path')
            return None
        target = sources.resolve(self.source.directory, text)
        key = sources.identity(target)
        opened = [identity for identity, _ in self.open_files]
        if key in opened:
            if key == self.source.identity:
                self.error(node, f'"{text}" includes the file itself (an include cycle)', 'path')
            else:
                cycle = [path for _, path in self.open_files[opened.index(key):]] + [target]
                self.error(node, 'include cycle: ' + ' -> '.join(cycle), 'path')
            return None
        if len(self.open_files) > MAX_INCLUDE_DEPTH:
            self.error(node, f'includes nested deeper than {MAX_INCLUDE_DEPTH} files', 'path')
            return None
        self.include_count += 1
        if self.include_count > MAX_INCLUDES:
            raise _TooComplex(f'more than {MAX_INCLUDES} <include> elements (included files '
                              'counted)')
        if key not in self.parsed:
            self.parsed[key] = self._parse_included(node, text, target)
        root = self.parsed[key]
        return None if root is None else (target, os.path.dirname(target), root)

    def _parse_included(self, node: XmlNode, text: str, target: str) -> Optional[XmlNode]:
        try:
            data = sources.read_document(target)
        except sources.SourceError as exc:
            where = '' if target == text else f' ({target})'
            self.error(node, f'cannot include "{text}"{where}: {exc}', 'path')
            return None
        try:
            return parse_xml(data, target)
        except XmlError as exc:
            d = exc.diagnostic
            self.sink.items.append(Diagnostic(
                d.severity, f'{d.message} [in a file included from {self._include_note(node)}]',
                d.path, d.line, d.column, d.element, d.attribute))
            return None

    def _include_note(self, include: XmlNode) -> str:
        """``'this.hrdf:4, main.hrdf:7'``: where the file an ``include`` names is included
        from, innermost first."""
        note = f'{self.source.path}:{include.line}'
        return f'{note}, {self.source.included_from}' if self.source.included_from else note

    def check_included_root(self, root: XmlNode, outer: _Source) -> bool:
        """An included file must be a complete HRDF of the same version; its root's
        attributes are ignored (FORMAT.md). False when its content cannot be used."""
        if root.tag != 'robot':
            self.error(root, f'root element must be <robot>, found <{root.tag}>')
            return False
        text = root.attrs.get('version')
        declared = 'no version (so 1.0.0)' if text is None else f'version "{text}"'
        if text is None or text != _fmt(self.version):
            self.error(root, f'included file declares {declared} but the including file '
                       f'{outer.path} declares {self.version_label}; FORMAT.md requires '
                       'included files to have the same version', 'version')
        for name in root.attrs:
            if name not in ROBOT_ATTRIBUTES:
                self.error(root, f'unknown attribute "{name}" on <robot>', name)
        self.check_text(root)
        self.rotation(root, 'rot')
        self.translation(root, 'trans')
        for name in ('rot', 'trans'):
            if name in root.attrs:
                self.warn(root, f'attribute "{name}" of an included file\'s <robot> is '
                          'ignored (FORMAT.md); the included elements mount where the '
                          '<include> is', name)
        return True

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
            self.error(node, self._needs(f'type "{name}"', needed), 'type')
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
        out = _homogeneous(self.rotation(node, 'output_rot'),
                           self.translation(node, 'output_trans'))
        element = Element('rigid-body', None, node.attrs.get('tag'), parent, output, mass, com,
                          inertia, [out])
        self.mesh(node, element)
        return element

    def mesh(self, node: XmlNode, element: Element) -> None:
        """FORMAT.md ``mesh_path`` / ``mesh_rot`` / ``mesh_trans`` of a rigid body."""
        path = node.attrs.get('mesh_path')
        if path is None:
            for name in ('mesh_rot', 'mesh_trans'):
                if name in node.attrs:
                    self.error(node, f'"{name}" needs a "mesh_path"', name)
            return
        element.mesh_path = path
        element.mesh_transform = _homogeneous(self.rotation(node, 'mesh_rot'),
                                              self.translation(node, 'mesh_trans'))
        if sources.is_web_url(path):
            if self.version < MESH_URL_VERSION:
                self.error(node, self._needs('a web URL in "mesh_path"', MESH_URL_VERSION),
                           'mesh_path')
            elif not urllib.parse.urlsplit(path).netloc:
                self.error(node, f'mesh URL "{path}" has no host', 'mesh_path')
            else:
                element.mesh_file = path
            return
        if path.lower().startswith(sources.WEB_PREFIXES):
            self.error(node, f'mesh URL "{path}" must start with "http://" or "https://" '
                       '(lower case)', 'mesh_path')
            return
        problem = sources.relative_path_problem(path, 'mesh')
        if problem:
            if '://' in path:
                problem += ' (web URLs must start with "http://" or "https://")'
            self.error(node, problem, 'mesh_path')
            return
        if self.source.directory is not None:
            element.mesh_file = sources.resolve(self.source.directory, path)
            if not os.path.isfile(element.mesh_file):
                self.warn(node, f'mesh file "{path}" not found (looked for '
                          f'{element.mesh_file})', 'mesh_path')

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


def _read(data: bytes, source: _Source) -> RobotModel:
    try:
        root = parse_xml(data, source.path)
    except XmlError as exc:
        raise HrdfError([exc.diagnostic]) from None
    return _Reader(source).read(root)


def loads(text, path: str = '<string>', base_dir: Optional[str] = None) -> RobotModel:
    """Parse HRDF text.

    Args:
        text: the document as ``str`` or ``bytes``.
        path: name used in diagnostics.
        base_dir: directory that ``<include path>`` and ``mesh_path`` resolve against
            (FORMAT.md: relative to the file containing them). ``None``: the text has no
            directory, and any ``<include>`` is an error.

    Returns:
        The :class:`~hrdf_ros.model.RobotModel`.

    Raises:
        HrdfError: with every located error found (malformed XML stops at the first).
    """
    data = text.encode('utf-8') if isinstance(text, str) else bytes(text)
    return _read(data, _Source(path, None if base_dir is None else os.fspath(base_dir), None))


def load(path) -> RobotModel:
    """Parse an HRDF file; its ``<include>`` and mesh paths resolve against its directory.

    Args:
        path: file path (str or os.PathLike).

    Returns:
        The :class:`~hrdf_ros.model.RobotModel`.

    Raises:
        HrdfError: when the file (or a file it includes) cannot be read or is not a valid
            HRDF document; the diagnostics name the file, line, column, element and
            attribute. A file that cannot be read gives one error at line 0.
    """
    path = os.fspath(path)
    try:
        data = sources.read_document(path)
    except sources.SourceError as exc:
        raise HrdfError([Diagnostic(ERROR, str(exc), path)]) from None
    return _read(data, _Source(path, os.path.dirname(path), sources.identity(path)))


__all__ = ['load', 'loads', 'SUPPORTED_VERSIONS', 'HrdfError', 'HEBI_PI']
