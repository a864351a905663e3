"""A testing client made for a server that already serves (``server.start()`` in a notebook, then
``MemoryClient(server)``) leaves its state directory where it is: the jobs and records its real clients make are
not moved to a temporary directory removed at exit (review23 R23-L1). Two first clients made at the same moment
share one temporary directory, the one the server uses (review23 N3)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.testing import MemoryClient
from nanohubmcp.testing.scratch import scratch_state


@pytest.fixture
def default_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No state directory named: the default, under a folder of this test."""
    monkeypatch.delenv("NANOHUBMCP_STATE_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    return tmp_path / "nanohubmcp"


def add(a: int, b: int) -> int:
    """Add."""
    return a + b


def test_a_client_of_a_started_server_keeps_its_state_directory(default_state: Path) -> None:
    server = MCPServer("live")
    server.tool()(add)
    server.start(host="127.0.0.1", port=0)
    try:
        before = server.core.first_use.state_directory()
        client = MemoryClient(server)
        assert client.state_dir is None
        assert server.core.first_use.state_directory() == before == str(default_state / "live")
    finally:
        server.stop()


def test_a_client_of_a_server_not_serving_gets_a_temporary_directory(default_state: Path) -> None:
    server = MCPServer("fresh")
    server.tool()(add)
    client = MemoryClient(server)
    assert client.state_dir is not None
    assert server.core.first_use.state_directory() == client.state_dir != str(default_state / "fresh")


def test_first_clients_made_at_once_share_the_directory_the_server_uses(default_state: Path) -> None:
    server = MCPServer("twins")
    server.tool()(add)
    start = threading.Barrier(8)
    found: list[str | None] = []

    def make() -> None:
        start.wait()
        found.append(scratch_state(server))

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    used = server.core.first_use.state_directory()
    assert found == [used] * 8
    assert os.path.isdir(used)
