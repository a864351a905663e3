"""``Rappture.library``: an XML document addressed by Rappture paths.

A path is dot-separated parts, each ``type``, ``typeN`` (the N-th ``<type>`` child, from 0),
``type(id)`` (the ``<type id="id">`` child) or ``(id)`` (any child with that id); dots inside
parentheses belong to the id. ``put`` creates what a path names when it is missing; a part ending
in ``#`` always creates a new element after the last one of its type.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from .result import result

__all__ = ["library"]

_PART = re.compile(r"^(?:([A-Za-z_][\w-]*?)(#|\d*))?(?:\(([^)]*)\))?$")


def _split(path: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in path:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "." and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p for p in parts if p]


class library:
    """A Rappture XML document, or one element of it.

    Args:
        source: a file path, an XML string (starting ``<?xml`` or ``<``), or an Element.
    """

    def __init__(self, source: Any, _root: ET.Element | None = None) -> None:
        if isinstance(source, ET.Element):
            self.node = source
            self.root = _root if _root is not None else source
            return
        text = str(source)
        if text.lstrip().startswith("<"):
            self.node = ET.fromstring(text)
        else:
            self.node = ET.parse(text).getroot()
        self.root = self.node

    def _find(self, path: str, create: bool = False) -> ET.Element | None:
        node = self.node
        for part in _split(path):
            match = _PART.match(part)
            if match is None:
                raise ValueError(f"bad path component {part!r}: should have the form 'type123(id)'")
            kind, index, ident = match.group(1), match.group(2), match.group(3)
            found: ET.Element | None = None
            if index == "#" and kind:
                found = None
            elif ident is not None:
                found = next((c for c in node if (not kind or c.tag == kind) and c.get("id") == ident), None)
            elif kind:
                same = [c for c in node if c.tag == kind]
                position = int(index) if index else 0
                found = same[position] if position < len(same) else None
            if found is None:
                if not create:
                    return None
                if not kind:
                    raise ValueError(f"cannot create {part!r}: it names no element type")
                found = ET.Element(kind)
                if ident:
                    found.set("id", ident)
                last = max((i for i, c in enumerate(node) if c.tag == kind), default=None)
                if last is None:
                    node.append(found)
                else:
                    node.insert(last + 1, found)
            node = found
        return node

    def element(self, path: str = "", type: str = "object") -> Any:
        """The element at ``path`` as a library (``type="object"``), or its ``"id"``, ``"type"``
        (tag) or ``"component"`` (``type(id)``) name; None when absent."""
        node = self._find(path)
        if node is None:
            return None
        return self._as(node, type)

    def children(self, path: str = "", type: str = "object", rtype: str | None = None) -> Any:
        """The children of the element at ``path`` (optionally only those of tag ``rtype``)."""
        node = self._find(path)
        if node is None:
            return None
        return [self._as(c, type) for c in node if rtype is None or c.tag == rtype]

    def _as(self, node: ET.Element, kind: str) -> Any:
        if kind == "object":
            return library(node, self.root)
        if kind == "type":
            return node.tag
        if kind == "id":
            return node.get("id") or node.tag
        if kind == "component":
            return f"{node.tag}({node.get('id')})" if node.get("id") else node.tag
        raise ValueError(f"bad type value {kind!r}: should be component, id, object, type")

    def get(self, path: str = "") -> str | None:
        """The text at ``path`` (stripped), or None when the element is absent."""
        node = self._find(path)
        if node is None:
            return None
        return (node.text or "").strip()

    def put(
        self,
        path: str = "",
        value: Any = "",
        id: str | None = None,
        append: Any = 0,
        type: str = "string",
        compress: bool = False,
    ) -> None:
        """Set the text at ``path`` (created when missing); ``append`` adds to it; ``type="file"``
        reads the text from the file named by ``value``; a library value is copied in."""
        node = self._find(path, create=True)
        assert node is not None
        if isinstance(value, library):
            node.append(ET.fromstring(ET.tostring(value.node)))
        else:
            if type == "file":
                with open(str(value), "rb") as stream:
                    data = stream.read()
                from .encoding import encode

                text = encode(data, 3 if compress else 0) if compress else data.decode("utf-8", "replace")
            else:
                text = value if isinstance(value, str) else str(value)
            node.text = (node.text or "") + text if append else text
        if id:
            node.set("id", id)

    def remove(self, path: str = "") -> library | None:
        """Remove the element at ``path`` and return it."""
        parts = _split(path)
        node = self._find(path)
        parent = self._find(".".join(parts[:-1])) if parts else None
        if node is None or parent is None:
            return None
        parent.remove(node)
        return library(node)

    def copy(self, dest: str, src: str, from_lib: library | None = None) -> None:
        """Copy the element at ``src`` (of ``from_lib``, default this document) to ``dest``."""
        source = (from_lib or self)._find(src)
        target = self._find(dest, create=True)
        if source is None or target is None:
            return
        target.clear()
        clone = ET.fromstring(ET.tostring(source))
        target.text, target.attrib = clone.text, {**clone.attrib, **target.attrib}
        target.extend(list(clone))

    def result(self, status: int = 0) -> None:
        """Write the run file and print its name (:func:`Rappture.result`); a non-zero ``status``
        marks the run failed."""
        result(self, status)

    def xml(self) -> str:
        """The document's XML text, with the declaration."""
        body = ET.tostring(self.node, encoding="unicode")
        return f'<?xml version="1.0"?>\n{body}\n'

    def __str__(self) -> str:
        return f"<Rappture.library {self.node.tag}>"
