"""A notification is never answered (JSON-RPC 2.0 § 4.1), whatever its ``_meta.progressToken``.

A request's progress token is at most 256 characters (``MAX_ID_CHARS``: the server repeats it in every
progress notification and keeps it in stream logs). The check ran for notifications too, so a
``notifications/cancelled`` or ``notifications/initialized`` carrying a longer token got a -32602 error
with id null (HTTP 400), an answer JSON-RPC never sends to a notification (review r21 N5). A notification's
token is neither repeated nor kept: it is not looked at, and the notification is served.

A real server over HTTP: ``POST /`` and a Streamable HTTP session on ``/mcp``.
"""

from __future__ import annotations

from typing import Any

import httpx2 as httpx  # the official client's HTTP library (installed with mcp)
import pytest
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.protocol.jsonrpc import MAX_ID_CHARS

pytestmark = pytest.mark.timeout(60)
ACCEPT = "application/json, text/event-stream"
VERSION = "2025-11-25"
TOKEN = "t" * (MAX_ID_CHARS + 1)


def build() -> MCPServer:
    server = MCPServer("long-token-notes")

    @server.tool()
    def add(a: int, b: int) -> int:
        """a plus b."""
        return a + b

    return server


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": {**(params or {}), "_meta": {"progressToken": TOKEN}}}


def test_post_root_accepts_the_notification_without_a_body() -> None:
    with serve(build()) as url:
        reply = httpx.post(url, json=notification("notifications/cancelled", {"requestId": 3}), timeout=10)
    assert reply.status_code == 202, reply.text
    assert reply.content == b""


def test_a_session_is_opened_by_such_a_notification_and_serves_calls() -> None:
    with serve(build()) as url:
        opened = httpx.post(url + "mcp", headers={"Accept": ACCEPT}, timeout=10, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        assert opened.status_code == 200, opened.text
        headers = {"Accept": ACCEPT, "Mcp-Session-Id": opened.headers["Mcp-Session-Id"],
                   "MCP-Protocol-Version": VERSION}
        noted = httpx.post(url + "mcp", headers=headers, json=notification("notifications/initialized"), timeout=10)
        assert noted.status_code == 202, noted.text
        assert noted.content == b""
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}
        called = httpx.post(url + "mcp", headers={**headers, "Accept": "application/json"}, json=call, timeout=10)
    assert called.status_code == 200, called.text
    assert called.json()["result"]["content"][0]["text"] == "3", called.text
