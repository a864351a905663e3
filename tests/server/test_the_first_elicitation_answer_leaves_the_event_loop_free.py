"""The first elicitation answer of a process is checked against its requested schema without
importing jsonschema on the event loop: that import takes seconds where Jupyter's format checkers
are installed, and every client waited for it (a ping took 2 s; over stdio a call with
``tool_timeout=5`` failed one time in four). The validator is compiled on a worker thread from the
moment the request is sent (trial19 F2).

The server runs in a fresh process (in this one jsonschema is long imported), with an import hook
recording where jsonschema is first imported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types
import pytest
from support import mcp_client, script_server

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.timeout(120)]

SERVER = '''
import asyncio
import sys
import threading

IMPORTED_ON = []


class Watch:
    """Records the thread that first imports jsonschema (and whether it runs an event loop)."""

    def find_spec(self, name, path=None, target=None):
        if name == "jsonschema" and not IMPORTED_ON:
            try:
                asyncio.get_running_loop()
                IMPORTED_ON.append("the event loop")
            except RuntimeError:
                IMPORTED_ON.append("a thread without a loop: " + threading.current_thread().name)
        return None


sys.meta_path.insert(0, Watch())

from nanohubmcp import Context, MCPServer

server = MCPServer("asker")


@server.tool()
def ask(ctx: Context) -> str:
    """Ask for a name."""
    answer = ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}})
    return f"{answer['action']} {answer.get('content')}"


@server.tool()
async def ask_async(ctx: Context) -> str:
    """Ask for a name, from the event loop."""
    answer = await ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}})
    return f"{answer['action']} {answer.get('content')}"


@server.tool()
def imported_on() -> str:
    """Where jsonschema was first imported."""
    return IMPORTED_ON[0] if IMPORTED_ON else "not imported"


server.run(host="127.0.0.1", port=0)
'''


def text(result: Any) -> str:
    return str(result.content[0].text)


@pytest.mark.parametrize("tool", ["ask", "ask_async"])
async def test_jsonschema_is_never_imported_on_the_loop_for_an_answer(tmp_path: Path, tool: str) -> None:
    answers = iter([{"name": "Ada"}, {"name": 5}])

    async def on_elicit(context: Any, params: Any) -> mcp_types.ElicitResult:
        return mcp_types.ElicitResult(action="accept", content=next(answers))

    with script_server(SERVER, directory=tmp_path) as served:
        async with mcp_client(served.url + "mcp", elicitation_callback=on_elicit) as client:
            assert text(await client.call_tool("imported_on", {})) == "not imported"
            first = await client.call_tool(tool, {})
            assert text(first) == "accept {'name': 'Ada'}"
            where = text(await client.call_tool("imported_on", {}))
            assert where.startswith("a thread without a loop"), where
            # the answer is still held to the schema
            wrong = await client.call_tool(tool, {})
            assert wrong.is_error
            assert 'does not match the requested schema: content.name: 5 is not of type "string"' in text(wrong)
