"""Redis trouble is loud, not lossy.

Redis stopped for 10 s under a light load through nginx: every request needing it is answered
503 with ``Retry-After`` (never a 500 or a hang), the processes log it, keep running, and serve
again once it is back. Redis restarted without persistence has forgotten the sessions: their
clients get 404 and initialize again, and from then on nothing fails.
"""

from __future__ import annotations

import time

import pytest
import wire
from cluster import Cluster
from redis_server import RedisServer

from nanohubmcp.state.base import session_key

pytestmark = pytest.mark.timeout(150)

OUTAGE_SECONDS = 10.0


def test_an_outage_is_503s_then_404_then_nothing_but_success(cluster: Cluster, redis_server: RedisServer) -> None:
    session = wire.initialize(cluster.url)
    assert wire.tool(cluster.url, session, "where", {})["result"]["isError"] is False
    for _ in range(3):  # a job on each process: their job stores (records, heartbeats) are in use
        assert wire.tool(cluster.url, session, "slow_square", {"x": 2})["result"]["isError"] is False
    stream = wire.open_get(cluster.url, session)
    assert stream.status == 200
    redis_server.stop()
    statuses: dict[int, int] = {}
    retry_after = set()
    deadline = time.monotonic() + OUTAGE_SECONDS
    rest = cluster.url.rsplit("/mcp", 1)[0] + "/tools/slow_square"
    calls = 0
    while time.monotonic() < deadline:
        started = time.monotonic()
        calls += 1
        if calls % 2:  # a job started over REST: no session to read first, the job store's own failure
            reply = wire.httpx.post(rest, json={"x": 1}, timeout=10)
        else:
            reply = wire.call(cluster.url, session, "tools/call", {"name": "where", "arguments": {}}, timeout=10)
        assert time.monotonic() - started < 8, "a request hung while Redis was down"
        statuses[reply.status_code] = statuses.get(reply.status_code, 0) + 1
        if reply.status_code == 503:
            retry_after.add(reply.headers.get("Retry-After"))
            assert calls % 2 or reply.json()["error"]["code"] == -32000
        time.sleep(0.1)
    assert set(statuses) == {503}, statuses
    assert retry_after == {"5"}
    redis_server.start()  # the same port, nothing kept
    # The session is gone with Redis's memory: 404 (once the processes reach Redis again).
    deadline = time.monotonic() + 20
    status = 503
    while status == 503 and time.monotonic() < deadline:
        status = wire.call(cluster.url, session, "tools/call", {"name": "where", "arguments": {}}).status_code
        time.sleep(0.2)
    assert status == 404
    # The GET stream of the forgotten session ends too (never left open for nothing).
    _, end = stream.next(timeout=20)
    assert end is None
    fresh = wire.initialize(cluster.url)
    after = [
        wire.call(cluster.url, fresh, "tools/call", {"name": "where", "arguments": {}}).status_code for _ in range(30)
    ]
    assert after == [200] * 30
    assert all(server.proc.poll() is None for server in cluster.servers), "a process died"
    logs = cluster.logs()
    assert "unreachable" in logs
    assert "reachable again" in logs
    # Once per outage each (trial34 X5): the job store's clients (records, heartbeats) logged every failed
    # command, and each purge its failure, over and over while Redis was away.
    for server in cluster.servers:
        lines = server.text().splitlines()
        job_store = [line for line in lines if "job store in" in line and "unreachable" in line]
        assert len(job_store) <= 2, "\n".join(job_store)
        assert not [line for line in lines if "could not purge expired jobs" in line]


def test_everything_kept_expires(cluster: Cluster, redis_server: RedisServer) -> None:
    import redis

    session = wire.initialize(cluster.url)
    call = wire.Events(
        "POST",
        cluster.url,
        wire.headers(session),
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "tools/call",
            "params": {"name": "count", "arguments": {"n": 3}, "_meta": {"progressToken": "k"}},
        },
    )
    ids = []
    while True:
        event_id, message = call.next()
        ids.append(event_id)
        if "id" in message:
            break
    store = redis.Redis.from_url(redis_server.url, decode_responses=True)
    stream_key = f"nanohubmcp:scaleout-test:ev:{session_key(session)}:{ids[0].split('.')[0]}"
    deadline = time.monotonic() + 10
    while store.ttl(stream_key) > 300 and time.monotonic() < deadline:  # the final entry is written
        time.sleep(0.1)
    assert 0 < store.ttl(stream_key) <= 300, "a finished response's log is kept 5 minutes"
    keys = list(store.scan_iter("nanohubmcp:scaleout-test:*"))
    without_ttl = [k for k in keys if store.ttl(k) == -1]
    # Bounded instead: the requestState key and its keeping's id (one each) and the job indexes (at most max_jobs ids).
    kept = (":rs:key", ":rs:since", ":jobs", ":jobs:live")
    assert all(k.endswith(kept) or ":jobs:o:" in k for k in without_ttl), without_ttl
    session_ttl = store.ttl(f"nanohubmcp:scaleout-test:s:{session_key(session)}")
    assert 3500 < session_ttl <= 3600
