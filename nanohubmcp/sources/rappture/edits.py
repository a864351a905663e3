"""Whether a served tool.xml's ``<input>`` section was edited since the tool was registered.

A call runs with the inputs read at registration (the schema clients were given, the defaults, units and
limits the driver file is written from); its provenance record names tool.xml as the call finds it. When
the two differ the call is refused (:class:`InputsWatch`), rather than run with inputs its record does not
show. Edits elsewhere in tool.xml, and whitespace between elements, do not count.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

__all__ = ["InputsWatch", "inputs_text"]


def inputs_text(root: ET.Element) -> str:
    """The ``<input>`` element of a tool.xml's root in canonical form (``""`` when there is none)."""
    element = root.find("input")
    if element is None:
        return ""
    return ET.canonicalize(ET.tostring(element, encoding="unicode"), strip_text=True)


class InputsWatch:
    """Compares tool.xml's ``<input>`` with the registered one; reads the file only when its
    ``stat`` (modification time, size, inode) changed since the last look.

    Args:
        path: the tool.xml.
        root: its root element as registered.
    """

    def __init__(self, path: str, root: ET.Element) -> None:
        self.path = path
        self._registered = inputs_text(root)
        self._seen: tuple[int, int, int] | None = None
        self._edited = False

    def edited(self) -> bool:
        """True when the file's ``<input>`` now differs from the registered one. A file that cannot
        be read or parsed (gone, half-written) counts as not edited: the run reports what it finds."""
        try:
            info = os.stat(self.path)
        except OSError:
            return False
        stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        if stamp != self._seen:
            try:
                now = inputs_text(ET.parse(self.path).getroot())
            except (ET.ParseError, OSError):
                return False
            self._seen, self._edited = stamp, now != self._registered
        return self._edited
