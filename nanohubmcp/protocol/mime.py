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

    Knows PNG, JPEG, GIF, WebP, WAV, MP3 (an ID3 tag, or an MPEG audio frame header: :func:`_mpeg_audio_frame`),
    Ogg, FLAC and PDF.

    .. versionchanged:: 1.0
       MPEG audio needs a whole frame header of Layer II or III: two bytes with the sync bits
       (``b"\\xff\\xfe"``, the UTF-16 byte order mark) were taken for ``audio/mpeg``.
    """
    head = bytes(data[:12])
    for prefix, mime in _MAGIC:
        if head.startswith(prefix):
            return mime
    if head[:4] == b"RIFF":
        return {b"WEBP": "image/webp", b"WAVE": "audio/wav"}.get(head[8:12])
    return "audio/mpeg" if _mpeg_audio_frame(head) else None


def _mpeg_audio_frame(head: bytes) -> bool:
    """Whether ``head`` starts with an MPEG-1/2/2.5 audio frame header of Layer II or III (MP2, MP3).

    The header's four bytes: 11 sync bits set; a version (2 bits) that is not the reserved ``01``; a layer
    (2 bits) that is ``10`` (II) or ``01`` (III); a protection bit; a bitrate index (4 bits) that is not the
    invalid ``1111``; a sample rate index (2 bits) that is not the reserved ``11``; padding, private and
    mode bits; an emphasis (2 bits) that is not the reserved ``10``. Layer I (``11``) is left out: an
    MPEG-1 Layer I header begins ``FF FE`` or ``FF FF``, which are the UTF-16 little-endian byte order
    mark and a common fill, and the format is all but unused.

    Source: the audio frame header of ISO/IEC 11172-3 (MPEG-1) and 13818-3 (MPEG-2); version ``00`` is
    MPEG 2.5, an extension outside both.
    """
    if len(head) < 4 or head[0] != 0xFF or head[1] & 0xE0 != 0xE0:
        return False
    version, layer = (head[1] >> 3) & 3, (head[1] >> 1) & 3
    bitrate, sample_rate, emphasis = head[2] >> 4, (head[2] >> 2) & 3, head[3] & 3
    return version != 0b01 and layer in (0b01, 0b10) and bitrate != 0b1111 and sample_rate != 0b11 \
        and emphasis != 0b10


def guess_mime_type(path: str | os.PathLike[str]) -> str | None:
    """Return the MIME type of a file name's suffix (``plot.png`` -> ``image/png``), or None."""
    name = os.fspath(path)
    return SUFFIX_TYPES.get(os.path.splitext(name)[1].lower()) or mimetypes.guess_type(name)[0]
