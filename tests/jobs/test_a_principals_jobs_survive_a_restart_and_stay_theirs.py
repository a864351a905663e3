"""With authorization, a job belongs to the principal that started it, across a kill -9 and
restart: its owner reads the result by every route (REST polling, ``get_job_result`` and
``tasks/get`` in a new session, the 2026 ``tasks/get``); another principal holding the same id
gets the answer of an unknown job on every route.

Issue 16, "Done when": kill -9 after jobs finished → restart → every result readable by its
owner, by every route, and not by another.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from job_server import Routes, ServerProcess, wait_until


def read_everywhere(caller: Routes, job_id: str) -> dict[str, Any]:
    """What each route answers ``caller`` for ``job_id``."""
    session = caller.session()
    polled = caller.rpc(session, "tools/call", {"name": "get_job_result", "arguments": {"job_id": job_id}})
    return {
        "rest": caller.rest_poll(job_id)[1],
        "get_job_result": polled["result"]["structuredContent"],
        "tasks/get": caller.rpc(session, "tasks/get", {"taskId": job_id}),
        "modern tasks/get": caller.modern("tasks/get", {"taskId": job_id}),
    }


def test_a_job_stays_its_principals_across_kill_9(tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = ServerProcess(state, auth=True)
    try:
        alice = first.as_caller("token-of-alice")
        status, body = alice.rest_start("square", {"n": 7})
        assert status == 202, body
        job_id = body["job_id"]
        wait_until(lambda: alice.rest_poll(job_id)[1]["status"] == "done", "the job")
        assert first.as_caller("token-of-bob").rest_poll(job_id)[1]["status"] == "not_found"
    finally:
        first.kill()

    second = ServerProcess(state, auth=True)
    try:
        assert second.as_caller(None).rest_poll(job_id)[0] == 401  # no token: no answer at all
        mine = read_everywhere(second.as_caller("token-of-alice"), job_id)
        assert mine["rest"]["status"] == "done"
        assert mine["rest"]["result"]["square"] == 49
        assert mine["get_job_result"] == mine["rest"]
        assert mine["tasks/get"]["result"]["status"] == "completed"
        assert mine["modern tasks/get"]["result"]["result"]["structuredContent"]["square"] == 49

        theirs = read_everywhere(second.as_caller("token-of-bob"), job_id)
        assert theirs["rest"]["status"] == "not_found"
        assert theirs["get_job_result"]["status"] == "not_found"
        assert theirs["tasks/get"]["error"]["code"] == -32602
        assert theirs["modern tasks/get"]["error"]["code"] == -32602
    finally:
        second.stop()
