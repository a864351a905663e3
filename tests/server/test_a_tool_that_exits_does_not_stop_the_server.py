"""A tool calling sys.exit() (argparse on bad input does) or raising KeyboardInterrupt reports an
error result; the server keeps serving (regression: the process exited with the tool's code)."""

from __future__ import annotations

import json
import sys
import urllib.request
from typing import Any

import pytest
from support import serve

from nanohubmcp import MCPServer


def call(base: str, name: str) -> dict[str, Any]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": name, "arguments": {}}}).encode()
    request = urllib.request.Request(base + "mcp", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["result"]


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

    with serve(server) as base:
        left = call(base, "leave")
        assert left["isError"] is True
        assert "sys.exit(3)" in left["content"][0]["text"]
        interrupted = call(base, "interrupt")
        assert interrupted["isError"] is True
        assert "KeyboardInterrupt" in interrupted["content"][0]["text"]
        assert call(base, "fine")["content"][0]["text"] == "ok"
