"""How deep a JSON value may nest: the one limit, and the checks that hold text and values to it.

:data:`MAX_JSON_DEPTH` is the limit a client's JSON body is held to when parsed
(``protocol.jsonrpc``, which names it for users) and a tool's result when written
(``server.results``); :data:`WALK_DEPTH` is the bound of the recursive helpers that copy or walk a
value (``jsonenc.plain``, the NaN scrubbing of ``jsonenc.dumps``, the cache key's canonical form).
:func:`nested_deeper_than` counts the depth of JSON text already written, without parsing it.

This module owns the limit and the counting; it writes and reads no JSON (``protocol.jsonenc``
does, and holds a value it writes to the limit with ``dumps_within_depth``).
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Final

__all__ = [
    "MAX_JSON_DEPTH",
    "WALK_DEPTH",
    "NestedTooDeep",
    "nested_deeper_than",
    "too_deep",
    "walked_too_deep",
    "within_depth",
]


MAX_JSON_DEPTH: Final = 128
"""Arrays and objects one JSON value may nest, at most: a client's body (``protocol.jsonrpc``,
which names it for users) and a tool's result (``server.results``) are held to it."""

WALK_DEPTH: Final = 2 * MAX_JSON_DEPTH
"""How deep the recursive helpers (``jsonenc.plain``, the NaN scrubbing of ``jsonenc.dumps``, the
cache key's canonical form) go before refusing a value with :class:`NestedTooDeep`: a value within
:data:`MAX_JSON_DEPTH` inside any message's own levels fits, and Python's recursion limit (1000
frames) is never reached."""


class NestedTooDeep(ValueError):
    """A value nested too deeply to be written (or walked) as JSON; the message says the limit."""


def walked_too_deep() -> NestedTooDeep:
    """The error of a recursive helper that reached :data:`WALK_DEPTH`."""
    return NestedTooDeep(f"the value is nested more than {WALK_DEPTH} levels deep (arrays and objects)")


# (text that ``re`` compiles at its first use, a long text with escapes or strings: not at start)
_ESCAPES: Final = rb'\\\\|\\"'  # an escaped backslash or quote inside a string
_STRINGS: Final = rb'"[^"]*"'
_NOT_STRUCTURE: Final = bytes(b for b in range(256) if b not in b'[]{}"')
_ONE_KIND: Final = bytes.maketrans(b"{}", b"[]")  # objects and arrays count alike
_STEP: Final = tuple(1 if b == ord("[") else -1 if b == ord("]") else 0 for b in range(256))


def nested_deeper_than(data: str | bytes, limit: int) -> bool:
    """True when the JSON text ``data`` nests arrays and objects more than ``limit`` levels deep
    (``[]`` is one level; brackets inside strings do not count).

    Cheap for ordinary text: text of at most ``2 * limit`` characters is not looked at; otherwise
    its brackets and quotes are kept (one C-speed pass), text with at most ``limit`` opening
    brackets cannot nest that deep, and of the brackets outside strings the innermost pairs are
    peeled off, one level a pass, until what is left cannot be that deep (a few passes for data: a
    table of records is three levels); a shape that peels slowly (long chains of brackets) is
    counted a bracket at a time instead. Text that is not JSON gets an answer too (then the parser
    says what is wrong with it).
    """
    if len(data) <= 2 * limit:
        return False
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if b"\\" in raw:  # escapes first (an escaped quote ends no string); most data has none
        if raw.count(b"[") + raw.count(b"{") <= limit:
            return False
        raw = re.sub(_ESCAPES, b"", raw)
    shape = raw.translate(_ONE_KIND, _NOT_STRUCTURE)  # only [, ] and " are left: one pass
    if shape.count(b"[") <= limit:
        return False
    if b'"' in shape:
        shape = shape.replace(b'""', b"")  # strings without brackets (two strings side by side join)
        if b'"' in shape:
            shape = re.sub(_STRINGS, b"", shape)
    peeled = 0
    # (each level left needs a pair of brackets: fewer pairs than levels to go cannot pass the limit)
    while len(shape) > 2 * (limit - peeled):
        if peeled == limit:
            return True  # something is left after peeling ``limit`` levels
        inner = shape.replace(b"[]", b"")  # every innermost pair: one level
        if len(inner) * 8 > len(shape) * 7:  # less than an eighth peeled (long chains, or not JSON)
            return max(accumulate(map(_STEP.__getitem__, shape))) > limit - peeled
        shape, peeled = inner, peeled + 1
    return False


def too_deep(what: str) -> NestedTooDeep:
    """The error of a value a function returned (``what`` names it: "the tool's result") that nests
    arrays and objects more than :data:`MAX_JSON_DEPTH` levels deep: the limit a client's JSON is
    held to, said with what to do instead."""
    return NestedTooDeep(
        f"{what} is nested more than {MAX_JSON_DEPTH} levels deep (arrays and objects); flatten it, "
        "or return it as a file or resource"
    )


def within_depth(text: str, what: str, *, around: int = 0) -> str:
    """``text``, the JSON text of a value (``what``) wrapped in ``around`` levels of the caller's
    own, when the value nests at most :data:`MAX_JSON_DEPTH` levels deep.

    Cheap for ordinary text (:func:`nested_deeper_than`: a short text is not looked at).

    Raises:
        NestedTooDeep: the value nests deeper (:func:`too_deep`'s message).
    """
    limit = MAX_JSON_DEPTH + around
    if len(text) > 2 * limit and nested_deeper_than(text, limit):
        raise too_deep(what)
    return text
