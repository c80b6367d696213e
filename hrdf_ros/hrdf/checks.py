"""Whole-robot rules on built elements: unique tags, and interfaces that fit.

In: each element as the reader mounts it (its XML node, the built
:class:`~hrdf_ros.model.Element`, the element it mounts on). Out: located errors in the
:class:`~hrdf_ros.hrdf.context.ReadContext` when a tag is used twice in the robot
(included files too) or when adjacent mechanical interfaces do not fit (FORMAT.md
"Interface types", :mod:`.compatibility`).
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from ..model import Element
from . import compatibility
from .context import ReadContext
from .safe_xml import XmlNode


class TagRegistry:
    """Tags seen so far in the robot, with the node and file that used each first."""

    def __init__(self):
        self._first: Dict[str, Tuple[XmlNode, str]] = {}

    def check(self, ctx: ReadContext, node: XmlNode, element: Element) -> None:
        """Record ``element``'s tag; an error when another element already has it."""
        tag = element.tag
        if tag is None:
            return
        if tag not in self._first:
            self._first[tag] = (node, ctx.source.path)
            return
        first, path = self._first[tag]
        if first is node:
            ctx.error(node, f'tag "{tag}" is in a file that is included more than once; tags '
                      'must be unique in the whole robot', 'tag')
        else:
            ctx.error(node, f'tag "{tag}" is already used by <{first.tag}> '
                      f'({ctx.where(path, first.line)}); tags must be unique in the whole '
                      'robot, included files too', 'tag')


def _describe(ctx: ReadContext, element: Element, node: Optional[XmlNode] = None) -> str:
    what = f'<{element.kind}'
    if element.type is not None and element.kind != 'end-effector' or \
            (node is not None and 'type' in node.attrs):
        what += f' type="{element.type}"'
    return f'{what}> ({ctx.where(element.path, element.line)})'


def check_interface(ctx: ReadContext, node: XmlNode, element: Element,
                    parent: Optional[Element], output: int) -> None:
    """FORMAT.md "Interface types": output ``output`` of ``parent`` (``None``: the base
    frame, which fits anything) must fit ``element``'s input."""
    if parent is None or parent.is_end_effector:
        return  # an element after an end effector is reported as "cannot follow"
    out = compatibility.output_interface(parent.kind, parent.type)
    into = compatibility.input_interface(element.kind, element.type)
    if compatibility.fits(out, into):
        return
    on = f'output {output + 1} of ' if len(parent.outputs) > 1 else ''
    ctx.error(node, f'{_describe(ctx, element, node)} has input interface {into}, which '
              f'does not fit {on}{_describe(ctx, parent)} with output interface {out}: '
              'adjacent interfaces must have the same type and opposite polarity '
              '(FORMAT.md "Interface types")', 'type' if 'type' in node.attrs else None)
