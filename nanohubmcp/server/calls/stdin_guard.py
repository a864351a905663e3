"""``input()`` inside a tool fails at once, saying what to use instead.

A tool runs on a worker thread of a server whose standard input is a terminal nobody watches, a
notebook kernel's pipe, or — over the stdio transport — the MCP stream itself. ``input()`` there
waits until the call's time limit (or for ever), and over stdio it would read the client's next
message. :func:`guard` wraps ``builtins.input`` once, on the first tool call: inside a call (a call's
progress tracker is current in the context, which follows the call onto its worker thread) it raises
:class:`~nanohubmcp.errors.ToolError` at once; anywhere else it calls the function it wrapped,
unchanged, so a notebook's or a script's own ``input()`` keeps working. (A kernel that swaps in its
own ``input`` while a cell runs keeps it for that cell; calls made then are not guarded.)

Asking the person for a value is elicitation: ``await ctx.elicit(...)`` (MCP 2025-11-25, Client §
Elicitation), answered by the client.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from ...errors import ToolError
from ..wire.fork_safe import ForkSafeLock
from .progress import CURRENT

__all__ = ["MESSAGE", "guard"]

MESSAGE = (
    "input() cannot be answered inside an MCP tool: nobody reads this server's standard input (over "
    "stdio it is the client's message stream). Take the value as a parameter, or ask the user with "
    "ctx.elicit(...)"
)

_lock = ForkSafeLock()


class _GuardedInput:
    """``input`` that refuses inside a tool call and otherwise calls the one it wraps."""

    def __init__(self, wrapped: Callable[..., str]) -> None:
        self.wrapped = wrapped

    def __call__(self, *args: Any, **kwargs: Any) -> str:
        if CURRENT.get() is not None:
            raise ToolError(MESSAGE)
        return self.wrapped(*args, **kwargs)


def guard() -> None:
    """Wrap ``builtins.input`` (once; idempotent and thread-safe)."""
    if isinstance(builtins.input, _GuardedInput):
        return
    with _lock:
        if not isinstance(builtins.input, _GuardedInput):
            builtins.input = _GuardedInput(builtins.input)
