"""A call's provenance record is readable as soon as its answer has arrived, on any process sharing the
records (trial40 S1): two processes of one machine (one state directory, a Redis ``--state-url``) write
their records to one SQLite file, each in batches gathered up to a second; a read first wrote only its
own process's pending batch, so a record read right after its answer on the other process was
"Resource not found" (-32002) for up to a second, which a client takes for an unknown URI.

Here the batches gather for 0.2 s (:data:`~nanohubmcp.server.provenance.writer.DELAY_SECONDS`, 1 s by
default): a read a few milliseconds after its answer still comes long before its batch is written, and
each of the eight reads waits a fifth as long.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest
import wire
from redis_server import RedisServer
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance import records, writer

pytestmark = pytest.mark.timeout(90)

CALLS = 8
GATHER_SECONDS = 0.2
"""How long the process's writer gathers a batch here."""


def build(state_url: str, state_dir: Path) -> MCPServer:
    server = MCPServer("recorded", state_url=state_url, state_dir=str(state_dir))

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    return server


def test_a_record_read_at_once_on_the_other_process_is_found(
    redis_server: RedisServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer, "DELAY_SECONDS", GATHER_SECONDS)
    servers = [build(redis_server.url, tmp_path) for _ in range(2)]
    assert all(server.core.provenance.shared for server in servers)  # a read here waits for the other's writer
    with ExitStack() as stack:
        first, second = (stack.enter_context(serve(server)) + "mcp" for server in servers)
        session = wire.initialize(first)
        for i in range(CALLS):
            answer = wire.tool(first, session, "add", {"a": 1, "b": i}, rid=10 + i)
            uri = answer["result"]["_meta"]["io.nanohub/provenance"]
            read = wire.call(second, session, "resources/read", {"uri": uri}, rid=100 + i).json()
            assert "result" in read, (i, read)
            assert read["result"]["contents"][0]["uri"] == uri
        # An id neither process made is looked for as long as a batch gathers (not the first batch's margin
        # for the installed distributions' table, which the reads above may have needed), then not found.
        monkeypatch.setattr(records, "ELSEWHERE_SECONDS", GATHER_SECONDS + 0.5)
        unknown = "nanohubmcp://provenance/" + "A" * 24
        read = wire.call(second, session, "resources/read", {"uri": unknown}, rid=999).json()
        assert read["error"]["code"] == -32002
