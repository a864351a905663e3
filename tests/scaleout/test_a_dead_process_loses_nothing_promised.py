"""kill -9 of one process of three: nothing that was promised to the client is lost.

- The process holding a client's GET stream dies: the client reconnects through nginx with
  ``Last-Event-ID`` and gets every event it missed, once (counted by event id), and the
  session works on the other processes.
- The process running a call dies: the client resumes the call's stream on another process;
  what it missed is replayed, then the call is answered with an error saying the process
  stopped (never a hang); the session lives on.
- A question to the client (elicitation) asked by one process is replayed to a client that
  lost its stream, and its answer, posted to another process, resumes the waiting tool.
- A thread job of the dead process is reported failed with a clear message.

The tests that kill a process have a cluster each; the two that kill none share one (``calm_cluster``).
"""

from __future__ import annotations

import json
import time

import pytest
import wire
from cluster import Cluster, heartbeat_runs_out, producer_heartbeat_runs_out
from redis_server import RedisServer

from nanohubmcp.server.jobs.settle import SERVER_STOPPED

pytestmark = pytest.mark.timeout(120)


def test_the_get_stream_resumes_on_another_process_without_loss_or_duplicate(cluster: Cluster) -> None:
    holder, producer, _ = cluster.servers
    session = wire.initialize(cluster.url)
    assert wire.call(cluster.url, session, "resources/subscribe", {"uri": "note://current"}).status_code == 200
    stream = wire.open_get(holder.url, session)
    assert stream.status == 200
    seen: list[str] = []
    for i in range(5):
        wire.tool(producer.url, session, "touch_note", {"text": f"before {i}"})
        event_id, message = stream.next()
        assert message["method"] == "notifications/resources/updated"
        assert event_id is not None
        seen.append(event_id)
    holder.kill()
    stream.close()
    for i in range(5):  # while nobody reads; nginx skips the dead process
        wire.tool(cluster.url, session, "touch_note", {"text": f"while down {i}"})
    resumed = wire.open_get(cluster.url, session, last_event_id=seen[-1])
    assert resumed.status == 200
    for _ in range(5):
        event_id, message = resumed.next()
        assert message["method"] == "notifications/resources/updated"
        seen.append(str(event_id))
    wire.tool(cluster.url, session, "touch_note", {"text": "after"})
    event_id, _ = resumed.next()
    seen.append(str(event_id))
    assert len(seen) == len(set(seen)) == 11, seen
    assert seen == sorted(seen, key=lambda e: tuple(int(p) for p in e.split(".", 1)[1].split("-")))
    resumed.close()
    # The same session goes on, on the processes left.
    assert wire.tool(cluster.url, session, "where", {})["result"]["isError"] is False


def test_a_call_whose_process_died_is_answered_on_another(cluster: Cluster, redis_server: RedisServer) -> None:
    runner = cluster.servers[0]
    session = wire.initialize(cluster.url)
    call = wire.Events(
        "POST",
        runner.url,
        wire.headers(session),
        {
            "jsonrpc": "2.0",
            "id": 41,
            "method": "tools/call",
            "params": {"name": "count", "arguments": {"n": 200, "pause": 0.1}, "_meta": {"progressToken": "t"}},
        },
    )
    seen = []
    for _ in range(3):
        event_id, message = call.next()
        assert message["method"] == "notifications/progress"
        seen.append(event_id)
    runner.kill()
    call.close()
    # Its heartbeat outlives it by at most 10 s (ended now instead): until then its call's stream is waited on.
    producer_heartbeat_runs_out(redis_server.url, session, seen[-1])
    resumed = wire.open_get(cluster.url, session, last_event_id=seen[-1])
    assert resumed.status == 200
    while True:
        event_id, message = resumed.next(timeout=40)
        assert message is not None, "the resumed stream ended without an answer"
        assert event_id not in seen
        seen.append(event_id)
        if "id" in message:
            break
    assert message["id"] == 41
    assert "stopped before it answered" in message["error"]["message"]
    assert len(seen) == len(set(seen))
    assert wire.tool(cluster.url, session, "where", {})["result"]["isError"] is False


def test_an_elicitation_is_replayed_and_its_answer_reaches_the_waiting_process(calm_cluster: Cluster) -> None:
    asker, resumer, answerer = calm_cluster.servers
    session = wire.initialize(calm_cluster.url, capabilities={"elicitation": {}})
    call = wire.Events(
        "POST",
        asker.url,
        wire.headers(session),
        {"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {"name": "ask_name", "arguments": {}}},
    )
    question_id, question = call.next(step="the question on the call's own stream")
    assert question["method"] == "elicitation/create"
    assert question_id is not None
    call.close()  # the client loses the stream before it answered
    # Resume the call's stream from just before the question, on another process.
    stream, seq = question_id.rsplit(".", 1)
    resumed = wire.open_get(resumer.url, session, last_event_id=f"{stream}.{int(seq) - 1}")
    again_id, again = resumed.next(step="the question replayed on the resumed stream")
    assert again_id == question_id
    assert again == question
    answer = {"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": "Grace"}}}
    posted = wire.httpx.post(answerer.url, headers=wire.headers(session), json=answer, timeout=10)
    assert posted.status_code == 202
    _, result = resumed.next(step="the call's answer once the waiting process got the client's")
    assert result["id"] == 42, result
    assert "result" in result, result
    assert result["result"]["content"][0]["text"].startswith("hello Grace from "), result


def test_a_thread_job_of_a_dead_process_is_reported_failed(cluster: Cluster, redis_server: RedisServer) -> None:
    runner = cluster.servers[0]
    session = wire.initialize(cluster.url)
    started = wire.tool(runner.url, session, "long_job", {"seconds": 60})
    job_id = json.loads(started["result"]["content"][0]["text"])["job_id"]
    runner.kill()
    # Its heartbeat in Redis outlives it by at most 10 s (ended now instead): until then the job still reads running.
    heartbeat_runs_out(redis_server.url, job_id)
    deadline = time.monotonic() + 30
    while True:
        polled = wire.tool(cluster.url, session, "get_job_result", {"job_id": job_id})
        body = json.loads(polled["result"]["content"][0]["text"])
        if body["status"] != "running" or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert body["status"] == "error", body
    assert SERVER_STOPPED in json.dumps(body)


def test_a_cancel_sent_to_another_process_stops_the_call(calm_cluster: Cluster) -> None:
    runner, other, _ = calm_cluster.servers
    session = wire.initialize(calm_cluster.url)
    call = wire.Events(
        "POST",
        runner.url,
        wire.headers(session),
        {
            "jsonrpc": "2.0",
            "id": 43,
            "method": "tools/call",
            "params": {"name": "count", "arguments": {"n": 500, "pause": 0.05}, "_meta": {"progressToken": "c"}},
        },
    )
    _, first = call.next()
    assert first["method"] == "notifications/progress"
    wire.notify(other.url, session, "notifications/cancelled", {"requestId": 43, "reason": "changed my mind"})
    messages = []
    while True:
        _, message = call.next(timeout=15)
        if message is None:
            break
        messages.append(message)
    # Withdrawn: the stream ends without a response (MCP 2025-11-25, Utilities § Cancellation), long
    # before the 500 steps (25 s) would have ended.
    assert not [m for m in messages if "id" in m], messages
    assert len([m for m in messages if m.get("method") == "notifications/progress"]) < 100
