"""A tool WITH an output schema whose result, answered as an SSE event, was over the official ``mcp`` client's
1 MiB event limit was still sent inline (its structured content is promised: the link rule cannot apply), and the
client never read it: "Server-sent event exceeded the 1048576 byte limit", the call lost. Now such an answer is a
tool error (``isError: true``) naming its size, the client's 1 MiB and what to do instead, which the client reads;
the same call answered as JSON (nothing sent before it) still carries the whole result, and a result within the
event goes whole as an event. A real server over HTTP, the official client in both eras and over legacy SSE."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from support import era_client, serve

from nanohubmcp import Context, MCPServer

pytestmark = pytest.mark.timeout(120)

ROWS = 2_000  # rows of 1,000 characters: a result of about 2 MB
SCHEMA = {"type": "object", "properties": {"rows": {"type": "array", "items": {"type": "string"}}},
          "required": ["rows"]}


def build() -> MCPServer:
    server = MCPServer("table")

    @server.tool(output_schema=SCHEMA)
    def table(rows: int, ctx: Context) -> dict[str, Any]:
        """One progress report, then ``rows`` rows of 1,000 characters."""
        ctx.report_progress(1, 1)
        return {"rows": ["r" * 1000] * rows}

    return server


def called(url: str, era: str, rows: int, progress: bool) -> tuple[Any, list[float]]:
    reports: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        reports.append(done)

    async def main() -> Any:
        with anyio.fail_after(60):
            async with era_client(url, era) as client:
                return await client.call_tool("table", {"rows": rows},
                                              progress_callback=on_progress if progress else None)

    return anyio.run(main), reports


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28", "sse"])
def test_a_result_held_to_its_schema_too_large_for_one_event_is_a_readable_tool_error(era: str) -> None:
    with serve(build()) as url:
        result, reports = called(url, era, ROWS, progress=True)
    assert result.is_error, str(result)[:300]
    text = result.content[0].text
    assert text.startswith("tool 'table' answered "), text
    size = int(text.split()[3])
    assert 2 * ROWS * 1000 < size < 2 * ROWS * 1000 + 20_000, text  # the rows twice: text and structuredContent
    for said in ("(1048576 bytes, 1 MiB)", "output schema", "less data", "no progress token", "max_inline_bytes"):
        assert said in text, text
    assert reports == [1]


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_the_same_result_answered_as_json_goes_whole(era: str) -> None:
    with serve(build()) as url:
        result, _ = called(url, era, ROWS, progress=False)
    assert not result.is_error, str(result)[:300]
    assert result.structured_content == {"rows": ["r" * 1000] * ROWS}


@pytest.mark.parametrize("era", ["2025-11-25", "sse"])
def test_a_result_held_to_its_schema_within_one_event_goes_whole(era: str) -> None:
    rows = 450  # 450 KB twice: within the 1 MiB, over the 256 KiB an unschemaed result's data would be linked past
    with serve(build()) as url:
        result, reports = called(url, era, rows, progress=True)
    assert not result.is_error, str(result)[:300]
    assert result.structured_content == {"rows": ["r" * 1000] * rows}
    assert reports == [1]
