"""What the streams still running keep for a resume is bounded in bytes (review r40 R40-1, the part left): a
resumable stream kept its last 256 messages whatever their size until it finished, so a tool sending large
progress or log messages, or many calls in flight in one principal's sessions, held as much as they sent.

- one stream keeps at most ``KEEP_BYTES`` (the newest whatever its size);
- one session's running streams at most ``PER_SESSION`` together (and a principal's and the process's, as their
  finished streams: ``unfinished_streams``), the oldest messages dropped first;
- a resume from before a dropped message opens the session's GET stream afresh, as for a stream no longer kept;
  one from after it gets what followed.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx2 as httpx
import pytest
from support import serve, wait_until
from test_finished_streams_are_bounded_in_bytes import events, headers, open_session

from nanohubmcp import Context, MCPServer, StaticTokenVerifier
from nanohubmcp.protocol import jsonenc

pytestmark = pytest.mark.timeout(120)

MIB = 1024 * 1024
KEEP_BYTES = 4 * MIB  # the bounds docs/how-to/authorization.md names
PER_SESSION = 8 * MIB

SIZE = 60_000  # (a log message is cut at 64 KiB)
NOTES = 80  # ~4.8 MB a call: past KEEP_BYTES; three calls at once: past PER_SESSION
CALLS = 3


@pytest.fixture
def served() -> Iterator[tuple[MCPServer, str, threading.Event]]:
    release = threading.Event()
    server = MCPServer("running-bounds", auth=StaticTokenVerifier({"alice-token": "alice"}))

    @server.tool()
    async def chatty(n: int, ctx: Context) -> str:
        """Send ``n`` large log messages, then answer once the test lets it."""
        for i in range(n):
            await ctx.info(f"{i:04d}" + "z" * SIZE)
        await asyncio.to_thread(release.wait, 60)
        return "done"

    with serve(server) as url:
        try:
            yield server, url.rstrip("/") + "/mcp", release
        finally:
            release.set()


def running_bytes(server: MCPServer) -> list[int]:
    """Bytes of JSON each running POST stream keeps for replay (counted here, as sent)."""
    return [sum(len(jsonenc.dumpb(entry[1])) for entry in list(getattr(st, "_buffer", None) or ()))
            for session in server.core.sessions.all() for st in list(session.streams.values())
            if not st.done and st.stream_id != "g"]


def test_a_sessions_running_streams_keep_at_most_their_bounds(
        served: tuple[MCPServer, str, threading.Event]) -> None:
    server, url, release = served
    with httpx.Client(timeout=60) as client:
        session = open_session(client, url, "alice-token")
        level = {"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "info"}}
        assert client.post(url, headers=headers("alice-token", session), json=level).status_code == 200

        def call(rid: int) -> list[tuple[str | None, dict[str, object]]]:
            body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                    "params": {"name": "chatty", "arguments": {"n": NOTES}}}
            reply = client.post(url, headers=headers("alice-token", session), json=body)
            return events(reply.text)

        with ThreadPoolExecutor(CALLS) as pool:
            answers = [pool.submit(call, rid) for rid in range(2, 2 + CALLS)]
            wait_until(lambda: len(running_bytes(server)) == CALLS
                       and sum(1 for s in server.core.sessions.all() for st in s.streams.values()
                               if getattr(st, "_seq", 0) >= NOTES) == CALLS, "every call to send its messages")
            each = running_bytes(server)
            total = sum(each)
            assert all(size <= KEEP_BYTES + SIZE for size in each), each
            assert total <= PER_SESSION + SIZE + 1000, f"{total} bytes kept by one session's running streams"
            assert total >= PER_SESSION // 2, f"the newest messages are kept for resuming: {each}"
            assert server.core.sessions.finished.unfinished.bytes == total  # (the process's count of them)
            release.set()
            got = [answer.result() for answer in answers]
        first = got[0]
        assert len(first) == NOTES + 1  # every message reached the live connection
        assert first[-1][1]["id"] == 2

        # A resume from the first message (dropped since) opens the GET stream afresh: a second GET is refused.
        with client.stream("GET", url, headers=headers("alice-token", session, **{"Last-Event-ID": str(first[0][0])},
                                                       Accept="text/event-stream")) as fresh:
            assert fresh.status_code == 200
            second = httpx.get(url, headers=headers("alice-token", session, Accept="text/event-stream"), timeout=10)
            assert second.status_code == 409, "the resume from a dropped message did not open the GET stream"
