"""Public content and result types, each able to give its exact MCP wire shape (``to_wire()``).

Owns: the content blocks (``TextContent``, ``ImageContent``, ``AudioContent``, ``ResourceLink``,
``EmbeddedResource``), the ``Image``/``Audio`` helpers and resource contents. MIME sniffing lives in
``protocol.mime`` and the result types (``ToolResult``, ``ResourceResult``, ``PromptResult``,
``Message`` and their 0.4.x aliases) in ``protocol.result_types``; both are re-exported here. Does
not own: turning an arbitrary Python return value into a result (``nanohubmcp.server.results``),
JSON encoding (``protocol.jsonenc``).

Constructors validate their inputs (``TypeError`` for a wrong kind of value, ``ValueError`` for a bad
value); ``bytes`` given as image, audio or blob data are base64-encoded for you, and text given there must
already be base64. Empty ``annotations``/``meta`` are left off the wire.

Source: MCP 2025-11-25, Server § Tools § Tool result (content blocks, CallToolResult), Server § Resources
§ Reading resources, Server § Prompts § Getting a prompt; MCP 2026-07-28, the same sections.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping
from typing import Any, ClassVar, Final

from . import jsonenc
from .mime import SUFFIX_TYPES, guess_mime_type, sniff_mime_type
from .wire import (
    UNSET,
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


class _MediaContent(WireType):
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


class ImageContent(_MediaContent):
    """An image block. ``data``: bytes (encoded for you) or base64 text.

    ``mime_type`` (or ``mimeType=``) defaults to the type the bytes announce, else ``image/png``;
    raw bytes of an unknown format need an explicit ``mime_type`` (``ValueError`` otherwise).
    """

    kind = "image"
    default_mime = "image/png"


class AudioContent(_MediaContent):
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
                blob = content
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


# ---------------------------------------------------------------- Image / Audio helpers


class _Media(WireType):
    kind: ClassVar[str] = ""
    content_type: ClassVar[type[_MediaContent]] = _MediaContent

    def __init__(
        self,
        data: bytes | str | os.PathLike[str] | None = None,
        path: str | os.PathLike[str] | None = None,
        format: str | None = None,
        mime_type: str | None = None,
        annotations: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
        *,
        mimeType: str | None = None,
    ) -> None:
        label = type(self).__name__
        if isinstance(data, os.PathLike):
            data, path = (None, data) if path is None else (data, path)
        if (data is None) == (path is None):
            raise ValueError(f"{label} needs exactly one of data= (bytes or base64 text) or path=")
        if data is not None and not (is_bytes(data) or isinstance(data, str)):
            raise TypeError(f"{label} data must be bytes or base64 text, not {type_name(data)}")
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"{label} path must be a str or os.PathLike, not {type_name(path)}")
        format = optional_str(format, f"{label} format")
        if format is not None and "/" in format and mime_type is None:
            # The 0.4.x helper took a MIME type as its third argument; FastMCP takes a format.
            format, mime_type = None, format
        self.data = bytes(data) if is_bytes(data) else data  # type: ignore[arg-type]
        self.path = path
        self.format = format
        self.mime_type = check_mime(mime_type, mimeType, label)
        self.annotations = check_annotations(annotations, label)
        self.meta = check_meta(meta, label)
        if isinstance(self.data, str):
            to_base64(self.data, f"{label} data")  # fail now, not when the tool answers

    def _declared_mime(self) -> str | None:
        if self.mime_type:
            return self.mime_type
        if self.format:
            fmt = self.format.lower().lstrip(".")
            return SUFFIX_TYPES.get("." + fmt) or f"{self.kind}/{fmt}"
        if self.path is not None:
            guess = guess_mime_type(self.path)
            if guess and guess.startswith(self.kind + "/"):
                return guess
        return None

    def to_content(self) -> _MediaContent:
        """Read the data (from ``path`` when given) and return the content block object.

        The MIME type is ``mime_type``, else ``format``, else the path's suffix, else the magic bytes.

        Raises:
            OSError: the file cannot be read.
            ValueError: the type cannot be told from any of those.
        """
        data: bytes | str
        if self.path is not None:
            with open(self.path, "rb") as f:
                data = f.read()
        else:
            data = self.data  # type: ignore[assignment]
        return self.content_type(data, self._declared_mime(), self.annotations, self.meta)

    def to_wire(self) -> Wire:
        """Return the wire block of :meth:`to_content`."""
        return self.to_content().to_wire()


class Image(_Media):
    """Helper for returning an image: ``Image(path="plot.png")`` or ``Image(data=png_bytes)``.

    Args:
        data: bytes, or base64 text (0.4.x); an ``os.PathLike`` here is taken as the path.
        path: a file to read when the result is built.
        format: ``"png"``, ``"jpeg"``...; a value with a ``/`` is taken as a MIME type (0.4.x order).
        mime_type: explicit MIME type (``mimeType=`` accepted).
        annotations, meta: copied to the block.

    Raises:
        ValueError: neither or both of data and path; data text that is not base64.
    """

    kind = "image"
    content_type = ImageContent

    def to_content(self) -> ImageContent:
        """Return the :class:`ImageContent` block (see :meth:`_Media.to_content`)."""
        return super().to_content()  # type: ignore[return-value]


class Audio(_Media):
    """Helper for returning audio, like :class:`Image` (WAV, MP3, Ogg, FLAC are recognised)."""

    kind = "audio"
    content_type = AudioContent

    def to_content(self) -> AudioContent:
        """Return the :class:`AudioContent` block."""
        return super().to_content()  # type: ignore[return-value]


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


def is_wire_block(value: Any) -> bool:
    if not isinstance(value, Mapping):
        return False
    kind = value.get("type")
    required = _REQUIRED.get(kind) if isinstance(kind, str) else None
    return required is not None and all(isinstance(value.get(k), t) for k, t in required.items())


def is_content(value: Any) -> bool:
    """True for a content object, an ``Image``/``Audio`` helper, or a wire-shaped content dict."""
    return isinstance(value, _CONTENT_CLASSES) or is_wire_block(value)


def scalar_text(value: bool | int | float) -> str:
    """Text for a bare number or bool: JSON spelling (``5.0``, ``10``, ``true``; NaN/Infinity -> ``null``)."""
    return jsonenc.dumps(value)


def content_item(value: Any) -> Any:
    """Validate one content item; a str or number becomes :class:`TextContent`, others are kept."""
    if isinstance(value, str):
        return TextContent(value)
    if isinstance(value, (bool, int, float)):
        return TextContent(scalar_text(value))
    if not is_content(value):
        to_content_block(value)  # raises the precise error
    return value


def to_content_block(value: Any) -> Wire:
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
]
