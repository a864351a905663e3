"""The SSE events answering one request the bridge POSTed, and their resumption when the stream drops.

Owns :class:`ResponseStream` and the reconnection pace the bridge keeps (``RECONNECT_SECONDS``,
``MAX_RECONNECTS``, ``RESUME_BUDGET_SECONDS`` and the reading of a server's ``retry`` field, bounded by
``MAX_RETRY_SECONDS``, :func:`retry_seconds`, also used by the session's GET stream). What it needs of the
session is the :class:`Relaying` protocol (:class:`~.session.Bridge` satisfies it); the POST itself is the
session's.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any, Protocol

from ..headers import MCP_SESSION_ID_HEADER
from .exchange import Exchange

if TYPE_CHECKING:
    from .options import BridgeOptions

__all__ = [
    "MAX_RECONNECTS",
    "MAX_RETRY_SECONDS",
    "MIN_RETRY_SECONDS",
    "RECONNECT_SECONDS",
    "RESUME_BUDGET_SECONDS",
    "Relaying",
    "ResponseStream",
    "retry_seconds",
]

log = logging.getLogger("nanohubmcp.bridge")

RECONNECT_SECONDS = 1.0
"""Pause before a dropped GET stream is resumed (unless the server named its own ``retry``)."""
MAX_RETRY_SECONDS = 30.0
"""The longest pause a server's ``retry`` field sets: a larger one (a broken or hostile server's
``retry: 999999999999``, 31 years) is read as this, so the bridge resumes its client's stream within it."""
MIN_RETRY_SECONDS = 0.25
"""The shortest pause a server's ``retry`` field sets: a smaller one (``retry: 0``) is read as this, so a server
that ends every GET stream at once (a 200 with no event) is asked again four times a second, not in a busy loop."""
MAX_RECONNECTS = 5
"""Consecutive failed attempts to resume the GET stream before the bridge gives up on it; also the most GETs
resuming one request's response stream."""
RESUME_BUDGET_SECONDS = 30.0
"""The longest the bridge pauses, in all, between its GETs resuming one request's response stream: the pauses
(each the stream's ``retry``) stop at this total, and the request gets its error then. Five ``retry: 30000``
pauses had a client wait 2.5 minutes for it."""


def retry_seconds(field: str | None) -> float | None:
    """An SSE event's ``retry`` field (milliseconds) in seconds, from :data:`MIN_RETRY_SECONDS` to
    :data:`MAX_RETRY_SECONDS`, or None
    where the field is absent or not ASCII digits alone, which the stream's reader ignores (HTML Living
    Standard § Server-sent events: "If the field value consists of only ASCII digits"; ``²`` is no such digit,
    though ``str.isdigit`` says so; ``-5``, ``1.5`` and ``5s`` are not digits alone either).
    Read as a float: any number of digits reads in linear time (a longer one than a float holds: infinity,
    then the bound), never the int conversion that grows with the square of the digits, or that Python refuses
    past 4,300.

    .. versionchanged:: 1.0
       Bounded by :data:`MAX_RETRY_SECONDS`: a larger field made the bridge wait that long (for ever, past a
       float's range) before resuming a stream; and from below by :data:`MIN_RETRY_SECONDS`: ``retry: 0``
       from a server ending each GET stream at once had the bridge reconnect in a busy loop."""
    if field and field.isascii() and field.isdigit():
        return max(MIN_RETRY_SECONDS, min(float(field) / 1000, MAX_RETRY_SECONDS))
    return None


class Relaying(Protocol):
    """What a response stream uses of the bridge's session (:class:`~.session.Bridge`)."""

    session_id: str | None
    options: BridgeOptions

    def relay_event(self, event: dict[str, str]) -> Any:
        """Relay one SSE event's message to the client; return the message (None for none)."""
        ...

    def fail(self, request_id: object, text: str) -> None:
        """Answer the client's request ``request_id`` (a JSON-RPC id, or None) with an error."""
        ...


class ResponseStream:
    """The SSE events answering one POSTed request, and their resumption.

    A server may end a request's SSE response before the response itself and let the client
    resume it: a GET with ``Last-Event-ID`` (MCP 2025-11-25, Transports § Resumability, SEP-1699).
    The bridge does that for its client, which knows nothing of HTTP.
    """

    def __init__(self, bridge: Relaying, request_id: Any) -> None:
        self.bridge = bridge
        self.request_id = request_id
        self.last_id: str | None = None
        self.retry = RECONNECT_SECONDS
        self.answered = request_id is None  # a notification waits for nothing

    def relay(self, event: dict[str, str]) -> None:
        if event.get("id"):
            self.last_id = event["id"]
        if (retry := retry_seconds(event.get("retry"))) is not None:
            self.retry = retry
        message = self.bridge.relay_event(event)
        if isinstance(message, dict) and "method" not in message and message.get("id") == self.request_id:
            self.answered = True

    async def resume(self, headers: dict[str, str]) -> None:
        """GET the rest of the stream until the response came (or the server cannot resume it).

        At most :data:`MAX_RECONNECTS` GETs, each after the stream's ``retry`` pause, the pauses together at
        most :data:`RESUME_BUDGET_SECONDS`; the first is said once on stderr. An unanswered request then gets
        -32603.

        .. versionchanged:: 1.0
           The pauses share one budget (30 s), and the resumption is said on stderr: five ``retry: 30000``
           pauses had the client's call wait 2.5 minutes, silently, for its error."""
        bridge = self.bridge
        paused = 0.0
        for attempt in range(MAX_RECONNECTS):
            pause = min(self.retry, RESUME_BUDGET_SECONDS - paused)
            if self.answered or not self.last_id or not bridge.session_id or pause <= 0:
                break
            if attempt == 0:
                log.warning(
                    "the server ended the response stream of request %s before answering; resuming it "
                    "(GET with Last-Event-ID, first in %g s, at most %d GETs within %g s)",
                    _shown_id(self.request_id), pause, MAX_RECONNECTS, RESUME_BUDGET_SECONDS,
                )
            await asyncio.sleep(pause)
            paused += pause
            sent = {name: value for name, value in headers.items() if name != "Content-Type"}
            sent.update(
                {"Accept": "text/event-stream", "Last-Event-ID": self.last_id, MCP_SESSION_ID_HEADER: bridge.session_id}
            )
            exchange = await Exchange(self.relay).run("GET", bridge.options.url, sent)
            if exchange.status != 200:
                break
        if not self.answered:
            bridge.fail(
                self.request_id, "the server ended the response stream before answering and it could not be resumed"
            )


def _shown_id(request_id: object) -> str:
    """A JSON-RPC id as the client wrote it (``"a"`` quoted, ``7`` bare), at most 100 characters."""
    return json.dumps(request_id)[:100]
