"""A job whose tool returns a list, a numpy array or a pandas table reads back through
``get_job_result`` with one rule for all three: ``"result"`` is the data's JSON value (``[0.0, 0.5,
1.0]``), over MCP and REST polling, and again after a restart on the same state directory.
``tasks/result`` answers the job's own ``CallToolResult``, whose ``structuredContent`` is
``{"result": [...]}`` as a direct call's is.

A fresh-user trial (trial26 F7) polled ``{"result": [...]}`` inside ``result`` for an array and a
table, but the bare list for a list: a client had to special-case the value's Python type.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from job_server import Routes
from support import mcp_client, serve

from nanohubmcp import MCPServer

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

EXPECTED: dict[str, Any] = {
    "as_list": [0.0, 0.5, 1.0],
    "as_array": [0.0, 0.5, 1.0],
    "as_frame": [{"index": 0, "x": 1}, {"index": 1, "x": 2}],
    "as_dict": {"result": [1, 2]},  # a dict whose one key is "result" stays that dict
}


def build(state_dir: Path) -> MCPServer:
    server = MCPServer("job-data", state_dir=state_dir)

    @server.async_tool()
    def as_list() -> object:
        """A list."""
        return [0.0, 0.5, 1.0]

    @server.async_tool()
    def as_array() -> object:
        """An array."""
        return np.array([0.0, 0.5, 1.0])

    @server.async_tool()
    def as_frame() -> object:
        """A table."""
        return pd.DataFrame({"x": [1, 2]})

    @server.async_tool()
    def as_dict() -> object:
        """A dict that looks wrapped."""
        return {"result": [1, 2]}

    return server


def polled(url: str, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while (answer := httpx2.post(f"{url}tools/get_job_result", json={"job_id": job_id}, timeout=30).json())[
            "status"] == "running":
        assert time.monotonic() < deadline, f"job {job_id} did not end"
        time.sleep(0.02)
    return answer


@pytest.mark.anyio
async def test_a_list_an_array_and_a_table_read_back_alike(tmp_path: Path) -> None:
    jobs: dict[str, str] = {}
    with serve(build(tmp_path)) as url:
        async with mcp_client(url + "mcp") as client:
            for tool in EXPECTED:
                started = await client.call_tool(tool, {})
                jobs[tool] = started.structured_content["job_id"]
        for tool, job_id in jobs.items():
            assert polled(url, job_id)["result"] == EXPECTED[tool], tool  # REST polling
        async with mcp_client(url + "mcp") as client:
            for tool, job_id in jobs.items():
                answer = await client.call_tool("get_job_result", {"job_id": job_id})
                assert answer.structured_content["status"] == "done"
                assert answer.structured_content["result"] == EXPECTED[tool], tool

        routes = Routes(int(url.rstrip("/").rsplit(":", 1)[1]))
        session = routes.session()
        created = routes.rpc(session, "tools/call", {"name": "as_array", "arguments": {}, "task": {"ttl": 60000}})
        task_id = created["result"]["task"]["taskId"]
        result = routes.rpc(session, "tasks/result", {"taskId": task_id})["result"]
        assert result["structuredContent"] == {"result": [0.0, 0.5, 1.0]}  # the CallToolResult, as it is

    with serve(build(tmp_path)) as url:  # stored jobs read the same after a restart
        for tool, job_id in jobs.items():
            assert polled(url, job_id)["result"] == EXPECTED[tool], tool
