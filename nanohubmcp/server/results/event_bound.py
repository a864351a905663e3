"""The result options a call's answer is shaped with when it goes as one SSE event: :func:`answer_options`.

A call's answer over Streamable HTTP is a JSON body, or, once a related message went first (a progress
notification for a progress token, a log message), the last event of an SSE stream; over the legacy SSE transport it
is always an event. The official ``mcp`` client refuses an event over 1 MiB
(:data:`~nanohubmcp.protocol.client_event_cap.CLIENT_EVENT_BYTES`) and with it the whole call. So such an answer
is shaped by the large-result rule with ``max_inline_bytes`` at most :data:`EVENT_INLINE_BYTES`: data over it is
kept and answered as a ``resource_link`` (with its preview), as a JSON answer's data over ``max_inline_bytes`` is,
even when ``max_inline_bytes`` is larger or None. A result that cannot be linked (a tool declaring an output
schema promises its structured content; a REST answer carries all of its data) is sent as it is.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from ...protocol.client_event_cap import CLIENT_EVENT_BYTES
from ..wire.request import RequestContext
from .options import ResultOptions

__all__ = ["EVENT_INLINE_BYTES", "EVENT_TRANSPORTS", "answer_options"]

EVENT_INLINE_BYTES: Final = CLIENT_EVENT_BYTES // 4
"""The most bytes of a result's data (JSON, or a picture's PNG) inlined in an answer sent as one SSE event (256 KiB,
the default ``max_inline_bytes``): the answer carries the data twice (its text and its ``structuredContent``), the
text escaped as a JSON string, and stays within the client's 1 MiB."""

EVENT_TRANSPORTS: Final = frozenset({"streamable-http", "sse"})
"""The transports whose answers may go as SSE events (:attr:`RequestContext.transport`)."""


def answer_options(options: ResultOptions, request: RequestContext) -> ResultOptions:
    """``options``, or, for a ``request`` whose answer goes as an SSE event (legacy SSE; Streamable HTTP once its
    stream opened: :attr:`RequestContext.stream_opened`) and whose ``max_inline_bytes`` is None or over
    :data:`EVENT_INLINE_BYTES`, a copy with ``max_inline_bytes`` = :data:`EVENT_INLINE_BYTES`."""
    limit = options.max_inline_bytes
    if (limit is not None and limit <= EVENT_INLINE_BYTES) or request.data_only \
            or request.transport not in EVENT_TRANSPORTS:
        return options
    if request.transport == "streamable-http" and not request.stream_opened:
        return options
    return dataclasses.replace(options, max_inline_bytes=EVENT_INLINE_BYTES)
