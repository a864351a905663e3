"""What a prompt function returned, turned into the ``GetPromptResult`` the wire carries.

Pure functions, like ``results`` (which re-exports them): no I/O, no server state.
Source: MCP 2025-11-25, Server § Prompts § Getting a prompt.
"""

from __future__ import annotations

from typing import Any

from ...protocol.result_types import PromptResult
from .meta_values import check_meta_values

Wire = dict[str, Any]


def prompt_messages(value: object) -> list[Wire]:
    """Shape a prompt function's return value as ``GetPromptResult.messages``.

    Args:
        value: a ``PromptResult``; a str (one user text message); a ``Message``; a content object or
            ``Image`` (one user message); a ``{"role"?, "content"}`` dict whose content is a str, a block
            dict (``{"text": ...}`` alone counts as text) or a list of those (one message each); or a
            list of any of these.

    Returns:
        ``[{"role": "user"|"assistant", "content": block}, ...]`` (MCP 2025-11-25, Server § Prompts).

    Raises:
        ValueError: a role other than user/assistant, a message dict without content, a bad block dict.
        TypeError: None or another kind of value.
    """
    if isinstance(value, PromptResult):
        return list(value.to_wire()["messages"])
    if value is None:
        raise TypeError("a prompt returned None; return a str, a list of messages or a PromptResult")
    return list(PromptResult(value).to_wire()["messages"])


def prompt_result(value: object, *, description: str | None = None) -> Wire:
    """Return the whole ``GetPromptResult``: ``{"description"?, "messages": [...], "_meta"?}``.

    A ``PromptResult``'s own description wins over ``description`` (the registered one).

    Raises:
        ValueError, TypeError: as :func:`prompt_messages` says; or a ``meta`` (the result's, a message's
            block's) holding a value JSON cannot hold (:func:`.meta_values.check_meta_values`).
    """
    wire = value.to_wire() if isinstance(value, PromptResult) else {"messages": prompt_messages(value)}
    if description is not None and "description" not in wire:
        wire = {"description": description, **wire}
    check_meta_values(wire, "PromptResult meta")
    return wire
