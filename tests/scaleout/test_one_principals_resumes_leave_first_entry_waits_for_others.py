"""One principal's resumes do not take every first-entry wait of a process: another principal's resume still
waits for its stream's first log entry and is fed.

A resume of a POST stream whose log is still empty waits for its first entry (``relay_streams.FIRST_ENTRY_MS``),
within the process's bounds (``first_entry_waits``): a few per session and ``PER_PROCESS`` in all. A principal may
hold many sessions: 16 of bob's sessions, 4 made-up resumes each, took all 64 waits, and alice's resume (the case
the wait exists for: a resume landing before the producer's first write) was answered as a deleted log, a fresh GET
stream that never got her call's answer (review r40 R40-5). Now one principal's sessions hold at most
``PER_PRINCIPAL`` waits of a process.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx
import pytest
import wire
from redis_server import RedisServer
from support import serve, wait_until
from test_a_post_stream_resumed_before_its_log_is_written_is_fed import written_once_looked_at

from nanohubmcp import MCPServer, StaticTokenVerifier
from nanohubmcp.server.wire import relay_streams
from nanohubmcp.server.wire.first_entry_waits import PER_PROCESS, PER_SESSION
from nanohubmcp.state.base import session_key

pytestmark = pytest.mark.timeout(90)

NAME = "waits-shared"
STREAM = "s0123456789ab1"
"""A POST stream id as another process of the server makes them (``s``, its random prefix, a count)."""


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def resume_headers(session: str, stream: str, token: str) -> dict[str, str]:
    return {**wire.headers(session), "Last-Event-ID": f"{stream}.1", "Accept": "text/event-stream", **bearer(token)}


def test_another_principals_resume_waits_while_one_principal_asks_for_every_wait(
        redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # bob's waits outlast the test (each would end, unfed, after FIRST_ENTRY_MS): they are held while alice resumes.
    monkeypatch.setattr(relay_streams, "FIRST_ENTRY_MS", 60_000)
    server = MCPServer(NAME, state_url=redis_server.url,
                       auth=StaticTokenVerifier({"alice-token": "alice", "bob-token": "bob"}))
    with serve(server) as base, httpx.Client(timeout=httpx.Timeout(10, read=120)) as client:
        url = base + "mcp"
        replication: Any = server.core.replication
        waits = replication._first_entry
        bobs = [wire.initialize(url, extra=bearer("bob-token")) for _ in range(PER_PROCESS // PER_SESSION)]
        answered: list[int] = []

        def resume(session: str, stream: str) -> None:
            try:
                with client.stream("GET", url, headers=resume_headers(session, stream, "bob-token")) as response:
                    answered.append(response.status_code)
                    response.close()
            except httpx.HTTPError:
                pass

        asked = [(session, f"s0000000000{n:02x}{k}") for n, session in enumerate(bobs) for k in range(PER_SESSION)]
        threads = [threading.Thread(target=resume, args=pair, daemon=True) for pair in asked]
        for thread in threads:
            thread.start()
        # Every resume of bob was looked at: it waits (granted) or was answered at once (refused).
        wait_until(lambda: waits._total + len(answered) == len(asked), "every resume of bob granted or refused")
        alice = wire.initialize(url, extra=bearer("alice-token"))
        key = f"nanohubmcp:{NAME}:ev:{session_key(alice)}:{STREAM}"
        answer = {"jsonrpc": "2.0", "id": 9, "result": {"content": [{"type": "text", "text": "late"}]}}
        entry = {"m": json.dumps(answer), "f": "1", "e": f"{STREAM}.2", "o": "another-process", "r": "9"}
        with written_once_looked_at(redis_server.url, key, entry) as problems:
            resumed = wire.Events("GET", url, resume_headers(alice, STREAM, "alice-token"))
            try:
                assert resumed.status == 200
                event_id, message = resumed.next(timeout=15, step="alice's answer, written after her resume looked")
                assert message == answer, f"alice's resume got no wait: {message}"
                assert event_id == f"{STREAM}.2"
            finally:
                resumed.close()
        assert not problems, problems
