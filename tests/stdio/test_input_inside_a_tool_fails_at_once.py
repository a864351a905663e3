"""``input()`` inside a tool fails at once with a message naming ctx.elicit, instead of waiting (for the time
limit, or for ever) — over stdio it would even read the client's next message. Outside tool calls ``input``
is untouched."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import anyio
import pytest

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

APP = textwrap.dedent('''
    from nanohubmcp import MCPServer

    server = MCPServer("asks-stdin")

    @server.tool()
    def ask() -> str:
        """Asks the terminal for a name."""
        return "hello " + input("name? ")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b
''')


async def test_a_tool_calling_input_over_stdio_gets_a_clear_error_and_the_stream_is_untouched(tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    app = tmp_path / "app.py"
    app.write_text(APP)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "nanohubmcp", "run", str(app), "--transport", "stdio"]
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        with anyio.fail_after(20):  # no tool_timeout is set: before, the call never returned
            result = await session.call_tool("ask", {})
        assert result.is_error
        assert "input() cannot be answered inside an MCP tool" in result.content[0].text
        assert "ctx.elicit" in result.content[0].text
        with anyio.fail_after(20):  # the next message was not swallowed by input()
            assert (await session.call_tool("add", {"a": 2, "b": 3})).content[0].text == "5"


def test_input_outside_a_tool_call_reads_standard_input_as_before() -> None:
    import subprocess

    script = (
        "from nanohubmcp.server.calls import stdin_guard\n"
        "stdin_guard.guard(); stdin_guard.guard()\nprint('got', input())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input="typed\n", capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == "got typed\n"
