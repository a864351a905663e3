"""trial53 F4: with ``max_inline_bytes=None`` a 2 MB result answered fine as a JSON body, but a call with a
progress token (its answer the last event of an SSE stream) failed in the official ``mcp`` client (2.3.0), which
refuses an SSE event over 1 MiB: "Server-sent event exceeded the 1048576 byte limit", the call lost. Now an answer
going as an SSE event links its data over ``EVENT_INLINE_BYTES`` (the large-result rule, its threshold at most that),
readable with ``resources/read``; the same call answered as JSON still carries it whole. A real server over HTTP,
the official client."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer

pytestmark = pytest.mark.timeout(120)

SIZE = 2_000_000


def build() -> MCPServer:
    server = MCPServer("big", max_inline_bytes=None)

    @server.tool()
    def big(size: int, ctx: Context) -> str:
        """One progress report, then a text of ``size`` characters."""
        ctx.report_progress(1, 1)
        return "r" * size

    return server


def client_of(url: str, era: str) -> Any:
    """The official client in ``era``: a session (2025-11-25) or the stateless ``mcp.Client`` (2026-07-28)."""
    if era == "2025-11-25":
        return mcp_client(url)
    from mcp import Client

    return Client(url, mode="2026-07-28")


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("progress", [True, False])
def test_a_result_too_large_for_one_event_is_linked_and_reads_whole(progress: bool, era: str) -> None:
    reports: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        reports.append(done)

    with serve(build()) as url:
        async def main() -> tuple[Any, Any]:
            with anyio.fail_after(60):
                async with client_of(url + "mcp", era) as client:
                    result = await client.call_tool("big", {"size": SIZE},
                                                    progress_callback=on_progress if progress else None)
                    links = [block for block in result.content if block.type == "resource_link"]
                    read = await client.read_resource(links[0].uri) if links else None
                    return result, read

        result, read = anyio.run(main)
    assert not result.is_error, str(result)[:300]
    if not progress:  # a JSON answer: max_inline_bytes=None inlines it whole, as before
        assert read is None
        assert result.content[0].text == "r" * SIZE
        return
    assert reports == [1]
    assert read is not None, [block.type for block in result.content]
    assert read.contents[0].text == "r" * SIZE
