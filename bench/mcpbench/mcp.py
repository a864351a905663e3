"""MCP requests as the benchmark sends them: initialize, tools/call, and their headers.

Every server is driven the way an MCP client drives a Streamable HTTP server (MCP 2025-11-25,
Basic § Transports): ``initialize`` without a session, ``notifications/initialized`` with the
returned ``Mcp-Session-Id``, then calls carrying that id and ``MCP-Protocol-Version``. An entry of
the 2026-07-28 era sends no ``initialize`` and no session: every request carries the version and
the client's capabilities in ``params._meta`` and the ``MCP-Protocol-Version``, ``Mcp-Method`` and
``Mcp-Name`` headers (MCP 2026-07-28, Basic § Transports § Streamable HTTP, Request Metadata).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from typing import Any

from .http import Connection, Reply
from .matrix import BOTH, MODERN, PROTOCOL, Entry

ADD_ARGS = {"a": 1.5, "b": 2.25}
ADD_EXPECT = "3.75"
_ids = itertools.count(1)


def headers(accept: str = BOTH, session: str | None = None, token: str | None = None) -> dict[str, str]:
    out = {"Content-Type": "application/json", "Accept": accept, "MCP-Protocol-Version": PROTOCOL}
    if session:
        out["Mcp-Session-Id"] = session
    if token:
        out["Authorization"] = f"Bearer {token}"
    return out


def entry_headers(entry: Entry, session: str | None, tool: str | None = None) -> dict[str, str]:
    """The headers of one of ``entry``'s tools/call requests (its era, Accept and token)."""
    out = headers(entry.accept, session if entry.era == PROTOCOL else None, entry.token)
    if entry.era == MODERN:
        out.update({"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": tool or entry.tool})
    return out


def initialize_body() -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": next(_ids),
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "nanohubmcp-bench", "version": "1"},
            },
        }
    ).encode()


def call_body(
    tool: str, arguments: dict[str, Any], progress: bool = False, templated: bool = False, era: str = PROTOCOL
) -> str:
    """A ``tools/call`` request; ``templated`` puts an ``__ID__`` slot the wrk script fills per request."""
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    meta: dict[str, Any] = {}
    if era == MODERN:
        meta["io.modelcontextprotocol/protocolVersion"] = MODERN
        meta["io.modelcontextprotocol/clientCapabilities"] = {}
    if progress:
        meta["progressToken"] = "bench"
    if meta:
        params["_meta"] = meta
    text = json.dumps(
        {"jsonrpc": "2.0", "id": 0 if templated else next(_ids), "method": "tools/call", "params": params}
    )
    return text.replace('"id": 0,', '"id": __ID__,', 1) if templated else text


async def open_session(
    conn: Connection, path: str = "/mcp", timeout: float = 10.0, token: str | None = None
) -> str | None:
    """initialize + notifications/initialized; returns the session id (None for stateless servers).

    Raises:
        RuntimeError: initialize was not answered with a result.
    """
    reply = await conn.request("POST", path, headers(token=token), initialize_body(), timeout)
    message = reply.message()
    if reply.status != 200 or not message or "result" not in message:
        raise RuntimeError(f"initialize failed: HTTP {reply.status} {reply.body[:200]!r}")
    session = reply.header("mcp-session-id") or None
    note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
    await conn.request("POST", path, headers(session=session, token=token), note, timeout)
    return session


async def initialize_once(host: str, port: int, path: str = "/mcp", token: str | None = None) -> bool:
    """One readiness attempt on a fresh connection: is initialize answered with a result?"""
    conn = Connection(host, port)
    try:
        reply = await conn.request("POST", path, headers(token=token), initialize_body(), 5.0)
        message = reply.message()
        return reply.status == 200 and bool(message) and "result" in message  # type: ignore[operator]
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError):
        return False
    finally:
        await conn.close()


async def wait_ready(
    host: str, port: int, timeout: float, poll: float = 0.005, token: str | None = None
) -> float | None:
    """``time.perf_counter()`` when initialize was first answered, or None after ``timeout`` s."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if await initialize_once(host, port, token=token):
            return time.perf_counter()
        await asyncio.sleep(poll)
    return None


async def call(
    conn: Connection,
    entry: Entry,
    session: str | None,
    arguments: dict[str, Any] | None = None,
    tool: str | None = None,
    timeout: float = 10.0,
    extra: dict[str, str] | None = None,
) -> Reply:
    """One tools/call with the entry's era, Accept header, token and progress choice."""
    body = call_body(tool or entry.tool, ADD_ARGS if arguments is None else arguments, entry.progress, era=entry.era)
    h = entry_headers(entry, session, tool)
    if extra:
        h.update(extra)
    return await conn.request("POST", "/mcp", h, body.encode(), timeout)
