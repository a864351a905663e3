"""A call's answer when it goes as one SSE event: the options it is shaped with (:func:`answer_options`) and the
refusal of one still too large for it (:func:`hold_to_event`).

A call's answer over Streamable HTTP is a JSON body, or, once a related message went first (a progress
notification for a progress token, a log message), the last event of an SSE stream; over the legacy SSE transport it
is always an event (:func:`goes_as_event`). The official ``mcp`` client refuses an event over 1 MiB
(:data:`~nanohubmcp.protocol.client_event_cap.CLIENT_EVENT_BYTES`) and with it the whole call: it never reads the
answer. So such an answer is shaped by the large-result rule with ``max_inline_bytes`` at most
:data:`EVENT_INLINE_BYTES`: data over it is kept and answered as a ``resource_link`` (with its preview), as a JSON
answer's data over ``max_inline_bytes`` is, even when ``max_inline_bytes`` is larger or None. A result that cannot
be linked (a tool declaring an output schema promises its structured content) and is still over the event's bytes
is not sent: the call answers a tool error naming its size and what to do instead, which the client reads
(:func:`hold_to_event`). A REST answer (``data_only``) is a JSON body: never an event.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from ...errors import ResultTooLarge
from ...protocol import jsonenc
from ...protocol.client_event_cap import CLIENT_EVENT_BYTES, EVENT_ENVELOPE_BYTES
from ..wire.request import RequestContext
from .options import ResultOptions

__all__ = ["EVENT_INLINE_BYTES", "EVENT_TRANSPORTS", "MAX_EVENT_RESULT_BYTES", "answer_options", "goes_as_event",
           "hold_to_event"]

EVENT_INLINE_BYTES: Final = CLIENT_EVENT_BYTES // 4
"""The most bytes of a result's data (JSON, or a picture's PNG) inlined in an answer sent as one SSE event (256 KiB,
the default ``max_inline_bytes``): the answer carries the data twice (its text and its ``structuredContent``), the
text escaped as a JSON string, and stays within the client's 1 MiB."""

MAX_EVENT_RESULT_BYTES: Final = CLIENT_EVENT_BYTES - EVENT_ENVELOPE_BYTES
"""The most bytes of a result (as JSON, UTF-8) answered as one SSE event: the client's 1 MiB less the envelope."""

EVENT_TRANSPORTS: Final = frozenset({"streamable-http", "sse"})
"""The transports whose answers may go as SSE events (:attr:`RequestContext.transport`)."""


def goes_as_event(request: RequestContext) -> bool:
    """Whether ``request``'s answer goes as one SSE event as things stand: over legacy SSE always; over Streamable
    HTTP (either era) once its stream opened (:attr:`RequestContext.stream_opened`: a related message went out);
    never over REST (``data_only``), stdio or in memory."""
    if request.data_only or request.transport not in EVENT_TRANSPORTS:
        return False
    return request.transport == "sse" or request.stream_opened


def answer_options(options: ResultOptions, request: RequestContext) -> ResultOptions:
    """``options``, or, for a ``request`` whose answer goes as an SSE event (:func:`goes_as_event`) and whose
    ``max_inline_bytes`` is None or over :data:`EVENT_INLINE_BYTES`, a copy with ``max_inline_bytes`` =
    :data:`EVENT_INLINE_BYTES`."""
    limit = options.max_inline_bytes
    if (limit is not None and limit <= EVENT_INLINE_BYTES) or not goes_as_event(request):
        return options
    return dataclasses.replace(options, max_inline_bytes=EVENT_INLINE_BYTES)


def hold_to_event(result: dict[str, Any], tool: str, *, held: bool) -> None:
    """Refuse ``result`` (tool ``tool``'s ``CallToolResult``, answered as one SSE event; ``held``: the tool declares
    an output schema, so its data was not linked) when it is over :data:`MAX_EVENT_RESULT_BYTES` as JSON: the
    client would lose the call, never reading it. A result JSON cannot write is left to the transport, which
    answers it as it answers any such result.

    Raises:
        ResultTooLarge: naming the size, the client's 1 MiB, why the answer goes as an event, and what to do
            instead (less data; a call answered as JSON; for a result held to an output schema, which is never
            linked, the server's author dropping the schema).
    """
    try:
        text = jsonenc.dumps(result)
    except (TypeError, ValueError):  # (NestedTooDeep and LongInteger are ValueErrors)
        return
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size <= MAX_EVENT_RESULT_BYTES:
        return
    raise ResultTooLarge(
        f"tool '{tool}' answered {size} bytes of JSON, more than a client reads in one server-sent event "
        f"({CLIENT_EVENT_BYTES} bytes, 1 MiB), and this answer goes as one (the call reported progress or logged "
        "before it ended, or came over the legacy SSE transport)"
        + ("; a result held to an output schema is sent inline, never linked" if held else "")
        + ". Ask for less data (a smaller size, range or sample), or call the tool over Streamable HTTP with no "
        "progress token: when nothing goes before it (nor a log message), the answer is JSON, whatever its size"
        + ("; the server's author may declare no output_schema, so that data over max_inline_bytes is kept and "
           "linked" if held else ""))
