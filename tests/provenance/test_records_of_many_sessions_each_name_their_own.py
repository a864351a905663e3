"""Each record names the session that made the call (its owner: ``session:`` and the session's key,
the SHA-256 of its id; its ``session``: the key's first 12 hex digits), however many sessions the
server serves. The record writer makes a session's key once and remembers it for its later records
(two SHA-256 a record cost ~15k instructions), forgetting them all when it holds
``MAX_SESSION_KEYS``: here lowered to 2, so three sessions' calls interleaved find their key
remembered, forgotten and made again. Through a real server over Streamable HTTP."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from provenance.record_calls import RecordCaller
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance import session_names

pytestmark = pytest.mark.timeout(60)


def test_records_of_interleaved_sessions_each_name_their_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_names, "MAX_SESSION_KEYS", 2)
    server = MCPServer("many-sessions", state_dir=str(tmp_path / "state"))

    @server.tool()
    def square(n: int) -> int:
        """n squared."""
        return n * n

    made: list[tuple[str, str]] = []
    with serve(server) as url:
        caller = RecordCaller(url)
        sessions = [caller.open() for _ in range(3)]
        for turn in range(3):
            for session in sessions:
                made.append((session, caller.recorded(session, "square", {"n": turn})))
                server.core.provenance.pending.drain()  # each record made before the next call
        for session, uri in made:
            record = server.core.provenance.find(uri.rsplit("/", 1)[1])
            assert record is not None
            key = hashlib.sha256(session.encode()).hexdigest()
            assert record["session"] == key[:12]
            assert caller.reads(session, uri)  # its owner is this session
        assert not caller.reads(sessions[0], made[1][1])  # another live session's record
    assert len(session_names._made) <= 2
