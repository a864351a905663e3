"""Reading a large JSON text quickly: orjson, when installed, wherever it reads the text as
``jsondec.loads`` does; the standard library's strict parse everywhere else.

A client's body (or stdio line) of 1 MiB or more is parsed on a worker thread
(``server.wire.request.LARGE_MESSAGE_BYTES``), but Python's JSON parser holds the interpreter lock
for the whole parse, so every other client waits meanwhile. orjson (the ``fast`` extra) holds it
too, for less time: half of it for an object of many keys, a third of the CPU time for floats (many
small records: about the same; most of that parse is the garbage collector's, with either parser).

The value must be the one :func:`~.jsondec.loads` makes, and an error its error, to the word. orjson
reads a few texts differently, and those are left to the standard parse:

- an integer literal beyond 64 bits becomes a float in orjson (an int in Python): orjson reads a
  positive one exactly up to 2**64 - 1 (every one of 19 digits) and a negative one down to -2**63
  (every one of 18 digits), so a text with a run of 20 or more digits or of a minus sign and 19 digits
  that does not follow a decimal point (:func:`may_hold_a_long_integer`) is not given to orjson;
- anything orjson refuses (``NaN``/``Infinity``, a number that overflows a double, a lone surrogate
  escape, bytes that are not UTF-8, more than 1024 levels, any syntax error) is parsed again by
  the standard parse, which either reads it (a lone surrogate escape) or refuses it in its own
  words;
- a UTF-8 byte order mark, which orjson refuses, is skipped in bytes as ``jsondec.loads`` skips it
  (text that starts with one is left to the standard parse, which refuses it).

What both read alike, checked against a corpus and a fuzz (tests/protocol, tests/transports): floats (orjson's are
correctly rounded, as Python's), ``-0``/``-0.0``, duplicate keys (the last value, at the first
key's place), JSON's four whitespace characters around the value, escapes, non-characters. The
depth limit (``MAX_JSON_DEPTH``, 128) is checked before either parse (``jsonrpc.parse_body``).

This module owns that choice only; ``protocol.accelerator`` finds orjson (imported on first use, never
at ``import nanohubmcp``), and ``jsonrpc.parse_body(large=True)`` is its one caller.
"""

from __future__ import annotations

from typing import Any, Final

from . import jsondec

__all__ = ["loads_large", "may_hold_a_long_integer"]

_BOM: Final = b"\xef\xbb\xbf"
# every byte to "x", digits and the minus sign to "0", the decimal point kept: "x" + 20 zeros is a run of
# 20 digits, or of a minus sign and 19, that a decimal point does not precede (an integer part or an
# exponent, or digits in a string); a positive integer of 19 digits (a nanosecond time, a 64-bit id) is not
_SHAPE: Final = bytes(c if c in b"0." else ord("0") if chr(c) in "-123456789" else ord("x") for c in range(256))
_LONG_RUN: Final = b"x" + b"0" * 20


def may_hold_a_long_integer(raw: bytes | bytearray) -> bool:
    """Whether the JSON text ``raw`` may hold an integer literal orjson does not read exactly (beyond 64 bits):
    it has a run of 20 or more ASCII digits, or a minus sign and 19 or more, that no decimal point precedes
    (the fraction digits of a float do not count; digits inside strings and an exponent's do: such a text is
    only parsed the slower way). One C-speed pass.
    """
    shaped = raw.translate(_SHAPE)
    return _LONG_RUN in shaped or shaped.startswith(_LONG_RUN[1:])


def loads_large(data: bytes | str) -> Any:
    """:func:`~.jsondec.loads` of a large text (a body of 1 MiB or more): the same value, or the same
    error, parsed by orjson when it is installed (and not switched off: ``accelerator.use_accelerator``)
    and reads ``data`` alike (see the module docstring), else by ``jsondec.loads``.

    Raises:
        ValueError, UnicodeDecodeError: as :func:`~.jsondec.loads` (its own errors: a text orjson
            refuses is parsed again by it).
    """
    from .accelerator import accelerator  # (a module more at start otherwise; a large body pays the look-up)

    orjson = accelerator()
    if orjson is not None:
        raw = _utf8(data)
        if raw is not None and not may_hold_a_long_integer(raw):
            try:
                return orjson.loads(memoryview(raw)[3:] if raw[:3] == _BOM else raw)
            except orjson.JSONDecodeError:  # not JSON to orjson: the standard parse reads it, or says why not
                pass
    return jsondec.loads(data)


def _utf8(data: bytes | str) -> bytes | bytearray | None:
    if isinstance(data, (bytes, bytearray)):
        return data
    if data[:1] == "\ufeff":  # in text (not bytes) a byte order mark is a character: refused, in its words
        return None
    try:
        return data.encode()
    except UnicodeEncodeError:  # a lone surrogate: orjson reads none; the standard parse keeps it
        return None
