"""Whether a served tool.xml's ``<input>`` section was edited since the tool was registered.

A call runs with the inputs read at registration (the schema clients were given, the defaults, units and
limits the driver file is written from); its provenance record names tool.xml as the call finds it. When
the two differ, or the file is gone or no longer parses (a half-written save), the call is refused
(:class:`InputsWatch`), rather than run with a tool.xml its record does not show. Edits elsewhere in
tool.xml, and whitespace between elements, do not count.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

__all__ = ["EDITED", "InputsWatch", "inputs_text"]

EDITED = "had its <input> section edited"
"""What :meth:`InputsWatch.change` answers when the file parses and its ``<input>`` differs."""


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
        self._change: str | None = None

    def change(self) -> str | None:
        """None while the file's ``<input>`` is the registered one; else what happened to the file, as words
        that follow its name: ``"is gone (...)"``, ``"no longer parses as XML (...)"`` (a half-written save)
        or ``"had its <input> section edited"``."""
        try:
            info = os.stat(self.path)
        except OSError as exc:
            self._seen = None
            return f"is gone ({exc.strerror})"
        stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        if stamp != self._seen:
            try:
                now: str | None = inputs_text(ET.parse(self.path).getroot())
                problem = ""
            except ET.ParseError as exc:
                now, problem = None, f"no longer parses as XML ({exc})"
            except OSError as exc:
                now, problem = None, f"cannot be read ({exc.strerror})"
            if now is not None and now != self._registered:
                problem = EDITED
            self._seen, self._change = stamp, problem or None
        return self._change
