"""A Sim2L served as a job tool (``background=True``, ``--async``) checks its arguments with simtool's
types (units, limits, File and Image names) before the job is made: a value the run would refuse is
-32602 over MCP (no task created) and REST 400 (no job id), worded as the direct call's refusal.

Found by a review of job tools: such a tool checked its arguments only inside the job, so a bad value
became a job that failed ("Invalid arguments for tool ...") — a job id to poll for an error the
server knew at once — where a Rappture job tool already refused before the job.
"""

from __future__ import annotations

import base64
from pathlib import Path

import anyio
import pytest
from jobs.job_server import Routes
from mcp.shared.exceptions import MCPError
from sim2l.cooling_variant import COOLING
from support import mcp_client, serve, wait_until

from nanohubmcp import MCPServer

ALLKINDS = Path(__file__).parent / "data" / "allkinds" / "allkinds.ipynb"
HOT = {"initial_temperature": "3000 K", "points": 5}
"""Over the cooling Sim2L's limit (2000 K) once converted: no schema can say so."""
NUL_NAME = {"notes": {"name": "x\u0000y", "base64": base64.b64encode(b"some text").decode("ascii")}}


@pytest.mark.anyio
@pytest.mark.timeout(180)
async def test_a_sim2l_job_tool_refuses_bad_arguments_before_making_the_job(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    server = MCPServer("sim2l-job-args", state_dir=str(tmp_path), argument_errors="protocol")
    server.add_sim2l(str(COOLING), name="cool")  # the direct call, for its wording
    server.add_sim2l(str(COOLING), name="cool_job", background=True)
    server.add_sim2l(str(ALLKINDS), name="kinds_job", background=True)
    runners = [server.core.registry.tools.get(name).extra["sim2l"] for name in ("cool", "cool_job", "kinds_job")]

    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        status, direct = routes.rest_start("cool", HOT)
        assert status == 400, direct
        said = direct["error"].replace("'cool'", "'cool_job'")
        assert said.startswith("Invalid arguments for tool 'cool_job': input 'initial_temperature': "), said

        status, body = routes.rest_start("cool_job", HOT)
        assert status == 400, body  # refused, not a job that fails
        assert "job_id" not in body, body
        assert body["error"] == said
        status, body = routes.rest_start("kinds_job", NUL_NAME)
        assert status == 400, body
        assert body["error"].startswith("Invalid arguments for tool 'kinds_job': input 'notes': the file name "
                                        "\"x\\u0000y\" holds U+0000 (NUL)"), body

        async with mcp_client(url + "mcp") as client:
            with anyio.fail_after(60), pytest.raises(MCPError) as refused:
                await client.call_tool("cool_job", HOT)
            assert (refused.value.error.code, refused.value.error.message) == (-32602, said)

        session = routes.session()
        for answer in (  # as a task: 2025-11-25 (params.task), 2026-07-28 (the tasks extension)
            routes.rpc(session, "tools/call", {"name": "cool_job", "arguments": HOT, "task": {"ttl": 60000}}),
            routes.modern("tools/call", {"name": "cool_job", "arguments": HOT}),
        ):
            assert "result" not in answer, answer
            assert (answer["error"]["code"], answer["error"]["message"]) == (-32602, said), answer

        # No refused call left a job behind; a good value still starts one, which runs
        assert server.core.job_service.jobs.listing() == []
        status, body = routes.rest_start("cool_job", {"initial_temperature": "1000 K", "points": 5})
        assert status == 202, body
        polled = wait_until(lambda: (lambda got: got if got[1].get("status") in ("done", "failed") else None)(
            routes.rest_poll(body["job_id"])), "the job's end", 150)
        assert polled[1]["status"] == "done", polled
        assert len(server.core.job_service.jobs.listing()) == 1

    assert [runner.store.runs for runner in runners] == [0, 1, 0]  # the refused calls ran no notebook
