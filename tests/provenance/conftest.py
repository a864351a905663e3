"""Fixtures of the provenance tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from nanohubmcp import MCPServer


@pytest.fixture
def add_server() -> Iterator[Callable[[str, Path], MCPServer]]:
    """``start(name, state_dir)``: a server named ``name`` keeping its state (records, jobs) in
    ``state_dir``, with one tool ``add(a, b) -> a + b``, started on a free port. Every server started
    is stopped when the test ends (a test may stop one itself first: stopping twice is safe)."""
    started: list[MCPServer] = []

    def start(name: str, state_dir: Path) -> MCPServer:
        server = MCPServer(name, state_dir=str(state_dir))

        @server.tool()
        def add(a: float, b: float) -> float:
            """a plus b."""
            return a + b

        started.append(server)
        server.start(port=0)
        return server

    yield start
    for server in started:
        server.stop()
