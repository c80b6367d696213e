"""HRDF document -> :class:`~hrdf_ros.model.RobotModel`: ``load`` and ``loads``.

In: an HRDF file path, or text with an optional base directory (HEBI FORMAT.md, versions
1.0.0-1.6.0). Out: the resolved robot model, with warnings attached, or an
:class:`~hrdf_ros.hrdf.diagnostics.HrdfError` carrying every located error.

This module walks the document: the ``<robot>`` root and its version, chains of
elements, trees (``<output>`` children of brackets and rigid bodies) and ``<include>``
splices. Each element is built by :mod:`.elements`, checked by :mod:`.checks`, and
includes are opened by :mod:`.includes`; all of them read attributes and report through
one :class:`~hrdf_ros.hrdf.context.ReadContext`, under the version of the file being
read (the root file's; an included file's own, as hebi-py reads it). The model's
version, and the implicit end effector of HRDF <= 1.1.0, are the root file's. Problems are collected and raised together; only malformed XML stops the
reading of a file at its first problem.

Hostile input is bounded: XML limits per file (:mod:`.safe_xml`), the include limits of
:mod:`.includes`, at most :data:`MAX_TREE_DEPTH` nested ``<output>`` levels across all
files, and :data:`~hrdf_ros.hrdf.safe_xml.MAX_ELEMENTS` elements in the whole robot, so
the reader's recursion stays far below Python's limit.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import List, Optional, Tuple

from ..model import Element, RobotModel
from . import elements, sources
from .checks import TagRegistry, check_interface
from .context import ReadContext, Source, TooComplex
from .access import REFUSED, FileAccess
from .diagnostics import ERROR, Diagnostic, HrdfError
from .includes import Includes
from .safe_xml import MAX_ELEMENTS, XmlError, XmlNode, parse_xml
from .versions import (ATTRIBUTES, BRANCHING_ELEMENTS, CHAIN_CONTENT, ELEMENT_MIN_VERSION,
                       IMPLICIT_END_EFFECTOR_UNTIL, REQUIRED, ROBOT_ATTRIBUTES,
                       SUPPORTED_VERSIONS, V100, V130, format_version)

#: Deepest nesting of ``<output>`` elements, counted across included files.
MAX_TREE_DEPTH = 64


@dataclass
class _Chain:
    """Where the next element of a chain mounts (an element output, or the base)."""

    parent: int = -1
    output: int = 0
    ended_by: Optional[Tuple[str, XmlNode, str]] = None  # (why, node, path)
    lost: bool = False  # the previous element could not be built: skip interface checks


class _Reader:
    """One pass over one robot (its root document and every file it includes)."""

    def __init__(self, source: Source, strict: bool = False, access=None,
                 size: int = 0):
        self.ctx = ReadContext(source, strict, access)
        self.root_path = source.path
        self.elements: List[Element] = []
        self.tags = TagRegistry()
        self.includes = Includes(source, size)
        self.tree_depth = 0

    def read(self, root: XmlNode) -> RobotModel:
        """The model of the document whose root node is ``root``.

        Raises:
            HrdfError: every error found.
        """
        ctx = self.ctx
        self._read_version(root)
        self._check_robot_attributes(root)
        ctx.check_text(root)
        base = ctx.transform(root, 'rot', 'trans')
        state = _Chain()
        try:
            self.chain(root.children, state)
        except TooComplex as exc:
            ctx.sink.add(ERROR, f'robot too complex: {exc}', root.line, root.column, 'robot')
        if ctx.version <= IMPLICIT_END_EFFECTOR_UNTIL and not ctx.sink.has_errors:
            # FORMAT.md: <= 1.1.0 files get an implicit end effector at the chain's end.
            self.elements.append(elements.end_effector(ctx, None, (state.parent, state.output),
                                                       implicit=True))
        ctx.sink.raise_if_errors()
        return RobotModel(ctx.version, base, self.elements, root.attrs.get('description'),
                          self.root_path, ctx.sink.warnings)

    def _read_version(self, root: XmlNode) -> None:
        ctx = self.ctx
        if root.tag != 'robot':
            ctx.error(root, f'root element must be <robot>, found <{root.tag}>')
            ctx.sink.raise_if_errors()
        version_text = root.attrs.get('version')
        if version_text is None:
            ctx.version = V100  # FORMAT.md: defaults to 1.0.0 when absent
            ctx.version_label = 'no version, so 1.0.0'
        elif version_text in SUPPORTED_VERSIONS:
            ctx.version = SUPPORTED_VERSIONS[version_text]
            ctx.version_label = format_version(ctx.version)
        else:
            ctx.error(root, f'unsupported HRDF version "{version_text}"; supported: '
                      + ', '.join(SUPPORTED_VERSIONS), 'version')
            ctx.sink.raise_if_errors()

    def _check_robot_attributes(self, root: XmlNode) -> None:
        for name in root.attrs:
            if name not in ROBOT_ATTRIBUTES:
                self.ctx.error(root, f'unknown attribute "{name}" on <robot>', name)
            elif self.ctx.version < ROBOT_ATTRIBUTES[name]:
                self.ctx.error(root, self.ctx.needs(f'attribute "{name}"',
                                                    ROBOT_ATTRIBUTES[name]), name)

    def chain(self, nodes: List[XmlNode], state: _Chain) -> None:
        """Attach ``nodes`` one after another at ``state``, which is updated in place."""
        for node in nodes:
            if node.tag == 'include':
                self.include(node, state)
                continue
            if state.ended_by is not None:
                why, last, path = state.ended_by
                self.ctx.error(node, f'<{node.tag}> cannot follow <{last.tag}> '
                               f'({self.ctx.where(path, last.line)}): nothing attaches '
                               f'after {why}')
                state.lost, state.ended_by = True, None  # report once per chain
            self.element(node, state)

    def include(self, node: XmlNode, state: _Chain) -> None:
        """FORMAT.md ``<include path>``: splice the included file's chain in at ``state``."""
        included = self.includes.open(self.ctx, node)
        if included is None:
            state.lost = True
            return
        with self.includes.reading(self.ctx, node, included) as usable:
            if usable:
                self.chain(included.root.children, state)
            else:
                state.lost = True

    def _known_element(self, node: XmlNode) -> bool:
        """False (error recorded) for an element that cannot appear in a chain here."""
        ctx, kind = self.ctx, node.tag
        if kind == 'output':
            if ctx.version < ELEMENT_MIN_VERSION[kind]:
                ctx.error(node, ctx.needs('<output>', ELEMENT_MIN_VERSION[kind]))
            else:
                ctx.error(node, '<output> is only allowed inside <bracket> or <rigid-body>')
            return False
        if kind not in ATTRIBUTES:
            ctx.error(node, f'unknown element <{kind}>; expected one of: '
                      + ', '.join(f'<{k}>' for k in CHAIN_CONTENT))
            return False
        if kind in ELEMENT_MIN_VERSION and ctx.version < ELEMENT_MIN_VERSION[kind]:
            ctx.error(node, ctx.needs(f'<{kind}>', ELEMENT_MIN_VERSION[kind]))
            return False
        return True

    def element(self, node: XmlNode, state: _Chain) -> None:
        """Read one chain element, mount it at ``state`` and advance ``state``."""
        ctx = self.ctx
        ctx.check_text(node)
        if not self._known_element(node):
            state.lost = True
            return
        if len(self.elements) >= MAX_ELEMENTS:
            raise TooComplex(f'more than {MAX_ELEMENTS} elements (included files counted)')
        self._check_attributes(node)
        element = elements.build(ctx, node, state.parent, state.output)
        if element is None:
            # Still read what hangs off its outputs, for those elements' own errors.
            if self.outputs(node, None, state.parent):
                state.ended_by = ('an element whose outputs are given with <output>', node,
                                  ctx.source.path)
            state.lost = True
            return
        element.line, element.column, element.path = node.line, node.column, ctx.source.path
        if not state.lost:
            parent = self.elements[state.parent] if state.parent >= 0 else None
            check_interface(ctx, node, element, parent, state.output)
        self.tags.check(ctx, node, element)
        self.elements.append(element)
        index = len(self.elements) - 1
        has_outputs = self.outputs(node, element, index)
        state.parent, state.output, state.lost = index, 0, False
        if element.is_end_effector:
            state.ended_by = ('an end effector', node, ctx.source.path)
        elif has_outputs:
            state.ended_by = ('an element whose outputs are given with <output>', node,
                              ctx.source.path)

    def _check_attributes(self, node: XmlNode) -> None:
        ctx = self.ctx
        allowed = ATTRIBUTES[node.tag]
        for name in node.attrs:
            if name not in allowed:
                ctx.error(node, f'unknown attribute "{name}" on <{node.tag}>', name)
            elif ctx.version < allowed[name]:
                ctx.error(node, ctx.needs(f'attribute "{name}"', allowed[name]), name)
        for name in REQUIRED[node.tag]:
            if name not in node.attrs:
                ctx.error(node, f'missing required attribute "{name}"', name)
        for plain, offset in (('mass', 'mass_offset'), ('com_trans', 'com_trans_offset')):
            if plain in node.attrs and offset in node.attrs:
                ctx.error(node, f'"{plain}" and "{offset}" cannot both be given', offset)
        for child in node.children:
            if child.tag != 'output' or node.tag not in BRANCHING_ELEMENTS:
                ctx.error(child, f'<{node.tag}> cannot contain <{child.tag}>')

    def outputs(self, node: XmlNode, element: Optional[Element], index: int) -> bool:
        """Read the ``<output>`` children of a bracket/rigid body; True when there are any.

        A rigid body gets one output per ``<output>`` (each defaulting to the body's
        ``output_rot``/``output_trans``); a bracket keeps its catalogue outputs. The
        content of each output is a chain mounted on that output. ``element`` is ``None``
        when the bracket/rigid body itself could not be built: the outputs' content is then
        read only for its own errors.
        """
        ctx = self.ctx
        outputs = [c for c in node.children if c.tag == 'output']
        if not outputs or node.tag not in BRANCHING_ELEMENTS:
            return False
        if ctx.version < V130:
            ctx.error(outputs[0], ctx.needs('<output>', V130))
            return True
        available = len(outputs)
        if element is not None and node.tag == 'bracket':
            available = len(element.outputs)
            if len(outputs) > available:
                ctx.error(outputs[available],
                          f'bracket {element.type} has {available} output(s); found '
                          f'{len(outputs)} <output> elements')
        elif element is not None:
            default = ctx.transform(node, 'output_rot', 'output_trans')
            element.outputs = [ctx.transform(out, 'rot', 'trans', default) for out in outputs]
        if self.tree_depth >= MAX_TREE_DEPTH:
            raise TooComplex(f'<output> elements nested deeper than {MAX_TREE_DEPTH} levels '
                             '(included files counted)')
        self.tree_depth += 1
        for k, out in enumerate(outputs):
            ctx.check_text(out)
            for name in out.attrs:
                if name not in ('rot', 'trans'):
                    ctx.error(out, f'unknown attribute "{name}" on <output>', name)
                elif node.tag != 'rigid-body':
                    ctx.error(out, f'"{name}" is only allowed on the outputs of a '
                              '<rigid-body>; bracket outputs are fixed', name)
            # Content of outputs that do not exist is read for its own errors only.
            lost = element is None or k >= available
            self.chain(out.children, _Chain(index, 0 if lost else k, lost=lost))
        self.tree_depth -= 1
        return True


def _read(data: bytes, source: Source, strict: bool, access=None) -> RobotModel:
    try:
        root = parse_xml(data, source.path)
    except XmlError as exc:
        raise HrdfError([exc.diagnostic]) from None
    return _Reader(source, strict, access, len(data)).read(root)


def loads(text, path: str = '<string>', base_dir: Optional[str] = None,
          strict: bool = False, access: Optional[FileAccess] = None) -> RobotModel:
    """Parse HRDF text.

    Args:
        text: the document as ``str`` or ``bytes`` (at most
            :data:`~hrdf_ros.hrdf.safe_xml.MAX_DOCUMENT_BYTES`, with its included files).
        path: name used in diagnostics.
        base_dir: directory that ``<include path>`` and ``mesh_path`` resolve against
            (FORMAT.md: relative to the file containing them). ``None``: the text has no
            directory, and any ``<include>`` is an error.
        strict: spec deviations that hebi-py accepts (warnings with a ``code``) are
            errors.
        access: where included files may be read from (:mod:`hrdf_ros.hrdf.access`; ``None``:
            anywhere); an include elsewhere is an error with the message
            :data:`~hrdf_ros.hrdf.access.REFUSED`, and a local mesh elsewhere is not
            looked at.

    Returns:
        The :class:`~hrdf_ros.model.RobotModel`.

    Raises:
        HrdfError: with every located error found (malformed XML stops at the first).
    """
    data = text.encode('utf-8') if isinstance(text, str) else bytes(text)
    return _read(data, Source(path, None if base_dir is None else os.fspath(base_dir), None),
                 strict, access)


def load(path, strict: bool = False, access: Optional[FileAccess] = None) -> RobotModel:
    """Parse an HRDF file; its ``<include>`` and mesh paths resolve against its directory.

    Args:
        path: file path (str or os.PathLike).
        strict: spec deviations that hebi-py accepts are errors (see :func:`loads`).
        access: where the file and the files it includes may be read from
            (:mod:`hrdf_ros.hrdf.access`; ``None``: anywhere). A file that may not be read, or cannot
            be, gives one error with the message :data:`~hrdf_ros.hrdf.access.REFUSED`,
            whatever the reason (it never says whether the file exists).

    Returns:
        The :class:`~hrdf_ros.model.RobotModel`.

    Raises:
        HrdfError: when the file (or a file it includes) cannot be read or is not a valid
            HRDF document; the diagnostics name the file, line, column, element and
            attribute. A file that cannot be read gives one error at line 0.
    """
    path = os.fspath(path)
    if access is not None and not access.readable(path):
        raise HrdfError([Diagnostic(ERROR, REFUSED, path)])
    try:   # with an access policy, the resolved file: what was checked is what is read
        data = sources.read_document(path if access is None else os.path.realpath(path))
    except sources.SourceError as exc:
        raise HrdfError([Diagnostic(ERROR, REFUSED if access else str(exc), path)]) from None
    return _read(data, Source(path, os.path.dirname(path), sources.identity(path)), strict,
                 access)


__all__ = ['load', 'loads']
