"""Safe XML reading with source locations.

Parses with defusedxml's SAX front end (DTDs, entity declarations and external
references are refused, so billion-laughs and XXE inputs fail cleanly) into a small
tree of :class:`XmlNode` that remembers the line and column of every start tag. Size,
depth and element-count limits bound the work a hostile file can cause; the tree is
built iteratively, so depth never turns into Python recursion.
"""
from __future__ import annotations

import xml.sax
import xml.sax.handler
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import defusedxml
import defusedxml.sax

from .diagnostics import ERROR, Diagnostic

#: Largest HRDF document accepted, bytes.
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
#: Deepest element nesting accepted.
MAX_DEPTH = 128
#: Most elements accepted in one document.
MAX_ELEMENTS = 100_000


@dataclass
class XmlNode:
    """An XML element with its attributes in document order and its source location.

    Attributes:
        tag: element name.
        attrs: attribute name -> value.
        line: 1-based line of the start tag.
        column: 1-based column of the start tag's ``<``.
        children: child elements in order.
        text_at: (line, column) of the first non-whitespace character data directly
            inside the element, or ``None`` when it has none (HRDF elements hold no text).
        text: the character data directly inside the element (e.g. a HEBI gains file's
            ``<max_target>3.4 1.8</max_target>``), whitespace included.
    """

    tag: str
    attrs: Dict[str, str]
    line: int
    column: int
    children: List['XmlNode'] = field(default_factory=list)
    text_at: Optional[Tuple[int, int]] = None
    text: str = ''


class _LimitExceeded(Exception):
    pass


class _TreeBuilder(xml.sax.handler.ContentHandler):
    def __init__(self):
        super().__init__()
        self.locator = None
        self.root: Optional[XmlNode] = None
        self.stack: List[XmlNode] = []
        self.count = 0

    def setDocumentLocator(self, locator):  # noqa: N802 (SAX API name)
        self.locator = locator

    def startElement(self, name, attrs):  # noqa: N802
        self.count += 1
        if self.count > MAX_ELEMENTS:
            raise _LimitExceeded(f'more than {MAX_ELEMENTS} elements')
        if len(self.stack) >= MAX_DEPTH:
            raise _LimitExceeded(f'elements nested deeper than {MAX_DEPTH} levels')
        line = self.locator.getLineNumber() if self.locator else 0
        column = (self.locator.getColumnNumber() + 1) if self.locator else 0
        node = XmlNode(name, {k: attrs[k] for k in attrs.getNames()}, line, column)
        if self.stack:
            self.stack[-1].children.append(node)
        else:
            self.root = node
        self.stack.append(node)

    def endElement(self, name):  # noqa: N802
        self.stack.pop()

    def characters(self, content):
        if not self.stack:
            return
        node = self.stack[-1]
        node.text += content
        if node.text_at is None and content.strip(' \t\r\n'):
            node.text_at = self._where()

    def _where(self):
        if self.locator is None:
            return 0, 0
        return self.locator.getLineNumber(), self.locator.getColumnNumber() + 1


def parse_xml(data: bytes, path: str) -> XmlNode:
    """Parse an XML document into an :class:`XmlNode` tree.

    Args:
        data: the raw document bytes.
        path: file name used in diagnostics.

    Returns:
        The root element.

    Raises:
        XmlError: when the document is too large, not well-formed, uses DTDs/entities,
            or exceeds :data:`MAX_DEPTH` / :data:`MAX_ELEMENTS`.
    """
    if len(data) > MAX_DOCUMENT_BYTES:
        raise XmlError(Diagnostic(ERROR, f'file larger than {MAX_DOCUMENT_BYTES} bytes', path))
    builder = _TreeBuilder()
    try:
        defusedxml.sax.parseString(data, builder, forbid_dtd=True, forbid_entities=True,
                                   forbid_external=True)
    except xml.sax.SAXParseException as exc:
        raise XmlError(Diagnostic(ERROR, f'malformed XML: {exc.getMessage()}', path,
                                  exc.getLineNumber() or 0,
                                  (exc.getColumnNumber() or 0) + 1)) from None
    except defusedxml.DefusedXmlException as exc:
        line, column = builder._where()
        raise XmlError(Diagnostic(ERROR, f'forbidden XML construct: {_forbidden(exc)}', path,
                                  line, column)) from None
    except _LimitExceeded as exc:
        line, column = builder._where()
        raise XmlError(Diagnostic(ERROR, f'document too complex: {exc}', path, line, column)) \
            from None
    if builder.root is None:
        raise XmlError(Diagnostic(ERROR, 'document has no root element', path))
    return builder.root


def _forbidden(exc: Exception) -> str:
    if isinstance(exc, defusedxml.DTDForbidden):
        return f'document type declarations (<!DOCTYPE {exc.name} ...>) are not allowed'
    if isinstance(exc, defusedxml.EntitiesForbidden):
        return f'entity declarations (<!ENTITY {exc.name} ...>) are not allowed'
    if isinstance(exc, defusedxml.ExternalReferenceForbidden):
        return 'external references are not allowed'
    return str(exc)


class XmlError(Exception):
    """The document could not be read as XML.

    Attributes:
        diagnostic: the located error.
    """

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic
