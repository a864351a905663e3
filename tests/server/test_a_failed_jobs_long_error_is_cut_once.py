"""A job whose tool raised an exception with a 200,000-character message: its ``tasks/get`` status message and
``get_job_result``'s ``error`` are cut once, the note naming the real size (200000), as ``tasks/result`` says.
Before (trial59 F7), the error result (already cut, 65,593 characters with its note) was cut again for the
status: "[cut: 65593 characters in all; ...]", the real size lost. A real server, the official ``mcp`` client."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors.sent_text import MAX_NOTIFIED_CHARS

pytestmark = pytest.mark.timeout(120)

CHARS = 200_000
NOTE = f"… [cut: {CHARS} characters in all; a client is sent {MAX_NOTIFIED_CHARS}]"


def build() -> MCPServer:
    server = MCPServer("boom", job_store="memory")

    @server.async_tool()
    def boom(n: int) -> int:
        """Fails with a long message."""
        raise ValueError("x" * CHARS)

    return server


def test_the_status_and_the_polled_error_name_the_real_size() -> None:
    async def main(url: str) -> tuple[dict[str, Any], dict[str, Any], str]:
        with anyio.fail_after(60):
            async with mcp_client(url + "mcp") as client:
                send = client._dispatcher.send_raw_request
                task_id = (await send("tools/call", {"name": "boom", "arguments": {"n": 1},
                                                     "task": {"ttl": 60000}}))["task"]["taskId"]
                job_id = (await client.call_tool("boom", {"n": 2})).structured_content["job_id"]
                got = await send("tasks/get", {"taskId": task_id})
                while got["status"] == "working":
                    await anyio.sleep(0.05)
                    got = await send("tasks/get", {"taskId": task_id})
                polled = (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content
                while polled["status"] == "running":
                    await anyio.sleep(0.05)
                    polled = (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content
                result = await send("tasks/result", {"taskId": task_id})
                return got, polled, result["content"][0]["text"]

    with serve(build()) as url:
        got, polled, result_text = anyio.run(main, url)
    assert result_text.endswith(NOTE), result_text[-100:]
    assert got["status"] == "failed"
    assert got["statusMessage"].endswith(NOTE), got["statusMessage"][-100:]
    assert polled["status"] == "error"
    assert polled["error"].endswith(NOTE), polled["error"][-100:]
    assert len(polled["error"]) == len(got["statusMessage"]) < MAX_NOTIFIED_CHARS + len(NOTE) + 30
