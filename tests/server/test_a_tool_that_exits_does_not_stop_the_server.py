"""A tool calling sys.exit() (argparse on bad input does) or raising KeyboardInterrupt reports an
error result; the server keeps serving (regression: the process exited with the tool's code)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.testing import SyncMemoryClient, in_memory


def call(client: SyncMemoryClient, name: str) -> dict[str, Any]:
    return client.call_tool(name)


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_exit_and_interrupt_become_tool_errors(kind: str) -> None:
    server = MCPServer("exits")

    if kind == "sync":
        @server.tool()
        def leave() -> str:
            """Exits."""
            sys.exit(3)

        @server.tool()
        def interrupt() -> str:
            """Interrupts."""
            raise KeyboardInterrupt
    else:
        @server.tool()
        async def leave() -> str:
            """Exits."""
            sys.exit(3)

        @server.tool()
        async def interrupt() -> str:
            """Interrupts."""
            raise KeyboardInterrupt

    @server.tool()
    def fine() -> str:
        """Still here."""
        return "ok"

    with in_memory(server, session=False, version="2025-03-26") as client:
        left = call(client, "leave")
        assert left["isError"] is True
        assert "sys.exit(3)" in left["content"][0]["text"]
        interrupted = call(client, "interrupt")
        assert interrupted["isError"] is True
        assert "KeyboardInterrupt" in interrupted["content"][0]["text"]
        assert call(client, "fine")["content"][0]["text"] == "ok"
