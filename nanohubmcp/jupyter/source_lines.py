"""``%mcp rappture PATH ...`` and ``%mcp sim2l PATH ...``: the one parser of these lines.

The magic (:mod:`.magics`) registers what a line names on the notebook's server; the exporter
(:mod:`.translate`) writes the same registration into ``start_mcp.py``, so an exported notebook serves
the same Rappture tools and Sim2Ls as the live one.
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, field
from typing import Any

from ..protocol.seconds import past_any_wait
from ..protocol.whole_numbers import text_number

__all__ = ["KINDS", "SourceLine", "parse_source_line"]

KINDS = {"rappture": "add_rappture_tool", "sim2l": "add_sim2l"}
"""The ``%mcp`` actions that serve a tool of another format, and the ``MCPServer`` method of each."""


@dataclass
class SourceLine:
    """A parsed line: what to call on the server, with what."""

    kind: str
    path: str
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def method(self) -> str:
        """The ``MCPServer`` method registering it (``add_rappture_tool``, ``add_sim2l``)."""
        return KINDS[self.kind]

    def code(self, server: str = "server") -> str:
        """The registration as Python source, e.g. ``server.add_rappture_tool('t.xml', name='x')``; a number that is
        no finite one as Python reads it back (``timeout=float('inf')``: no limit)."""
        options = "".join(f", {key}={_source(value)}" for key, value in self.options.items())
        return f"{server}.{self.method}({self.path!r}{options})"


def usage(kind: str) -> str:
    """The line's usage text."""
    return f"%mcp {kind} PATH [--name NAME] [--async]" + (
        " [--timeout SECONDS] [--no-plot]" if kind == "rappture" else " [--cell-timeout SECONDS]")


def parse_source_line(kind: str, rest: str) -> SourceLine:
    """Parse the words after ``%mcp <kind>``.

    Raises:
        ValueError: the usage, and what is wrong (an unknown option, no path or several).
    """
    rappture = kind == "rappture"
    try:
        words = shlex.split(rest)
    except ValueError as exc:
        raise ValueError(f"{usage(kind)}: {exc}") from None
    options: dict[str, Any] = {}
    paths = []
    while words:
        word = words.pop(0)
        if word == "--async":
            options["background"] = True
        elif word == "--name" and words:
            options["name"] = words.pop(0)
        elif word == "--timeout" and words and rappture:
            options["timeout"] = _seconds(kind, "--timeout", words.pop(0))
        elif word == "--no-plot" and rappture:  # as `nanohubmcp rappture --no-plot`: curves as data only
            options["plot"] = False
        elif word == "--cell-timeout" and words and not rappture:
            seconds = _seconds(kind, "--cell-timeout", words.pop(0))
            options["cell_timeout"] = None if past_any_wait(seconds) else seconds  # inf, 1e308: no limit
        elif word.startswith("-"):
            raise ValueError(f"{usage(kind)}: unknown option {word}")
        else:
            paths.append(word)
    if len(paths) != 1:
        raise ValueError(f"{usage(kind)}: give one {'tool.xml' if rappture else 'notebook'}")
    return SourceLine(kind, paths[0], options)


def _source(value: Any) -> str:
    """``value`` as Python source: its ``repr``, or ``float('inf')`` for a float whose ``repr`` is no literal."""
    return f"float({str(value)!r})" if isinstance(value, float) and not math.isfinite(value) else repr(value)


def _seconds(kind: str, option: str, text: str) -> float:
    """``option``'s number of seconds, read as every option's number (ASCII digits, no ``_``); its range is the
    registration's to check."""
    seconds = text_number(text)
    if seconds is None:
        raise ValueError(f"{usage(kind)}: {option} takes a number of seconds (in ASCII digits, no '_'), not {text!r}")
    return seconds
