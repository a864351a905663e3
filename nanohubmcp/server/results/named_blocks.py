"""A tool result's content blocks named, not carried: the plain value a REST answer and a job's value give
for a result with no structured content.

A picture stays MCP content: its place in the value says ``"<image: content[i]>"`` (the name
:mod:`.convert.mixed` leaves in a dict's place), any other block that is not text (audio, bytes as an
embedded resource, a resource link) ``"<content[i]>"``, i the block's index in the result. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

__all__ = ["named", "placeholders"]


def placeholders(content: list[Any]) -> Any:
    """The blocks of a result without structured content as a plain value: a text block as its text,
    an image as ``"<image: content[i]>"``, any other block as ``"<content[i]>"``. One block alone
    stands for itself (a figure: ``"<image: content[0]>"``); several are a list in their order; no
    block is ``[]``."""
    names = named(content)
    return names[0] if len(names) == 1 else names


def named(content: list[Any]) -> list[Any]:
    """Each block of ``content`` named as :func:`placeholders` names it, always as a list, in order."""
    return [_named(i, block) for i, block in enumerate(content)]


def _named(index: int, block: Any) -> Any:
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    if kind == "text":
        return block.get("text", "")
    return f"<image: content[{index}]>" if kind == "image" else f"<content[{index}]>"
