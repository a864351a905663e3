"""A middleware may await ``call_next`` more than once (a retry): each await runs the rest of the
chain and the tool again; the request leaves one provenance record, of the answer the layer
returns; a tool that reports progress counts from 0 again in its second run without failing (its
reports are not sent: the call's progress ended with the first run's result). Trial19 F14: the
second run of such a tool failed "progress must not decrease"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nanohubmcp import Context, MCPServer, Request
from nanohubmcp.testing import MemoryClient

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

PROVENANCE = "io.nanohub/provenance"


async def test_call_next_twice_runs_the_tool_twice(tmp_path: Path) -> None:
    server = MCPServer("retry", state_dir=str(tmp_path))
    runs: list[int] = []
    results: list[dict[str, Any]] = []

    @server.tool()
    def count(ctx: Context, steps: int = 3) -> int:
        """Count the runs, reporting progress from 1 to steps."""
        runs.append(steps)
        for step in range(1, steps + 1):
            ctx.report_progress(step, steps)
        return len(runs)

    @server.middleware
    async def retry(request: Request, call_next: Any) -> dict[str, Any]:
        if request.tool_name != "count":
            return await call_next(request)
        results.append(await call_next(request))
        results.append(await call_next(request.replace(params={**request.params, "arguments": {"steps": 4}})))
        return results[-1]

    async with MemoryClient(server) as client:
        answer = await client.call_tool("count", {}, _meta={"progressToken": 5})
    assert runs == [3, 4]
    assert [r["content"][0]["text"] for r in results] == ["1", "2"]
    assert not any(r.get("isError") for r in results)
    assert answer["content"][0]["text"] == "2"
    assert PROVENANCE in answer["_meta"]  # the provenance layer is outside: one record, of this answer
    sent = [params["progress"] for params in client.notifications("notifications/progress")]
    assert sent == [1, 2, 3]  # the first run's; nothing after its result
