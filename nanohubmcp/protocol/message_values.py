"""Values written as JSON inside error texts, for the person who reads them.

A client sent ``null``, ``"x"`` or ``[1, true]``; a message that names its value back says so in
JSON, never in Python's ``None``, ``'x'``, ``[1, True]`` (:func:`show`), and a library's message
that wrote values with ``%r`` (jsonschema) is rewritten the same way (:func:`json_message`), in
bounded work. What goes on the wire itself is :mod:`.jsonenc`'s.
"""

from __future__ import annotations

import json
from typing import Any


def show(value: object) -> str:
    """A value as it reads in JSON, for error texts: ``null``, ``"x"``, ``[1, true]`` (never
    Python's ``None``, ``'x'``, ``[1, True]``); a value JSON cannot hold reads as its repr."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        return repr(value)


MAX_NOTED = 10_000
"""Values (with their items and keys) :func:`json_message` looks at, at most."""


def json_message(message: str, *values: Any) -> str:
    """``message`` with the Python reprs of ``values`` (and of their items and keys) written as
    JSON: for texts of libraries that format values with ``%r`` (jsonschema).

    Only reprs found in ``message`` are rewritten, and at most :data:`MAX_NOTED` values are looked
    at: the work grows with the values and the message's length, never with their product times
    the number of values (keep ``message`` short: callers cut it first).
    """
    seen: dict[str, str] = {}
    budget = [MAX_NOTED]

    def note(value: object, depth: int) -> None:
        budget[0] -= 1
        if budget[0] < 0:
            return
        try:
            text = repr(value)
        except Exception:
            return
        if text in message and not text.startswith("<"):
            shown = show(value)
            if text != shown:
                seen[text] = shown
        if depth < 2 and isinstance(value, (list, tuple, dict)):
            for item in value:
                if budget[0] <= 0:
                    break
                note(item, depth + 1)
                if isinstance(value, dict):
                    note(value[item], depth + 1)

    for value in values:
        note(value, 0)
    for text in sorted(seen, key=len, reverse=True):
        message = message.replace(text, seen[text])
    return message
