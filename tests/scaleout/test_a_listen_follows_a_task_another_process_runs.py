"""A 2026-07-28 ``subscriptions/listen`` held by one process follows a task another process runs:
its status changes (``input_required`` while the tool asks, back to ``working``), its status message
(the progress the tool reports) and its end, each as ``notifications/tasks`` on the listen stream;
another principal's listen naming the task gets nothing. Two ``nanohubmcp run`` processes sharing
a real redis-server, each request sent to one process's own port; the task runs on the first, the
listens are held by the second.

MCP tasks extension (SEP-2663) § Task Status Notifications; MCP 2026-07-28, Basic § Patterns §
Subscriptions. Before, a listen on another process heard of such a task only its end (the task's
status lived in the memory of the process running it), and ``tasks/get`` there said ``working``
while the task waited for its client's answer.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster import Cluster, on_own_redis

sys.path.insert(0, str(Path(__file__).parents[1] / "modern"))
from modern_wire import TASK_CAPS, Stream, Wire

pytestmark = pytest.mark.timeout(120)
SUB = "io.modelcontextprotocol/subscriptionId"
TOKENS = {"alice-token": "alice", "bob-token": "bob"}


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two processes sharing one Redis, each token of :data:`TOKENS` a principal of both."""
    tokens = ",".join(f"{token}={subject}" for token, subject in TOKENS.items())
    with on_own_redis(tmp_path_factory.mktemp("listen"), 2, SCALEOUT_TOKENS=tokens) as nodes:
        yield nodes


class Client:
    """One principal's 2026-07-28 requests (with the tasks extension) to one process."""

    def __init__(self, url: str, token: str) -> None:
        self.wire = Wire(url, caps=TASK_CAPS, timeout=30)
        self.auth = {"Authorization": f"Bearer {token}"}

    def result(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self.wire.call(method, params, headers=self.auth).result

    def start(self, tool: str, **arguments: Any) -> str:
        task = self.result("tools/call", {"name": tool, "arguments": arguments})
        assert task["resultType"] == "task", task
        return str(task["taskId"])

    def listen(self, task_id: str, request_id: str) -> tuple[Stream, dict[str, Any]]:
        """A listen naming ``task_id``, its acknowledgement read."""
        stream = self.wire.listen(
            "subscriptions/listen", {"notifications": {"taskIds": [task_id]}}, request_id=request_id, headers=self.auth
        )
        assert stream.status == 200
        ack = stream.next(timeout=10)
        assert ack is not None, "no acknowledgement"
        assert ack["method"] == "notifications/subscriptions/acknowledged", ack
        return stream, ack["params"]["notifications"]


def runner_and_listener(pair: Cluster, token: str = "alice-token") -> tuple[Client, Client]:
    first, second = pair.servers
    return Client(first.url, token), Client(second.url, token)


def heard(pair: Cluster, tool: str, path: Path, request_id: str) -> tuple[Client, Client, str, Stream]:
    """The runner and listener of :func:`runner_and_listener`, a task of ``tool`` (which waits for
    ``path``) started on the runner, and a listen naming it on the listener."""
    runner, listener = runner_and_listener(pair)
    task_id = runner.start(tool, path=str(path))
    stream, honoured = listener.listen(task_id, request_id)
    assert honoured == {"taskIds": [task_id]}
    return runner, listener, task_id, stream


def next_task(stream: Stream, what: str, timeout: float = 15) -> dict[str, Any]:
    """The next ``notifications/tasks`` of ``stream`` (its params); fails when none comes."""
    message = stream.next(timeout=timeout)
    assert message is not None, f"no task status notification ({what}) within {timeout:g} s"
    assert message["method"] == "notifications/tasks", message
    params: dict[str, Any] = message["params"]
    return params


def until_status(stream: Stream, status: str, timeout: float = 30) -> dict[str, Any]:
    """Task status notifications of ``stream`` up to the first with ``status`` (its params)."""
    deadline = time.monotonic() + timeout
    seen = []
    while (left := deadline - time.monotonic()) > 0:
        task = next_task(stream, f"{status}, after {seen}", left)
        seen.append(task["status"])
        if task["status"] == status:
            return task
    raise AssertionError(f"no {status!r} status within {timeout:g} s; saw {seen}")


def test_a_listen_on_another_process_hears_the_end_of_the_task(pair: Cluster, tmp_path: Path) -> None:
    done = tmp_path / "done"
    _, _, task_id, stream = heard(pair, "until_file", done, "end-1")
    with stream:
        done.write_text("go")
        ended = until_status(stream, "completed")
    assert ended["taskId"] == task_id
    assert ended["result"]["structuredContent"]["found"] == str(done)
    assert ended["_meta"] == {SUB: "end-1"}


def test_a_listen_on_another_process_hears_the_progress_of_the_task(pair: Cluster, tmp_path: Path) -> None:
    done = tmp_path / "done"
    _, _, _, stream = heard(pair, "until_file", done, "progress-1")
    with stream:
        first = next_task(stream, "the task's progress")
        assert first["status"] == "working"
        assert "waiting, step" in first["statusMessage"], first
        second = next_task(stream, "more progress")
        assert second["statusMessage"] != first["statusMessage"]  # (only changes are told)
        done.write_text("go")
        assert until_status(stream, "completed")["result"]["structuredContent"]["found"] == str(done)


def test_a_listen_on_another_process_hears_the_task_ask_and_go_on(pair: Cluster, tmp_path: Path) -> None:
    asked = tmp_path / "ask"
    runner, listener, task_id, stream = heard(pair, "ask_when", asked, "ask-1")
    with stream:
        asked.write_text("now")
        parked = next_task(stream, "input_required")
        assert parked["status"] == "input_required", parked
        assert parked["inputRequests"]["go_on"]["method"] == "elicitation/create"
        assert parked["_meta"] == {SUB: "ask-1"}
        # The listening process answers tasks/get with it too (the status is stored, not only held).
        seen = listener.result("tasks/get", {"taskId": task_id})
        assert seen["status"] == "input_required"
        assert seen["inputRequests"] == parked["inputRequests"]

        runner.result(
            "tasks/update",
            {"taskId": task_id, "inputResponses": {"go_on": {"action": "accept", "content": {"ok": True}}}},
        )
        ended = until_status(stream, "completed")
    assert ended["result"]["content"][0]["text"] == "go on: True"
    assert "inputRequests" not in ended


def test_another_principals_listen_hears_nothing_of_the_task(pair: Cluster, tmp_path: Path) -> None:
    runner, listener = runner_and_listener(pair)
    stranger_runner, stranger = runner_and_listener(pair, "bob-token")
    asked, theirs_done = tmp_path / "ask", tmp_path / "bob-done"
    task_id = runner.start("ask_when", path=str(asked))
    their_task = stranger_runner.start("until_file", path=str(theirs_done))
    own, _ = listener.listen(task_id, "alice-1")
    # The stranger names the task beside one of its own: what its stream carries up to its own
    # task's end is everything it was told meanwhile.
    theirs = stranger.wire.listen(
        "subscriptions/listen",
        {"notifications": {"taskIds": [task_id, their_task]}},
        request_id="bob-1",
        headers=stranger.auth,
    )
    with own, theirs:
        ack = theirs.next(timeout=10)
        assert ack is not None, "no acknowledgement"
        assert ack["params"]["notifications"] == {"taskIds": [their_task]}, ack
        asked.write_text("now")
        assert next_task(own, "input_required")["status"] == "input_required"
        runner.result(
            "tasks/update",
            {"taskId": task_id, "inputResponses": {"go_on": {"action": "accept", "content": {"ok": False}}}},
        )
        assert until_status(own, "completed")["result"]["content"][0]["text"] == "go on: False"
        theirs_done.write_text("go")
        told = []
        while not told or told[-1]["status"] != "completed":
            told.append(next_task(theirs, "the stranger's own task"))
    assert {task["taskId"] for task in told} == {their_task}, told
    refused = stranger.wire.call("tasks/get", {"taskId": task_id}, headers=stranger.auth)
    assert refused.error["code"] == -32602


def test_tasks_update_sent_to_another_process_reaches_the_task(pair: Cluster, tmp_path: Path) -> None:
    """The answer may reach any process: the one receiving it checks it against the requests stored
    with the task and hands it to the process running the task."""
    asked = tmp_path / "ask"
    _, other, task_id, stream = heard(pair, "ask_when", asked, "update-1")
    with stream:
        asked.write_text("now")
        assert next_task(stream, "input_required")["status"] == "input_required"
        malformed = other.wire.call(
            "tasks/update", {"taskId": task_id, "inputResponses": {"go_on": "yes"}}, headers=other.auth
        )
        assert malformed.error["code"] == -32602
        assert "go_on" in malformed.error["message"]
        answer = {"go_on": {"action": "accept", "content": {"ok": True}}}
        other.result("tasks/update", {"taskId": task_id, "inputResponses": answer})
        ended = until_status(stream, "completed")
    assert ended["result"]["content"][0]["text"] == "go on: True"
