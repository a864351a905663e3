"""A handshake-era request in a session is read with one question to the eras: the session it names is read first
(here, no round trip), then :func:`~nanohubmcp.server.eras.in_force` answers its era and version in force together.

Before: the intake asked the eras twice around the session's look-up (its era and header, then the version in
force: ``intake -> eras -> sessions -> eras -> intake``), one module boundary more on every such request
(bench/hops.md). What the reorder must not change, checked over real HTTP: a header naming a version the server
does not speak is refused 400 before an unknown session's 404, and a 2026-07-28 request carrying an
``Mcp-Session-Id`` is served whatever that id names (the stateless era has no sessions).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from raw_http import Http
from support import serve

from nanohubmcp import MCPServer

sys.path.insert(0, str(Path(__file__).parents[1] / "modern"))
from modern_wire import Wire

ACCEPT = {"Accept": "application/json, text/event-stream"}


def adding_server() -> MCPServer:
    server = MCPServer("eras")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    return server


@pytest.fixture
def url() -> Iterator[str]:
    with serve(adding_server()) as base:
        yield base


def open_session(http: Http) -> str:
    opened = http.rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                     "clientInfo": {"name": "t", "version": "1"}}, path="/mcp", headers=ACCEPT)
    assert opened.status == 200, opened.raw
    session_id = opened.header("Mcp-Session-Id")
    assert session_id
    http.post("/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"},
              {**ACCEPT, "Mcp-Session-Id": session_id, "MCP-Protocol-Version": "2025-11-25"})
    return session_id


def test_a_request_in_a_session_reads_its_session_then_asks_the_eras_once() -> None:
    entered: list[str] = []
    recording = threading.Event()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and recording.is_set():
            name = frame.f_globals.get("__name__", "")
            if name.startswith("nanohubmcp.server."):
                entered.append(name)

    threading.setprofile(profile)  # before the server's loop thread starts: it takes the profile then
    try:
        with serve(adding_server()) as url, Http(url) as http:
            session_id = open_session(http)
            headers = {**ACCEPT, "Mcp-Session-Id": session_id, "MCP-Protocol-Version": "2025-11-25"}
            call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}
            for _ in range(3):
                assert http.post("/mcp", call, headers).json["result"]["content"][0]["text"] == "3.0"
            recording.set()
            answered = http.post("/mcp", call, headers)
            recording.clear()
    finally:
        threading.setprofile(None)  # type: ignore[arg-type]
    assert answered.json["result"]["content"][0]["text"] == "3.0"
    eras = [index for index, name in enumerate(entered) if name == "nanohubmcp.server.eras"]
    assert eras, entered
    runs = sum(1 for index in eras if entered[index - 1] != "nanohubmcp.server.eras")
    assert runs == 1, entered
    assert entered.index("nanohubmcp.server.wire.sessions") < eras[0], entered


def test_a_header_the_server_does_not_speak_is_refused_before_an_unknown_session(url: str) -> None:
    with Http(url) as http:
        unknown = {**ACCEPT, "Mcp-Session-Id": "no-such-session"}
        refused = http.rpc("tools/list", path="/mcp", headers={**unknown, "MCP-Protocol-Version": "1999-01-01"})
        assert refused.status == 400, refused.raw
        assert refused.json["error"]["message"] == 'Unsupported MCP-Protocol-Version: "1999-01-01"'
        missing = http.rpc("tools/list", path="/mcp", headers={**unknown, "MCP-Protocol-Version": "2025-11-25"})
        assert missing.status == 404, missing.raw


def test_a_2026_request_carrying_a_session_id_is_served_whatever_it_names(url: str) -> None:
    with Http(url) as http:
        session_id = open_session(http)
    wire = Wire(url + "mcp")
    for named in ("no-such-session", session_id):
        reply = wire.call("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}},
                          headers={"Mcp-Session-Id": named})
        assert reply.status == 200, (named, reply)
        assert reply.result["content"][0]["text"] == "3.0"
