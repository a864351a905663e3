"""Jobs outlive the server process: kill -9 after jobs finished, start the server again on the
same state directory, and every route reads every result exactly as before — the official
client's ``get_job_result``, REST polling, 2025-11-25 ``tasks/get``/``tasks/result`` and the 2026
tasks extension's ``tasks/get``. A job that was running when the process died is a clear failure
("the server stopped while this job ran: it did not complete; it may be run again"), never "not found". Ids
nobody was given stay unknown.

Issue 16, "Done when": kill -9 after jobs finished → restart → every result readable; a job
running at kill -9 → clear failure (threads).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from job_server import ServerProcess, wait_until
from support import mcp_client

STOPPED = "the server stopped while this job ran: it did not complete; it may be run again"


def start_every_kind_of_job(server: ServerProcess, marker: Path) -> dict[str, Any]:
    """One finished job per route that starts jobs, plus one left running; returns their ids."""
    ids: dict[str, Any] = {}
    status, body = server.rest_start("square", {"n": 4})
    assert status == 202, body
    ids["rest"] = body["job_id"]
    session = server.session()
    reply = server.rpc(session, "tools/call", {"name": "square", "arguments": {"n": 5}, "task": {"ttl": 600000}})
    ids["task"] = reply["result"]["task"]["taskId"]
    reply = server.modern("tools/call", {"name": "square", "arguments": {"n": 6}})
    assert reply["result"]["resultType"] == "task", reply
    ids["modern"] = reply["result"]["taskId"]
    status, body = server.rest_start("wait_for_file", {"path": str(marker)})
    ids["running"] = body["job_id"]
    for key in ("rest", "modern"):
        wait_until(lambda key=key: server.rest_poll(ids[key])[1]["status"] == "done", f"job {key}")
    # A task of a live session is that session's only.
    assert server.rest_poll(ids["task"])[1]["status"] == "not_found"
    result = server.rpc(session, "tasks/result", {"taskId": ids["task"]})["result"]
    ids["task-result"] = {"status": "done", "job_id": ids["task"], "result": result["structuredContent"]}
    wait_until(lambda: server.rest_poll(ids["running"])[1]["status"] == "running", "the running job")
    return ids


@pytest.mark.anyio
async def test_results_survive_kill_9_and_every_route_reads_them(tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = ServerProcess(state)
    try:
        async with mcp_client(first.url + "mcp") as client:
            handle = await client.call_tool("square", {"n": 3})
            client_job = handle.structured_content["job_id"]
            ids = start_every_kind_of_job(first, tmp_path / "never-created")
            polled = await client.call_tool("get_job_result", {"job_id": client_job})
            while polled.structured_content["status"] == "running":
                time.sleep(0.05)
                polled = await client.call_tool("get_job_result", {"job_id": client_job})
            before = polled.structured_content
        ids["client"] = client_job
        expected = {key: first.rest_poll(ids[key])[1] for key in ("rest", "modern")}
        expected["client"] = before
        expected["task"] = ids["task-result"]
    finally:
        first.kill()

    second = ServerProcess(state)
    try:
        squares = {"client": 9, "rest": 16, "task": 25, "modern": 36}
        async with mcp_client(second.url + "mcp") as client:
            for key, square in squares.items():
                # get_job_result through the official client, in a session of the new process.
                polled = await client.call_tool("get_job_result", {"job_id": ids[key]})
                assert polled.structured_content == expected[key], key
                assert polled.structured_content["result"]["square"] == square
                # REST polling.
                assert second.rest_poll(ids[key]) == (200, expected[key])
                # 2025-11-25 tasks/get and tasks/result, in a fresh session.
                session = second.session()
                task = second.rpc(session, "tasks/get", {"taskId": ids[key]})["result"]
                assert task["status"] == "completed", (key, task)
                result = second.rpc(session, "tasks/result", {"taskId": ids[key]})["result"]
                assert result["structuredContent"]["square"] == square
                # The 2026 tasks extension.
                modern = second.modern("tasks/get", {"taskId": ids[key]})["result"]
                assert modern["status"] == "completed"
                assert modern["result"]["structuredContent"]["square"] == square

            # The job that was running when the process died: failed, saying why, on every route.
            polled = await client.call_tool("get_job_result", {"job_id": ids["running"]})
            assert polled.structured_content == {"status": "error", "job_id": ids["running"], "error": STOPPED}
        assert second.rest_poll(ids["running"])[1]["error"] == STOPPED
        session = second.session()
        task = second.rpc(session, "tasks/get", {"taskId": ids["running"]})["result"]
        assert task["status"] == "failed"
        assert task["statusMessage"] == STOPPED
        modern = second.modern("tasks/get", {"taskId": ids["running"]})["result"]
        assert modern["status"] == "failed"
        assert STOPPED in modern["error"]["message"]

        # An id nobody was given is unknown, as before.
        assert second.rest_poll("made-up-id")[1]["status"] == "not_found"
    finally:
        second.stop()
