"""``audio`` blocks for a session whose protocol version has none (2024-11-05).

An ``audio`` content block (an ``Audio`` a tool or prompt returned, a sound file's bytes) arrived in MCP
2025-03-26; a 2024-11-05 client knows text, image and embedded resource blocks only, and one that checks a
result against its version refuses the whole of it. For such a session each audio block becomes an embedded
resource carrying the same data as a blob, which every version has:
``{"type": "resource", "resource": {"uri": "nanohubmcp://audio/<n>", "mimeType": "audio/wav", "blob": …}}``.
The URI only labels the block (``n`` is its index in the ``content`` list, or the message's in a prompt's
``messages``): it is not a resource ``resources/read`` can fetch; the data is in the block.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AUDIO_URI", "audio_as_resources", "audio_resource"]

Wire = dict[str, Any]

AUDIO_URI = "nanohubmcp://audio/"
"""The prefix of the label URI of an audio block sent as an embedded resource (not readable)."""


def audio_resource(audio: Wire, n: int) -> Wire:
    """The embedded resource block standing for the ``audio`` block ``audio`` (``data``: base64 text,
    ``mimeType``), labelled ``nanohubmcp://audio/<n>``; its annotations are kept."""
    resource: Wire = {"uri": f"{AUDIO_URI}{n}", "blob": audio.get("data", "")}
    if isinstance(audio.get("mimeType"), str):
        resource["mimeType"] = audio["mimeType"]
    block: Wire = {"type": "resource", "resource": resource}
    if isinstance(audio.get("annotations"), dict):
        block["annotations"] = audio["annotations"]
    return block


def audio_as_resources(wire: Wire) -> Wire:
    """``wire`` (a ``CallToolResult`` or a ``GetPromptResult``) with each ``audio`` block of its ``content``
    (or of its messages' ``content``) replaced by :func:`audio_resource`'s block; ``wire`` itself when it
    has none (it is changed in place otherwise, and returned)."""
    content = wire.get("content")
    if type(content) is list and any(_is_audio(block) for block in content):
        wire["content"] = [audio_resource(block, n) if _is_audio(block) else block for n, block in enumerate(content)]
    messages = wire.get("messages")
    if type(messages) is list:
        for n, message in enumerate(messages):
            if type(message) is dict and _is_audio(message.get("content")):
                message["content"] = audio_resource(message["content"], n)
    return wire


def _is_audio(block: object) -> bool:
    return type(block) is dict and block.get("type") == "audio"
