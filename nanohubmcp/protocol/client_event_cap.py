"""The most bytes of one SSE event the official ``mcp`` client reads: :data:`CLIENT_EVENT_BYTES`, the default of
the server's bound on one event (``MCPServer(max_event_bytes=)``; None: no bound).

The official Python SDK (``mcp`` 2.3.0) reads a Streamable HTTP answer's SSE stream with httpx2's ``EventSource``
capped at ``mcp.client.streamable_http.DEFAULT_MAX_SSE_EVENT_SIZE`` = 1 MiB (the UTF-8 of an event's lines,
``data: `` included), as its legacy ``sse_client`` does: an event past it fails the whole call ("Server-sent event
exceeded the 1048576 byte limit"). What the server sends as one event is kept within it: a call's progress and log
messages, an error result's text and a JSON-RPC error's message and data (:mod:`nanohubmcp.errors.sent_text`); a
result answered as an event, its data linked, or, where it cannot be (an output schema), refused in the tool,
and a stored result read back as one (``tasks/result``, ``resources/read``) refused too
(:mod:`nanohubmcp.server.results.event_bound`); an elicitation or sampling request that would pass it is not sent
(:mod:`nanohubmcp.server.asks.ask_size`). Each of those but the texts is held to the server's ``max_event_bytes``
(:func:`said_bound` names it in a refusal); the texts are cut at 65,536 characters whatever it is, a separate rule
within the least bound it takes (1 MiB). Nothing is imported here.
"""

from __future__ import annotations

from typing import Final

__all__ = ["CLIENT_EVENT_BYTES", "EVENT_ENVELOPE_BYTES", "said_bound"]

CLIENT_EVENT_BYTES: Final = 1 << 20
"""The most bytes of one SSE event the official ``mcp`` client reads (1 MiB)."""

EVENT_ENVELOPE_BYTES: Final = 4096
"""What one event carries besides a message's ``params`` or ``result``: the JSON-RPC envelope (``jsonrpc``,
``id``, ``method``), the SSE lines (``id:``, ``event:``, ``data:``) and, in a 2026-07-28 answer, the keys around
its input requests."""


def said_bound(bound: int) -> str:
    """The bound on one event as a refusal names it: ``"1048576 bytes, 1 MiB"`` for the official client's
    (:data:`CLIENT_EVENT_BYTES`), else ``"<bound> bytes, the server's max_event_bytes"``.

    >>> said_bound(CLIENT_EVENT_BYTES)
    '1048576 bytes, 1 MiB'
    >>> said_bound(4 << 20)
    "4194304 bytes, the server's max_event_bytes"
    """
    return f"{bound} bytes, 1 MiB" if bound == CLIENT_EVENT_BYTES else f"{bound} bytes, the server's max_event_bytes"
