"""A message as the bytes a transport sends, or, for a response whose result JSON cannot hold, its error.

A result is JSON values by the time it is sent: the handlers make it so. A middleware of the application's
may still put in something JSON has no form for (a ``set``, a ``datetime``, an object of its own; numpy
values are written as the numbers they hold, :mod:`.jsonenc`). Writing such a response failed inside the
transport, which then answered HTTP 500 with no JSON-RPC body (or wrote nothing on stdio): the client saw
neither an answer nor an error for its request. :func:`message_parts` answers it instead with the JSON-RPC
error -32603 for the request's id, and logs why in one line.

Source: JSON-RPC 2.0 § 5.1 (Internal error, -32603).
"""

from __future__ import annotations

import logging

from ..errors.codes import INTERNAL_ERROR
from . import jsonenc

__all__ = ["message_parts"]

log = logging.getLogger("nanohubmcp.server")


def message_parts(message: object, *, echoes: bool = True) -> list[bytes | jsonenc.TextPieces]:
    """:func:`~.jsonenc.dumpb_parts` of ``message`` (``echoes`` as there); for a response whose result cannot
    be written as JSON, those of the error response -32603 for its id (logged: the type that JSON cannot hold).

    Raises:
        TypeError, ValueError: a message other than a response that JSON cannot hold (the server's own fault).
    """
    try:
        # (the usual message passes no keyword: a call with one costs the hot path ~400 instructions)
        return jsonenc.dumpb_parts(message) if echoes else jsonenc.dumpb_parts(message, echoes=False)
    except (TypeError, ValueError) as exc:
        if not (isinstance(message, dict) and "result" in message and "id" in message):
            raise
        log.error("the result for request %s cannot be written as JSON (%s); answered -32603: a middleware must "
                  "return JSON values (numbers, text, lists, dicts)", jsonenc.dumps(message.get("id")), exc)
        return jsonenc.dumpb_parts({"jsonrpc": "2.0", "id": message["id"], "error": {
            "code": INTERNAL_ERROR, "message": "Internal error: the result could not be written as JSON; see the "
                                               "server log"}})
