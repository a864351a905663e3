"""JSON paths in messages, and the one shape of an "invalid arguments" error.

Owns how a location inside a JSON value is written for people and models to read
(``arguments.points[2].x``), what a JSON pointer points to (:func:`pointed`), and how violations become
:class:`~nanohubmcp.errors.InvalidArguments`.
It does not validate anything itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from nanohubmcp.errors import InvalidArguments
from nanohubmcp.protocol.message_values import show

_INDEX = "0|[1-9][0-9]*"  # (compiled by ``re`` at its first use: a violation's path, not at start)
"""An array index in a JSON pointer (RFC 6901 § 4): ASCII digits (``str.isdigit`` takes ``²`` too, which
``int`` refuses), no leading zero."""
_MAX_LINE = 300
"""Longest violation text kept: jsonschema quotes the offending value, which can be huge."""


def format_path(root: str, path: Iterable[str | int]) -> str:
    """Write a JSON location as ``root.key[0]['odd key']``.

    Args:
        root: the name of the whole value, e.g. ``"arguments"``.
        path: object keys (str) and array indexes (int), outermost first.
    """
    text = root
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part.isidentifier():
            text += f".{part}"
        else:
            text += f"[{show(part)}]"
    return text


def shorten(message: str) -> str:
    """Keep one violation on one line of reasonable length."""
    message = " ".join(message.split())
    if len(message) > _MAX_LINE:
        message = message[: _MAX_LINE - 1] + "…"
    return message


def pointed(document: object, pointer: str) -> tuple[bool, Any]:
    """``(True, what the JSON pointer points to)`` in ``document``, or ``(False, None)`` when it points to
    nothing there (RFC 6901: ``""`` the whole, ``"/result/0"``, ``~1`` a ``/`` and ``~0`` a ``~`` in a key).
    A pointer not starting with ``/`` (other than ``""``) points to nothing, and so does an array index that is
    not ASCII digits without a leading zero (``"/01"``, ``"/²"``, ``"/-"``)."""
    if pointer and not pointer.startswith("/"):
        return False, None
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(document, dict) and token in document:
            document = document[token]
        elif isinstance(document, list) and re.fullmatch(_INDEX, token) and int(token) < len(document):
            document = document[int(token)]
        else:
            return False, None
    return True, document


def echoed(name: object) -> str:
    """A client-sent name (a tool's, a method's) as an error message repeats it: names over
    :data:`_MAX_LINE` characters cut to those and "…", the bound a violation's text has, so a
    megabyte name is not answered with a megabyte message; a character that prints as nothing or moves
    what follows (a control character, a line break, a bidirectional override such as U+202E, a zero-width
    one) written as its escape, ``\\u202e``, so the message reads as what was sent."""
    text = str(name)
    return escaped(text if len(text) <= _MAX_LINE else text[: _MAX_LINE - 1] + "…")


def escaped(text: str, keep: str = "") -> str:
    """``text`` with each character that prints as nothing or moves what follows (a C0 or C1 control character,
    ESC of a terminal's escape sequence among them, a line break, a bidirectional override, a zero-width one)
    written as its escape, ``\\u001b``, but those of ``keep`` (a traceback's own line breaks and indents: ``"\\n\\t"``).
    :func:`echoed`'s rule, uncut: the server's log writes what a client sent with it
    (:mod:`nanohubmcp.processes.log_lines`)."""
    return text if text.isprintable() else "".join(
        c if c.isprintable() or c in keep else f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
        for c in text)


def echoed_names(names: Sequence[str], most: int) -> str:
    """Client-sent ``names`` as an error message lists them: the first ``most``, each :func:`echoed`, joined by
    commas, then "and N more" for the rest, so a thousand unknown names are not answered with a thousand."""
    shown = ", ".join(echoed(name) or repr(name) for name in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def uri_data(uri: str, **more: Any) -> dict[str, Any]:
    """The ``data`` of an error about a URI the client sent, whose message names it :func:`echoed`:
    ``{"uri": uri, **more}`` when it is short enough to be named whole there; a longer one (over
    :data:`_MAX_LINE` characters) is left out, so that the answer says it once, cut, not a second time whole."""
    return {"uri": uri, **more} if len(uri) <= _MAX_LINE else dict(more)


def invalid_arguments(kind: str, name: str, violations: Iterable[str]) -> InvalidArguments:
    """Build the error for a call whose arguments broke the component's contract.

    Args:
        kind: ``"tool"``, ``"prompt"`` or ``"resource"``.
        name: the component's registered name.
        violations: ``"<path>: <what is wrong>"`` texts, one per violation.

    Returns:
        An :class:`InvalidArguments` whose message has one line per violation, each like
        ``Invalid arguments for tool 'add': arguments.b: 'x' is not of type 'number'``, and whose
        ``errors`` lists the same lines.
    """
    prefix = f"Invalid arguments for {kind} {name!r}: "
    lines = [prefix + shorten(v) for v in violations]
    return InvalidArguments("\n".join(lines), lines)
