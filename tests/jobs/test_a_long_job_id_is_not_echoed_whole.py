"""A job id the server does not know is echoed back cut to its first 64 characters and "…" (a real
one is 32): a 100 kB ``job_id`` sent to ``cancel_job`` or ``get_job_result`` came back whole in the
``not_found`` object (trial11 F16), and a 100 kB ``taskId`` in the ``tasks/get`` error's message.
A real server over REST and the official ``mcp`` client; the tasks route through the connection seam."""

from __future__ import annotations

import httpx2 as httpx
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.testing import RpcError, in_memory

LONG = "x" * 100_000
SHOWN = "x" * 64 + "…"


def build() -> MCPServer:
    server = MCPServer("long-ids", job_store="memory")

    @server.async_tool()
    def work(n: int) -> int:
        """Double ``n`` in the background."""
        return 2 * n

    return server


def test_rest_job_tools_echo_a_long_id_cut() -> None:
    with serve(build()) as url:
        for tool in ("get_job_result", "cancel_job"):
            reply = httpx.post(f"{url}tools/{tool}", json={"job_id": LONG}, timeout=10)
            assert reply.status_code == 404
            assert reply.json()["status"] == "not_found"
            assert reply.json()["job_id"] == SHOWN
            assert len(reply.content) < 1_000
        short = "unknown-but-short"
        reply = httpx.post(f"{url}tools/get_job_result", json={"job_id": short}, timeout=10)
        assert reply.json()["job_id"] == short  # an id of a plausible length comes back as sent


@pytest.mark.anyio
async def test_the_mcp_client_gets_the_long_id_cut() -> None:
    with serve(build()) as url:
        async with mcp_client(url + "mcp") as client:
            for tool in ("get_job_result", "cancel_job"):
                answer = await client.call_tool(tool, {"job_id": LONG})
                assert answer.is_error
                assert answer.structured_content == {
                    "status": "not_found", "job_id": SHOWN,
                    "error": "No such job for this caller (wrong id, expired, or started by another user or session)"}
                assert all(len(getattr(block, "text", "")) < 1_000 for block in answer.content)


def test_tasks_get_names_a_long_id_cut() -> None:
    with in_memory(build(), capabilities={}) as client, pytest.raises(RpcError) as refused:
        client.request("tasks/get", {"taskId": LONG})
    message = str(refused.value.message)
    assert f'"{"x" * 64}"…' in message
    assert len(message) < 200
