"""A task's messages reach its client's GET stream held by another process: three ``nanohubmcp run``
processes sharing a real redis-server, each request sent to one process's own port. The GET stream is
open on the first; a task-augmented ``tools/call`` runs on the second, answered at once as JSON, so
the task's messages have no stream of their own. Its progress and log messages, and its question
(``elicitation/create``), arrive on the GET stream, in order; ``tasks/get`` on the third says
``input_required`` while the question waits; the answer, posted to the third, reaches the task.
With no GET stream open anywhere, the question is refused at once, as on one process.

Found by a fresh-user trial (trial 22, F7): the second process looked only for a GET stream read
by itself, so the question failed with "no stream can carry elicitation/create", the progress and
log messages were dropped, and ``tasks/get`` never said ``input_required``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import wire
from cluster import Cluster, on_own_redis
from support import wait_until

pytestmark = pytest.mark.timeout(120)
ELICITING = {"elicitation": {}}
TASK = {"ttl": 60000}


@pytest.fixture(scope="module")
def nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with on_own_redis(tmp_path_factory.mktemp("task-messages")) as cluster:
        yield cluster


def status(url: str, session: str, task_id: str) -> str:
    return str(wire.result(url, session, "tasks/get", {"taskId": task_id})["status"])


def next_message(stream: wire.Events, timeout: float = 20) -> dict[str, Any]:
    _, message = stream.next(timeout)
    assert message is not None, "the GET stream ended"
    return dict(message)


def read_through(nodes: Cluster, session: str) -> wire.Events:
    """The session's GET stream, opened on the first process, once it reads: a resource change told
    through the other two arrived on it."""
    first, second, third = nodes.servers
    stream = wire.open_get(first.url, session)
    assert stream.status == 200
    wire.result(second.url, session, "resources/subscribe", {"uri": "note://current"})
    wire.result(third.url, session, "tools/call", {"name": "touch_note", "arguments": {"text": "reading"}})
    assert next_message(stream)["method"] == "notifications/resources/updated"
    return stream


def test_a_tasks_question_reaches_the_get_stream_and_its_answer_the_task(nodes: Cluster, tmp_path: Path) -> None:
    first, second, third = nodes.servers
    session = wire.initialize(first.url, capabilities=ELICITING)
    stream = read_through(nodes, session)
    try:
        ready = tmp_path / "ready"
        ready.write_text("go")
        created = wire.result(second.url, session, "tools/call",
                         {"name": "ask_when", "arguments": {"path": str(ready)}, "task": TASK})
        task_id = created["task"]["taskId"]

        question = next_message(stream)
        assert question["method"] == "elicitation/create", question
        assert question["params"]["message"] == "Go on?"
        assert wait_until(lambda: status(third.url, session, task_id) == "input_required",
                          "tasks/get on the third process saying input_required", 30)

        answer = {"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"ok": True}}}
        posted = httpx.post(third.url, headers=wire.headers(session), json=answer, timeout=10)
        assert posted.status_code == 202, posted.text

        ended = wire.result(third.url, session, "tasks/result", {"taskId": task_id})
        assert ended["content"][0]["text"] == "go on: True", ended
        assert status(first.url, session, task_id) == "completed"
    finally:
        stream.close()


def test_a_tasks_progress_and_log_messages_reach_the_get_stream_in_order(nodes: Cluster) -> None:
    first, second, third = nodes.servers
    session = wire.initialize(first.url)
    wire.result(third.url, session, "logging/setLevel", {"level": "info"})
    stream = read_through(nodes, session)
    try:
        created = wire.result(second.url, session, "tools/call", {
            "name": "tally", "arguments": {"n": 4}, "task": TASK, "_meta": {"progressToken": "tally-1"}})
        task_id = created["task"]["taskId"]
        seen = [next_message(stream) for _ in range(8)]
        assert [m["method"] for m in seen] == ["notifications/progress", "notifications/message"] * 4, seen
        assert [m["params"]["progress"] for m in seen[::2]] == [1, 2, 3, 4]
        assert all(m["params"]["progressToken"] == "tally-1" for m in seen[::2])
        assert [m["params"]["data"] for m in seen[1::2]] == [f"tallied {i}" for i in range(1, 5)]
        ended = wire.result(third.url, session, "tasks/result", {"taskId": task_id})
        assert ended["content"][0]["text"].startswith("tallied to 4"), ended
    finally:
        stream.close()


def test_with_no_get_stream_anywhere_a_tasks_question_is_refused_at_once(nodes: Cluster, tmp_path: Path) -> None:
    first, second, third = nodes.servers
    session = wire.initialize(first.url, capabilities=ELICITING)
    ready = tmp_path / "ready"
    ready.write_text("go")
    began = time.monotonic()
    created = wire.result(second.url, session, "tools/call",
                     {"name": "ask_when", "arguments": {"path": str(ready)}, "task": TASK})
    ended = wire.result(third.url, session, "tasks/result", {"taskId": created["task"]["taskId"]})
    assert ended["isError"] is True, ended
    assert "no stream can carry elicitation/create" in ended["content"][0]["text"], ended
    assert time.monotonic() - began < 20  # not the question's 60 s timeout
