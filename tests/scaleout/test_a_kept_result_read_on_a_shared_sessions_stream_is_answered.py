"""A tool's numpy result after its progress report, in a session shared through Redis: the POST's answer is a
stream, which mirrors each message to the session's event log as JSON text, and the array's pre-encoded text
(``encoded.Encoded``) was an object the standard encoder refused (TypeError: the POST got no answer). The one
encoder writes the log's text now, as it writes the wire's (a kept file's text too, as the string it stands for).
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from redis_server import RedisServer
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer

sys.path.insert(0, str(Path(__file__).parents[1] / "transports"))

pytestmark = pytest.mark.timeout(120)

LOGGED = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "reading"}}


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
