"""A POST whose client accepts SSE gets its response stream only when something must go out before
the response (a progress or log message, a hang-up): a call answered with JSON makes none and leaves
nothing in its session; one that talks first is answered as a primed, resumable SSE stream, also
when a sync tool hangs up from a worker thread before anything was sent.

Source: MCP 2025-11-25, Transports § Streamable HTTP (the server answers ``application/json`` or
``text/event-stream``), § Resumability (SEP-1699: priming event, server-side disconnect).
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from support import serve

from nanohubmcp import Context, MCPServer
from nanohubmcp.server.wire.sessions import Session
from nanohubmcp.server.wire.streams import OutboundStream

VERSION = "2025-11-25"
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": VERSION}
hung_up = threading.Event()


def build() -> MCPServer:
    srv = MCPServer("lazy-streams", provenance=False)

    @srv.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    @srv.tool()
    def talks(ctx: Context) -> str:
        """Log a line, then answer."""
        ctx.info("hello")
        return "ok"

    @srv.tool()
    def hangs_up(ctx: Context) -> str:
        """Hang up the stream off the loop before sending anything, then log and answer."""
        ctx.close_stream()
        hung_up.wait(10)  # until the client saw the response end
        ctx.info("after the hang-up")
        return "done"

    return srv


@pytest.fixture(scope="module")
def srv() -> Iterator[MCPServer]:
    server = build()
    with serve(server):
        yield server


def post(port: int | None, body: dict[str, Any], session: str | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", "/mcp", json.dumps(body), {**HEADERS, **({"Mcp-Session-Id": session} if session else {})})
    return conn.getresponse()


def events(response: http.client.HTTPResponse) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    event: dict[str, str] = {}
    for raw in iter(response.readline, b""):
        line = raw.decode().rstrip("\r\n")
        if not line:
            if event:
                out.append(event)
            event = {}
        elif not line.startswith(":"):
            key, _, value = line.partition(":")
            event[key] = value.lstrip(" ")
    return out


def open_session(port: int | None) -> str:
    reply = post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    reply.read()
    session = reply.getheader("Mcp-Session-Id")
    assert session
    post(port, {"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "debug"}},
         session).read()
    return session


def call(name: str, request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": (
        {"a": 1.5, "b": 2.25} if name == "add" else {})}}


def test_a_json_answer_makes_no_stream(srv: MCPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    port = srv.port
    session = open_session(port)
    made: list[object] = []
    new_stream = Session.new_stream

    def counted(self: Session, request_id: str | int | None = None) -> OutboundStream:
        made.append(request_id)
        return new_stream(self, request_id)

    monkeypatch.setattr(Session, "new_stream", counted)
    for i in range(5):
        reply = post(port, call("add", 10 + i), session)
        assert reply.getheader("Content-Type") == "application/json"
        assert json.loads(reply.read())["result"]["content"][0]["text"] == "3.75"
    assert made == []
    live = srv.core.sessions.get(session)
    assert live is not None
    assert live.streams == {}
    reply = post(port, call("talks", 15), session)
    assert reply.getheader("Content-Type") == "text/event-stream"
    reply.read()
    assert made == [15]


def test_a_call_that_talks_first_is_answered_as_a_primed_stream(srv: MCPServer) -> None:
    port = srv.port
    session = open_session(port)
    reply = post(port, call("talks", 20), session)
    assert reply.getheader("Content-Type") == "text/event-stream"
    got = events(reply)
    assert got[0]["data"] == ""  # the priming event
    assert "retry" in got[0]
    sequence = [int(e["id"].rsplit(".", 1)[1]) for e in got]
    assert sequence == sorted(sequence)
    assert len(set(sequence)) == len(sequence)
    assert json.loads(got[1]["data"])["params"]["data"] == "hello"
    assert json.loads(got[-1]["data"])["result"]["content"][0]["text"] == "ok"


def test_a_hang_up_off_the_loop_before_any_message_makes_a_resumable_stream(srv: MCPServer) -> None:
    port = srv.port
    session = open_session(port)
    reply = post(port, call("hangs_up", 30), session)
    assert reply.getheader("Content-Type") == "text/event-stream"
    primed = events(reply)  # ends at the hang-up: only the priming event
    assert len(primed) == 1
    assert primed[0]["data"] == ""
    hung_up.set()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": session,
                                         "MCP-Protocol-Version": VERSION, "Last-Event-ID": primed[0]["id"]})
    rest = [json.loads(e["data"]) for e in events(conn.getresponse())]
    assert rest[0]["params"]["data"] == "after the hang-up"
    assert rest[-1]["id"] == 30
    assert rest[-1]["result"]["content"][0]["text"] == "done"
