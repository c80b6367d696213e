"""HEBI gains files: the velocity and effort bounds a HEBI arm's modules are run with.

In: the path of a HEBI gains XML file (an arm config's ``gains: default:``, e.g.
hebi_description ``config/arms/gains/A-2085-06.xml``). Out: :class:`Gains`, the bounds
per module in the config's module order.

The file (HEBI's ``<group_gains>``) holds one element per control loop (``<position>``,
``<velocity>``, ``<effort>``) and, inside each, one element per setting with one value
per module, space-separated (``<max_target>3.4 1.8 3.4 9.6 9.6 9.6</max_target>``). The
firmware clamps a loop's target to ``[min_target, max_target]``: a velocity target
outside the velocity loop's range, or an effort outside the effort loop's, is never
followed. Those two ranges are what this module reads (rad/s and N m for rotary
modules); ``inf`` means unbounded. Other settings are not read.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Tuple

from .diagnostics import ERROR, Diagnostic, HrdfError
from .safe_xml import XmlError, XmlNode, parse_xml
from .sources import SourceError, read_document

#: The loops whose target range bounds a joint: loop element -> what it bounds.
BOUNDED_LOOPS = ('velocity', 'effort')


@dataclass(frozen=True)
class Gains:
    """The target bounds of a gains file.

    Attributes:
        path: the file.
        velocity: (n,) largest velocity target per module, rad/s: the smaller of
            ``<velocity><max_target>`` and ``-<velocity><min_target>`` (``inf``:
            unbounded).
        effort: (n,) largest effort target per module, N m, the same way from
            ``<effort>``.
    """

    path: str
    velocity: Tuple[float, ...]
    effort: Tuple[float, ...]


def _values(node: XmlNode, path: str) -> List[float]:
    line, column = node.text_at or (node.line, node.column)
    out = []
    for word in node.text.split():
        try:
            value = float(word)
        except ValueError:
            value = math.nan
        if math.isnan(value):
            raise HrdfError([Diagnostic(ERROR, f'"{word}" is not a number (expected one '
                                        'value per module, or inf)', path, line, column,
                                        node.tag)])
        out.append(value)
    return out


def _child(node: XmlNode, tag: str) -> Optional[XmlNode]:
    return next((c for c in node.children if c.tag == tag), None)


def _bound(loop: XmlNode, path: str) -> Tuple[float, ...]:
    upper = _child(loop, 'max_target')
    lower = _child(loop, 'min_target')
    if upper is None and lower is None:
        raise HrdfError([Diagnostic(ERROR, f'<{loop.tag}> has neither max_target nor '
                                    'min_target', path, loop.line, loop.column, loop.tag)])
    highs = _values(upper, path) if upper is not None else []
    lows = [-v for v in _values(lower, path)] if lower is not None else []
    if highs and lows and len(highs) != len(lows):
        raise HrdfError([Diagnostic(ERROR, f'<{loop.tag}>: max_target has {len(highs)} '
                                    f'values, min_target {len(lows)}', path, loop.line,
                                    loop.column, loop.tag)])
    if not highs:
        return tuple(lows)
    if not lows:
        return tuple(highs)
    return tuple(min(a, b) for a, b in zip(highs, lows))


def read_gains(path: str) -> Gains:
    """The velocity and effort bounds of a HEBI gains file.

    Args:
        path: the XML file.

    Returns:
        :class:`Gains`; ``velocity`` and ``effort`` have one value per module (their
        lengths are what the file gives; the caller compares them with its modules).

    Raises:
        HrdfError: the file cannot be read, is not XML, has no ``<velocity>`` or
            ``<effort>`` loop, or a value that is not a number (located: file, line,
            element).
    """
    try:
        root = parse_xml(read_document(path), path)
    except SourceError as exc:
        raise HrdfError([Diagnostic(ERROR, str(exc), path)]) from None
    except XmlError as exc:
        raise HrdfError([exc.diagnostic]) from None
    bounds = {}
    for tag in BOUNDED_LOOPS:
        loop = _child(root, tag)
        if loop is None:
            raise HrdfError([Diagnostic(ERROR, f'no <{tag}> gains (the {tag} target '
                                        'bounds are read from it)', path, root.line,
                                        root.column, root.tag)])
        bounds[tag] = _bound(loop, path)
    return Gains(path, bounds['velocity'], bounds['effort'])


__all__ = ['BOUNDED_LOOPS', 'Gains', 'read_gains']
