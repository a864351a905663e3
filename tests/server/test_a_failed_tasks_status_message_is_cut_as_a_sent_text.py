"""A task whose tool returned its own ``isError`` result is ``failed`` (2025-11-25) with the result's text as its
status message, which ``tasks/get`` answers. Over the legacy SSE transport that answer is one SSE event: a tool
returning a simulator's whole log (2 MB) made every ``tasks/get`` of its task an event over the official ``mcp``
client's 1 MiB, which the client refuses, ending its session ("Server-sent event exceeded the 1048576 byte
limit"). Now the status message is cut as any text sent to a client is (``errors.sent_text.notified_text``); the
result (``tasks/result`` over Streamable HTTP) holds the text whole. A real server, the official client."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer, ToolResult
from nanohubmcp.errors.sent_text import MAX_NOTIFIED_CHARS

pytestmark = pytest.mark.timeout(120)

CHARS = 2_000_000


def build() -> MCPServer:
    server = MCPServer("tasks", job_store="memory")

    @server.async_tool()
    def failing(chars: int) -> ToolResult:
        """Fails with its own error result of ``chars`` characters (a simulator's log)."""
        return ToolResult("E" * chars, is_error=True)

    return server


def ended(url: str, transport: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``tasks/get`` and ``tasks/result`` of a ``failing`` task once it ended, in one session of the official
    client (its raw requests: it has no tasks API)."""

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        with anyio.fail_after(60):
            async with mcp_client(url + ("sse" if transport == "sse" else "mcp"), transport=transport) as client:
                send = client._dispatcher.send_raw_request
                created = await send("tools/call", {"name": "failing", "arguments": {"chars": CHARS},
                                                    "task": {"ttl": 60000}})
                task_id = str(created["task"]["taskId"])
                result = await send("tasks/result", {"taskId": task_id}) if transport != "sse" else {}
                got = await send("tasks/get", {"taskId": task_id})
                while got.get("status") == "working":
                    await anyio.sleep(0.05)
                    got = await send("tasks/get", {"taskId": task_id})
                return got, result

    return anyio.run(main)


def test_tasks_get_of_a_task_with_a_long_error_result_is_answered_over_legacy_sse() -> None:
    with serve(build()) as url:
        got, _ = ended(url, "sse")
        whole_got, result = ended(url, "http")
    for task in (got, whole_got):
        assert task["status"] == "failed", str(task)[:300]
        message = task["statusMessage"]
        assert message.startswith("E" * 1000)
        assert len(message) < MAX_NOTIFIED_CHARS + 100, len(message)
        assert message.endswith(f"[cut: {CHARS} characters in all; a client is sent {MAX_NOTIFIED_CHARS}]")
    assert result["isError"] is True
    assert result["content"][0]["text"] == "E" * CHARS  # the result holds it whole
