"""``tasks/result`` over the legacy SSE transport answers as one SSE event: a finished task's result over the
official ``mcp`` client's 1 MiB (a tool with an output schema, whose data is never linked; or data under a
``max_inline_bytes`` of None) was an event the client dropped ("Server-sent event exceeded the 1048576 byte
limit"), and the request failed without an answer (the session closed). Now it answers the tool error
``isError: true`` naming its size and what to do (send ``tasks/result`` over Streamable HTTP), with the task's
``related-task`` meta, which the client reads; the result stays stored, and ``tasks/result`` over Streamable HTTP
answers it whole. A real server over HTTP, the official client (its raw requests: it has no tasks API)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)

ROWS = 2_000  # rows of 1,000 characters: a result of about 2 MB (4 MB with its structured content)
SCHEMA = {"type": "object", "properties": {"rows": {"type": "array", "items": {"type": "string"}}},
          "required": ["rows"]}


def build() -> MCPServer:
    server = MCPServer("tasks", job_store="memory", max_inline_bytes=None)

    @server.async_tool(output_schema=SCHEMA)
    def held(rows: int) -> dict[str, Any]:
        """``rows`` rows of 1,000 characters, held to an output schema."""
        return {"rows": ["r" * 1000] * rows}

    @server.async_tool()
    def plain(rows: int) -> dict[str, Any]:
        """``rows`` rows of 1,000 characters."""
        return {"rows": ["r" * 1000] * rows}

    return server


def task_result(url: str, transport: str, tool: str, rows: int = ROWS) -> tuple[str, dict[str, Any]]:
    """Start ``tool`` as a task and wait for its ``tasks/result``, in one session of the official client."""

    async def main() -> tuple[str, dict[str, Any]]:
        with anyio.fail_after(60):
            path = "sse" if transport == "sse" else "mcp"
            async with mcp_client(url + path, transport=transport) as client:
                send = client._dispatcher.send_raw_request  # (the client's tasks have no typed API)
                created = await send("tools/call", {"name": tool, "arguments": {"rows": rows},
                                                    "task": {"ttl": 60000}})
                task_id = str(created["task"]["taskId"])
                return task_id, await send("tasks/result", {"taskId": task_id})

    return anyio.run(main)


@pytest.mark.parametrize("tool", ["held", "plain"])
def test_a_task_result_too_large_for_one_event_is_a_readable_tool_error(tool: str) -> None:
    with serve(build()) as url:
        task_id, result = task_result(url, "sse", tool)
        _, whole = task_result(url, "http", tool)  # the same result over Streamable HTTP: JSON, whole
    assert result["isError"] is True, str(result)[:300]
    assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task_id}
    text = result["content"][0]["text"]
    assert text.startswith(f"task {task_id} (tool '{tool}') answered "), text
    size = int(text.split(" answered ")[1].split()[0])
    assert ROWS * 1000 < size < 2 * ROWS * 1000 + 20_000, text
    said = ["(1048576 bytes, 1 MiB)", "legacy SSE", "tasks/result", "Streamable HTTP", "less data"]
    said.append("output schema" if tool == "held" else "max_inline_bytes")
    for words in said:
        assert words in text, text
    assert not whole.get("isError"), str(whole)[:300]
    assert whole["structuredContent"] == {"rows": ["r" * 1000] * ROWS}


def test_a_task_result_within_one_event_goes_whole_over_legacy_sse() -> None:
    rows = 450  # 450 KB twice: within the 1 MiB
    with serve(build()) as url:
        _, result = task_result(url, "sse", "held", rows)
    assert not result.get("isError"), str(result)[:300]
    assert result["structuredContent"] == {"rows": ["r" * 1000] * rows}
