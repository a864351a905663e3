"""A 2025-11-25 task running when its server is killed with SIGKILL: after a restart on the same
state directory, ``tasks/result`` answers the failure as a tool error — ``isError: true`` with
"the server stopped while this job ran: it did not complete; it may be run again" as its text — like
``tasks/get``, REST and
``get_job_result`` do, never an empty ``{"content": []}``.
"""

from __future__ import annotations

from pathlib import Path

from job_server import ServerProcess, wait_until

STOPPED = "the server stopped while this job ran: it did not complete; it may be run again"
RELATED_TASK = "io.modelcontextprotocol/related-task"


def test_tasks_result_of_a_task_killed_with_its_server_is_an_error(tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = ServerProcess(state)
    try:
        session = first.session()
        reply = first.rpc(session, "tools/call", {"name": "wait_for_file",
                                                  "arguments": {"path": str(tmp_path / "never-created")},
                                                  "task": {"ttl": 600000}})
        task_id = reply["result"]["task"]["taskId"]
        wait_until(lambda: first.rpc(session, "tasks/get", {"taskId": task_id})["result"]["status"] == "working",
                   "the running task")
    finally:
        first.kill()

    second = ServerProcess(state)
    try:
        session = second.session()
        task = second.rpc(session, "tasks/get", {"taskId": task_id})["result"]
        assert (task["status"], task["statusMessage"]) == ("failed", STOPPED), task
        result = second.rpc(session, "tasks/result", {"taskId": task_id})["result"]
        assert result["isError"] is True, result
        assert result["content"] == [{"type": "text", "text": STOPPED}], result
        assert result["_meta"][RELATED_TASK] == {"taskId": task_id}
    finally:
        second.stop()
