"""A request's ``Content-Length`` read as a number of bytes, the one reading every body check uses.

RFC 9110 § 8.6 allows only ASCII digits (``1*DIGIT``). Python's ``int()`` takes more (``" 12 "``, ``"1_000"``,
Arabic-Indic digits) and raises ``ValueError`` for a text of over 4,300 digits, which a header of a few KiB can
be: read there, a 5,000-digit length was an uncaught exception that closed the connection without an answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tornado import httputil

__all__ = ["BEYOND_ANY_LIMIT", "buffered_length", "declared_length"]

BEYOND_ANY_LIMIT = 1 << 62
"""What a length of more than 18 significant digits is read as: more than any body limit can be."""


def declared_length(value: str) -> int | None:
    """``value`` (a ``Content-Length`` header's) as a number of bytes: None when it is not ASCII digits (the
    caller answers 400), :data:`BEYOND_ANY_LIMIT` when it has more than 18 significant digits (413)."""
    if not (value.isascii() and value.isdigit()):
        return None
    digits = value.lstrip("0")
    return int(digits or "0") if len(digits) <= 18 else BEYOND_ANY_LIMIT


def buffered_length(headers: httputil.HTTPHeaders, limit: int) -> int | None:
    """The length of a body Tornado may buffer for the handler: its ``Content-Length`` when that
    is a plain number of at most ``limit`` and the body is not chunked (0 with neither header:
    no body, RFC 9112 § 6.3); else None (the streamed twin reads it, and refuses it or answers
    400 for a malformed length)."""
    if "Transfer-Encoding" in headers:
        return None
    length = headers.get("Content-Length")
    if length is None:
        return 0
    declared = declared_length(length)
    return declared if declared is not None and declared <= limit else None
