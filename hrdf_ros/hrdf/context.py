"""The reader's shared state: which file is being read, its version, its diagnostics.

In: XML nodes of the file being read. Out: typed attribute values (formulas, rotations,
translations, enums, catalogue types) under that file's version rules, and located
diagnostics for everything that is wrong with them. Every part of the reader
(:mod:`.elements`, :mod:`.includes`, :mod:`.checks`, :mod:`.reader`) reads attributes
and reports problems through one :class:`ReadContext`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple

import numpy as np

from . import catalogue
from .diagnostics import ERROR, WARNING, DiagnosticSink, ExpressionError
from .grammar import parse_float, parse_formula, parse_rotation, parse_translation
from .leniency import DEVIATIONS, NOTES
from .safe_xml import XmlNode
from .versions import FORMULA_VERSION, V100, Version, format_version


@dataclass
class Source:
    """The file being read: where diagnostics point and what includes resolve against.

    Attributes:
        path: file name shown in diagnostics.
        directory: directory relative paths resolve against (``''`` = current
            directory), or ``None`` when unknown (text without a base directory).
        identity: :func:`~hrdf_ros.hrdf.sources.identity` of the file, ``None`` for text.
        included_from: ``'main.hrdf:4, ...'`` include chain, ``''`` for the root file.
    """

    path: str
    directory: Optional[str]
    identity: Optional[str]
    included_from: str = ''


class TooComplex(Exception):
    """The robot exceeds a bound on elements, includes or nesting (message says which)."""


def homogeneous(rotation: np.ndarray, translation) -> np.ndarray:
    """(4, 4) transform from a (3, 3) rotation and a translation (m)."""
    out = np.eye(4)
    out[:3, :3] = rotation
    out[:3, 3] = translation
    return out


class ReadContext:
    """Diagnostics and typed attribute access for one robot being read.

    Attributes:
        source: the file being read now (switched while an included file is read).
        sink: every diagnostic of the robot, all files together.
        version: the HRDF version of the file being read: the root file's, or while an
            included file is read, the version that file declares (hebi-py reads each
            file under its own version's rules; :mod:`.includes`).
        version_label: that version as written in messages.
        strict: spec deviations that hebi-py accepts are errors, not warnings
            (:meth:`deviation`).
        access: the directories included files and local meshes may come from
            (:class:`~hrdf_ros.hrdf.access.FileAccess`), or ``None``: anywhere.
    """

    def __init__(self, source: Source, strict: bool = False, access=None):
        self.source = source
        self.strict = strict
        self.access = access
        self.sink = DiagnosticSink(source.path)
        self.version: Version = V100
        self.version_label = '1.0.0'
        self._seen = set()

    # -- diagnostics -------------------------------------------------------------------
    def _add(self, severity: str, node: XmlNode, message: str, attribute: Optional[str],
             at: Optional[Tuple[int, int]] = None, code: Optional[str] = None):
        line, column = at or (node.line, node.column)
        key = (severity, self.source.path, line, column, node.tag, attribute, message, code)
        if key in self._seen:  # the same problem in a file included several times
            return
        self._seen.add(key)
        if self.source.included_from:
            message += f' [in a file included from {self.source.included_from}]'
        self.sink.add(severity, message, line, column, node.tag, attribute,
                      path=self.source.path, code=code)

    def error(self, node: XmlNode, message: str, attribute: Optional[str] = None,
              at: Optional[Tuple[int, int]] = None) -> None:
        """Record an error about ``node`` (at its start tag, or at ``at`` = (line, col))."""
        self._add(ERROR, node, message, attribute, at)

    def warn(self, node: XmlNode, message: str, attribute: Optional[str] = None,
             code: Optional[str] = None) -> None:
        """Record a warning about ``node`` (at its start tag), with an optional rule code
        (one of :data:`~hrdf_ros.hrdf.leniency.NOTES`)."""
        assert code is None or code in NOTES, code
        self._add(WARNING, node, message, attribute, code=code)

    def deviation(self, node: XmlNode, code: str, message: str,
                  attribute: Optional[str] = None) -> None:
        """A spec deviation that hebi-py accepts with a clear meaning
        (:data:`~hrdf_ros.hrdf.leniency.DEVIATIONS`): a warning with ``code``, or an
        error with that code in strict mode. ``message`` names the rule, the spec version
        and what hebi-py reads; ``; hrdf_ros does the same`` or ``; an error in strict
        mode`` is appended."""
        assert code in DEVIATIONS, code
        if self.strict:
            self._add(ERROR, node, message + '; an error in strict mode', attribute,
                      code=code)
        else:
            self._add(WARNING, node, message + '; hrdf_ros does the same', attribute,
                      code=code)

    def needs(self, what: str, version: Version) -> str:
        """Message: ``what`` needs a newer HRDF version than the file declares."""
        return f'{what} needs HRDF {format_version(version)} or later (file declares ' \
               f'{self.version_label})'

    def where(self, path: str, line: int) -> str:
        """``'line 4'`` in the file being read, else ``'other.hrdf:4'``."""
        return f'line {line}' if path == self.source.path else f'{path}:{line}'

    def check_text(self, node: XmlNode) -> None:
        """HRDF elements hold elements only; stray text is an error (as in hebi-py)."""
        if node.text_at is not None:
            self.error(node, f'text is not allowed inside <{node.tag}>', at=node.text_at)

    # -- typed attribute access (None or the default when absent or invalid) -----------
    def _value(self, node: XmlNode, name: str, parse: Callable):
        text = node.attrs.get(name)
        if text is None:
            return None
        try:
            return parse(text)
        except ExpressionError as exc:
            self.error(node, f'invalid value "{text}": {exc}', name)
            return None

    def formula(self, node: XmlNode, name: str, default=None):
        """A float or formula attribute (formulas from HRDF 1.1.0), or ``default``."""
        value = self._value(node, name, self._formula_grammar)
        return default if value is None else value

    def _formula_grammar(self, text: str) -> float:
        if self.version >= FORMULA_VERSION:
            return parse_formula(text)
        try:
            return parse_float(text)
        except ExpressionError:
            parse_formula(text)  # a valid formula: say that formulas need 1.1.0
            raise ExpressionError(f'formulas need HRDF 1.1.0 or later (file declares '
                                  f'{self.version_label}); write a plain number') from None

    def _rotation_grammar(self, text: str) -> np.ndarray:
        if self.version < FORMULA_VERSION and text.strip()[:1] == 'R':
            raise ExpressionError(f'Rx/Ry/Rz rotations need HRDF 1.1.0 or later (file '
                                  f'declares {self.version_label}); write the 9 matrix '
                                  'entries')
        return parse_rotation(text)

    def rotation(self, node: XmlNode, name: str, default=None) -> np.ndarray:
        """A (3, 3) rotation attribute, or ``default`` (identity when ``None``)."""
        value = self._value(node, name, self._rotation_grammar)
        return (np.eye(3) if default is None else default) if value is None else value

    def translation(self, node: XmlNode, name: str, default=None) -> np.ndarray:
        """A (3,) translation attribute in m, or ``default`` (zero when ``None``)."""
        value = self._value(node, name, parse_translation)
        return (np.zeros(3) if default is None else default) if value is None else value

    def transform(self, node: XmlNode, rotation: str, translation: str,
                  default: Optional[np.ndarray] = None) -> np.ndarray:
        """(4, 4) transform from a rotation and a translation attribute, each defaulting
        to the part of ``default`` (identity when ``None``)."""
        default = np.eye(4) if default is None else default
        return homogeneous(self.rotation(node, rotation, default[:3, :3]),
                           self.translation(node, translation, default[:3, 3]))

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
            self.warn(node, f'"{text}" matched "{match}" ignoring case; write "{match}"', name,
                      code='enum-case')
            return match
        self.error(node, f'unknown value "{text}"; expected one of: ' + ', '.join(allowed),
                   name)
        return None

    def typed(self, node: XmlNode, table: Dict, label: str, default: Optional[str] = None):
        """The catalogue entry named by ``type`` (``label`` prefixes the type in
        :data:`~hrdf_ros.hrdf.catalogue.TYPE_MIN_VERSION`), or ``None`` (error recorded)."""
        name = self.enum(node, 'type', list(table), default)
        if name is None:
            return None
        needed = catalogue.TYPE_MIN_VERSION.get(label + name if label else name)
        if needed and self.version < needed:
            self.error(node, self.needs(f'type "{name}"', needed), 'type')
        return table[name]
