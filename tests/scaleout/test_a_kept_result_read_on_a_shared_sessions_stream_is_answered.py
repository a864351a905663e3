"""A ``resources/read`` of a large kept result whose Streamable HTTP answer became a stream (a log message went
first), in a session shared through Redis: the stream mirrors each message to the session's event log as JSON
text, and the kept file's text there was an object the standard encoder refused (TypeError: the POST got no
answer). It is written to the log as the string it stands for (read whole there), and the client gets the
text.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from redis_server import RedisServer
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer

sys.path.insert(0, str(Path(__file__).parents[1] / "transports"))
from kept_reads import ODD, keep

pytestmark = pytest.mark.timeout(120)

LOGGED = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "reading"}}


@pytest.mark.anyio
async def test_the_official_client_reads_a_kept_result_on_a_mirrored_stream(
        tmp_path: Path, redis_server: RedisServer) -> None:
    server = MCPServer("kept-shared", state_dir=str(tmp_path / "state"), state_url=redis_server.url)

    @server.middleware
    async def log_first(request: Any, call_next: Any) -> dict[str, Any]:
        if request.method == "resources/read":
            request.context.send_related(LOGGED)
        return await call_next(request)

    uri = keep(server, ODD[:200_000], "text/plain")
    with serve(server) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            read = await client.read_resource(uri)
    assert read.contents[0].text == ODD[:200_000]


@pytest.mark.anyio
async def test_an_arrays_result_after_progress_is_answered_on_a_mirrored_stream(
        tmp_path: Path, redis_server: RedisServer) -> None:
    np = pytest.importorskip("numpy")
    server = MCPServer("array-shared", state_dir=str(tmp_path / "state"), state_url=redis_server.url)

    @server.tool()
    async def values(ctx: Context) -> object:
        """Five values, after a progress report."""
        ctx.report_progress(1, 2, "half")
        return np.arange(5.0)

    with serve(server) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool("values", {}, progress_callback=_ignore)
    assert result.structured_content == {"result": [0.0, 1.0, 2.0, 3.0, 4.0]}


async def _ignore(progress: float, total: float | None, message: str | None) -> None:
    """A progress callback: the client then sends a progress token, so the report goes first."""
