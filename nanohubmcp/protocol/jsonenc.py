"""Strict JSON in and out: one encoder for everything we put on the wire.

``NaN`` and ``±Infinity`` are not JSON (RFC 8259 § 6); Python's ``json`` writes them anyway.
We turn them into ``null`` (what ``JSON.stringify`` writes; a structured result keeps its shape) and refuse them
on input, so every byte we send parses with a strict JSON parser.
"""

from __future__ import annotations

import json
import math
from typing import Any

_fast_encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _scrub(value: object) -> Any:
    """Replace non-finite floats with None, recursively (slow path only)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrub(v) for v in value]
    return value


def dumps(value: object) -> str:
    """Serialise ``value`` as compact, strictly valid JSON text (NaN/Infinity become null).

    Raises:
        TypeError: ``value`` holds something JSON cannot represent (a set, an object).
        ValueError: ``value`` contains itself (a circular reference).
    """
    try:
        return _fast_encoder.encode(value)
    except ValueError as exc:
        if "Out of range float" not in str(exc):
            raise  # e.g. a circular reference: scrubbing would recurse for ever
        # allow_nan=False refused NaN/Infinity: only then pay for a scrubbing copy.
        return _fast_encoder.encode(_scrub(value))


_ascii_encoder = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def dumpb(value: object) -> bytes:
    """:func:`dumps`, UTF-8 encoded.

    Text holding a lone surrogate (``"\\ud800"``, which a client may send and a tool echo) has no
    UTF-8 form; it is then written with ``\\u`` escapes, which JSON allows.
    """
    text = dumps(value)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _ascii_encoder.encode(_scrub(value)).encode("ascii")


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text} is too large for a double-precision float")
    return value


# json.loads with keywords builds a decoder per call; this one is built once.
_decoder = json.JSONDecoder(parse_constant=_no_constants, parse_float=_finite_float)


def loads(data: str | bytes) -> Any:
    """Parse strict JSON: no NaN/Infinity literals, and no number that overflows a double
    (``1e400`` would otherwise become infinity, which has no JSON form to answer with).

    Raises:
        ValueError: the text is not valid JSON (``json.JSONDecodeError`` or a constant).
        UnicodeDecodeError: bytes that are not UTF-8.
    """
    if isinstance(data, (bytes, bytearray)):
        data = data.decode("utf-8-sig" if data[:3] == b"\xef\xbb\xbf" else "utf-8")
    return _decoder.decode(data)



def show(value: object) -> str:
    """A value as it reads in JSON, for error texts: ``null``, ``"x"``, ``[1, true]`` (never
    Python's ``None``, ``'x'``, ``[1, True]``); a value JSON cannot hold reads as its repr."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        return repr(value)


def json_message(message: str, *values: Any) -> str:
    """``message`` with the Python reprs of ``values`` (and of their items and keys) written as
    JSON: for texts of libraries that format values with ``%r`` (jsonschema)."""
    seen: dict[str, str] = {}

    def note(value: object, depth: int) -> None:
        try:
            text = repr(value)
        except Exception:
            return
        shown = show(value)
        if text != shown and not text.startswith("<"):
            seen[text] = shown
        if depth < 2 and isinstance(value, (list, tuple, dict)):
            for item in value:
                note(item, depth + 1)
                if isinstance(value, dict):
                    note(value[item], depth + 1)

    for value in values:
        note(value, 0)
    for text in sorted(seen, key=len, reverse=True):
        message = message.replace(text, seen[text])
    return message
