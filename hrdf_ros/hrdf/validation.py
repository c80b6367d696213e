"""Validate HRDF files or text into a report that never raises for bad content.

This is the stable entry point for tools and services (the ``hrdf validate`` command and
the ROS validation service): every problem is a located
:class:`~hrdf_ros.hrdf.diagnostics.Diagnostic` (file, line, column, element, attribute,
message), errors and warnings are separated, and the parsed model comes with the report
when the HRDF is valid. A file that cannot be read (missing, a directory, too large) is
reported as an error at line 0, element ``None``.

Example::

    report = validate_file('robot.hrdf')
    if not report.valid:
        for d in report.errors:
            print(d)          # robot.hrdf:12:5: error: <actuator> attribute "type": ...
    json.dumps(report.to_dict())
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import List, Optional

from .diagnostics import ERROR, WARNING, Diagnostic, HrdfError
from ..model import RobotModel
from .reader import load, loads


@dataclass
class ValidationReport:
    """The outcome of validating one HRDF document.

    Attributes:
        valid: True when there is no error (warnings allowed).
        errors: every error, in the order found.
        warnings: every warning, in the order found.
        model: the parsed robot when ``valid``, else ``None``.
    """

    valid: bool
    errors: List[Diagnostic] = field(default_factory=list)
    warnings: List[Diagnostic] = field(default_factory=list)
    model: Optional[RobotModel] = None

    def to_dict(self) -> dict:
        """``{"valid": bool, "errors": [...], "warnings": [...]}``; each entry is
        :meth:`Diagnostic.to_dict` (file, line, column, element, attribute, message,
        severity). JSON-serialisable; the model is not included."""
        return {'valid': self.valid,
                'errors': [d.to_dict() for d in self.errors],
                'warnings': [d.to_dict() for d in self.warnings]}


def _report(parse, name: str) -> ValidationReport:
    try:
        model = parse()
    except HrdfError as exc:
        return ValidationReport(
            False, [d for d in exc.diagnostics if d.severity == ERROR],
            [d for d in exc.diagnostics if d.severity == WARNING])
    except Exception as exc:  # noqa: BLE001 - a service must answer even on a bug
        return ValidationReport(False, [Diagnostic(
            ERROR, f'internal error in hrdf_ros ({type(exc).__name__}: {exc}); please '
            'report it with this file', name)])
    return ValidationReport(True, [], list(model.warnings), model)


def validate_file(path, strict: bool = False, access=None) -> ValidationReport:
    """Validate an HRDF file (and every file it includes, relative to its directory).

    Args:
        path: file path (str or os.PathLike).
        strict: spec deviations that hebi-py accepts are errors, not warnings.
        access: where files may be read from (:class:`~hrdf_ros.hrdf.access.FileAccess`;
            ``None``: anywhere), as :func:`~hrdf_ros.hrdf.reader.load`.

    Returns:
        The :class:`ValidationReport`. Never raises for bad or unreadable files.
    """
    name = os.fspath(path)
    return _report(lambda: load(name, strict=strict, access=access), name)


def validate_text(text: str, base_dir: Optional[str] = None, name: str = '<string>',
                  strict: bool = False, access=None) -> ValidationReport:
    """Validate HRDF text.

    Args:
        text: the HRDF document (``str``; ``bytes`` are accepted too).
        base_dir: directory that ``<include path>`` and ``mesh_path`` resolve against.
            ``None``: an ``<include>`` is an error saying includes need a base directory.
        name: file name used in diagnostics.
        strict: spec deviations that hebi-py accepts are errors, not warnings.
        access: where included files may be read from, as
            :func:`~hrdf_ros.hrdf.reader.loads`.

    Returns:
        The :class:`ValidationReport`. Never raises for bad content.
    """
    return _report(lambda: loads(text, path=name, base_dir=base_dir, strict=strict,
                                 access=access), name)


__all__ = ['ValidationReport', 'validate_file', 'validate_text']
