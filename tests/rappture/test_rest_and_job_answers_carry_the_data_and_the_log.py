"""What a Rappture run answers is whole wherever the caller reads it (trial24 F8, F4).

REST (``POST /tools/<name>``) has no ``resources/read``: an output larger than the server's
``max_inline_bytes`` is in its answer as data, not a stub naming a ``nanohubmcp://results/…``
resource (which an MCP call on the same server still gets) — for a job a REST call started, too.
The run's log (``<output><log>``), a text block of a direct call, is data as well: a job's result
(``get_job_result``) and a REST answer carry it. The tool runs through the hub's ``rappture
-execute`` (the stand-in of ``hub_path``) and off a hub (its ``<command>``).
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import pytest
from support import ended_job, mcp_client, serve

from nanohubmcp import MCPServer

pytest.importorskip("pint")
pytest.importorskip("matplotlib")

OUTPUTS = Path(__file__).parent / "tools" / "outputs" / "tool.xml"
LOG = "iteration 42: residual 1e-9"


def rest(url: str, name: str, arguments: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """``POST /tools/<name>``: the status and JSON body."""
    request = urllib.request.Request(f"{url}tools/{name}", data=json.dumps(arguments).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=60) as answer:
        return answer.status, json.loads(answer.read())


def rest_job(url: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A job started over REST (202), polled with ``POST /tools/get_job_result`` until it ended."""
    status, handle = rest(url, name, arguments)
    assert status == 202, handle
    deadline = time.monotonic() + 90
    while (answer := rest(url, "get_job_result", {"job_id": handle["job_id"]})[1])["status"] == "running":
        assert time.monotonic() < deadline, answer
        time.sleep(0.05)
    return answer


def test_a_rest_call_gets_a_large_output_as_data_where_an_mcp_call_gets_a_link(hub_path: Path) -> None:
    server = MCPServer("rappture-rest", max_inline_bytes=20_000)
    server.add_rappture_tool(OUTPUTS)
    with serve(server) as url:
        status, body = rest(url, "outputs", {"points": 5000})

        async def mcp_call() -> Any:
            async with mcp_client(url + "mcp") as client:
                return await client.call_tool("outputs", {"points": 5000})

        with anyio.from_thread.start_blocking_portal() as portal:
            mcp = portal.call(mcp_call)
    assert status == 200, body
    up = body["outputs"]["up"]
    assert "resource" not in up, up
    assert len(up["x"]) == 5000
    assert up["y"][-1] == 1.0
    assert body["outputs"]["down"]["y"][-1] == -1.0
    assert body["outputs"]["log"] == {"type": "log", "label": "log", "text": LOG}
    # The same server's MCP caller still gets the large ones kept, named by a URI it can read.
    assert str(mcp.structured_content["outputs"]["up"]["resource"]).startswith("nanohubmcp://results/")


@pytest.mark.parametrize("executor", ["threads", "processes"])
def test_a_job_a_rest_call_started_answers_with_a_large_output_as_data(tmp_path: Path, executor: str) -> None:
    server = MCPServer("rappture-rest-jobs", max_inline_bytes=20_000, job_executor=executor, job_workers=1,
                       state_dir=str(tmp_path / "state"))
    server.add_rappture_tool(OUTPUTS, rappture="", async_=True)
    with serve(server) as url:
        answer = rest_job(url, "outputs", {"points": 5000})
    assert answer["status"] == "done", answer
    outputs = answer["result"]["outputs"]
    assert len(outputs["up"]["x"]) == 5000, outputs["up"]
    assert outputs["log"]["text"] == LOG


@pytest.mark.anyio
async def test_a_jobs_result_carries_the_log_a_direct_call_shows(hub_path: Path, tmp_path: Path) -> None:
    server = MCPServer("rappture-job-log", state_dir=str(tmp_path / "state"))
    server.add_rappture_tool(OUTPUTS)
    server.add_rappture_tool(OUTPUTS, name="outputs_job", async_=True)
    with serve(server) as url, anyio.fail_after(120):
        async with mcp_client(url + "mcp") as client:
            direct = await client.call_tool("outputs", {})
            answer, _ = await ended_job(client, await client.call_tool("outputs_job", {}))
    assert LOG in [c.text for c in direct.content if c.type == "text"]  # the direct call's log block
    assert direct.structured_content["outputs"]["log"] == {"type": "log", "label": "log", "text": LOG}
    assert answer["status"] == "done", answer
    assert answer["result"]["outputs"]["log"] == direct.structured_content["outputs"]["log"]
