"""How much of a message's text a client is sent: :func:`notified_text` (a progress or log message, an error
result's text) and :func:`sent_error` (a JSON-RPC error's ``message`` and ``data``).

Over Streamable HTTP a call's ``notifications/progress`` and ``notifications/message`` go out as SSE events, one
each, and so does its answer once one of them went first; over the legacy SSE transport every message is an
event. The official ``mcp`` client refuses an event over 1 MiB
(:data:`~nanohubmcp.protocol.client_event_cap.CLIENT_EVENT_BYTES`), failing the whole call ("Server-sent event
exceeded the 1048576 byte limit"), though the tool completed. So a text longer than :data:`MAX_NOTIFIED_CHARS`
is cut for the client, saying so; the server's log and the call's kept messages hold it whole. An error result's
text is cut by the same rule (trial54 N3), and so are a JSON-RPC error's message and data
(:func:`~nanohubmcp.errors.to_error_object`, every error the server answers), however the answer goes, and so is a
failed job's status message (its error's text, or its ``isError`` result's). A job's progress message is cut
shorter still (``server.jobs.record.MAX_PROGRESS_MESSAGE``).

An error's data is measured as the wire writes it: with the writer the transports send with
(``protocol.jsonenc.dumps``, which writes a numpy or pandas value too), given here when that module is loaded
(:func:`measure_data_with`; until then the standard library's ``json``). Data that writer cannot write is sent as a
short text saying so.

It sits with the exceptions (the bottom layer) because the one map of exceptions to wire errors uses it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

__all__ = ["MAX_NOTIFIED_CHARS", "measure_data_with", "notified_text", "sent_error"]

MAX_NOTIFIED_CHARS: Final = 65_536
"""The most characters of a progress or log message, of an error result's text, or of a JSON-RPC error's message
or data (as JSON text), sent to a client (a longer one is cut, saying so): written as JSON even at 6 bytes a
character (a control character as ``\\u00XX``) a message and its data stay well within the client's 1 MiB
(:data:`~nanohubmcp.protocol.client_event_cap.CLIENT_EVENT_BYTES`), the least the server's ``max_event_bytes`` takes.
A rule of its own, held whatever that bound (None too): a text this long is no message a reader reads whole."""


def _stdlib_dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_writer: Callable[[object], str] = _stdlib_dumps
"""What writes an error's data as the wire does (:func:`measure_data_with`): compact JSON text."""


def measure_data_with(writer: Callable[[object], str]) -> None:
    """Measure (and, when cut, write) an error's data with ``writer``: the transports' own JSON writer
    (``protocol.jsonenc.dumps``, which gives itself here when loaded), compact JSON text of a value; it raises
    TypeError or ValueError (RecursionError) for a value it cannot write. The errors layer imports nothing above
    it, so the writer is given, as ``protocol.foreign_values.convert_values_with`` is given the converters."""
    global _writer
    _writer = writer


_CUT_NOTE: Final = rf"… \[cut: [0-9]{{1,20}} characters in all; a client is sent {MAX_NOTIFIED_CHARS}\]"
"""The pattern of the note :func:`notified_text` ends a cut text with (after its first :data:`MAX_NOTIFIED_CHARS`
characters): text ``re`` compiles at the first text that long, not at every server's start."""


def notified_text(message: str) -> str:
    """``message`` (a progress or log message, an error's text) as a client is sent it: itself up to
    :data:`MAX_NOTIFIED_CHARS` characters, else its first :data:`MAX_NOTIFIED_CHARS` followed by
    ``"… [cut: N characters in all; a client is sent 65536]"``. A text already so cut is itself (cut once: its
    note keeps the first text's size, as a failed job's error result, cut when the call failed, is its status).

    >>> notified_text("step 3 of 10")
    'step 3 of 10'
    >>> cut = notified_text("x" * 70_000)
    >>> cut.endswith("x… [cut: 70000 characters in all; a client is sent 65536]"), notified_text(cut) == cut
    (True, True)
    """
    if len(message) <= MAX_NOTIFIED_CHARS or re.compile(_CUT_NOTE).fullmatch(message, MAX_NOTIFIED_CHARS):
        return message
    said = f"… [cut: {len(message)} characters in all; a client is sent {MAX_NOTIFIED_CHARS}]"
    return message[:MAX_NOTIFIED_CHARS] + said


def sent_error(error: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC ``error`` member (``{code, message, data?}``) as a client is sent it: ``error`` itself when its
    message is at most :data:`MAX_NOTIFIED_CHARS` characters and its data (as compact JSON text) too, else a copy
    whose message is :func:`notified_text`'s and whose data is a text data cut so (a longer JSON value becomes its
    JSON text, cut: the marker says how long it was). Data is measured as the wire writes it
    (:func:`measure_data_with`: a numpy array as its values); data it cannot write is left as it is: the transport
    answers the error without it and logs why.

    >>> sent_error({"code": -32602, "message": "bad x", "data": {"errors": ["bad x"]}})
    {'code': -32602, 'message': 'bad x', 'data': {'errors': ['bad x']}}
    >>> sent_error({"code": -32004, "message": "m" * 70_000})["message"][-31:]
    'in all; a client is sent 65536]'
    >>> sent_error({"code": -32004, "message": "m", "data": ["d" * 70_000]})["data"][:4]
    '["dd'
    """
    message = error.get("message")
    cut_message = type(message) is str and len(message) > MAX_NOTIFIED_CHARS
    data = error.get("data")
    cut_data = _cut_data(data) if data is not None else None
    if not cut_message and cut_data is None:
        return error
    sent = dict(error)
    if cut_message:
        sent["message"] = notified_text(message)  # type: ignore[arg-type]  # a str: checked above
    if cut_data is not None:
        sent["data"] = cut_data
    return sent


def _cut_data(data: object) -> str | None:
    """``data`` cut as :func:`sent_error` says, or None when it is sent as it is (also data the measure cannot
    write: the transport's writer answers the error without it and logs why, as for any unwritable data)."""
    if type(data) is str:
        return notified_text(data) if len(data) > MAX_NOTIFIED_CHARS else None
    if type(data) in (int, float, bool):
        return None
    try:  # (the measure only: the transport writes what is sent)
        text = _writer(data)
    except (TypeError, ValueError, RecursionError):  # the transport's writer leaves it out, saying so in the log
        return None
    return notified_text(text) if len(text) > MAX_NOTIFIED_CHARS else None
