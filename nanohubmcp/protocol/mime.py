"""MIME types from a file name's suffix or from the magic bytes at the start of data.

No imaging library: the few formats MCP content carries (PNG, JPEG, GIF, WebP, WAV, MP3, Ogg,
FLAC, PDF) announce themselves in their first bytes.
"""

from __future__ import annotations

import mimetypes
import os
from typing import Final

SUFFIX_TYPES: Final = {
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
    return SUFFIX_TYPES.get(os.path.splitext(name)[1].lower()) or mimetypes.guess_type(name)[0]
