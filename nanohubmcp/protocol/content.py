"""Public content and result types, each able to give its exact MCP wire shape (``to_wire()``).

Owns: the content blocks (``TextContent``, ``ImageContent``, ``AudioContent``, ``ResourceLink``,
``EmbeddedResource``), the ``Image``/``Audio`` helpers, resource contents, prompt messages and the three
result types (``ToolResult``, ``ResourceResult``, ``PromptResult``) with their 0.4.x aliases, plus MIME
sniffing by file suffix or magic bytes. Does not own: turning an arbitrary Python return value into a
result (``nanohubmcp.server.results``), JSON encoding (``protocol.jsonenc``).

Constructors validate their inputs (``TypeError`` for a wrong kind of value, ``ValueError`` for a bad
value); ``bytes`` given as image, audio or blob data are base64-encoded for you, and text given there must
already be base64. Empty ``annotations``/``meta`` are left off the wire.

Source: MCP 2025-11-25, Server § Tools § Tool result (content blocks, CallToolResult), Server § Resources
§ Reading resources, Server § Prompts § Getting a prompt; MCP 2026-07-28, the same sections.
"""

from __future__ import annotations

import base64
import binascii
import enum
import mimetypes
import os
from collections.abc import Mapping
from typing import Any, ClassVar, Final

from . import jsonenc

__all__ = [
    "UNSET",
    "Audio",
    "AudioContent",
    "CallToolResult",
    "EmbeddedResource",
    "GetPromptResult",
    "Image",
    "ImageContent",
    "Message",
    "PromptMessage",
    "PromptResult",
    "ReadResourceResult",
    "ResourceContent",
    "ResourceLink",
    "ResourceResult",
    "Role",
    "TextContent",
    "ToolResult",
    "guess_mime_type",
    "is_content",
    "scalar_text",
    "sniff_mime_type",
    "to_content_block",
]

Wire = dict[str, Any]


class _Unset:
    """Type of :data:`UNSET`."""

    _instance: ClassVar[_Unset | None] = None

    def __new__(cls) -> _Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Final = _Unset()
"""Marks "no structured content" (``None`` is a JSON value, so it cannot)."""


class Role(str, enum.Enum):
    """Who speaks a prompt message: ``"user"`` or ``"assistant"``; compares equal to those strings."""

    USER = "user"
    ASSISTANT = "assistant"

    def __str__(self) -> str:
        return str(self.value)


# ---------------------------------------------------------------- MIME types

_SUFFIXES: Final = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".oga": "audio/ogg",
    ".flac": "audio/flac",
    ".m4a": "audio/mp4",
    ".json": "application/json",
    ".pdf": "application/pdf",
}
_MAGIC: Final = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"OggS", "audio/ogg"),
    (b"fLaC", "audio/flac"),
    (b"ID3", "audio/mpeg"),
    (b"%PDF-", "application/pdf"),
)


def sniff_mime_type(data: bytes | bytearray | memoryview) -> str | None:
    """Return the MIME type the first bytes of ``data`` announce, or None.

    Knows PNG, JPEG, GIF, WebP, WAV, MP3 (ID3 tag or MPEG frame sync), Ogg, FLAC and PDF.
    """
    head = bytes(data[:12])
    for prefix, mime in _MAGIC:
        if head.startswith(prefix):
            return mime
    if head[:4] == b"RIFF":
        return {b"WEBP": "image/webp", b"WAVE": "audio/wav"}.get(head[8:12])
    # MPEG audio frame: 11 sync bits, and a layer field that is not the reserved 00.
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0 and (head[1] >> 1) & 3:
        return "audio/mpeg"
    return None


def guess_mime_type(path: str | os.PathLike[str]) -> str | None:
    """Return the MIME type of a file name's suffix (``plot.png`` -> ``image/png``), or None."""
    name = os.fspath(path)
    return _SUFFIXES.get(os.path.splitext(name)[1].lower()) or mimetypes.guess_type(name)[0]


# ---------------------------------------------------------------- validation helpers


def _name(value: Any) -> str:
    return type(value).__name__


def _opt_str(value: Any, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{what} must be a str or None, not {_name(value)}")
    return value


def _meta(value: Any, what: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise TypeError(f"{what} meta must be a dict with str keys, not {_name(value)}")
    return dict(value)


def _annotations(value: Any, what: str) -> dict[str, Any] | None:
    """Check ``{audience?: ["user"|"assistant"], priority?: 0..1, lastModified?: str}``."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} annotations must be a dict, not {_name(value)}")
    audience = value.get("audience")
    if audience is not None and (
        not isinstance(audience, (list, tuple)) or any(a not in ("user", "assistant") for a in audience)
    ):
        raise ValueError(f"{what} annotations.audience must list 'user'/'assistant', got {audience!r}")
    priority = value.get("priority")
    if priority is not None and (
        isinstance(priority, bool) or not isinstance(priority, (int, float)) or not 0 <= priority <= 1
    ):
        raise ValueError(f"{what} annotations.priority must be a number from 0 to 1, got {priority!r}")
    out = dict(value)
    if audience is not None:
        out["audience"] = [str(a) for a in audience]
    return out


def _mime(mime_type: Any, mimeType: Any, what: str) -> str | None:
    if mime_type is not None and mimeType is not None and mime_type != mimeType:
        raise ValueError(f"{what}: mime_type={mime_type!r} and mimeType={mimeType!r} disagree; give one")
    mime = _opt_str(mime_type if mime_type is not None else mimeType, f"{what} mime_type")
    if mime is not None and "/" not in mime:
        raise ValueError(f"{what} mime_type must look like 'type/subtype', got {mime!r}")
    return mime


def _is_bytes(value: Any) -> bool:
    return isinstance(value, (bytes, bytearray, memoryview))


def _b64(data: Any, what: str) -> tuple[str, bytes]:
    """Return ``(base64 text, first decoded bytes)`` for bytes or base64 text."""
    if _is_bytes(data):
        raw = bytes(data)
        return base64.b64encode(raw).decode("ascii"), raw[:16]
    if isinstance(data, str):
        text = "".join(data.split())
        try:
            head = base64.b64decode(text, validate=True)[:16]
        except (binascii.Error, ValueError):
            raise ValueError(
                f"{what} must be bytes or base64 text; the text given is not base64 "
                "(to read a file, use Image(path=...) or Audio(path=...))"
            ) from None
        return text, head
    raise TypeError(f"{what} must be bytes or base64 text, not {_name(data)}")


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _finish(wire: Wire, annotations: dict[str, Any] | None, meta: dict[str, Any] | None) -> Wire:
    if annotations:
        wire["annotations"] = annotations
    if meta:
        wire["_meta"] = meta
    return wire


class _WireType:
    """Equality by wire shape, and a short repr."""

    def to_wire(self) -> Wire:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _WireType)
        return self.to_wire() == other.to_wire()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        # Image data can be megabytes: keep each field short.
        shown = ((k, repr(v)) for k, v in vars(self).items() if v is not None and not k.startswith("_"))
        fields = ", ".join(f"{k}={r if len(r) <= 48 else r[:45] + '...'}" for k, r in shown)
        return f"{type(self).__name__}({fields})"


# ---------------------------------------------------------------- content blocks


class TextContent(_WireType):
    """A text block: ``{"type": "text", "text", "annotations"?, "_meta"?}``."""

    def __init__(
        self,
        text: str = "",
        annotations: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(text, str):
            raise TypeError(f"TextContent text must be a str, not {_name(text)}")
        self.text = text
        self.annotations = _annotations(annotations, "TextContent")
        self.meta = _meta(meta, "TextContent")

    def to_wire(self) -> Wire:
        """Return the MCP ``TextContent`` object."""
        return _finish({"type": "text", "text": self.text}, self.annotations, self.meta)


class _MediaContent(_WireType):
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
        self.data, head = _b64(data, f"{label} data")
        mime = _mime(mime_type, mimeType, label) or sniff_mime_type(head)
        if mime is None and _is_bytes(data):
            raise ValueError(f"{label}: cannot tell the {self.kind} format of these bytes; pass mime_type=")
        self.mime_type: str = mime or self.default_mime
        self.annotations = _annotations(annotations, label)
        self.meta = _meta(meta, label)

    @property
    def mimeType(self) -> str:
        """Alias of ``mime_type``."""
        return self.mime_type

    def to_wire(self) -> Wire:
        """Return ``{"type", "data" (base64), "mimeType", "annotations"?, "_meta"?}``."""
        return _finish(
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


class ResourceLink(_WireType):
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
            raise TypeError(f"ResourceLink icons must be a list of dicts, not {_name(icons)}")
        self.uri = uri
        self.name = _opt_str(name, "ResourceLink name") or uri
        self.title = _opt_str(title, "ResourceLink title")
        self.description = _opt_str(description, "ResourceLink description")
        self.mime_type = _mime(mime_type, mimeType, "ResourceLink")
        self.size = size
        self.icons = icons
        self.annotations = _annotations(annotations, "ResourceLink")
        self.meta = _meta(meta, "ResourceLink")

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
        return _finish(wire, self.annotations, self.meta)


class ResourceContent(_WireType):
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
            if _is_bytes(content):
                blob = content
            else:
                text = content  # type: ignore[assignment]  # checked by _opt_str below
        if text is not None and blob is not None:
            raise ValueError("ResourceContent takes text or blob, not both")
        self.uri = _opt_str(uri, "ResourceContent uri")
        self.mime_type = _mime(mime_type, mimeType, "ResourceContent")
        self.meta = _meta(meta, "ResourceContent")
        self.blob: str | None = None
        self.text: str | None = None
        self._default_mime: str | None = None
        if blob is not None:
            self.blob, head = _b64(blob, "ResourceContent blob")
            self._default_mime = sniff_mime_type(head) or "application/octet-stream"
        else:
            self.text = _opt_str(text, "ResourceContent text") or ""

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
        return _finish(wire, None, self.meta if self.meta is not None else _meta(meta, "resource"))


class EmbeddedResource(_WireType):
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
        self.annotations = _annotations(annotations, "EmbeddedResource")
        self.meta = _meta(meta, "EmbeddedResource")

    def to_wire(self) -> Wire:
        """Return the MCP ``EmbeddedResource`` object."""
        return _finish({"type": "resource", "resource": self.resource.to_wire()}, self.annotations, self.meta)


# ---------------------------------------------------------------- Image / Audio helpers


class _Media(_WireType):
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
        if data is not None and not (_is_bytes(data) or isinstance(data, str)):
            raise TypeError(f"{label} data must be bytes or base64 text, not {_name(data)}")
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"{label} path must be a str or os.PathLike, not {_name(path)}")
        format = _opt_str(format, f"{label} format")
        if format is not None and "/" in format and mime_type is None:
            # The 0.4.x helper took a MIME type as its third argument; FastMCP takes a format.
            format, mime_type = None, format
        self.data = bytes(data) if _is_bytes(data) else data  # type: ignore[arg-type]
        self.path = path
        self.format = format
        self.mime_type = _mime(mime_type, mimeType, label)
        self.annotations = _annotations(annotations, label)
        self.meta = _meta(meta, label)
        if isinstance(self.data, str):
            _b64(self.data, f"{label} data")  # fail now, not when the tool answers

    def _declared_mime(self) -> str | None:
        if self.mime_type:
            return self.mime_type
        if self.format:
            fmt = self.format.lower().lstrip(".")
            return _SUFFIXES.get("." + fmt) or f"{self.kind}/{fmt}"
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


def _is_wire_block(value: Any) -> bool:
    if not isinstance(value, Mapping):
        return False
    kind = value.get("type")
    required = _REQUIRED.get(kind) if isinstance(kind, str) else None
    return required is not None and all(isinstance(value.get(k), t) for k, t in required.items())


def is_content(value: Any) -> bool:
    """True for a content object, an ``Image``/``Audio`` helper, or a wire-shaped content dict."""
    return isinstance(value, _CONTENT_CLASSES) or _is_wire_block(value)


def scalar_text(value: bool | int | float) -> str:
    """Text for a bare number or bool: JSON spelling (``5.0``, ``10``, ``true``; NaN/Infinity -> ``null``)."""
    return jsonenc.dumps(value)


def _content_item(value: Any) -> Any:
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
        if _is_wire_block(value):
            return dict(value)
        raise ValueError(
            f"not an MCP content block: {dict(value)!r}; a block needs 'type' (text, image, "
            "audio, resource, resource_link) and that type's fields"
        )
    raise TypeError(
        f"cannot use a {_name(value)} as MCP content; use a str, TextContent, Image, Audio, "
        "ImageContent, AudioContent, EmbeddedResource or ResourceLink"
    )


# ---------------------------------------------------------------- results


class ToolResult(_WireType):
    """Full control over a tool's answer (MCP ``CallToolResult``).

    Args:
        content: None, a str, a content object/helper/wire dict, or a list of those.
        is_error: report a tool failure the model should see.
        meta: the result's ``_meta``.
        structured_content: any JSON value for ``structuredContent`` (leave unset for none).

    Wire: ``{"content": [...], "isError", "structuredContent"?, "_meta"?}``; with structured content and
    no content, a text block holding its JSON is added (the spec's backward-compatibility SHOULD).
    """

    def __init__(
        self,
        content: Any = None,
        is_error: bool = False,
        meta: Mapping[str, Any] | None = None,
        structured_content: Any = UNSET,
    ) -> None:
        if not isinstance(is_error, bool):
            raise TypeError(f"ToolResult is_error must be a bool, not {_name(is_error)}")
        self.content: list[Any] = [_content_item(i) for i in _as_list(content)]
        self.is_error = is_error
        self.meta = _meta(meta, "ToolResult")
        self.structured_content = structured_content

    @property
    def has_structured_content(self) -> bool:
        """Whether ``structured_content`` was given (``None`` counts: it is JSON null)."""
        return self.structured_content is not UNSET

    def to_wire(self) -> Wire:
        """Return the ``CallToolResult`` object (without the 2026 ``resultType``).

        Raises:
            TypeError: ``structured_content`` cannot be written as JSON.
        """
        content = [to_content_block(c) for c in self.content]
        wire: Wire = {"content": content, "isError": self.is_error}
        if self.has_structured_content:
            text = jsonenc.dumps(self.structured_content)
            wire["structuredContent"] = jsonenc.loads(text)
            if not content:
                content.append({"type": "text", "text": text})
        return _finish(wire, None, self.meta)


class ResourceResult(_WireType):
    """Full control over a resource read (MCP ``ReadResourceResult``).

    Args:
        contents: a ``ResourceContent``, str (text), bytes (blob), wire dict ``{uri?, text|blob, ...}``,
            or a list of those.
        meta: the result's ``_meta``.
    """

    def __init__(self, contents: Any = None, meta: Mapping[str, Any] | None = None) -> None:
        self.contents: list[ResourceContent] = [_resource_item(i) for i in _as_list(contents)]
        self.meta = _meta(meta, "ResourceResult")

    def to_wire(
        self, *, uri: str | None = None, mime_type: str | None = None, meta: Mapping[str, Any] | None = None
    ) -> Wire:
        """Return ``{"contents": [...], "_meta"?}``; the keywords fill what items lack."""
        items = [c.to_wire(uri=uri, mime_type=mime_type, meta=meta) for c in self.contents]
        return _finish({"contents": items}, None, self.meta)


def _resource_item(item: Any) -> ResourceContent:
    if isinstance(item, ResourceContent):
        return item
    if isinstance(item, str) or _is_bytes(item):
        return ResourceContent(content=item)
    if isinstance(item, Mapping) and ("text" in item or "blob" in item):
        unknown = set(item) - {"uri", "mimeType", "text", "blob", "_meta"}
        if unknown:
            raise ValueError(f"resource contents dict has unknown keys {sorted(unknown)}")
        return ResourceContent(
            item.get("uri"),
            text=item.get("text"),
            blob=item.get("blob"),
            mime_type=item.get("mimeType"),
            meta=item.get("_meta"),
        )
    raise TypeError(
        f"cannot use a {_name(item)} as resource contents; use ResourceContent, str, bytes "
        "or {'uri', 'text'|'blob', 'mimeType'?}"
    )


class Message(_WireType):
    """One prompt message (MCP ``PromptMessage``): ``{"role", "content": <one content block>}``.

    Args:
        content: a str (text), a content object/helper, or a wire-shaped block dict (``{"text": ...}``
            alone is read as text).
        role: ``"user"`` (default) or ``"assistant"``, or a :class:`Role`.

    Raises:
        ValueError: another role, or an invalid block dict. TypeError: another kind of content.
    """

    def __init__(self, content: Any, role: str | Role = "user") -> None:
        if role not in ("user", "assistant"):
            raise ValueError(f"message role must be 'user' or 'assistant', got {role!r}")
        self.role = str(Role(role))
        if isinstance(content, Mapping) and set(content) == {"text"}:
            content = content["text"]
        self.content = _content_item(content)

    def to_wire(self) -> Wire:
        """Return ``{"role", "content"}``."""
        return {"role": self.role, "content": to_content_block(self.content)}


class PromptResult(_WireType):
    """Full control over a prompt (MCP ``GetPromptResult``).

    Args:
        messages: a list (or one) of :class:`Message`, str (a user message), content objects (user
            messages), or ``{"role"?, "content"}`` dicts whose content is a str, a block, or a list of
            those (one message each).
        description: the result's ``description``.
        meta: the result's ``_meta``.
    """

    def __init__(
        self, messages: Any = None, description: str | None = None, meta: Mapping[str, Any] | None = None
    ) -> None:
        self.messages: list[Message] = [m for item in _as_list(messages) for m in _messages(item)]
        self.description = _opt_str(description, "PromptResult description")
        self.meta = _meta(meta, "PromptResult")

    def to_wire(self) -> Wire:
        """Return ``{"description"?, "messages": [...], "_meta"?}``."""
        wire: Wire = {"messages": [m.to_wire() for m in self.messages]}
        if self.description is not None:
            wire["description"] = self.description
        return _finish(wire, None, self.meta)


def _messages(item: Any) -> list[Message]:
    if isinstance(item, Message):
        return [item]
    if isinstance(item, Mapping) and not _is_wire_block(item):
        if "content" not in item:
            raise ValueError(f"a prompt message dict needs 'content' (and maybe 'role'), got {dict(item)!r}")
        role, content = item.get("role", "user"), item["content"]
        parts = content if isinstance(content, (list, tuple)) else [content]
        return [Message(part, role) for part in parts]
    return [Message(item)]


CallToolResult = ToolResult
ReadResourceResult = ResourceResult
GetPromptResult = PromptResult
PromptMessage = Message
