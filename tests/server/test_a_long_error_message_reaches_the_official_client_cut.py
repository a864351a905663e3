"""trial54 N3 (trial53 F4's class): a tool raising an error whose message is over 1 MiB, called with a progress
token (its answer the last event of an SSE stream), lost the call in the official ``mcp`` client (2.3.0): "SSE
stream failed: Server-sent event exceeded the 1048576 byte limit", the ``isError`` answer never read. An error
result's text is now cut as a progress or log message is (``notified_text``: ``MAX_NOTIFIED_CHARS`` characters,
then saying so), whatever the answer goes as; a short one goes whole. A real server over HTTP, the official
client in both eras and over the legacy SSE transport."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from support import era_client, serve

from nanohubmcp import Context, MCPServer
from nanohubmcp.errors.sent_text import MAX_NOTIFIED_CHARS

pytestmark = pytest.mark.timeout(120)

SIZE = 2_000_000


def build() -> MCPServer:
    server = MCPServer("bigerr")

    @server.tool()
    def bigerr(size: int, ctx: Context) -> str:
        """One progress report, then an error whose message is ``size`` characters (a simulator's stderr)."""
        ctx.report_progress(1, 1)
        raise ValueError("e" * size)

    return server


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28", "sse"])
@pytest.mark.parametrize("progress", [True, False])
def test_an_error_too_long_for_one_event_answers_cut(progress: bool, era: str) -> None:
    reports: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        reports.append(done)

    with serve(build()) as url:
        async def main() -> Any:
            with anyio.fail_after(60):
                async with era_client(url, era) as client:
                    return await client.call_tool("bigerr", {"size": SIZE},
                                                  progress_callback=on_progress if progress else None)

        result = anyio.run(main)
    assert result.is_error, str(result)[:300]
    assert result.content[0].text == "e" * MAX_NOTIFIED_CHARS + \
        f"… [cut: {SIZE} characters in all; a client is sent {MAX_NOTIFIED_CHARS}]"
    if progress:
        assert reports == [1]


def test_a_short_error_message_goes_whole() -> None:
    with serve(build()) as url:
        async def main() -> Any:
            with anyio.fail_after(60):
                async with era_client(url, "2025-11-25") as client:
                    return await client.call_tool("bigerr", {"size": 500}, progress_callback=lambda *_: None)

        result = anyio.run(main)
    assert result.is_error
    assert result.content[0].text == "e" * 500
