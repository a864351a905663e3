"""``tasks/get`` of a task another session started, while that session lives, says the id is not found because it
may be another session's (or expired, or another user's), in the same words as an id no server made, so whether
it exists is not told (trial78 NIT: a client that reconnected in a new session, its old one still alive, read
only "(it may have expired)" for its own task, for up to an hour)."""

from __future__ import annotations

from jobs.job_server import Routes, wait_until
from support import serve

from nanohubmcp import MCPServer


def test_another_live_sessions_task_is_not_found_saying_why_without_telling_it_exists(tmp_path) -> None:
    server = MCPServer("two-sessions", state_dir=str(tmp_path))

    @server.async_tool()
    def wait(n: int) -> int:
        """Ends at once."""
        return n

    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        first, second = routes.session(), routes.session()
        reply = routes.rpc(first, "tools/call", {"name": "wait", "arguments": {"n": 1}, "task": {}})
        task_id = reply["result"]["task"]["taskId"]
        wait_until(lambda: routes.rpc(first, "tasks/get", {"taskId": task_id})["result"]["status"] == "completed",
                   "the task to end in its own session", 30)
        theirs = routes.rpc(second, "tasks/get", {"taskId": task_id})["error"]
        made_up = "A" * 32
        nobodys = routes.rpc(second, "tasks/get", {"taskId": made_up})["error"]
    assert theirs["code"] == -32602
    assert theirs["message"] == (
        f'Unknown job or task id: "{task_id}" (it may have expired, or be another session\'s or user\'s)'
    ), theirs
    assert nobodys["message"] == theirs["message"].replace(task_id, made_up)  # the same words: existence untold
