"""Values written as JSON inside error texts, for the person who reads them.

A client sent ``null``, ``"x"`` or ``[1, true]``; a message that names its value back says so in
JSON, never in Python's ``None``, ``'x'``, ``[1, True]`` (:func:`show`), on one line (JSON's ``\\n`` for
each line break, Unicode's too: :func:`one_line`), and a library's message
that wrote values with ``%r`` (jsonschema) is rewritten the same way (:func:`json_message`), in
bounded work. A Python value a setting's or a registration's refusal names is its repr, cut to a
bound (:func:`shown_value`). What goes on the wire itself is :mod:`.jsonenc`'s.
"""

from __future__ import annotations

import json
from typing import Any

_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}
"""The line breaks of ``str.splitlines`` JSON writes raw (it escapes those below U+0020: ``\\n``, ``\\u001c``)."""


def one_line(text: str) -> str:
    """``text``, JSON written with ``ensure_ascii=False``, with each line break JSON leaves raw (U+0085 NEL,
    U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR) escaped as JSON escapes it (``\\u2028``): a client's
    value quoted by a message or a log line cannot break it (a terminal, a log reader and ``splitlines`` start
    a new line there) while ``\\n`` and every other control character are escaped.

    Example:
        >>> print(one_line(json.dumps("a" + chr(0x2028) + "b", ensure_ascii=False)))
        "a\\u2028b"
    """
    return text.translate(_LINE_BREAKS)


def show(value: object) -> str:
    """A value as it reads in JSON, for error texts: ``null``, ``"x"``, ``[1, true]`` (never
    Python's ``None``, ``'x'``, ``[1, True]``), on one line (:func:`one_line`); a value JSON cannot hold reads
    as its repr."""
    try:
        return one_line(json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": ")))
    except (TypeError, ValueError):
        return repr(value)


def header_as_sent(value: str) -> str:
    """A header's value as its client wrote it, for error texts: an HTTP server reads a header's bytes
    one character per byte (ISO-8859-1, RFC 9110 § 5.5), so UTF-8 text a client sent (``"\u0662\u0660"``)
    arrives as other characters (``"\xd9\xa2\xd9\xa0"``); bytes that are valid UTF-8 are shown as the
    characters they encode, anything else as read."""
    if value.isascii():
        return value
    try:
        return value.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return value


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


UNWRITTEN_INT = "an int of over 4,300 digits"
"""What :func:`shown_value` names an int Python will not write as text (``sys.get_int_max_str_digits()``)."""


def shown_value(value: object, limit: int = 60) -> str:
    """``repr(value)`` for a message, cut to ``limit`` characters with an ellipsis when longer. Never raises:
    an int Python will not write as text (of over 4,300 digits, alone or inside a container) is named so, and
    an object whose ``repr`` fails by its type.

    Example:
        >>> shown_value(-10**5000), shown_value("x" * 100, 8)
        ('an int of over 4,300 digits', "'xxxxxx…")
    """
    try:
        text = repr(value)
    except ValueError:
        return UNWRITTEN_INT
    except Exception:  # (a repr of the user's own that fails)
        return f"a {type(value).__name__} object"
    return text if len(text) <= limit else f"{text[:limit - 1]}…"
