"""trial53 F4: over Streamable HTTP the official ``mcp`` client (2.3.0) refuses an SSE event over 1 MiB
(``DEFAULT_MAX_SSE_EVENT_SIZE``) and loses the whole call ("Server-sent event exceeded the 1048576 byte limit"):
a tool reporting a progress message or logging a message over 1 MiB broke its own call, though it completed.
Now a progress or log message longer than ``MAX_NOTIFIED_CHARS`` is cut for the client, saying so, and the call
answers; a short one goes whole. A real server over HTTP, the official client with a progress token and a log
level."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from client_logs import ask_for_logs
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer
from nanohubmcp.errors.sent_text import MAX_NOTIFIED_CHARS

pytestmark = pytest.mark.timeout(120)


def build() -> MCPServer:
    server = MCPServer("chatty")

    @server.tool()
    def chatty(size: int, how: str, ctx: Context) -> str:
        """Report a progress message or log a message of ``size`` characters, then answer."""
        if how == "progress":
            ctx.report_progress(1, 2, "p" * size)
        else:
            ctx.info("l" * size)
        return "done"

    return server


@pytest.mark.parametrize("how", ["progress", "log"])
@pytest.mark.parametrize("size", [500, 1_100_000])
def test_the_call_answers_and_its_message_is_cut_when_too_long(how: str, size: int) -> None:
    said: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        said.append(message or "")

    async def on_log(params: Any) -> None:
        said.append(params.data)

    server = build()
    with serve(server) as url:
        async def main() -> Any:
            with anyio.fail_after(60):
                async with mcp_client(url + "mcp", logging_callback=on_log) as client:
                    await ask_for_logs(client)
                    return await client.call_tool("chatty", {"size": size, "how": how}, progress_callback=on_progress)

        result = anyio.run(main)
    assert not result.is_error, result
    assert result.content[0].text == "done", result
    letter = how[0]
    assert len(said) == 1, [len(text) for text in said]
    if size <= MAX_NOTIFIED_CHARS:
        assert said == [letter * size]
    else:
        assert said[0] == letter * MAX_NOTIFIED_CHARS + \
            f"… [cut: {size} characters in all; a client is sent {MAX_NOTIFIED_CHARS}]"
