"""Trial 66 F7: two servers sharing one Redis (``state_url``) but each with its own ``state_dir``: a large result
one keeps (a resource_link) read through the other answered a bare "Resource not found". The answer now says that
a kept result is held in the state_dir of the process that made it, and that processes sharing a state_url must
share one state_dir; on one server alone (no shared store) the answer is as before.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from redis_server import RedisServer
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)


def _server(name: str, state_dir: Path, state_url: str | None) -> MCPServer:
    server = MCPServer(name, state_dir=str(state_dir), state_url=state_url)

    @server.tool()
    def samples(n: int) -> str:
        """``n`` characters: a large result is kept, answered as a link."""
        return "x" * n

    return server


async def _kept_link(url: str) -> str:
    async with mcp_client(url + "mcp") as client:
        result = await client.call_tool("samples", {"n": 3_000_000})
    links = [block.uri for block in result.content if block.type == "resource_link"]
    assert links, result.content
    return str(links[0])


async def _read_error(url: str, uri: str) -> str:
    async with mcp_client(url + "mcp") as client:
        with pytest.raises(MCPError) as refused:
            await client.read_resource(uri)  # type: ignore[arg-type]
    return str(refused.value)


@pytest.mark.anyio
async def test_a_link_read_on_a_process_with_another_state_dir_says_to_share_it(
        tmp_path: Path, redis_server: RedisServer) -> None:
    first = _server("shared", tmp_path / "state_a", redis_server.url)
    second = _server("shared", tmp_path / "state_b", redis_server.url)
    with serve(first) as url_a, serve(second) as url_b, anyio.fail_after(90):
        uri = await _kept_link(url_a)
        message = await _read_error(url_b, uri)
    assert "Resource not found" in message, message
    assert "state_dir of the process that made it" in message, message
    assert "processes sharing a state_url must share one state_dir" in message, message
    assert str(tmp_path) not in message  # (no server path goes to the client)


@pytest.mark.anyio
async def test_one_server_alone_answers_a_missing_link_as_before(tmp_path: Path) -> None:
    server = _server("alone", tmp_path / "state", None)
    with serve(server) as url, anyio.fail_after(60):
        message = await _read_error(url, "nanohubmcp://results/AAAAAAAAAAAAAAAAAAAAAA.txt")
    assert "Resource not found" in message, message
    assert "state_dir" not in message, message
