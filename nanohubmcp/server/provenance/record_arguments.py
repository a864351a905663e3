"""A provenance record's ``arguments`` column: the call's arguments as JSON text, made on the writer thread.

:func:`record_arguments_text` is :func:`~nanohubmcp.schema.kept_arguments.arguments_text` of a call's
arguments (a secret one's value replaced: :func:`~nanohubmcp.schema.secret.stored_arguments`), the same
text to the byte, made the cheapest way that gives it: for the commonest arguments — a flat dict of
strings, integers, finite floats and booleans whose text is ASCII — by orjson when it is installed
(the ``fast`` extra, :func:`~nanohubmcp.protocol.accelerator.accelerator`), else by the C encoder's chunks
joined inline; anything else the long way.

orjson writes those values as the standard library's encoder does (``separators=(",", ":")``, keys in
the dict's order, the same escapes of ASCII text, integers in decimal, a float as its shortest
round-trip digits with Python's spelling) except a float below 1e-4 (``1e-05``, ``1.5e-07`` in Python's
spelling, ``0.00001``, ``1.5e-7`` in orjson's), NaN and the infinities (orjson writes ``null``), an
integer beyond 64 bits (orjson refuses it) and a non-ASCII or lone-surrogate string: those arguments
go the other ways. Made so, a record's arguments cost the writer ~5k instructions fewer with two floats
(bench/provenance.md, twelfth pass).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...protocol.accelerator import accelerator
from ...protocol.compact_json import compact_chunks
from ...protocol.lone_surrogates import utf8_storable
from ...schema.kept_arguments import MAX_KEPT_ARGUMENTS_BYTES, arguments_text
from ...schema.secret import stored_arguments, stored_form

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..registry.components import Tool

__all__ = ["record_arguments_text"]

_arguments_chunks = compact_chunks(stored_form, allow_nan=True)
_SMALLEST_PLAIN_FLOAT = 1e-4
"""A nonzero float below this (in magnitude) is spelled with an exponent that orjson writes otherwise."""
_INFINITY = float("inf")
_fast: Callable[[dict[str, Any]], bytes] | None = None
_looked = False


def record_arguments_text(arguments: Any, tool: Tool) -> str:
    """The ``arguments`` column of a call of ``tool`` with ``arguments`` (as received: a dict, or anything
    else, read as no arguments): :func:`~nanohubmcp.schema.kept_arguments.arguments_text` of them with the
    values of the arguments the tool's schema marks secret replaced."""
    if tool.secrets is not None:
        return arguments_text(stored_arguments(arguments if isinstance(arguments, dict) else {}, tool.secrets))
    if type(arguments) is not dict:
        return "{}"
    fast = _fast if _looked else _fast_writer()
    if fast is not None:
        # (the values orjson spells as the standard library does, see the module's docstring: inline, a
        # function's call would cost a tenth of what orjson saves)
        for value in arguments.values():
            kind = type(value)
            if kind is float:
                # (finite, and zero or at least 1e-4 in magnitude; NaN fails every comparison)
                if not (
                    _SMALLEST_PLAIN_FLOAT <= value < _INFINITY
                    or -_INFINITY < value <= -_SMALLEST_PLAIN_FLOAT
                    or value == 0.0
                ):
                    break
            elif kind is not str and kind is not int and kind is not bool:
                break
        else:
            try:
                data = fast(arguments)
            except TypeError:  # an integer beyond 64 bits, a lone surrogate (orjson's error is a TypeError)
                data = b"\x80"
            if data.isascii() and len(data) <= MAX_KEPT_ARGUMENTS_BYTES:
                return data.decode("ascii")
    text = "".join(_arguments_chunks(arguments, 0))
    if text.isascii() and len(text) <= MAX_KEPT_ARGUMENTS_BYTES:
        return text
    short = len(text) <= MAX_KEPT_ARGUMENTS_BYTES  # (else too long in UTF-8 too: written again value by value)
    return arguments_text(arguments, utf8_storable(text) if short else None)


def _fast_writer() -> Callable[[dict[str, Any]], bytes] | None:
    """``orjson.dumps`` when orjson is installed and in use (looked up once, at the first record: the writer
    thread imports it, never a call's path), else None."""
    global _fast, _looked
    if not _looked:
        orjson = accelerator()
        _fast = orjson.dumps if orjson is not None else None
        _looked = True
    return _fast
