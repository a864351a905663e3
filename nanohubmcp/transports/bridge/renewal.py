"""A new session for the bridge's client when the server forgets the old one.

When a client gets HTTP 404 for a request carrying its ``Mcp-Session-Id`` it "MUST start a new
session by sending a new InitializeRequest without a session ID" (MCP 2025-11-25, Transports §
Session Management). The bridge is that HTTP client, and its stdio client cannot do it: the server
restarted (a notebook kernel restart, a relaunched tool) or the session expired. The bridge replays
the client's own ``initialize`` (and ``notifications/initialized``), then sends the request again.

A server that restarted may serve other tools, resources and prompts (a notebook cell calling
``server.run()`` re-run with a changed function), and the client keeps the lists it was sent until
told: the bridge tells it, ``notifications/tools/list_changed`` (and ``resources``, ``prompts``) for
each list whose capability the new session's server declares with ``listChanged: true`` (MCP 2025-11-25,
Server features: only such a server sends them), so a desktop app lists again. A session that merely
expired on a server still running is told the same: nothing in the ``initialize`` answer tells a restarted
server from the same one, and a client listing again is harmless.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any, Protocol

from ..headers import MCP_PROTOCOL_VERSION_HEADER, MCP_SESSION_ID_HEADER
from .exchange import Exchange, HTTPFailure

if TYPE_CHECKING:
    from .options import BridgeOptions


class Renewable(Protocol):
    """What a renewal reads and updates of the bridge's session (:class:`~.session.Bridge`)."""

    handshake: bytes | None
    renewing: asyncio.Lock
    session_id: str | None
    version: str | None
    options: BridgeOptions

    def listen_now(self) -> None:
        """Start listening for the current session's server messages."""
        ...

    def emit(self, message: Any) -> None:
        """Send ``message`` to the stdio client."""
        ...

log = logging.getLogger("nanohubmcp.bridge")

INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
RENEW_ID = "nanohubmcp-bridge-renew"
"""The id of the replayed ``initialize`` (its answer goes nowhere: the client saw the first one)."""
PING = b'{"jsonrpc":"2.0","id":"nanohubmcp-bridge-probe","method":"ping"}'
"""Asks whether the server still knows a session (:func:`forgot`); its answer goes nowhere."""
LISTS = ("tools", "resources", "prompts")
"""The lists a server declares in its capabilities and says changed with ``notifications/<list>/list_changed``."""


async def renew(bridge: Renewable, forgotten: str) -> bool:
    """Open a new session for ``bridge`` after the server answered 404 for ``forgotten``.

    Requests that met the same 404 share one renewal.

    Returns:
        True when a new session is open (the request can be sent again; a server answering the
        ``initialize`` without an ``Mcp-Session-Id`` now runs without sessions, and the bridge sends
        without one), False when the client never initialized or the server refused a new session
        (the old id is kept: a restarting server behind a proxy answering 404 takes one later).

    Raises:
        HTTPFailure: the server could not be reached.
    """
    if bridge.handshake is None:
        return False
    async with bridge.renewing:
        if bridge.session_id != forgotten:
            return bridge.session_id is not None
        initialize = json.loads(bridge.handshake)
        initialize["id"] = RENEW_ID
        options = bridge.options
        headers = {**options.headers, "Content-Type": "application/json", "Accept": options.accept}
        events: list[dict[str, str]] = []
        exchange = await Exchange(events.append).run("POST", options.url, headers, json.dumps(initialize).encode())
        if exchange.status != 200:
            return False  # the session is kept: the server (or a proxy before it) may take a new one later
        session = exchange.headers.get(MCP_SESSION_ID_HEADER) or None
        bridge.session_id = session  # None: the server now runs without sessions
        if session:
            headers[MCP_SESSION_ID_HEADER] = session
        if bridge.version:
            headers[MCP_PROTOCOL_VERSION_HEADER] = bridge.version
        await Exchange().run("POST", options.url, headers, INITIALIZED)
        log.warning("the server no longer knew the session (it restarted or the session expired): opened a new one")
        bridge.listen_now()
        capabilities = _capabilities(exchange, events)
        for kind in LISTS:  # what it serves now may differ from what the client was sent
            declared = capabilities.get(kind)
            if isinstance(declared, dict) and declared.get("listChanged") is True:
                bridge.emit({"jsonrpc": "2.0", "method": f"notifications/{kind}/list_changed"})
        return True


async def forgot(bridge: Renewable, session: str) -> bool:
    """Whether the server no longer knows ``session``: a ``ping`` carrying it is answered HTTP 404, or cannot be
    sent (the server is down: a renewal waits for it).

    A GET stream's 404 alone does not say so for a session whose stream never opened: a load balancer may send
    the GET to a process that does not hold the session while the POSTs reach one that does.
    """
    options = bridge.options
    headers = {**options.headers, "Content-Type": "application/json", "Accept": options.accept,
               MCP_SESSION_ID_HEADER: session}
    if bridge.version:
        headers[MCP_PROTOCOL_VERSION_HEADER] = bridge.version
    try:
        exchange = await Exchange().run("POST", options.url, headers, PING)
    except HTTPFailure:
        return True
    return exchange.status == 404


def _capabilities(exchange: Exchange, events: list[dict[str, str]]) -> dict[str, Any]:
    """The ``capabilities`` of the replayed ``initialize``'s result (a JSON body or an SSE event); {} if none."""
    for data in [bytes(exchange.body).decode("utf-8", errors="replace")] + [e.get("data", "") for e in events]:
        try:
            answer = json.loads(data)
        except ValueError:
            continue
        result = answer.get("result") if isinstance(answer, dict) else None
        if isinstance(result, dict) and isinstance(result.get("capabilities"), dict):
            return dict(result["capabilities"])
    return {}
