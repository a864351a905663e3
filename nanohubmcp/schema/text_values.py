"""A URI template variable's text as the value its parameter's schema asks for.

A resource template (``users://{uid}/posts/{pid}``) hands its function strings; a parameter annotated
``pid: int`` must receive an ``int``, and ``users://42/posts/x`` must be refused naming ``pid`` — the same
checks a tool's arguments get. :func:`from_text` reads one text by its JSON Schema:

==================================  =============================================================
schema ``type``                     text accepted
==================================  =============================================================
``integer``                         an optional sign and digits (``42``, ``-7``), at most 4,300 of them
                                    (``protocol.long_ints``, whatever ``PYTHONINTMAXSTRDIGITS`` says)
``number``                          anything ``float()`` reads except NaN and infinities
``boolean``                         ``true``/``false``, ``1``/``0``, ``yes``/``no`` (any case)
``null``                            the empty text
``array``                           items separated by ``/`` (``{/path*}``) or ``,`` (``{list}``), each
                                    read by ``items``
``string`` or no type               the text as it is
a list of types, ``anyOf``/``oneOf``  the first that reads the text
==================================  =============================================================

The result is then validated against the whole schema (enums, ranges, patterns) by the caller.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..protocol import long_ints

__all__ = ["from_text"]

_INTEGER = re.compile(r"[+-]?\d+")
_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})


def _one(text: str, kind: str, schema: dict[str, Any]) -> Any:
    if kind == "integer":
        digits = text.strip()
        if not _INTEGER.fullmatch(digits):
            raise ValueError(f"{_show(text)} is not an integer")
        try:  # (its digits counted before it is converted, whatever Python's own limit: as a body's)
            return long_ints.bounded_int(digits.removeprefix("+"))
        except ValueError:  # long_ints' limit, or Python's lower own (whose message names its knob)
            raise ValueError(f"{_show(text)} is an integer too long to read: at most "
                             f"{long_ints.digits_allowed()} digits") from None
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{_show(text)} is not a number") from None
        if not math.isfinite(number):
            raise ValueError(f"{_show(text)} is not a finite number")
        return int(number) if _INTEGER.fullmatch(text.strip()) else number
    if kind == "boolean":
        lowered = text.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ValueError(f"{_show(text)} is not a boolean (true or false)")
    if kind == "null":
        if text:
            raise ValueError(f"{_show(text)} is not empty")
        return None
    if kind == "array":
        parts = text.split("/") if "/" in text else (text.split(",") if text else [])
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        return [from_text(part, items) for part in parts]
    return text


SHOWN_CHARACTERS = 60
"""How much of a value an error text names back, at most (a URI may be 8192 characters long)."""


def _show(text: str) -> str:
    cut = text[:SHOWN_CHARACTERS]
    shown = '"' + cut.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return shown if cut == text else shown[:-1] + '..."'


def from_text(text: str, schema: dict[str, Any] | None) -> Any:
    """``text`` read as the value ``schema`` describes (see the module table).

    Raises:
        ValueError: the text cannot be read as any type the schema allows; the message says what it
            is not (e.g. ``"x" is not an integer``).
    """
    if not isinstance(schema, dict):
        return text
    kind = schema.get("type")
    kinds: list[str] = [kind] if isinstance(kind, str) else [k for k in kind or () if isinstance(k, str)]
    alternatives = [s for key in ("anyOf", "oneOf") for s in schema.get(key) or () if isinstance(s, dict)]
    if not kinds and not alternatives:
        return text
    if "string" in kinds:
        return text
    reasons: list[str] = []
    for each in kinds:
        try:
            return _one(text, each, schema)
        except ValueError as exc:
            reasons.append(str(exc))
    for alternative in alternatives:
        try:
            return from_text(text, alternative)
        except ValueError as exc:
            reasons.append(str(exc))
    raise ValueError(" and ".join(dict.fromkeys(reasons)))
