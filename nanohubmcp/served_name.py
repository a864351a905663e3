"""A running server's name, asked of it: what ``nanohubmcp desktop-config --url`` names its entry by default.

One ``initialize`` over Streamable HTTP (its ``serverInfo.name``; the reply as JSON or as an SSE event), with the
token as ``Authorization: Bearer`` when there is one, then the session it opened ended (``DELETE``). It is sent
as the bridge sends its requests (the bridge's own HTTP exchange): to the URL given and nowhere else — a
redirect is not followed (the token would go with it to a host the user never named), it is reported. The
whole question, looking the host's name up, connecting and the reply, has :data:`ASK_SECONDS` (a reply kept
open, an SSE stream of keep-alives, a DNS server that does not answer, ends there: the lookup runs on a thread
nobody waits for) and at most :data:`MAX_REPLY_BYTES` of body. A server that cannot be asked (not running,
refusing the token, redirecting, a legacy ``/sse`` endpoint, no name or no JSON in its reply) gives no name, and
the reason why: the caller names the entry otherwise and says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from ._version import __version__
from .errors import NanohubMCPError
from .transports.bridge.exchange import Exchange, HTTPFailure
from .transports.bridge.options import BridgeOptions
from .transports.bridge.resolving import DaemonResolver

ASK_SECONDS = 5.0
"""How long the whole question may take (looking the name up, connecting, sending and reading the reply), in
seconds."""
MAX_REPLY_BYTES = 1 << 20
"""The most of a reply's body read (1 MiB): an ``initialize`` answer is a few hundred bytes."""
_SHOWN_LOCATION_CHARS = 300
"""The most of a redirect's ``Location`` shown."""
_END_SECONDS = 2.0
"""How long ending the session may take (a server that does not answer lets it expire)."""


class _Reply(Exchange):
    """The ``initialize`` exchange: its first JSON-RPC message with an ``id`` (an SSE event, or the body), read
    no further than that message or :data:`MAX_REPLY_BYTES`."""

    def __init__(self) -> None:
        super().__init__(on_event=self._message_event, resolver=DaemonResolver())
        self.message: dict[str, Any] | None = None
        self.too_long = False

    def _message_event(self, event: dict[str, str]) -> None:
        with contextlib.suppress(ValueError):
            found = json.loads(event.get("data", ""))
            if isinstance(found, dict) and "id" in found and self.message is None:
                self.message = found
                self.close()  # a stream may stay open after it

    def data_received(self, chunk: bytes) -> None:
        super().data_received(chunk)
        if len(self.body) > MAX_REPLY_BYTES:
            self.too_long = True
            self.close()


def asked_name(url: str, token: str | None = None) -> tuple[str | None, str]:
    """``(name, "")``: the ``serverInfo.name`` the server at ``url`` (an MCP endpoint, ``.../mcp``) answers an
    ``initialize`` with, within :data:`ASK_SECONDS` in all; ``(None, why)`` when it cannot be asked (``why``:
    what happened, credentials hidden: ``answered HTTP 401``, ``answered HTTP 302 (a redirect to …, not
    followed …)``, ``answered text/html, not JSON``, ``gave no answer within 5 s``, ``cannot connect to …``)."""
    try:
        options = BridgeOptions.from_arguments(url, headers=[], cookies=[], token=token)
    except NanohubMCPError as exc:  # a token the bridge would refuse too: it says so when started
        return None, str(exc)
    if options.url.rstrip("/").endswith("/sse"):
        return None, "a legacy /sse endpoint is not asked"
    return asyncio.run(_ask(options))


async def _ask(options: BridgeOptions) -> tuple[str | None, str]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "nanohubmcp desktop-config", "version": __version__}}}).encode()
    headers = {**options.headers, "Content-Type": "application/json", "Accept": options.accept}
    reply = _Reply()
    try:
        await asyncio.wait_for(reply.run("POST", options.url, headers, body), ASK_SECONDS)
    except HTTPFailure as exc:  # refused, unreachable (its text already hides the credentials)
        return None, str(exc)
    except asyncio.TimeoutError:
        return None, options.shown(f"{options.url} gave no answer within {ASK_SECONDS:g} s")
    session = reply.headers.get("Mcp-Session-Id")
    if session:
        await _end(options, session)
    name, why = _name_in(reply)
    return name, options.shown(f"{options.url} {why}") if why else ""


def _name_in(reply: _Reply) -> tuple[str | None, str]:
    """The name the reply gives, or what the server answered instead (the text after the URL)."""
    if 300 <= reply.status < 400:
        where = reply.headers.get("Location", "")[:_SHOWN_LOCATION_CHARS]
        to = f" (a redirect to {where}, not followed: the token goes only to the URL given; if that is the " \
             "server, pass it as --url)" if where else ""
        return None, f"answered HTTP {reply.status}{to}"
    if reply.status != 200:
        return None, f"answered HTTP {reply.status}"
    if reply.too_long:
        return None, f"answered more than {MAX_REPLY_BYTES} bytes without a reply to initialize"
    message = reply.message
    if message is None and not reply.is_sse:
        try:
            found = json.loads(reply.body)
        except ValueError:
            kind = reply.headers.get("Content-Type", "").split(";")[0].strip() or "a reply with no Content-Type"
            return None, f"answered {kind}, not JSON"
        message = found if isinstance(found, dict) else None
    result = (message or {}).get("result")
    info = result.get("serverInfo") if isinstance(result, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    if not isinstance(name, str) or not name.strip():
        return None, "answered no serverInfo.name"
    return name, ""


async def _end(options: BridgeOptions, session: str) -> None:
    """End the session the question opened (a server that refuses ``DELETE`` or does not answer lets it
    expire)."""
    with contextlib.suppress(HTTPFailure, asyncio.TimeoutError):
        ending = Exchange(resolver=DaemonResolver())
        await asyncio.wait_for(ending.run("DELETE", options.url, {**options.headers, "Mcp-Session-Id": session}),
                               _END_SECONDS)
