"""Strict JSON in: the one parse of what a client sends, and the reading of text this package wrote.

``NaN`` and ``±Infinity`` are not JSON (RFC 8259 § 6), and a number past a double's range would read as
infinity, which has no JSON form to answer with; Python's ``json`` reads all three. :func:`loads` refuses
them, so every value a client sends can be written back by ``protocol.jsonenc``.

Text the encoder wrote (``encoded.Encoded``'s) is strict already: :data:`own_text` reads it with the C
decoder alone, without :func:`loads`' look at each number.

This module owns those two readings; a large body's parse by orjson, where it reads as :func:`loads` does,
is ``protocol.large_json``'s. It writes nothing and imports nothing of the package.
"""

from __future__ import annotations

import json
import json.scanner
import math
from typing import Any, Final

__all__ = ["loads", "own_text"]

own_text: Final = json.JSONDecoder()
"""The decoder of JSON text this package wrote (``own_text.decode(text)``): no check but JSON's syntax."""


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text} is too large for a double-precision float")
    return value


# json.loads with keywords builds a decoder per call; this one is built once.
_decoder = json.JSONDecoder(parse_constant=_no_constants, parse_float=_finite_float)
# Its C scanner, called directly for text without whitespace around the value (what clients send):
# JSONDecoder.decode's two Python frames and two regular-expression matches cost a third of a small
# message's parse. Anything else (whitespace in front, an error) goes through decode, which says why.
_scan = getattr(json.scanner, "c_make_scanner", None)
_scan_once = _scan(_decoder) if _scan is not None else None


def loads(data: str | bytes) -> Any:
    """Parse strict JSON: no NaN/Infinity literals, and no number that overflows a double
    (``1e400`` would otherwise become infinity, which has no JSON form to answer with).

    Raises:
        ValueError: the text is not valid JSON (``json.JSONDecodeError`` or a constant).
        UnicodeDecodeError: bytes that are not UTF-8.
    """
    if isinstance(data, (bytes, bytearray)):
        data = data.decode("utf-8-sig" if data[:3] == b"\xef\xbb\xbf" else "utf-8")
    if _scan_once is not None:
        try:
            value, end = _scan_once(data, 0)
        except StopIteration:  # no value at the start (whitespace, or none at all): decode says which
            return _decoder.decode(data)
        if end == len(data) or not data[end:].strip(" \t\n\r"):  # JSON's whitespace after it
            return value
    return _decoder.decode(data)  # more after the value: decode's "Extra data" error
