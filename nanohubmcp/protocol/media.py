"""``Image`` and ``Audio``: return a picture or a sound from a file, bytes or base64 text.

Each becomes an ``ImageContent``/``AudioContent`` block; the MIME type comes from the argument, the
file name or the data's first bytes (``protocol.mime``).

Source: MCP 2025-11-25, Server § Tools § Tool result (image and audio content).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, ClassVar

from .blocks import AudioContent, ImageContent, MediaContent
from .mime import SUFFIX_TYPES, guess_mime_type
from .wire import (
    Wire,
    WireType,
    check_annotations,
    check_meta,
    check_mime,
    is_bytes,
    optional_str,
    to_base64,
    type_name,
)


class _Media(WireType):
    kind: ClassVar[str] = ""
    content_type: ClassVar[type[MediaContent]] = MediaContent

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
        self.data = bytes(data) if is_bytes(data) else data
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

    def to_content(self) -> MediaContent:
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
        annotations: copied to the block.
        meta: copied to the block (``_meta``).

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
