"""Strict JSON in: the one parse of what a client sends, and the reading of text this package wrote.

``NaN`` and ``±Infinity`` are not JSON (RFC 8259 § 6), and a number past a double's range would read as
infinity, which has no JSON form to answer with; Python's ``json`` reads all three. :func:`loads` refuses
them, so every value a client sends can be written back by ``protocol.jsonenc``.

Text the encoder wrote (``encoded.Encoded``'s) is strict already: :data:`own_text` reads it with the C
decoder alone, without :func:`loads`' look at each number.

:func:`loads_bounded` refuses an integer of more than 4,300 digits too, whatever Python's own limit is set to
(``protocol.long_ints``): its conversion takes time that grows with the square of its digits. A client's
body is read with it where it may hold one and the process lifted Python's limit (``jsonrpc.parse_body``).

This module owns those readings; a large body's parse by orjson, where it reads as :func:`loads` does,
is ``protocol.large_json``'s. It writes nothing and imports only ``protocol.long_ints`` of the package.
"""

from __future__ import annotations

import json
import json.scanner
import math
from typing import Any, Final

from . import long_ints

__all__ = ["loads", "loads_bounded", "own_text"]

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
# The same, holding integers to long_ints.MAX_DIGITS digits (one Python call per integer): only for a text
# long enough to hold a longer one, in a process that lifted Python's own limit (long_ints.unguarded).
_bounded = json.JSONDecoder(parse_constant=_no_constants, parse_float=_finite_float, parse_int=long_ints.bounded_int)
# Its C scanner, called directly for text without whitespace around the value (what clients send):
# JSONDecoder.decode's two Python frames and two regular-expression matches cost a third of a small
# message's parse. Anything else (whitespace in front, an error) goes through decode, which says why.
_scan = getattr(json.scanner, "c_make_scanner", None)
_scan_once = _scan(_decoder) if _scan is not None else None


def loads(data: str | bytes) -> Any:
    """Parse strict JSON: no NaN/Infinity literals, and no number that overflows a double
    (``1e400`` would otherwise become infinity, which has no JSON form to answer with). An integer of more
    digits than Python's own limit (``sys.get_int_max_str_digits()``) is refused by Python; where a process
    lifted that limit, :func:`loads_bounded` reads a text that may hold a longer one (``long_ints.unguarded``).

    Raises:
        ValueError: the text is not valid JSON (``json.JSONDecodeError`` or a constant), or holds an integer
            of more digits than Python's own limit.
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


def loads_bounded(data: str | bytes) -> Any:
    """:func:`loads`, and no integer of more than ``long_ints.MAX_DIGITS`` (4,300) digits whatever Python's own
    limit is set to: its digits are counted before it is converted (one Python call per integer; for a text
    ``long_ints.unguarded`` found may hold one: ``jsonrpc.parse_body``'s, ``jsonenc``'s own).

    Raises:
        ValueError: as :func:`loads`; a :class:`~.long_ints.LongInteger` for an integer of more than 4,300
            digits.
        UnicodeDecodeError: as :func:`loads`.
    """
    if isinstance(data, (bytes, bytearray)):
        data = data.decode("utf-8-sig" if data[:3] == b"\xef\xbb\xbf" else "utf-8")
    return _bounded.decode(data)
