"""The event logs of a session's finished POST response streams are bounded in Redis as in one
process's memory (trial31 S13): every response answered as an SSE stream was kept whole for 5 minutes,
so one token holder calling a tool that reports progress grew Redis by ~250 KB a call without limit.

- Many SSE-answered calls of one session keep at most 64 finished logs and about 8 MiB of them
  (the newest one's whatever its size) in Redis: Redis's own count of their memory says so.
- A stream within the bound still resumes, on another process, with what the client missed.
- A ``Last-Event-ID`` naming a stream whose log was dropped opens the session's GET stream afresh,
  as one process does for a stream it no longer holds (:func:`test_one_process_forgets_the_oldest_finished_streams`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
import redis
import wire
from cluster import Cluster
from redis_server import RedisServer, find_redis
from support import installed

from nanohubmcp.server.wire.sessions import MAX_STREAMS, Session
from nanohubmcp.state.base import session_key
from nanohubmcp.state.redis_events import KEEP_BYTES, KEEP_STREAMS, TRIM_SHA

pytestmark = pytest.mark.timeout(180)

PREFIX = "nanohubmcp:scaleout-test:"
SIZE = 100_000
CALLS = 160  # 16 MB of responses: twice the bound


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cluster, redis.Redis]]:
    """Two server processes on a redis-server of their own (and a client of it, to look)."""
    from nginx_weber import find_nginx

    workdir = tmp_path_factory.mktemp("bound")
    store = RedisServer(installed(find_redis(), "redis-server"), workdir).start()
    try:
        nodes = Cluster(installed(find_nginx(), "nginx"), workdir, store.url, 2)
        try:
            yield nodes, redis.Redis.from_url(store.url, decode_responses=True)
        finally:
            nodes.close()
    finally:
        store.stop()


def sse_call(url: str, session: str, rid: int, n: int = SIZE) -> list[tuple[str | None, dict[str, Any]]]:
    """``progress_blob`` called as the official client calls it (progress token, SSE accepted); its events."""
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": "progress_blob", "arguments": {"n": n}, "_meta": {"progressToken": rid}}}
    reply = wire.Events("POST", url, wire.headers(session), body)
    try:
        assert reply.status == 200
        events: list[tuple[str | None, dict[str, Any]]] = []
        while (event := reply.next())[1] is not None:
            events.append(event)
    finally:
        reply.close()
    assert events[-1][1]["id"] == rid, events[-1]
    return events


def logs(store: redis.Redis, session: str) -> list[str]:
    """The keys of the session's POST response logs in Redis."""
    found = store.scan_iter(f"{PREFIX}ev:{session_key(session)}:*", count=1000)
    return [key for key in found if not key.endswith(":g")]


def test_many_sse_answers_of_one_session_keep_a_bounded_log(two: tuple[Cluster, redis.Redis]) -> None:
    nodes, store = two
    url = nodes.servers[0].url
    session = wire.initialize(url)
    before = int(store.info("memory")["used_memory"])
    ids = iter(range(100, 100 + CALLS))
    lock = threading.Lock()
    last: list[str] = []

    def caller() -> None:
        while True:
            with lock:
                rid = next(ids, None)
            if rid is None:
                return
            events = sse_call(url, session, rid)
            with lock:
                last.append(str(events[-1][0]))

    threads = [threading.Thread(target=caller) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(last) == CALLS
    newest = sse_call(url, session, 99)[-1][0]  # written after every other (one process writes in order)
    assert newest is not None
    newest_key = f"{PREFIX}ev:{session_key(session)}:{newest.split('.')[0]}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and store.xlen(newest_key) < 2:
        time.sleep(0.05)
    assert store.xlen(newest_key) >= 2, "the last call's log was never written"
    # Redis's count of the memory the logs take, not ours of their messages.
    kept = bound = 0
    while time.monotonic() < deadline:
        keys = logs(store, session)
        kept = sum(int(store.memory_usage(key, samples=0) or 0) for key in keys)
        bound = KEEP_BYTES + 2 * SIZE + len(keys) * 4096  # the newest's own, and each key's overhead
        if kept <= bound and len(keys) <= KEEP_STREAMS:
            break
        time.sleep(0.05)
    assert len(keys) <= KEEP_STREAMS, f"{len(keys)} finished logs kept"
    assert kept <= bound, f"{kept} bytes of finished logs kept in Redis (bound {bound})"
    assert kept >= KEEP_BYTES // 2, "the newest logs are kept for resuming"
    grown = int(store.info("memory")["used_memory"]) - before
    assert grown < 2 * KEEP_BYTES, f"Redis grew by {grown} bytes"

    # A dropped stream (the first call's): a fresh GET stream, as one process gives it.
    oldest = f"{last[0].split('.')[0]}.1"
    assert not store.exists(f"{PREFIX}ev:{session_key(session)}:{oldest.split('.')[0]}")
    other = nodes.servers[1].url
    resumed = wire.open_get(other, session, last_event_id=oldest)
    try:
        assert resumed.status == 200
        second = httpx.get(other, headers={**wire.headers(session), "Accept": "text/event-stream"}, timeout=10)
        assert second.status_code == 409, "the resume did not open the session's GET stream"
    finally:
        resumed.close()


def test_a_stream_within_the_bound_resumes_on_another_process(two: tuple[Cluster, redis.Redis]) -> None:
    nodes, store = two
    session = wire.initialize(nodes.servers[0].url)
    events = sse_call(nodes.servers[0].url, session, 5, n=1000)
    progress_id = next(event_id for event_id, message in events if message.get("method") == "notifications/progress")
    key = f"{PREFIX}ev:{session_key(session)}:{progress_id.split('.')[0]}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and store.xlen(key) < 2:
        time.sleep(0.05)
    resumed = wire.open_get(nodes.servers[1].url, session, last_event_id=progress_id)
    try:
        assert resumed.status == 200
        event_id, message = resumed.next()
        assert message["id"] == 5
        assert message["result"]["content"][0]["text"] == "x" * 1000
        assert event_id == events[-1][0]
    finally:
        resumed.close()


def test_one_process_forgets_the_oldest_finished_streams() -> None:
    """The memory backend's bound, which Redis's matches: a session holds at most MAX_STREAMS streams;
    the oldest finished ones go first, and a ``Last-Event-ID`` naming one then finds no stream (the
    transport opens the GET stream instead)."""
    session = Session("x", "2025-11-25")
    opened = []
    for rid in range(MAX_STREAMS + 1):
        stream = session.new_stream(rid)
        stream.send({"jsonrpc": "2.0", "id": rid, "result": {}}, final=True)
        opened.append(stream.stream_id)
    assert MAX_STREAMS == KEEP_STREAMS
    assert session.stream_for_event(f"{opened[0]}.1") is None
    assert session.stream_for_event(f"{opened[-1]}.1") is not None



def test_the_bound_holds_after_redis_forgets_its_scripts(two: tuple[Cluster, redis.Redis]) -> None:
    """``SCRIPT FLUSH`` (or a Redis restarted empty) drops the trimming script: the next write is
    answered "no such script", loads it again and trims, so the bound still holds."""
    nodes, store = two
    url = nodes.servers[0].url
    session = wire.initialize(url)
    store.script_flush()
    for rid in range(KEEP_STREAMS + 8):
        sse_call(url, session, rid, n=10)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len(logs(store, session)) > KEEP_STREAMS:
        time.sleep(0.05)
    assert len(logs(store, session)) <= KEEP_STREAMS
    assert store.script_exists(TRIM_SHA) == [True]
