"""The MCP content blocks and resource contents, each giving its exact wire shape (``to_wire()``).

``TextContent``, ``ImageContent``, ``AudioContent``, ``ResourceLink``, ``EmbeddedResource`` (with
its ``ResourceContent``) and the ``Role`` of a prompt message. Constructors validate their inputs
(``TypeError`` for a wrong kind of value, ``ValueError`` for a bad value); ``bytes`` given as image,
audio or blob data are base64-encoded for you, and text given there must already be base64. Empty
``annotations``/``meta`` are left off the wire.

Source: MCP 2025-11-25, Server § Tools § Tool result (content blocks), Server § Resources § Reading
resources, Server § Prompts § Getting a prompt; MCP 2026-07-28, the same sections.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, ClassVar

from .mime import sniff_mime_type
from .wire import (
    Wire,
    WireType,
    check_annotations,
    check_meta,
    check_mime,
    finish,
    is_bytes,
    optional_str,
    to_base64,
    type_name,
)


class Role(str, enum.Enum):
    """Who speaks a prompt message: ``"user"`` or ``"assistant"``; compares equal to those strings."""

    USER = "user"
    ASSISTANT = "assistant"

    def __str__(self) -> str:
        return str(self.value)


class TextContent(WireType):
    """A text block: ``{"type": "text", "text", "annotations"?, "_meta"?}``."""

    def __init__(
        self,
        text: str = "",
        annotations: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(text, str):
            raise TypeError(f"TextContent text must be a str, not {type_name(text)}")
        self.text = text
        self.annotations = check_annotations(annotations, "TextContent")
        self.meta = check_meta(meta, "TextContent")

    def to_wire(self) -> Wire:
        """Return the MCP ``TextContent`` object."""
        return finish({"type": "text", "text": self.text}, self.annotations, self.meta)


class MediaContent(WireType):
    kind: ClassVar[str] = ""
    default_mime: ClassVar[str] = ""

    def __init__(
        self,
        data: bytes | str,
        mime_type: str | None = None,
        annotations: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
        *,
        mimeType: str | None = None,
    ) -> None:
        label = type(self).__name__
        self.data, head = to_base64(data, f"{label} data")
        mime = check_mime(mime_type, mimeType, label) or sniff_mime_type(head)
        if mime is None and is_bytes(data):
            raise ValueError(f"{label}: cannot tell the {self.kind} format of these bytes; pass mime_type=")
        self.mime_type: str = mime or self.default_mime
        self.annotations = check_annotations(annotations, label)
        self.meta = check_meta(meta, label)

    @property
    def mimeType(self) -> str:
        """Alias of ``mime_type``."""
        return self.mime_type

    def to_wire(self) -> Wire:
        """Return ``{"type", "data" (base64), "mimeType", "annotations"?, "_meta"?}``."""
        return finish(
            {"type": self.kind, "data": self.data, "mimeType": self.mime_type}, self.annotations, self.meta
        )


class ImageContent(MediaContent):
    """An image block. ``data``: bytes (encoded for you) or base64 text.

    ``mime_type`` (or ``mimeType=``) defaults to the type the bytes announce, else ``image/png``;
    raw bytes of an unknown format need an explicit ``mime_type`` (``ValueError`` otherwise).
    """

    kind = "image"
    default_mime = "image/png"


class AudioContent(MediaContent):
    """An audio block (MCP 2025-03-26+). Like :class:`ImageContent`; the fallback type is ``audio/wav``."""

    kind = "audio"
    default_mime = "audio/wav"


class ResourceLink(WireType):
    """A link to a resource the client may read (MCP 2025-06-18+).

    Wire: ``{"type": "resource_link", "uri", "name", "title"?, "description"?, "mimeType"?, "size"?,
    "icons"?, "annotations"?, "_meta"?}``. ``name`` defaults to the URI; ``size`` is in bytes.
    """

    def __init__(
        self,
        uri: str,
        name: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        title: str | None = None,
        annotations: Mapping[str, Any] | None = None,
        size: int | None = None,
        meta: Mapping[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        *,
        mimeType: str | None = None,
    ) -> None:
        if not isinstance(uri, str) or not uri:
            raise ValueError(f"ResourceLink uri must be a non-empty str, got {uri!r}")
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
            raise ValueError(f"ResourceLink size must be a non-negative int (bytes), got {size!r}")
        if icons is not None and not isinstance(icons, list):
            raise TypeError(f"ResourceLink icons must be a list of dicts, not {type_name(icons)}")
        self.uri = uri
        self.name = optional_str(name, "ResourceLink name") or uri
        self.title = optional_str(title, "ResourceLink title")
        self.description = optional_str(description, "ResourceLink description")
        self.mime_type = check_mime(mime_type, mimeType, "ResourceLink")
        self.size = size
        self.icons = icons
        self.annotations = check_annotations(annotations, "ResourceLink")
        self.meta = check_meta(meta, "ResourceLink")

    def to_wire(self) -> Wire:
        """Return the MCP ``ResourceLink`` object."""
        wire: Wire = {"type": "resource_link", "uri": self.uri, "name": self.name}
        for key, value in (
            ("title", self.title),
            ("description", self.description),
            ("mimeType", self.mime_type),
            ("size", self.size),
            ("icons", self.icons),
        ):
            if value is not None:
                wire[key] = value
        return finish(wire, self.annotations, self.meta)


class ResourceContent(WireType):
    """One item of a resource read: text or a binary blob.

    Args:
        uri: the resource URI; None means "the URI that was read" (filled in by ``to_wire(uri=...)``).
        text: text contents (``content=`` is the 0.4.x spelling; bytes given there become a blob).
        blob: bytes (base64-encoded for you) or base64 text.
        mime_type: the item's MIME type (``mimeType=`` accepted); for bytes it defaults to the sniffed type.
        meta: the item's ``_meta``.

    Neither text nor blob gives empty text, as 0.4.x did. Wire: ``{"uri", "mimeType"?, "text"|"blob",
    "_meta"?}`` (MCP 2025-11-25, Server § Resources § Resource contents).
    """

    def __init__(
        self,
        uri: str | None = None,
        text: str | None = None,
        blob: bytes | str | None = None,
        mime_type: str | None = None,
        content: str | bytes | None = None,
        meta: Mapping[str, Any] | None = None,
        *,
        mimeType: str | None = None,
    ) -> None:
        if content is not None:
            if text is not None or blob is not None:
                raise ValueError("ResourceContent: give content= or text=/blob=, not both")
            if is_bytes(content):
                blob = bytes(content)
            else:
                text = content  # type: ignore[assignment]  # checked by optional_str below
        if text is not None and blob is not None:
            raise ValueError("ResourceContent takes text or blob, not both")
        self.uri = optional_str(uri, "ResourceContent uri")
        self.mime_type = check_mime(mime_type, mimeType, "ResourceContent")
        self.meta = check_meta(meta, "ResourceContent")
        self.blob: str | None = None
        self.text: str | None = None
        self._default_mime: str | None = None
        if blob is not None:
            self.blob, head = to_base64(blob, "ResourceContent blob")
            self._default_mime = sniff_mime_type(head) or "application/octet-stream"
        else:
            self.text = optional_str(text, "ResourceContent text") or ""

    def to_wire(
        self, *, uri: str | None = None, mime_type: str | None = None, meta: Mapping[str, Any] | None = None
    ) -> Wire:
        """Return the wire item; ``uri``/``mime_type``/``meta`` fill what the item lacks.

        An explicit item MIME type wins over ``mime_type``, which wins over the sniffed one.

        Raises:
            ValueError: neither the item nor ``uri`` gives a URI.
        """
        the_uri = self.uri or uri
        if not the_uri:
            raise ValueError("ResourceContent has no uri; give uri= or read it through a resource")
        wire: Wire = {"uri": the_uri}
        mime = self.mime_type or mime_type or self._default_mime
        if mime:
            wire["mimeType"] = mime
        if self.blob is not None:
            wire["blob"] = self.blob
        else:
            wire["text"] = self.text
        return finish(wire, None, self.meta if self.meta is not None else check_meta(meta, "resource"))


class EmbeddedResource(WireType):
    """A resource's contents inside a tool result or prompt message.

    Wire: ``{"type": "resource", "resource": {"uri", "mimeType"?, "text"|"blob"}, "annotations"?,
    "_meta"?}``. ``blob`` bytes are base64-encoded for you; neither text nor blob gives empty text.
    """

    def __init__(
        self,
        uri: str,
        text: str | None = None,
        blob: bytes | str | None = None,
        mime_type: str | None = None,
        annotations: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
        *,
        mimeType: str | None = None,
    ) -> None:
        if not isinstance(uri, str) or not uri:
            raise ValueError(f"EmbeddedResource uri must be a non-empty str, got {uri!r}")
        self.resource = ResourceContent(uri, text=text, blob=blob, mime_type=mime_type, mimeType=mimeType)
        self.annotations = check_annotations(annotations, "EmbeddedResource")
        self.meta = check_meta(meta, "EmbeddedResource")

    def to_wire(self) -> Wire:
        """Return the MCP ``EmbeddedResource`` object."""
        return finish({"type": "resource", "resource": self.resource.to_wire()}, self.annotations, self.meta)
