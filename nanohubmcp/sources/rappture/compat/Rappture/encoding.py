"""``Rappture.encoding``: data stored in XML text, base64 and maybe compressed, with Rappture's
``@@RP-ENC:b64`` / ``@@RP-ENC:zb64`` headers."""

from __future__ import annotations

import base64
import gzip
import zlib

__all__ = ["decode", "encode", "isbinary"]


def isbinary(data: bytes | str) -> bool:
    """True when ``data`` holds bytes that are not printable text."""
    raw = data.encode("latin-1", "replace") if isinstance(data, str) else data
    return any(b < 9 or (13 < b < 32) or b > 126 for b in raw)


def encode(data: bytes | str, flags: int = 3) -> str:
    """Base64 text (flag 2), compressed first with flag 1; a header unless flag 8 (raw)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    compress = bool(flags & 1)
    if compress:
        raw = gzip.compress(raw)
    text = base64.b64encode(raw).decode("ascii")
    if flags & 8:
        return text
    return f"@@RP-ENC:{'zb64' if compress else 'b64'}\n{text}\n"


def decode(text: str, flags: int = 0) -> bytes:
    """The bytes ``encode`` wrote (the header decides; without one, ``flags`` does)."""
    compress = bool(flags & 1)
    if text.startswith("@@RP-ENC:"):
        header, _, text = text.partition("\n")
        compress = header.strip().endswith("zb64")
    data = base64.b64decode("".join(text.split()))
    if compress:
        data = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else zlib.decompress(data)
    return data
