"""A session's cache hits name their caller by the session's key made once (``Session.key``), not by a
SHA-256 of its id at every hit: the front's key holds the owner (``owners.owner_for``), which hashed the
id each time (~3.5k instructions a hit, more than a hit saved over running a trivial tool;
bench/provenance.md). The key is the same text as before, so one session's entries still answer it alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.server.results import owners
from nanohubmcp.server.wire import sessions
from nanohubmcp.state.base import session_key
from nanohubmcp.testing import MemoryClient

pytestmark = pytest.mark.anyio

CACHE = "io.nanohub/cache"


async def test_hits_of_one_session_hash_its_id_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = MCPServer("hits", state_dir=str(tmp_path), provenance=False)

    @server.tool(cache=True)
    def add(a: float, b: float) -> float:
        """Add."""
        return a + b

    hashed: list[str] = []

    def counted(session_id: str) -> str:
        hashed.append(session_id)
        return session_key(session_id)

    # (both names a session's key is made through: the owner's and the session's own)
    monkeypatch.setattr(owners, "session_key", counted)
    monkeypatch.setattr(sessions, "session_key", counted)
    async with MemoryClient(server) as client:
        first = await client.call_tool("add", {"a": 1.5, "b": 2.25})
        assert first["_meta"][CACHE] == {"hit": False}
        hashed.clear()
        for _ in range(5):
            hit = await client.call_tool("add", {"a": 1.5, "b": 2.25})
            assert hit["_meta"][CACHE] == {"hit": True}
            assert hit["content"] == [{"type": "text", "text": "3.75"}]
        assert len(hashed) <= 1  # (before: at every hit, 6 for these 5)
        session = server.core.sessions.get(client.session_id)
        assert owners.owner_for(None, session) == owners.SESSION_OWNER + session_key(client.session_id)


async def test_another_session_is_not_answered_from_the_first_ones_entry(tmp_path: Path) -> None:
    server = MCPServer("hits", state_dir=str(tmp_path), provenance=False)
    runs: list[float] = []

    @server.tool(cache=True)
    def add(a: float, b: float) -> float:
        """Add."""
        runs.append(a)
        return a + b

    async with MemoryClient(server) as one, MemoryClient(server) as two:
        assert (await one.call_tool("add", {"a": 1, "b": 2}))["_meta"][CACHE] == {"hit": False}
        assert (await one.call_tool("add", {"a": 1, "b": 2}))["_meta"][CACHE] == {"hit": True}
        assert (await two.call_tool("add", {"a": 1, "b": 2}))["_meta"][CACHE] == {"hit": False}
        assert (await two.call_tool("add", {"a": 1, "b": 2}))["_meta"][CACHE] == {"hit": True}
    assert runs == [1, 1]
