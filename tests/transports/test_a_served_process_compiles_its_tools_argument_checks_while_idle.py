"""A served process compiles its tools' argument checks while it waits idle after start, each for its own record.

A tool's first ``tools/call`` compiled its argument check (the fast path's generated source, ~5 M instructions) on
the event loop, where the warm-up thread had imported the call's modules but compiled nothing. It now compiles the
checks of the tools registered by then too. The probe: a script served with ``run()`` whose ``add`` is defined
again as the server starts (a ``server_started`` hook, on the loop: after the start, before the warm-up), with the
other types; a tool reports whether ``add``'s current check is compiled, polled until it is (before: never, until
``add``'s first call). Then ``add`` is called with the official client: the new definition's types are accepted,
the old one's refused; and a tool registered after the warm-up still checks its own arguments.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from mcp.types import CallToolResult, TextContent

pytestmark = pytest.mark.anyio

SCRIPT = textwrap.dedent("""
    from nanohubmcp import MCPServer

    server = MCPServer("warm")

    @server.tool()
    def add(a: int, b: int) -> int:
        "Sum of two integers."
        return a + b

    def define_again(event, data):  # as serving starts, on the loop: after the start, before the warm-up
        @server.tool(name="add")
        def join(a: str, b: str) -> str:
            "Two texts joined."
            return a + b

    server.events.subscribe(define_again, ["server_started"])

    @server.tool()
    def compiled(name: str) -> bool:
        "Whether the named tool's argument check is compiled."
        return server.core.registry.tools.get(name).validator.prepared

    @server.tool()
    def register_late() -> str:
        "Register a tool after the warm-up."
        @server.tool()
        def late(x: int) -> int:
            "The same integer."
            return x
        return "registered"

    server.run(host="127.0.0.1", port=0)
""")


def _text(result: CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, TextContent), content
    return content.text


async def test_a_tool_defined_again_before_the_warm_up_is_compiled_and_checked_as_defined(tmp_path: Path) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    script = tmp_path / "served.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state")}  # (no job store of another run's)
    child = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout is not None
        banner = child.stdout.readline()  # "MCP Server 'warm' v1.0.0 listening on 127.0.0.1:PORT"
        assert "listening on" in banner, banner
        url = f"http://127.0.0.1:{int(banner.rsplit(':', 1)[1])}/mcp"
        async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as client:
            await client.initialize()
            deadline = time.monotonic() + 30
            done = False
            while not done and time.monotonic() < deadline:  # until the warm-up compiled it (~1 s after listening)
                answer = await client.call_tool("compiled", {"name": "add"})
                assert not answer.is_error, answer
                done = _text(answer) == "true"
            assert done, "add's argument check not compiled 30 s after start, before its first call"

            joined = await client.call_tool("add", {"a": "x", "b": "y"})
            assert not joined.is_error, joined
            assert _text(joined) == "xy"
            refused = await client.call_tool("add", {"a": 1, "b": 2})
            assert refused.is_error
            assert 'arguments.a: 1 is not of type "string"' in _text(refused), _text(refused)

            assert not (await client.call_tool("register_late", {})).is_error
            late = await client.call_tool("compiled", {"name": "late"})
            assert _text(late) == "false"  # (not the warm-up's: compiled at its first call)
            assert _text(await client.call_tool("late", {"x": 3})) == "3"
            wrong = await client.call_tool("late", {"x": "three"})
            assert wrong.is_error
            assert 'arguments.x: "three" is not of type "integer"' in _text(wrong), _text(wrong)
    finally:
        child.terminate()
        child.communicate(timeout=30)
