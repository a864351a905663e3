"""What holds while ``nanohubmcp`` imports an app file: the command line's settings win over the file's,
and the command serves the file's server, not the file.

``nanohubmcp run APP --state-dir DIR`` imports APP, whose ``MCPServer(...)`` may name a state
directory itself (every script exported from a notebook with ``%config NanohubMCP.state_dir``
does). By the usual convention an option given on the command line overrides what the program
sets, so while the command imports the file (:func:`importing`) a server built there takes the
command line's ``state_dir`` / ``state_url`` instead of its own arguments (:func:`command_line`,
asked by ``MCPServer``), and each argument replaced is kept (:attr:`AppImport.replaced`) for the
command to say so in one line. Outside :func:`importing` nothing changes: an argument wins over
the environment and the defaults, as ``MCPServer`` documents.

A file that calls ``server.run()`` (or ``start()``) at import, not under ``if __name__ ==
"__main__":``, would serve on its own port and never hand back to the command, which then served
nothing it was asked to (``--port`` ignored, ``server-json`` never written). While :func:`importing`,
:func:`serving_skipped` tells the serving verbs to return at once, and the call is recorded
(:attr:`AppImport.skipped`) for the command to say how to fix the file.

This module owns only that hand-over between the command and the servers the file builds; it
imports nothing of the server.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["AppImport", "command_line", "importing", "serving_skipped"]

T = TypeVar("T")


class AppImport:
    """One app file being imported by ``nanohubmcp``.

    A plain class, not a dataclass: ``MCPServer`` imports this module, and making a dataclass
    compiles its methods at import (~1.7 M instructions of every server's cold start).

    Attributes:
        overrides: option name (``"state_dir"``, ``"state_url"``) -> the command line's value.
        replaced: option name -> the file's own argument that lost to the command line's value.
        skipped: the serving verbs the file called while imported (``"run"``, ``"start"``), skipped.
    """

    __slots__ = ("overrides", "replaced", "skipped")

    def __init__(
        self, overrides: dict[str, str], replaced: dict[str, object] | None = None, skipped: list[str] | None = None
    ) -> None:
        self.overrides = overrides
        self.replaced: dict[str, object] = {} if replaced is None else replaced
        self.skipped: list[str] = [] if skipped is None else skipped

    def __repr__(self) -> str:
        return f"AppImport(overrides={self.overrides!r}, replaced={self.replaced!r}, skipped={self.skipped!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AppImport):
            return NotImplemented
        return (self.overrides, self.replaced, self.skipped) == (other.overrides, other.replaced, other.skipped)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value: unhashable, as the dataclass was


_current: list[AppImport] = []  # the import in progress, innermost last (the command's thread only)


@contextmanager
def importing(**overrides: str | None) -> Iterator[AppImport]:
    """While the ``with`` body runs, a server built takes ``overrides`` (None: not given) over its arguments."""
    current = AppImport({option: value for option, value in overrides.items() if value is not None})
    _current.append(current)
    try:
        yield current
    finally:
        _current.remove(current)


def command_line(option: str, argument: T) -> T | str:
    """The value of ``option`` a server being built uses: the command line's while :func:`importing` gave one,
    else ``argument`` (the server's own). A different ``argument`` replaced is recorded."""
    if not _current or option not in _current[-1].overrides:
        return argument
    current = _current[-1]
    value = current.overrides[option]
    if argument is not None and _normal(option, argument) != _normal(option, value):
        current.replaced[option] = argument
    return value


def serving_skipped(verb: str) -> bool:
    """Whether ``server.<verb>()`` (``"run"``, ``"start"``) is called while ``nanohubmcp`` imports an app file:
    then the caller returns without serving, and the call is recorded for the command's note."""
    if not _current:
        return False
    _current[-1].skipped.append(verb)
    return True


def _normal(option: str, value: object) -> object:
    if option == "state_dir" and isinstance(value, (str, os.PathLike)):
        return os.path.abspath(os.path.expanduser(os.fspath(value)))
    return value
