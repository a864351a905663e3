"""Public content types, and how any content value becomes a wire content block.

The blocks (``TextContent``, ``ImageContent``, ``AudioContent``, ``ResourceLink``,
``EmbeddedResource``, ``ResourceContent``, ``Role``) are defined in ``protocol.blocks``, the
``Image``/``Audio`` helpers in ``protocol.media``, MIME sniffing in ``protocol.mime``; all are
importable from here. The result types (``ToolResult``, ``ResourceResult``, ``PromptResult``,
``Message`` and their 0.4.x aliases) are in ``protocol.result_types``. Not here: turning an
arbitrary Python return value into a result (``nanohubmcp.server.results.shape``), JSON encoding
(``protocol.jsonenc``). :func:`tool_error_result` is the ``isError: true`` result every tool failure
answers with, whichever layer writes it.

Source: MCP 2025-11-25, Server § Tools § Tool result (content blocks); MCP 2026-07-28, the same.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from ..errors import RETRY_AFTER_META, notified_text
from . import jsonenc, long_ints
from .blocks import AudioContent, EmbeddedResource, ImageContent, ResourceContent, ResourceLink, Role, TextContent
from .long_ints import LONG_BITS
from .media import Audio, Image
from .mime import guess_mime_type, sniff_mime_type
from .wire import UNSET, Wire, type_name

# ---------------------------------------------------------------- content normalisation

_CONTENT_CLASSES: Final = (
    TextContent,
    ImageContent,
    AudioContent,
    ResourceLink,
    EmbeddedResource,
    Image,
    Audio,
)
_REQUIRED: Final[dict[str, dict[str, type]]] = {
    "text": {"text": str},
    "image": {"data": str, "mimeType": str},
    "audio": {"data": str, "mimeType": str},
    "resource": {"resource": Mapping},
    "resource_link": {"uri": str, "name": str},
}


def is_wire_block(value: object) -> bool:
    if not isinstance(value, Mapping):
        return False
    kind = value.get("type")
    required = _REQUIRED.get(kind) if isinstance(kind, str) else None
    return required is not None and all(isinstance(value.get(k), t) for k, t in required.items())


def is_content(value: object) -> bool:
    """True for a content object, an ``Image``/``Audio`` helper, or a wire-shaped content dict."""
    return isinstance(value, _CONTENT_CLASSES) or is_wire_block(value)


def scalar_text(value: bool | int | float) -> str:
    """Text for a bare number or bool: JSON spelling (``5.0``, ``10``, ``true``). A text block is not JSON, so a
    non-finite float keeps what it is: ``NaN``, ``Infinity``, ``-Infinity`` (an overflow must not read as
    "no value"); structured content, which is JSON, still carries ``null`` for them.

    Raises:
        LongInteger: an int of more than 4,300 digits (``protocol.long_ints``: a ValueError), whatever Python's
            own limit is set to.

    .. versionchanged:: 1.0
       An int of more than 4,300 digits raises the same error under ``PYTHONINTMAXSTRDIGITS=0`` (it was written)
       as under Python's default limit (whose own message named ``sys.set_int_max_str_digits()``), told from its
       size before it is written (it was written first, in time growing with the square of its digits)."""
    kind = type(value)
    if kind is float:
        if not math.isfinite(value):
            return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
        return float.__repr__(value)  # what JSON encoders write for a finite float (json's own spelling)
    if type(value) is int:  # (kind, as mypy reads it: an int from here on)
        # (told before writing: under a lifted limit Python writes a long int in time growing with the square
        # of its digits, to no use; an int of no more bits has no more digits, and pays one comparison)
        if value.bit_length() > LONG_BITS and long_ints.too_long(value):
            raise long_ints.unwritten("the number")
        try:
            return int.__repr__(value)
        except ValueError:  # past Python's own lower limit: its message names a knob that would not help
            raise long_ints.unwritten("the number") from None
    if kind is bool:
        return "true" if value else "false"
    return jsonenc.dumps(value)  # a subclass (an IntEnum member): as JSON writes it


def content_item(value: object) -> Any:
    """Validate one content item; a str or number becomes :class:`TextContent`, others are kept."""
    if isinstance(value, str):
        return TextContent(value)
    if isinstance(value, (bool, int, float)):
        return TextContent(scalar_text(value))
    if not is_content(value):
        to_content_block(value)  # raises the precise error
    return value


def to_content_block(value: object) -> Wire:
    """Return the wire block for a str (text), content object, helper, or wire-shaped dict.

    Raises:
        ValueError: a dict that is not a valid content block (``type`` text|image|audio|resource|
            resource_link with its required fields).
        TypeError: anything else.
    """
    if isinstance(value, str):
        return {"type": "text", "text": value}
    if isinstance(value, _CONTENT_CLASSES):
        return value.to_wire()
    if isinstance(value, Mapping):
        if is_wire_block(value):
            return dict(value)
        raise ValueError(
            f"not an MCP content block: {dict(value)!r}; a block needs 'type' (text, image, "
            "audio, resource, resource_link) and that type's fields"
        )
    raise TypeError(
        f"cannot use a {type_name(value)} as MCP content; use a str, TextContent, Image, Audio, "
        "ImageContent, AudioContent, EmbeddedResource or ResourceLink"
    )


def tool_error_result(
    text: str, *, retry_after: int | None = None, meta: dict[str, Any] | None = None
) -> dict[str, Any]:
    """An ``isError: true`` CallToolResult carrying ``text``:
    ``{"content": [{"type": "text", "text": text}], "isError": true, "_meta"?: {...}}``.

    Args:
        text: what failed, for the client. Over :data:`~nanohubmcp.errors.MAX_NOTIFIED_CHARS` characters (an
            exception carrying a simulator's stderr, a task's failure text) it is cut as a progress or log
            message is, saying so (:func:`~nanohubmcp.errors.notified_text`): an answer going as one SSE event
            passed the official ``mcp`` client's 1 MiB and the call was lost; the server's log keeps it whole.
        retry_after: for a tool that could not start, the seconds after which to retry
            (``_meta`` under :data:`~nanohubmcp.errors.RETRY_AFTER_META`; :class:`~nanohubmcp.errors.ToolBusy`).
        meta: the result's ``_meta`` (a task's related-task entry); ``retry_after`` is added to it.
    Returns:
        A new dict each call.
    """
    result: dict[str, Any] = {"content": [{"type": "text", "text": notified_text(text)}], "isError": True}
    if meta is not None or retry_after is not None:
        result["_meta"] = {**(meta or {}), **({} if retry_after is None else {RETRY_AFTER_META: retry_after})}
    return result


__all__ = [
    "UNSET",
    "Audio",
    "AudioContent",
    "EmbeddedResource",
    "Image",
    "ImageContent",
    "ResourceContent",
    "ResourceLink",
    "Role",
    "TextContent",
    "guess_mime_type",
    "is_content",
    "scalar_text",
    "sniff_mime_type",
    "to_content_block",
    "tool_error_result",
]
