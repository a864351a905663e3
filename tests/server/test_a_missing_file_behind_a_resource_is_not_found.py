"""The docs' ``{name}`` pattern, ``open(os.path.join(DATA, name))``, asked for a file that is not there:
the client gets "Resource not found: <uri>" (-32002), not -32603 carrying the server's absolute path.
Another ``OSError`` stays -32603 with its reason only; the path goes to the server log.

Source: MCP 2025-11-25, Server § Resources § Error handling (resource not found: -32002).
Found by trial20 (F10).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer


def build(data: Path) -> MCPServer:
    server = MCPServer("files")

    @server.resource("one://{name}")
    def one(name: str) -> str:
        return open(os.path.join(data, name)).read()  # the pattern docs/api/summary.md shows

    return server


@pytest.mark.anyio
async def test_a_missing_file_is_not_found_without_the_servers_path(tmp_path: Path,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "here.txt").write_text("hello")
    (data / "sub").mkdir()
    with serve(build(data)) as url, anyio.fail_after(20):
        async with mcp_client(url + "mcp") as client:
            found = await client.read_resource("one://here.txt")
            assert found.contents[0].text == "hello"

            with pytest.raises(MCPError) as missing:
                await client.read_resource("one://nope.txt")
            assert missing.value.error.code == -32002, missing.value.error
            assert missing.value.error.message == "Resource not found: one://nope.txt"
            assert str(data) not in str(missing.value.error)

            with pytest.raises(MCPError) as other:  # IsADirectoryError: an OSError that is not "missing"
                await client.read_resource("one://sub")
            assert other.value.error.code == -32603, other.value.error
            assert other.value.error.message == "Reading one://sub failed: Is a directory"

            assert await client.list_tools() is not None  # still serving
    logged = " ".join(r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)
    assert str(data / "nope.txt") in logged  # the server's own log keeps the path
