"""A message as the bytes a transport sends, or, for a response JSON cannot hold, its error.

A result is JSON values by the time it is sent: the handlers make it so. A middleware of the application's
may still put in something JSON has no form for (a ``set``, ``bytes``, an object of its own; numpy
values are written as the numbers they hold, :mod:`.jsonenc`), in a result or in a
:class:`~nanohubmcp.errors.ProtocolError`'s ``data``. Writing such a response failed inside the
transport, which then answered HTTP 500 with no JSON-RPC body (or wrote nothing on stdio or a legacy SSE
stream): the client saw neither an answer nor an error for its request, nor for the other members of its
batch. :func:`message_parts` answers it instead, and logs why in one line:

- a result: the JSON-RPC error -32603 for the request's id;
- an error: the same error without its ``data``;
- a batch's reply: each member written on its own, the one that cannot be written answered as above.

The fallback runs only after the whole message failed to encode: the usual message is encoded once. The
log line names the likely cause, which only the writer knows: a middleware when the server that made the
message has one (``middleware=True``: :meth:`.Connection.unsendable_parts` asks its server's pipeline),
else the server itself.

Source: JSON-RPC 2.0 § 5.1 (Internal error, -32603), § 6 (Batch).
"""

from __future__ import annotations

import logging
from typing import Any

from ..errors import InternalError, ProtocolError, error_response
from . import jsondec, jsonenc, text_pieces

__all__ = ["Parts", "message_parts", "received", "unsendable_parts"]

log = logging.getLogger("nanohubmcp.server")

Parts = list[bytes | text_pieces.TextPieces]
"""A message's bytes, with a kept file's text as a part of its own (written a piece at a time)."""

_MIDDLEWARE_CAUSE = "a middleware must return JSON values (numbers, text, lists, dicts)"
_SERVER_CAUSE = ("no middleware is installed, so the server made it: please report this as a bug of nanohubmcp, "
                 "with the log line")


def message_parts(message: object, *, echoes: bool = True, middleware: bool) -> Parts:
    """:func:`~.jsonenc.dumpb_parts` of ``message`` (``echoes`` as there); for a response that cannot be
    written as JSON, :func:`unsendable_parts` (``middleware`` as there). (The transports call ``dumpb_parts``
    themselves and this module's :func:`unsendable_parts` only when it failed: a ``tools/call`` answer crosses
    one module less.)

    Raises:
        TypeError, ValueError: a message other than a response that JSON cannot hold (the server's own fault).
    """
    try:
        return jsonenc.dumpb_parts(message) if echoes else jsonenc.dumpb_parts(message, echoes=False)
    except (TypeError, ValueError) as exc:
        return unsendable_parts(message, exc, echoes=echoes, middleware=middleware)


def received(message: object, *, middleware: bool) -> Any:
    """``message`` as a client reads it: the JSON values of the bytes a transport sends for it
    (:func:`message_parts`; a response JSON cannot hold is its error -32603, NaN is null, an array's
    pre-encoded text is its lists, a lone surrogate in the server's text is U+FFFD).

    Raises:
        TypeError, ValueError: as :func:`message_parts`.
    """
    return jsondec.loads(jsonenc.joined(message_parts(message, middleware=middleware)))


def unsendable_parts(message: object, exc: Exception, *, echoes: bool = True, middleware: bool) -> Parts:
    """The parts to send for ``message``, whose :func:`~.jsonenc.dumpb_parts` raised ``exc``: for a response,
    those of its stand-in (logged: the type that JSON cannot hold): the error -32603 for a result, the error
    without its ``data`` for an error; for a batch's reply (a list of responses), each member's own.
    ``middleware``: the server that made ``message`` has an application's middleware, which the log then
    names as the likely cause (a middleware may put in any value; without one, nothing but a bug does).

    Raises:
        TypeError, ValueError: ``exc`` again, for a message other than a response (the server's own fault).
    """
    if isinstance(message, list) and message:
        return _members(message, echoes, middleware)
    stand_in = _stand_in(message, exc, middleware)
    if stand_in is None:
        raise exc
    return jsonenc.dumpb_parts(stand_in, echoes=echoes)


def _members(replies: list[Any], echoes: bool, middleware: bool) -> Parts:
    """A batch's reply written member by member: ``[``, each member's parts, ``,`` between, ``]``."""
    parts: Parts = [b"["]
    for index, reply in enumerate(replies):
        if index:
            parts.append(b",")
        parts += message_parts(reply, echoes=echoes, middleware=middleware)
    parts.append(b"]")
    joined: Parts = []  # neighbouring bytes as one part (a transport writes each part on its own)
    for part in parts:
        if isinstance(part, bytes) and joined and isinstance(joined[-1], bytes):
            joined[-1] += part
        else:
            joined.append(part)
    return joined


def _stand_in(message: object, exc: Exception, middleware: bool) -> dict[str, Any] | None:
    if not (isinstance(message, dict) and "id" in message):
        return None
    request_id = message["id"]
    error = message.get("error")
    if "result" in message or not isinstance(error, dict) or not isinstance(error.get("code"), int) \
            or not isinstance(error.get("message"), str):
        if "result" not in message and "error" not in message:
            return None
        # What a component publishes is checked at registration, what it returns where it becomes wire
        # content: without a middleware, the server's fault.
        cause = _MIDDLEWARE_CAUSE if middleware else _SERVER_CAUSE
        log.error("the %s for request %s cannot be written as JSON (%s); answered -32603: %s",
                  "result" if "result" in message else "error", _id_text(request_id), exc, cause)
        what = "result" if "result" in message else "error"
        return error_response(InternalError(f"Internal error: the {what} could not be written as JSON; see the "
                                            "server log"), request_id)
    log.error("the data of error %s for request %s cannot be written as JSON (%s); answered without it: a "
              "ProtocolError's data must be JSON values (numbers, text, lists, dicts)", error["code"],
              _id_text(request_id), exc)
    return error_response(ProtocolError(error["message"], code=error["code"]), request_id)


def _id_text(request_id: object) -> str:
    try:
        return jsonenc.dumps(request_id)
    except (TypeError, ValueError):
        return repr(request_id)
