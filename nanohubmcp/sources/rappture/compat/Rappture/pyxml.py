"""``Rappture.PyXml``: dictionary-style access to a driver file (``rx['input.(Ef).current'].value``)."""

from __future__ import annotations

from typing import Any

from .library import library
from .result import result

__all__ = ["Node", "PyXml"]


def _encoded(value: Any) -> str:
    """Rappture's text for a value: arrays and (x, y) pairs interleaved, one pair per line."""
    if hasattr(value, "ravel") and hasattr(value, "tolist"):  # a numpy array, read without numpy
        return " ".join(repr(v) if isinstance(v, float) else str(v) for v in value.ravel("F").tolist())
    if (
        isinstance(value, (list, tuple))
        and value
        and all(hasattr(v, "__len__") and not isinstance(v, str) for v in value)
    ):
        columns = [list(v.tolist() if hasattr(v, "tolist") else v) for v in value]
        return "\n".join(" ".join(_word(x) for x in row) for row in zip(*columns, strict=False))
    if isinstance(value, (list, tuple)):
        return " ".join(_word(v) for v in value)
    return str(value)


def _word(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"' if " " in value else value
    return repr(value) if isinstance(value, float) else str(value)


class Node:
    """A place in the document; ``node[path]`` goes deeper, ``node[path] = value`` writes."""

    def __init__(self, lib: library, path: str) -> None:
        self.lib = lib
        self.path = path

    def _join(self, path: str) -> str:
        return f"{self.path}.{path}" if self.path and path else (self.path or path)

    def __getitem__(self, path: str) -> Node:
        return Node(self.lib, self._join(path))

    def __setitem__(self, path: str, value: Any) -> None:
        self.put(path, value)

    def get(self, path: str) -> str | None:
        """The text at ``path`` below this node (the older API)."""
        return self.lib.get(self._join(path))

    def put(self, path: str, value: Any, **options: Any) -> None:
        """Write ``value`` at ``path`` below this node (``append=``, ``type=``, ``compress=``)."""
        self.lib.put(self._join(path), _encoded(value), **options)

    @property
    def value(self) -> str | None:
        """The text of this node."""
        return self.lib.get(self.path)

    @property
    def name(self) -> str:
        """This node's path."""
        return self.path

    def copy(self, dest: str, src: str) -> None:
        """Copy the element at ``src`` to ``dest``."""
        self.lib.copy(dest, src)

    def xml(self) -> str:
        """The whole document's XML."""
        return self.lib.xml()

    def close(self, status: int = 0) -> None:
        """Write the run file and tell Rappture its name (see :func:`result`); a non-zero
        ``status`` reports the run failed, as Rappture's ``close(status)`` does."""
        result(self.lib, status)

    def __str__(self) -> str:
        return f"{self.lib}['{self.path}']" if self.path else str(self.lib)


def PyXml(path: str) -> Node:
    """Open the driver file at ``path``; returns the root node."""
    return Node(library(path), "")
