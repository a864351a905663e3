"""Resumability (MCP 2025-11-25, Transports § Resumability and Redelivery; SEP-1699).

A POST answered as SSE carries event ids; a client that loses the connection resumes with
GET + Last-Event-ID and gets every later message, the result included — also when it drops
again mid-replay (regression: a resumed stream used to send a new priming id first, and a
second resume from that id skipped the replay).
"""

from __future__ import annotations

import http.client
import json
from typing import Any

from support import serve, wait_until_answered

from nanohubmcp import Context, MCPServer

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2025-11-25"}


def server() -> MCPServer:
    srv = MCPServer("resume")

    @srv.tool()
    async def slow_talker(ctx: Context) -> str:
        """Log three lines, hang up the stream, then answer."""
        ctx.close_stream()
        for i in range(3):
            ctx.info(f"line {i}")
        return "done"

    @srv.tool()
    async def quick(ctx: Context) -> str:
        """Log once and answer."""
        ctx.info("hello")
        return "ok"

    return srv


def post(port: int, body: dict[str, Any], session: str | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = dict(HEADERS)
    if session:
        headers["Mcp-Session-Id"] = session
    conn.request("POST", "/mcp", json.dumps(body), headers)
    return conn.getresponse()


def events(response: http.client.HTTPResponse, limit: int = 100) -> list[dict[str, Any]]:
    """Read SSE events (id, data) until the response ends or ``limit`` events."""
    out: list[dict[str, Any]] = []
    event: dict[str, Any] = {}
    while len(out) < limit:
        line = response.readline()
        if not line:
            break
        text = line.decode().rstrip("\r\n")
        if not text:
            if event:
                out.append(event)
                event = {}
            continue
        if text.startswith(":"):
            continue
        key, _, value = text.partition(":")
        event[key] = value.lstrip(" ")
    return out


def open_session(port: int) -> str:
    response = post(port, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"protocolVersion": "2025-11-25", "capabilities": {}}})
    session = response.getheader("Mcp-Session-Id")
    response.read()
    assert session
    post(port, {"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "debug"}},
         session).read()
    return session


def resume(port: int, session: str, last_event_id: str) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": session,
                                         "MCP-Protocol-Version": "2025-11-25", "Last-Event-ID": last_event_id})
    return conn.getresponse()


def test_a_hung_up_call_is_finished_on_the_resumed_stream_even_after_a_second_drop() -> None:
    srv = server()
    with serve(srv) as base:
        port = int(base.rsplit(":", 1)[1].strip("/"))
        session = open_session(port)
        first = post(port, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                            "params": {"name": "slow_talker", "arguments": {}}}, session)
        assert first.getheader("Content-Type") == "text/event-stream"
        primed = events(first)
        assert len(primed) == 1
        assert primed[0]["data"] == ""
        assert "retry" in primed[0]
        wait_until_answered(srv, session, primed[0]["id"])  # the tool finishes while nobody listens
        # First resume: read one event, then drop the connection.
        partial = events(resume(port, session, primed[0]["id"]), limit=1)
        assert len(partial) == 1
        assert json.loads(partial[0]["data"])["params"]["data"] == "line 0"
        # Second resume from the last id we saw: everything after it, the result last.
        rest = events(resume(port, session, partial[0]["id"]))
        messages = [json.loads(e["data"]) for e in rest]
        assert [m.get("params", {}).get("data") for m in messages[:-1]] == ["line 1", "line 2"]
        assert messages[-1]["id"] == 3
        assert messages[-1]["result"]["content"][0]["text"] == "done"


def test_event_ids_increase_after_the_priming_event() -> None:
    srv = server()
    with serve(srv) as base:
        port = int(base.rsplit(":", 1)[1].strip("/"))
        session = open_session(port)
        stream = events(post(port, {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                                    "params": {"name": "quick", "arguments": {}}}, session))
        sequence = [int(e["id"].rsplit(".", 1)[1]) for e in stream]
        assert stream[0]["data"] == ""
        assert sequence == sorted(sequence)
        assert len(set(sequence)) == len(sequence)
        assert json.loads(stream[-1]["data"])["result"]["content"][0]["text"] == "ok"
