"""``resource_link`` blocks for a session whose protocol version has none (2024-11-05, 2025-03-26).

A ``resource_link`` content block (a picture or file kept as a resource for being over ``max_inline_bytes``,
a ``ResourceLink`` a tool or prompt returned) arrived in MCP 2025-06-18; a client of an older version knows
text, image, embedded resource (and from 2025-03-26 audio) blocks only, and one that checks a result against
its version refuses the whole of it (trial 45, T45-18). For such a session each link becomes a text block
naming its URI, which the client can read with ``resources/read`` (that method is in every version); an
embedded resource would need the data the link was made to keep out of the answer.
"""

from __future__ import annotations

from typing import Any

__all__ = ["link_text", "links_as_text"]

Wire = dict[str, Any]


def link_text(link: Wire) -> Wire:
    """The text block standing for the ``resource_link`` block ``link`` (its annotations kept):
    ``"Resource 'plot.png' (image/png, 312000 bytes), read it with resources/read: nanohub://…"``."""
    size = link.get("size")
    about = [str(value) for value in (link.get("mimeType"), f"{size} bytes" if type(size) is int else None) if value]
    name = link.get("title") or link.get("name")
    said = f"Resource {name!r}" if isinstance(name, str) and name else "A resource"
    kind = " (" + ", ".join(about) + ")" if about else ""
    text = f"{said}{kind}, read it with resources/read: {link.get('uri')}"
    description = link.get("description")
    if isinstance(description, str) and description:
        text += f"\n{description}"
    block: Wire = {"type": "text", "text": text}
    if isinstance(link.get("annotations"), dict):
        block["annotations"] = link["annotations"]
    return block


def links_as_text(wire: Wire) -> Wire:
    """``wire`` (a ``CallToolResult`` or a ``GetPromptResult``) with each ``resource_link`` block of its
    ``content`` (or of its messages' ``content``) replaced by :func:`link_text`'s block; ``wire`` itself
    when it has none (it is changed in place otherwise, and returned)."""
    content = wire.get("content")
    if type(content) is list and any(_is_link(block) for block in content):
        wire["content"] = [link_text(block) if _is_link(block) else block for block in content]
    messages = wire.get("messages")
    if type(messages) is list:
        for message in messages:
            if type(message) is dict and _is_link(message.get("content")):
                message["content"] = link_text(message["content"])
    return wire


def _is_link(block: object) -> bool:
    return type(block) is dict and block.get("type") == "resource_link"

