"""A result's content blocks as the session's protocol version has them.

A ``CallToolResult`` or ``GetPromptResult`` is made once, with every block type the server knows; a session
of an older version gets each block its version lacks in a form it has: a ``resource_link`` (2025-06-18) as
a text naming the URI (:mod:`.link_blocks`), an ``audio`` block (2025-03-26) as an embedded blob resource
(:mod:`.audio_blocks`).
"""

from __future__ import annotations

from typing import Any

from ...protocol.versions import ProtocolVersion
from .audio_blocks import audio_as_resources
from .link_blocks import links_as_text

__all__ = ["blocks_for"]


def blocks_for(version: ProtocolVersion, wire: dict[str, Any]) -> dict[str, Any]:
    """``wire`` (a ``CallToolResult`` or ``GetPromptResult``) with the blocks ``version`` lacks converted,
    in place; ``wire`` is returned. Nothing to do when ``version.every_block``: a caller on a hot path asks
    that first."""
    if not version.resource_links:
        wire = links_as_text(wire)
    if not version.audio_content:
        wire = audio_as_resources(wire)
    return wire
