"""A record of a call that ran on the thread serving it names that thread, also when one server's
calls are served by several threads in turn (a server started again on a new loop thread, the
in-process seam of two event loops): the layer keeps the serving thread per thread, never one
for the server."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.server.connection import Connection
from nanohubmcp.server.provenance.records import META_KEY, record_id_of

pytestmark = pytest.mark.timeout(60)


def test_each_serving_thread_is_named_in_its_own_records(tmp_path: Path) -> None:
    server = MCPServer("two-loops", state_dir=str(tmp_path))

    @server.tool()
    async def add(a: int, b: int) -> int:
        """A coroutine (it runs on the thread serving the call)."""
        return a + b

    body = jsonenc.dumpb(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}
    )
    uris: dict[str, list[str]] = {}

    async def calls(name: str) -> None:
        connection = Connection(server.core, "test")
        for _ in range(3):
            reply = await connection.serve(connection.request(connection.parse(body), version="2025-03-26"))  # type: ignore[arg-type]
            assert reply.message is not None
            uris.setdefault(name, []).append(reply.message["result"]["_meta"][META_KEY])

    for name in ("serving-one", "serving-two", "serving-one"):  # a name again: a new thread of the same name
        thread = threading.Thread(target=asyncio.run, args=(calls(name),), name=name)
        thread.start()
        thread.join(30)
        assert not thread.is_alive()
    try:
        for name, named in uris.items():
            assert len(named) == 6 if name == "serving-one" else len(named) == 3
            for uri in named:
                record = server.core.provenance.find(record_id_of(uri))
                assert record is not None
                assert (record["executor"], record["where"]["thread"]) == ("event-loop", name)
    finally:
        server.core.close()
