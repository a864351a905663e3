"""The finished POST response streams a process keeps for a late resume are bounded in bytes (review r40 R40-1):
a session kept every SSE-answered call's messages (64 streams of up to ~256 KiB each), so one token holder with
1,000 sessions could make a process hold ~16 GiB.

- One session's finished streams hold at most ``PER_SESSION`` bytes (the newest kept whatever its size);
- all of one principal's sessions at most ``PER_PRINCIPAL``; the process's at most ``PER_PROCESS``;
- none is kept longer than ``KEEP_SECONDS`` after its end;
- a stream within the bounds still resumes with what its client missed; a resume naming a dropped one opens the
  session's GET stream afresh, as for a stream never known (MCP 2025-11-25, Transports § Resumability and
  Redelivery: the server *may* replay).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
from support import serve, wait_until

from nanohubmcp import Context, MCPServer, StaticTokenVerifier
from nanohubmcp.protocol import jsonenc

pytestmark = pytest.mark.timeout(240)

VERSION = "2025-11-25"
MIB = 1024 * 1024
SIZE = 250_000
PER_SESSION = 8 * MIB  # the bounds docs/how-to/authorization.md names
PER_PRINCIPAL = 64 * MIB


def build() -> MCPServer:
    server = MCPServer("finished-bounds", auth=StaticTokenVerifier({"alice-token": "alice", "bob-token": "bob"}))

    @server.tool()
    async def progress_blob(n: int, ctx: Context) -> str:
        """Report progress (so the answer is an SSE stream), then answer ``n`` characters."""
        ctx.report_progress(1, 1)
        return "z" * n

    return server


@pytest.fixture
def served() -> Iterator[tuple[MCPServer, str]]:
    server = build()
    with serve(server) as url:
        yield server, url.rstrip("/") + "/mcp"


def headers(token: str, session: str | None = None, **extra: str) -> dict[str, str]:
    out = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream",
           "Content-Type": "application/json", "MCP-Protocol-Version": VERSION, **extra}
    if session:
        out["Mcp-Session-Id"] = session
    return out


def open_session(client: httpx.Client, url: str, token: str) -> str:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    reply = client.post(url, headers=headers(token), json=body)
    assert reply.status_code == 200, reply.text
    session = reply.headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    done = client.post(url, headers=headers(token, session), json=note)
    assert done.status_code == 202
    return session


def events(text: str) -> list[tuple[str | None, dict[str, Any]]]:
    out: list[tuple[str | None, dict[str, Any]]] = []
    for block in text.split("\n\n"):
        lines = block.splitlines()
        data = "".join(line[5:].strip() for line in lines if line.startswith("data:"))
        if data:
            event_id = next((line[3:].strip() for line in lines if line.startswith("id:")), None)
            out.append((event_id, json.loads(data)))
    return out


def sse_call(client: httpx.Client, url: str, token: str, session: str, rid: int, n: int = SIZE) -> list[str | None]:
    """``progress_blob`` answered as an SSE stream; the event ids (the progress note's, the answer's)."""
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": "progress_blob", "arguments": {"n": n}, "_meta": {"progressToken": rid}}}
    reply = client.post(url, headers=headers(token, session), json=body)
    assert "event-stream" in reply.headers["content-type"]
    got = events(reply.text)
    assert got[-1][1]["id"] == rid, got[-1]
    assert not got[-1][1]["result"]["isError"]
    return [event_id for event_id, _ in got]


def held(server: MCPServer, principal: str | None = None) -> int:
    """Bytes of JSON the process keeps for replay in its sessions' finished streams (counted here, as sent)."""
    total = 0
    for session in server.core.sessions.all():
        if principal is not None and session.principal != principal:
            continue
        for stream in list(session.streams.values()):
            if stream.done:
                total += sum(len(jsonenc.dumpb(entry[1])) for entry in list(getattr(stream, "_buffer", None) or ()))
    return total


def test_one_sessions_finished_streams_keep_at_most_their_bound(served: tuple[MCPServer, str]) -> None:
    server, url = served
    with httpx.Client(timeout=60) as client:
        session = open_session(client, url, "alice-token")
        ids = [sse_call(client, url, "alice-token", session, rid) for rid in range(2, 2 + 40)]  # ~10 MB
        kept = held(server)
        assert kept <= PER_SESSION + 2 * SIZE, f"{kept} bytes of finished streams kept for one session"
        assert kept >= PER_SESSION // 2, "the newest streams are kept for resuming"

        # The newest stream resumes from its progress note: its answer is replayed.
        with client.stream("GET", url, headers=headers("alice-token", session, **{"Last-Event-ID": str(ids[-1][0])},
                                                       Accept="text/event-stream")) as resumed:
            assert resumed.status_code == 200
            text = ""
            for chunk in resumed.iter_text():
                text += chunk
                if '"result"' in text and text.endswith("\n\n"):
                    break
            replayed = events(text)
            assert replayed[-1][0] == ids[-1][-1]
            assert replayed[-1][1]["result"]["content"][0]["text"] == "z" * SIZE

        # The oldest was dropped: its resume opens the session's GET stream afresh (a second GET is refused).
        with client.stream("GET", url, headers=headers("alice-token", session, **{"Last-Event-ID": str(ids[0][0])},
                                                       Accept="text/event-stream")) as fresh:
            assert fresh.status_code == 200
            second = httpx.get(url, headers=headers("alice-token", session, Accept="text/event-stream"), timeout=10)
            assert second.status_code == 409, "the resume of a dropped stream did not open the GET stream"


def test_one_principals_sessions_keep_at_most_its_bound(served: tuple[MCPServer, str]) -> None:
    server, url = served
    with httpx.Client(timeout=60) as client:
        bobs = open_session(client, url, "bob-token")
        sse_call(client, url, "bob-token", bobs, 2, n=1000)
        for _ in range(10):  # 10 sessions x 30 answers of 250 kB: 75 MB, past 64 MiB
            session = open_session(client, url, "alice-token")
            for rid in range(2, 2 + 30):
                sse_call(client, url, "alice-token", session, rid)
        kept = held(server, "alice")
        assert kept <= PER_PRINCIPAL + 2 * SIZE, f"{kept} bytes of one principal's finished streams kept"
        assert kept >= PER_PRINCIPAL // 2
        assert held(server, "bob") > 1000, "another principal's finished stream was dropped"
        assert server.core.sessions.finished.principal_bytes("alice") == pytest.approx(kept, rel=0.01)


def test_the_process_bound_and_the_time_bound_hold() -> None:
    from nanohubmcp.server.wire import finished_streams
    from nanohubmcp.server.wire.finished_streams import KEEP_SECONDS, FinishedStreams

    assert (finished_streams.PER_SESSION, finished_streams.PER_PRINCIPAL) == (PER_SESSION, PER_PRINCIPAL)

    server = build()
    with serve(server) as base:
        url = base.rstrip("/") + "/mcp"
        server.core.sessions.finished = bounds = FinishedStreams(per_process=3 * MIB)
        with httpx.Client(timeout=60) as client:
            for token in ("alice-token", "bob-token"):
                session = open_session(client, url, token)
                for rid in range(2, 2 + 10):
                    sse_call(client, url, token, session, rid)
            kept = held(server)
            assert kept <= 3 * MIB + 2 * SIZE, f"{kept} bytes of finished streams kept in the process"
            assert bounds.bytes == pytest.approx(kept, rel=0.01)

            loop = server.core.loop
            assert loop is not None
            later = time.monotonic() + KEEP_SECONDS + 1
            loop.call_soon_threadsafe(server.core.sessions.sweep, later)
            wait_until(lambda: bounds.bytes == 0, "the finished streams to expire")
            assert held(server) == 0
