"""Integers longer than a client's JSON reader holds: 4,300 digits, whatever Python's own limit is set to.

Python turns no text of more than 4,300 digits into an int, nor an int into such a text
(``sys.get_int_max_str_digits()``: either conversion takes time that grows with the square of the digits).
``PYTHONINTMAXSTRDIGITS=0`` in a server's environment (or ``sys.set_int_max_str_digits(0)`` in its notebook)
lifts that limit for the whole process: a client's body holding a 500,000-digit integer then held the
interpreter for about 1.5 s (a 2,000,000-digit one for about 20 s), and a tool's result holding such an int was
sent, which the official client's JSON reader (pydantic-core, 4,300 digits) cannot read. The server holds
what it reads from a client and what it writes to :data:`MAX_DIGITS` whatever the process's setting (a lower
setting of Python's still refuses first).

What the common message pays: nothing but a length comparison (a text of at most :data:`MAX_DIGITS`
characters holds no such number; a client's body of at most 256 skips it, with the look at its nesting), and
under Python's own limit (the default) nothing more: Python refuses the number itself. Only in a process that
lifted the limit is a longer text looked at (:func:`unguarded`: a few C-speed passes over its bytes, linear in
its length), and read with :func:`bounded_int` when it holds a run of more digits where a number may stand (not
inside a string, where digits are text).

This module owns the limit and that look; ``protocol.jsonrpc.parse_body`` reads a client's body that may hold
such a number with ``protocol.jsondec.loads_bounded``, ``protocol.jsonenc`` refuses one in what the server
writes (``protocol.content.scalar_text`` a bare int, by :func:`too_long` before writing it),
``schema.json_form`` in what is given at registration; ``schema.text_values`` (a resource template's integer
variable) and ``server.wire``'s streams (a ``Last-Event-ID``'s sequence number) read a client's digits with
:func:`bounded_int`. It imports nothing of the package.
"""

from __future__ import annotations

import functools
import math
import sys
from typing import Final

__all__ = [
    "LONG_BITS",
    "MAX_DIGITS",
    "LongInteger",
    "bounded_int",
    "digits_allowed",
    "too_long",
    "unguarded",
    "unguarded_written",
    "unwritten",
]

MAX_DIGITS: Final = 4_300
"""The most digits of an integer the server reads from a client or writes (pydantic-core's limit, and
Python's own by default)."""

LONG_BITS: Final = math.floor(MAX_DIGITS * math.log2(10))
"""An int of no more bits than this has at most :data:`MAX_DIGITS` digits (``value.bit_length() <= LONG_BITS``:
the test a writer makes before :func:`too_long`'s call). ``(10**MAX_DIGITS).bit_length() - 1``, read without
making that int (~0.5 M instructions of every start): :func:`too_long` makes it at its first need."""
# Every byte as "0", an ASCII digit as "1": a run of more digits is then a run of "1"s, found by bytes.find
# (a C search, several times faster than a regular expression's scan of the text).
_DIGITS: Final = bytes(ord("1") if chr(byte).isascii() and chr(byte).isdigit() else ord("0") for byte in range(256))
_LONG_RUN: Final = b"1" * (MAX_DIGITS + 1)
# What stands before a number in JSON (a minus sign skipped): a value's opening, a separator, whitespace; and
# before the text's first value only a UTF-8 byte order mark. Before digits in a string anything may stand.
_BEFORE_A_NUMBER: Final = frozenset(b":[,")
_SPACE: Final = frozenset(b" \t\n\r")
_BOM: Final = b"\xef\xbb\xbf"


class LongInteger(ValueError):
    """An integer of more than :data:`MAX_DIGITS` digits, in JSON text read or in a value written."""


def digits_allowed() -> int:
    """The most digits of an integer this process reads or writes: :data:`MAX_DIGITS`, or Python's own
    limit (``sys.get_int_max_str_digits()``) where that is lower."""
    python = sys.get_int_max_str_digits()
    return python if 0 < python < MAX_DIGITS else MAX_DIGITS


def unguarded(text: str | bytes | bytearray) -> bool:
    """Whether ``text`` (JSON, longer than :data:`MAX_DIGITS` characters: the caller compares the length)
    may hold an integer Python would now convert past :data:`MAX_DIGITS` digits: the process lifted Python's
    limit above it (or to 0), and ``text`` holds a run of more ASCII digits where a number may start: at the
    text's start (a byte order mark before it), or after ``:``, ``[``, ``,`` or whitespace (a minus sign
    between). A run after anything else is inside a string (``"7777…"``, ``"π is 3.1415…"``), or a float's
    fraction or exponent: text, or no int. True may still be a run inside a string (``"a:9999…"``): read the
    text with :func:`bounded_int` to tell.

    Cost: a few C passes over the text's UTF-8 bytes (about 2 ms for 1.5 MB), and one step per run found.
    """
    python = sys.get_int_max_str_digits()
    if 0 < python <= MAX_DIGITS:
        return False
    return _number_run(text, compact=False)


def unguarded_written(text: str) -> bool:
    """:func:`unguarded` for JSON written without whitespace between its tokens (the encoder's): a run of
    digits after whitespace is in a string too."""
    python = sys.get_int_max_str_digits()
    if 0 < python <= MAX_DIGITS:
        return False
    return _number_run(text, compact=True)


def _number_run(text: str | bytes | bytearray, *, compact: bool) -> bool:
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    shaped = raw.translate(_DIGITS)
    start = shaped.find(_LONG_RUN)  # the first digit of the first run (a run begins where its window does)
    while start >= 0:
        before = start - 1
        if before >= 0 and raw[before] == ord("-"):
            before -= 1
        if before < 0 or raw[before] in _BEFORE_A_NUMBER or (before == 2 and raw.startswith(_BOM)) \
                or (not compact and raw[before] in _SPACE):
            return True
        end = shaped.find(b"0", start + MAX_DIGITS + 1)  # past this run: the next is looked for after it
        if end < 0:
            return False
        start = shaped.find(_LONG_RUN, end)
    return False


def bounded_int(text: str) -> int:
    """``int(text)`` for a JSON integer literal (an optional minus sign and digits) of at most
    :data:`MAX_DIGITS` digits (a JSON decoder's ``parse_int``), or for any text ``int()`` reads: one of
    more than :data:`MAX_DIGITS` characters (a minus sign aside) is refused unread.

    Raises:
        LongInteger: more digits; its length is compared before any conversion.
        ValueError: a text ``int()`` does not read, or more digits than Python's own lower limit.
    """
    if len(text) - text.startswith("-") > MAX_DIGITS:
        raise LongInteger(f"a number has more than {MAX_DIGITS} digits")
    return int(text)


def too_long(value: int) -> bool:
    """Whether the int ``value`` has more than :data:`MAX_DIGITS` digits (without writing it: most ints
    are told by their bit length alone)."""
    return value.bit_length() > LONG_BITS and abs(value) >= _too_long()


@functools.cache
def _too_long() -> int:
    """The least int of :data:`MAX_DIGITS` + 1 digits."""
    return 10**MAX_DIGITS


def unwritten(where: str | None = None) -> LongInteger:
    """The error of writing an int of more than :data:`MAX_DIGITS` digits: ``"<where> is an int of over 4,300
    digits, which a client's JSON reader refuses; return it as a string or in fewer digits"`` (without
    ``where``: ``"the value holds an int of over 4,300 digits, ..."``)."""
    said = f"{where} is" if where is not None else "the value holds"
    return LongInteger(f"{said} an int of over {MAX_DIGITS:,} digits, which a client's JSON reader refuses; "
                       "return it as a string or in fewer digits")
