"""FORMAT.md ``<include path>`` (HRDF 1.3.0+): finding, bounding and opening included files.

In: an ``<include>`` node of the file being read. Out: the parsed root of the included
file, and a context in which the reader reads it as the current source (diagnostics
then name that file and the chain of files that included it). Rules: the path is
relative to the including file (``..`` allowed, absolute paths refused); a file may
not include itself or an ancestor (the cycle is reported); includes nest at most
:data:`MAX_INCLUDE_DEPTH` files deep and at most :data:`MAX_INCLUDES` are expanded per
robot, and all files of a robot together hold at most :data:`MAX_TOTAL_BYTES` bytes. With
an access policy (:mod:`.access`), a file outside its directories, or one that cannot be
read, is refused with one message that never says whether it exists. An included file's
``<robot>`` attributes are ignored; FORMAT.md requires it to
declare the same HRDF version as the file including it, but hebi-py reads each included
file under the rules of its own declared version (none: 1.0.0) and never compares
versions, so hrdf_ros does the same: while an included file is read, the context's
version is that file's, and a different version is the deviation ``include-version``
(an error in strict mode). An unsupported version is an error. Each file is read and
parsed once, however often included.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple

from . import sources
from .context import ReadContext, Source, TooComplex
from .diagnostics import Diagnostic
from .access import REFUSED
from .safe_xml import MAX_DOCUMENT_BYTES, XmlError, XmlNode, parse_xml
from .versions import (ELEMENT_MIN_VERSION, ROBOT_ATTRIBUTES, SUPPORTED_VERSIONS, V100,
                       format_version)

#: Deepest chain of files including files (the root file is depth 0).
MAX_INCLUDE_DEPTH = 16
#: Most ``<include>`` elements expanded while reading one robot (all files together).
MAX_INCLUDES = 1024
#: Most bytes read for one robot, its included files counted (each file is also at most
#: :data:`~hrdf_ros.hrdf.safe_xml.MAX_DOCUMENT_BYTES`).
MAX_TOTAL_BYTES = MAX_DOCUMENT_BYTES


@dataclass
class IncludedFile:
    """An included file ready to read: its path, directory and parsed root."""

    path: str
    directory: str
    root: XmlNode


class Includes:
    """The include state of one robot: open files (for cycles), parsed files, count."""

    def __init__(self, root: Source, size: int = 0):
        self._open: List[Tuple[Optional[str], str]] = [(root.identity, root.path)]
        self._parsed: Dict[str, Optional[XmlNode]] = {}
        self._count = 0
        self._bytes = size      # read so far, the root document's counted

    def open(self, ctx: ReadContext, node: XmlNode) -> Optional[IncludedFile]:
        """Check an ``<include>`` and parse its target; ``None`` (errors recorded) when it
        cannot be used.

        Raises:
            TooComplex: more than :data:`MAX_INCLUDES` includes in the robot.
        """
        if ctx.version < ELEMENT_MIN_VERSION['include']:
            ctx.error(node, ctx.needs('<include>', ELEMENT_MIN_VERSION['include']))
            return None
        for name in node.attrs:
            if name != 'path':
                ctx.error(node, f'unknown attribute "{name}" on <include>', name)
        for child in node.children:
            ctx.error(child, f'<include> cannot contain <{child.tag}>')
        ctx.check_text(node)
        return self._resolve(ctx, node)

    def _resolve(self, ctx: ReadContext, node: XmlNode) -> Optional[IncludedFile]:
        text = node.attrs.get('path')
        if text is None:
            ctx.error(node, 'missing required attribute "path"', 'path')
            return None
        problem = sources.relative_path_problem(text, 'include')
        if problem:
            ctx.error(node, problem, 'path')
            return None
        if ctx.source.directory is None:
            ctx.error(node, f'cannot resolve include path "{text}": includes need a base '
                      'directory, and this HRDF was given as text without one', 'path')
            return None
        target = sources.resolve(ctx.source.directory, text)
        key = sources.identity(target)
        opened = [identity for identity, _ in self._open]
        if key in opened:
            if key == ctx.source.identity:
                ctx.error(node, f'"{text}" includes the file itself (an include cycle)', 'path')
            else:
                cycle = [path for _, path in self._open[opened.index(key):]] + [target]
                ctx.error(node, 'include cycle: ' + ' -> '.join(cycle), 'path')
            return None
        if len(self._open) > MAX_INCLUDE_DEPTH:
            ctx.error(node, f'includes nested deeper than {MAX_INCLUDE_DEPTH} files', 'path')
            return None
        self._count += 1
        if self._count > MAX_INCLUDES:
            raise TooComplex(f'more than {MAX_INCLUDES} <include> elements (included files '
                             'counted)')
        if key not in self._parsed:
            self._parsed[key] = self._parse(ctx, node, text, target)
        root = self._parsed[key]
        return None if root is None else IncludedFile(target, os.path.dirname(target), root)

    def _parse(self, ctx: ReadContext, node: XmlNode, text: str,
               target: str) -> Optional[XmlNode]:
        where = '' if target == text else f' ({target})'
        if ctx.access is not None and not ctx.access.readable(target):
            ctx.error(node, f'cannot include "{text}"{where}: {REFUSED}', 'path')
            return None
        try:
            data = sources.read_document(target if ctx.access is None
                                         else os.path.realpath(target))
        except sources.SourceError as exc:
            ctx.error(node, f'cannot include "{text}"{where}: '
                      f'{REFUSED if ctx.access else exc}', 'path')
            return None
        self._bytes += len(data)
        if self._bytes > MAX_TOTAL_BYTES:
            raise TooComplex(f'more than {MAX_TOTAL_BYTES} bytes in the file and the files '
                             'it includes')
        try:
            return parse_xml(data, target)
        except XmlError as exc:
            d = exc.diagnostic
            ctx.sink.items.append(Diagnostic(
                d.severity, f'{d.message} [in a file included from {_note(ctx, node)}]',
                d.path, d.line, d.column, d.element, d.attribute))
            return None

    @contextmanager
    def reading(self, ctx: ReadContext, node: XmlNode,
                included: IncludedFile) -> Iterator[bool]:
        """Make ``included`` the context's source, and its declared version the
        context's version, while the body reads its content.

        Yields:
            True when its root is usable (a ``<robot>`` of a supported version; other
            problems are recorded).
        """
        outer, version, label = ctx.source, ctx.version, ctx.version_label
        ctx.source = Source(included.path, included.directory,
                            sources.identity(included.path), _note(ctx, node))
        self._open.append((ctx.source.identity, included.path))
        try:
            yield _check_root(ctx, included.root, outer)
        finally:
            self._open.pop()
            ctx.source, ctx.version, ctx.version_label = outer, version, label


def _note(ctx: ReadContext, include: XmlNode) -> str:
    """``'this.hrdf:4, main.hrdf:7'``: where the file an ``include`` names is included
    from, innermost first."""
    note = f'{ctx.source.path}:{include.line}'
    return f'{note}, {ctx.source.included_from}' if ctx.source.included_from else note


def _check_root(ctx: ReadContext, root: XmlNode, outer: Source) -> bool:
    """Check an included file's root and switch the context to its declared version.

    Its root's attributes are ignored (FORMAT.md); a version other than the including
    file's is the deviation ``include-version``. False when its content cannot be used
    (not a ``<robot>``, or an unsupported version).
    """
    if root.tag != 'robot':
        ctx.error(root, f'root element must be <robot>, found <{root.tag}>')
        return False
    text = root.attrs.get('version')
    if text is not None and text not in SUPPORTED_VERSIONS:
        ctx.error(root, f'unsupported HRDF version "{text}"; supported: '
                  + ', '.join(SUPPORTED_VERSIONS), 'version')
        return False
    including = ctx.version_label
    version = V100 if text is None else SUPPORTED_VERSIONS[text]
    if version != ctx.version:
        declared = 'no version (so 1.0.0)' if text is None else f'version "{text}"'
        ctx.deviation(root, 'include-version', f'included file declares {declared} but '
                      f'the including file {outer.path} declares {including} (FORMAT.md '
                      '1.3.0+ <include>: the same version); hebi-py reads it under its own '
                      'version\'s rules', 'version')
    ctx.version = version
    ctx.version_label = 'no version, so 1.0.0' if text is None else format_version(version)
    for name in root.attrs:
        if name not in ROBOT_ATTRIBUTES:
            ctx.error(root, f'unknown attribute "{name}" on <robot>', name)
    ctx.check_text(root)
    ctx.rotation(root, 'rot')
    ctx.translation(root, 'trans')
    for name in ('rot', 'trans'):
        if name in root.attrs:
            ctx.warn(root, f'attribute "{name}" of an included file\'s <robot> is '
                     'ignored (FORMAT.md); the included elements mount where the '
                     '<include> is', name, code='included-robot-origin')
    return True
