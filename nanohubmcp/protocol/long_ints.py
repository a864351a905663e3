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
lifted the limit is a longer text looked at (:func:`unguarded`: one regular-expression pass, linear in its
length), and read with :func:`bounded_int` when it holds a run of more digits.

This module owns the limit and that look; ``protocol.jsonrpc.parse_body`` reads a client's body that may hold
such a number with ``protocol.jsondec.loads_bounded``, ``protocol.jsonenc`` refuses one in what the server
writes, ``schema.json_form`` in what is given at registration. It imports nothing of the package.
"""

from __future__ import annotations

import re
import sys
from typing import Final

__all__ = ["MAX_DIGITS", "LongInteger", "bounded_int", "digits_allowed", "too_long", "unguarded", "unwritten"]

MAX_DIGITS: Final = 4_300
"""The most digits of an integer the server reads from a client or writes (pydantic-core's limit, and
Python's own by default)."""

_TOO_LONG: Final = 10**MAX_DIGITS  # the least int of MAX_DIGITS + 1 digits
_LONG_BITS: Final = _TOO_LONG.bit_length() - 1  # an int of no more bits has fewer digits: not compared
# A run of more digits, looked for from its first digit only (the look-behind), so that each run is
# scanned once: without it every digit of a long run would start a scan of the rest (quadratic).
_RUN: Final = re.compile(rf"(?<![0-9])[0-9]{{{MAX_DIGITS + 1}}}")
_RUN_BYTES: Final = re.compile(_RUN.pattern.encode())


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
    limit above it (or to 0), and ``text`` holds a run of more ASCII digits (in a number, or in a string:
    read it with :func:`bounded_int` to tell)."""
    python = sys.get_int_max_str_digits()
    if 0 < python <= MAX_DIGITS:
        return False
    run = _RUN.search(text) if isinstance(text, str) else _RUN_BYTES.search(text)
    return run is not None


def bounded_int(text: str) -> int:
    """``int(text)`` for a JSON integer literal (an optional minus sign and digits) of at most
    :data:`MAX_DIGITS` digits (a JSON decoder's ``parse_int``).

    Raises:
        LongInteger: more digits; its length is compared before any conversion.
    """
    if len(text) - text.startswith("-") > MAX_DIGITS:
        raise LongInteger(f"a number has more than {MAX_DIGITS} digits")
    return int(text)


def too_long(value: int) -> bool:
    """Whether the int ``value`` has more than :data:`MAX_DIGITS` digits (without writing it: most ints
    are told by their bit length alone)."""
    return value.bit_length() > _LONG_BITS and abs(value) >= _TOO_LONG


def unwritten(where: str | None = None) -> LongInteger:
    """The error of writing an int of more than :data:`MAX_DIGITS` digits: ``"<where> is an int of over 4,300
    digits, which a client's JSON reader refuses; return it as a string or in fewer digits"`` (without
    ``where``: ``"the value holds an int of over 4,300 digits, ..."``)."""
    said = f"{where} is" if where is not None else "the value holds"
    return LongInteger(f"{said} an int of over {MAX_DIGITS:,} digits, which a client's JSON reader refuses; "
                       "return it as a string or in fewer digits")
