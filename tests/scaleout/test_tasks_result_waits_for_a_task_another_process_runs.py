"""``tasks/result`` sent to one process while another process of the server runs the task blocks
until the task ends there, then answers its result (three ``nanohubmcp run`` processes sharing a
real redis-server, each request sent to one process's own port).

MCP 2025-11-25, Basic § Utilities § Tasks, ``tasks/result``: the receiver blocks until the task
reaches a terminal status, then returns the result. Found by a helper (trial 18, F1 notes): the
receiving process rebuilt the job from Redis and waited on an event that only the process running
the job sets, so the answer never came (until the client gave up).
"""

from __future__ import annotations

import http.client
import json
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as NoAnswer
from pathlib import Path
from typing import Any

import pytest
import wire
from cluster import Cluster
from jobs.job_server import wait_until

pytestmark = pytest.mark.timeout(120)
RELATED_TASK = "io.modelcontextprotocol/related-task"


def rpc(url: str, session: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = wire.call(url, session, method, params, rid=5)
    assert reply.status_code == 200, reply.text
    body: dict[str, Any] = reply.json()
    return body


class Waiting:
    """A task started on the cluster's first process (it runs until ``done`` exists), and its
    ``tasks/result`` posted to the second process, its bytes in that process's socket once made. The
    answer is read on a thread of its own (:meth:`answer`)."""

    def __init__(self, cluster: Cluster, done: Path, rid: int) -> None:
        self.runner, self.other, self.third = cluster.servers
        self.session = session = wire.initialize(self.runner.url)
        created = rpc(self.runner.url, session, "tools/call", {"name": "until_file", "arguments": {
            "path": str(done)}, "task": {"ttl": 60000}})
        self.task_id: str = created["result"]["task"]["taskId"]
        self.connection = http.client.HTTPConnection("127.0.0.1", self.other.port, timeout=90)
        body = {"jsonrpc": "2.0", "id": rid, "method": "tasks/result", "params": {"taskId": self.task_id}}
        self.connection.request("POST", "/mcp", json.dumps(body), {  # (sent whole before it returns)
            **wire.headers(session), "Accept": "application/json", "Content-Type": "application/json"})
        self.reader = ThreadPoolExecutor(1)
        self.response = self.reader.submit(self._read)
        # A request sent after it to the same process is answered: that process took it, and the task runs.
        assert self.status(self.other.url) == "working"

    def status(self, url: str) -> str:
        return str(rpc(url, self.session, "tasks/get", {"taskId": self.task_id})["result"]["status"])

    def _read(self) -> tuple[int, bytes]:
        response = self.connection.getresponse()
        return response.status, response.read()

    def answer(self, timeout: float = 60) -> tuple[int, bytes]:
        """The status and body of the answer; fails the test when none comes within ``timeout`` seconds."""
        try:
            return self.response.result(timeout)
        except NoAnswer:
            raise AssertionError(f"no answer to tasks/result within {timeout:g} s") from None

    def close(self) -> None:
        self.connection.close()
        self.reader.shutdown(wait=False)


def test_tasks_result_on_another_process_answers_once_the_task_ends(cluster: Cluster, tmp_path: Path) -> None:
    done = tmp_path / "done"
    waiting = Waiting(cluster, done, rid=21)
    try:
        assert not waiting.response.done(), "tasks/result answered while its task ran"
        done.write_text("go")

        status, raw = waiting.answer()
        assert status == 200, raw
        response = json.loads(raw)
        assert response["id"] == 21, response
        result = response["result"]
        assert result["structuredContent"]["found"] == str(done), result
        assert result["_meta"][RELATED_TASK] == {"taskId": waiting.task_id}
        # Every process answers it the same once it ended (the runner's own wait is its done event).
        for url in (waiting.runner.url, waiting.third.url):
            again = rpc(url, waiting.session, "tasks/result", {"taskId": waiting.task_id})["result"]
            assert again["structuredContent"] == result["structuredContent"]
    finally:
        waiting.close()


def test_a_cancelled_tasks_result_stops_waiting_for_a_task_another_process_runs(
    cluster: Cluster, tmp_path: Path
) -> None:
    """The client cancels its ``tasks/result`` (``notifications/cancelled``): the wait ends there,
    while the task runs on, and the cancelled request gets no result: its JSON-only POST is answered -32800."""
    done = tmp_path / "done"
    waiting = Waiting(cluster, done, rid=31)
    try:
        cancel = {"requestId": 31, "reason": "gave up"}
        wire.notify(waiting.other.url, waiting.session, "notifications/cancelled", cancel)
        status, raw = waiting.answer(timeout=30)
        # No result: the request was withdrawn; its POST (JSON only) is answered -32800 (74321b2), not 202.
        assert status == 200, raw
        assert json.loads(raw)["error"]["code"] == -32800, raw
        assert waiting.status(waiting.runner.url) == "working"
    finally:
        waiting.close()
    done.write_text("go")
    wait_until(lambda: waiting.status(waiting.other.url) == "completed", "the task's end")
