"""A running server's name, asked of it: what ``nanohubmcp desktop-config --url`` names its entry by default.

One ``initialize`` over Streamable HTTP (its ``serverInfo.name``; the reply as JSON or as an SSE event), with the
token as ``Authorization: Bearer`` when there is one, then the session it opened ended (``DELETE``). A server
that cannot be asked (not running, refusing the token, a legacy ``/sse`` endpoint, no name in its reply) gives
no name, and the reason why: the caller names the entry otherwise and says so.
"""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from typing import Any

from ._version import __version__
from .errors import NanohubMCPError
from .transports.bridge.options import SSE_ONLY, BridgeOptions

ASK_SECONDS = 5.0
"""How long the question may take (connecting and the reply), in seconds."""


def asked_name(url: str, token: str | None = None) -> tuple[str | None, str]:
    """``(name, "")``: the ``serverInfo.name`` the server at ``url`` (an MCP endpoint, ``.../mcp``) answers an
    ``initialize`` with; ``(None, why)`` when it cannot be asked (``why``: what happened, credentials hidden)."""
    try:
        options = BridgeOptions.from_arguments(url, headers=[], cookies=[], token=token)
    except NanohubMCPError as exc:  # a token the bridge would refuse too: it says so when started
        return None, str(exc)
    if options.url.rstrip("/").endswith("/sse"):
        return None, "a legacy /sse endpoint is not asked"
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "nanohubmcp desktop-config", "version": __version__}}}).encode()
    headers = {**options.headers, "Content-Type": "application/json", "Accept": options.accept}
    request = urllib.request.Request(options.url, body, headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=ASK_SECONDS) as reply:
            session = reply.headers.get("Mcp-Session-Id")
            message = _message(reply, event_stream=reply.headers.get_content_type() == SSE_ONLY)
    except urllib.error.HTTPError as exc:
        return None, options.shown(f"{options.url} answered HTTP {exc.code}")
    except (OSError, ValueError) as exc:  # refused, unreachable, timed out; a reply that is not JSON
        return None, options.shown(f"{options.url}: {getattr(exc, 'reason', exc)}")
    if session:
        _end(options, session)
    info = message.get("result", {}).get("serverInfo") if isinstance(message.get("result"), dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    if not isinstance(name, str) or not name.strip():
        return None, options.shown(f"{options.url} answered no serverInfo.name")
    return name, ""


def _message(reply: Any, *, event_stream: bool) -> dict[str, Any]:
    """The JSON-RPC reply: the body, or the first SSE ``data:`` that is a message with an ``id`` (read a line at
    a time: a stream may stay open after it)."""
    if not event_stream:
        found = json.loads(reply.read())
        return found if isinstance(found, dict) else {}
    data: list[str] = []
    for raw in reply:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif not line and data:
            found = json.loads("\n".join(data))
            if isinstance(found, dict) and "id" in found:
                return found
            data = []
    return {}


def _end(options: BridgeOptions, session: str) -> None:
    """End the session the question opened (a server that refuses ``DELETE`` lets it expire)."""
    request = urllib.request.Request(options.url, headers={**options.headers, "Mcp-Session-Id": session},
                                     method="DELETE")
    with contextlib.suppress(OSError), urllib.request.urlopen(request, timeout=ASK_SECONDS):
        pass
