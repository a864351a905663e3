"""``ctx.report_progress`` refuses NaN and infinities (JSON has neither: they went out as ``null``,
which the official client refuses, "Failed to validate notification") with a ValueError naming the
value, and the call goes on reporting (trial19 F8)."""

from __future__ import annotations

import math

import pytest

from nanohubmcp import Context, MCPServer
from nanohubmcp.testing import MemoryClient

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


async def test_nan_and_infinite_progress_are_refused_and_never_sent() -> None:
    server = MCPServer("progress", provenance=False)

    @server.tool()
    def steps(ctx: Context) -> str:
        """Report some progress, then values JSON cannot carry."""
        ctx.report_progress(1, 10)
        refusals = []
        for progress, total in ((math.nan, 10), (2, math.inf), (math.inf, None), (3, -math.inf)):
            try:
                ctx.report_progress(progress, total)
            except ValueError as exc:
                refusals.append(str(exc))
        ctx.report_progress(4, 10)
        return "\n".join(refusals)

    async with MemoryClient(server) as client:
        result = await client.call_tool("steps", _meta={"progressToken": 7})
    refusals = result["content"][0]["text"].split("\n")
    assert len(refusals) == 4
    assert "progress=nan, total=10" in refusals[0]
    assert "progress=2, total=inf" in refusals[1]
    assert all("must be finite numbers" in text for text in refusals)
    sent = client.notifications("notifications/progress")
    assert sent == [{"progressToken": 7, "progress": 1, "total": 10}, {"progressToken": 7, "progress": 4, "total": 10}]


async def test_a_bool_or_a_text_is_refused_as_no_number() -> None:
    """trial76 NIT: ``ctx.report_progress(True, 2)`` was taken (JSON's ``true`` is no number the spec's
    progress may be); a bool total too. A numpy number is still taken."""
    numpy = pytest.importorskip("numpy")
    server = MCPServer("progress-kinds", provenance=False)

    @server.tool()
    def steps(ctx: Context) -> str:
        """Report values that are no numbers, then numbers."""
        refusals = []
        for progress, total in ((True, 2), (1, False), ("1", 2)):
            try:
                ctx.report_progress(progress, total)
            except TypeError as exc:
                refusals.append(str(exc))
        ctx.report_progress(numpy.int64(1), numpy.float64(2.0))
        return "\n".join(refusals)

    async with MemoryClient(server) as client:
        result = await client.call_tool("steps", _meta={"progressToken": 7})
    refusals = result["content"][0]["text"].split("\n")
    assert refusals == [
        "progress and total must be numbers, not progress=True, total=2",
        "progress and total must be numbers, not progress=1, total=False",
        "progress and total must be numbers, not progress='1', total=2",
    ]
    assert client.notifications("notifications/progress") == [{"progressToken": 7, "progress": 1, "total": 2.0}]


async def test_a_message_that_is_no_text_is_refused() -> None:
    """trial77 NIT: ``ctx.report_progress(1, 2, message=5)`` was taken and sent as ``"message": 5`` (MCP's
    ``message`` is a string); a ``str`` or None is taken."""
    server = MCPServer("progress-messages", provenance=False)

    @server.tool()
    def steps(ctx: Context) -> str:
        """Report with messages that are no text, then with one."""
        refusals = []
        for message in (5, ["a"], b"bytes"):
            try:
                ctx.report_progress(1, 2, message)  # type: ignore[arg-type]
            except TypeError as exc:
                refusals.append(str(exc))
        ctx.report_progress(1, 2, "half")
        return "\n".join(refusals)

    async with MemoryClient(server) as client:
        result = await client.call_tool("steps", _meta={"progressToken": 9})
    refusals = result["content"][0]["text"].split("\n")
    assert refusals == ["message must be a str (or None), not int", "message must be a str (or None), not list",
                        "message must be a str (or None), not bytes"]
    sent = client.notifications("notifications/progress")
    assert sent == [{"progressToken": 9, "progress": 1, "total": 2, "message": "half"}]
