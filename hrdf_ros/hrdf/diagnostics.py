"""Diagnostics: located errors and warnings about an HRDF file.

Every problem found in an HRDF file is reported as a :class:`Diagnostic` that names
the file, line, column, element and attribute, and renders in the compiler style
``path:line:col: error: message`` so editors and CI logs can jump to it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

ERROR = 'error'
WARNING = 'warning'


@dataclass(frozen=True)
class Diagnostic:
    """One error or warning about an HRDF document.

    Attributes:
        severity: ``'error'`` or ``'warning'``.
        message: human-readable description of the problem.
        path: file the problem is in (``'<string>'`` for text input).
        line: 1-based line number, or 0 when unknown.
        column: 1-based column number, or 0 when unknown.
        element: XML element name (e.g. ``'actuator'``), or ``None``.
        attribute: attribute name (e.g. ``'type'``), or ``None``.
        code: stable identifier of the rule (e.g. ``'negative-axis'``) for diagnostics
            that tools may want to filter, or ``None``; shown as ``[code]`` at the end.
    """

    severity: str
    message: str
    path: str = '<string>'
    line: int = 0
    column: int = 0
    element: Optional[str] = None
    attribute: Optional[str] = None
    code: Optional[str] = None

    def __str__(self) -> str:
        where = f'{self.path}:{self.line}:{self.column}'
        what = ''
        if self.element is not None:
            what = f'<{self.element}>'
            if self.attribute is not None:
                what += f' attribute "{self.attribute}"'
            what += ': '
        tail = f' [{self.code}]' if self.code else ''
        return f'{where}: {self.severity}: {what}{self.message}{tail}'

    def to_dict(self) -> dict:
        """A JSON-serialisable dict: ``severity``, ``file`` (the :attr:`path`), ``line``,
        ``column``, ``element``, ``attribute``, ``code`` (``None`` when not applicable)
        and ``message``."""
        return {'severity': self.severity, 'file': self.path, 'line': self.line,
                'column': self.column, 'element': self.element, 'attribute': self.attribute,
                'code': self.code, 'message': self.message}


class HrdfError(Exception):
    """Raised when an HRDF document cannot be turned into a robot model.

    Attributes:
        diagnostics: every error (and warning) found, in document order; at least
            one has severity ``'error'``.
    """

    def __init__(self, diagnostics: List[Diagnostic]):
        self.diagnostics = list(diagnostics)
        errors = [d for d in self.diagnostics if d.severity == ERROR]
        super().__init__('\n'.join(str(d) for d in errors) or 'invalid HRDF')

    @property
    def errors(self) -> List[Diagnostic]:
        """The diagnostics with severity ``'error'``."""
        return [d for d in self.diagnostics if d.severity == ERROR]


class ExpressionError(ValueError):
    """A malformed number, formula, rotation or translation string.

    Attributes:
        position: 0-based character offset in the attribute value where parsing
            failed (used to refine the column of the enclosing diagnostic).
    """

    def __init__(self, message: str, position: int = 0):
        super().__init__(message)
        self.position = position


@dataclass
class DiagnosticSink:
    """Collects diagnostics for one document; raises once at the end if any are errors."""

    path: str = '<string>'
    items: List[Diagnostic] = field(default_factory=list)

    def add(self, severity: str, message: str, line: int = 0, column: int = 0,
            element: Optional[str] = None, attribute: Optional[str] = None,
            path: Optional[str] = None, code: Optional[str] = None) -> None:
        """Record one diagnostic at the given location."""
        self.items.append(Diagnostic(severity, message, path or self.path, line, column,
                                     element, attribute, code))

    @property
    def has_errors(self) -> bool:
        """True when at least one error has been recorded."""
        return any(d.severity == ERROR for d in self.items)

    @property
    def warnings(self) -> List[Diagnostic]:
        """The recorded warnings."""
        return [d for d in self.items if d.severity == WARNING]

    def raise_if_errors(self) -> None:
        """Raise :class:`HrdfError` with everything collected if any error was recorded."""
        if self.has_errors:
            raise HrdfError(self.items)
