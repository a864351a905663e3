"""A failed job polls as ``get_job_result`` ``isError: false`` with ``"status": "error"``, while ``tasks/result`` of
the same job answers the tool's error, ``isError: true`` (MCP 2025-11-25, Tasks: the original request's result);
the tool's description tells an assistant to read ``status`` (trial78 NIT: the docs never said which, and an
assistant reading ``isError`` saw success). Over the official client (its poll) and a task (raw JSON-RPC: the
client cannot make tasks)."""

from __future__ import annotations

import asyncio
import tempfile

from jobs.job_server import Routes, wait_until
from support import mcp_client, serve

from nanohubmcp import MCPServer


def failing_server() -> MCPServer:
    server = MCPServer("failing-jobs", state_dir=tempfile.mkdtemp())

    @server.async_tool()
    def diverge(n: int) -> float:
        """Fails the way a simulation does."""
        raise ValueError(f"no convergence after {n} steps")

    return server


async def poll(url: str) -> tuple[str, object, object]:
    async with mcp_client(url + "mcp") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        job_id = (await client.call_tool("diverge", {"n": 3})).structured_content["job_id"]
        while True:
            answer = await client.call_tool("get_job_result", {"job_id": job_id})
            if answer.structured_content["status"] != "running":
                return tools["get_job_result"].description or "", answer, job_id
            await asyncio.sleep(0.05)


def test_a_failed_job_polls_status_error_and_its_task_result_is_an_error() -> None:
    with serve(failing_server()) as url:
        description, answer, job_id = asyncio.run(poll(url))
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        reply = routes.rpc(session, "tools/call", {"name": "diverge", "arguments": {"n": 3}, "task": {}})
        task_id = reply["result"]["task"]["taskId"]
        wait_until(lambda: routes.rpc(session, "tasks/get", {"taskId": task_id})["result"]["status"] != "working",
                   "the task to end", 30)
        result = routes.rpc(session, "tasks/result", {"taskId": task_id})["result"]
    assert answer.is_error is False
    assert answer.structured_content == {"status": "error", "job_id": job_id,
                                         "error": "no convergence after 3 steps"}, answer
    assert 'Read "status": a job that failed answers "status": "error" with its "error" (isError false: the poll ' \
           "itself worked)." in " ".join(description.split()), description
    assert result["isError"] is True, result
    assert "no convergence after 3 steps" in result["content"][0]["text"], result
