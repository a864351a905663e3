"""The finished POST response logs in Redis are bounded across one principal's sessions, and go with their
session (review r40 R40-1): each session kept 8 MiB of them for 5 minutes, so one token holder's 1,000 sessions
could hold ~8 GB of the Redis every process and user shares, and a session's logs outlived its DELETE (a client
opening, filling and deleting sessions in a loop grew Redis by its throughput x 300 s).

- One principal's sessions, on both processes, keep at most ``PRINCIPAL_BYTES`` of finished logs (the newest one's
  whatever its size): Redis's own count of their memory says so; another principal's are untouched.
- A session's DELETE deletes its finished logs and their list at once.
- A stream within the bounds still resumes, on the other process, with its answer.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import httpx2 as httpx
import pytest
import redis
import wire
from cluster import Cluster, on_own_redis

from nanohubmcp.state.base import session_key

pytestmark = pytest.mark.timeout(240)

PREFIX = "nanohubmcp:scaleout-test:"
SIZE = 250_000
PRINCIPAL_BYTES = 64 * 1024 * 1024  # the bound docs/how-to/authorization.md names
TOKENS = {"alice": "alice-token", "bob": "bob-token"}


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cluster, redis.Redis]]:
    """Two server processes with two principals on a redis-server of their own (and a client of it, to look)."""
    tokens = ",".join(f"{token}={name}" for name, token in TOKENS.items())
    with on_own_redis(tmp_path_factory.mktemp("principal-bound"), 2, SCALEOUT_TOKENS=tokens) as nodes:
        yield nodes, redis.Redis.from_url(nodes.state_url, decode_responses=True)


def auth(who: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[who]}"}


def sse_call(client: httpx.Client, url: str, who: str, session: str, rid: int, n: int = SIZE) -> list[str]:
    """``progress_blob`` answered as an SSE stream; its event ids (the progress note's, the answer's)."""
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": "progress_blob", "arguments": {"n": n}, "_meta": {"progressToken": rid}}}
    reply = client.post(url, headers={**wire.headers(session), **auth(who)}, json=body)
    assert reply.status_code == 200, reply.text[:300]
    assert "event-stream" in reply.headers["content-type"]
    ids, last = [], None
    for block in reply.text.split("\n\n"):
        lines = block.splitlines()
        data = "".join(line[5:].strip() for line in lines if line.startswith("data:"))
        if data:
            ids.append(next(line[3:].strip() for line in lines if line.startswith("id:")))
            last = json.loads(data)
    assert last is not None
    assert last["id"] == rid, last
    return ids


def logs(store: redis.Redis, session: str) -> list[str]:
    """The keys of the session's POST response logs in Redis."""
    found = store.scan_iter(f"{PREFIX}ev:{session_key(session)}:*", count=1000)
    return [key for key in found if not key.endswith(":g")]


def written(store: redis.Redis, session: str, event_id: str) -> None:
    """Wait until the log of ``event_id``'s stream holds its answer (one process writes in order)."""
    key = f"{PREFIX}ev:{session_key(session)}:{event_id.split('.')[0]}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and store.xlen(key) < 2:
        time.sleep(0.05)
    assert store.xlen(key) >= 2, "the last call's log was never written"


def memory(store: redis.Redis, sessions: list[str]) -> tuple[int, int]:
    """Redis's count of the memory the sessions' POST response logs take, and how many there are."""
    keys = [key for session in sessions for key in logs(store, session)]
    return sum(int(store.memory_usage(key, samples=0) or 0) for key in keys), len(keys)


def test_one_principals_sessions_keep_a_bounded_part_of_their_logs(two: tuple[Cluster, redis.Redis]) -> None:
    nodes, store = two
    urls = [server.url for server in nodes.servers]
    with httpx.Client(timeout=60) as client:
        bobs = wire.initialize(urls[1], extra=auth("bob"))
        bob_ids = sse_call(client, urls[1], "bob", bobs, 2, n=1000)
    sessions = [wire.initialize(urls[i % 2], extra=auth("alice")) for i in range(12)]
    last: dict[str, list[str]] = {}
    lock = threading.Lock()

    def fill(index: int) -> None:  # 36 answers of 250 kB: ~9 MB a session, ~108 MB in all
        session, url = sessions[index], urls[index % 2]
        with httpx.Client(timeout=60) as client:
            for rid in range(2, 2 + 36):
                ids = sse_call(client, url, "alice", session, rid)
            with lock:
                last[session] = ids

    threads = [threading.Thread(target=fill, args=(i,)) for i in range(len(sessions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    assert len(last) == len(sessions)
    for session, ids in last.items():
        written(store, session, ids[-1])
    deadline = time.monotonic() + 20
    while True:
        kept, count = memory(store, sessions)
        # The newest's own; the allocator's size classes (a 250 kB value takes 256 KiB); each key's overhead.
        bound = int((PRINCIPAL_BYTES + 2 * SIZE) * 1.1) + count * 4096
        if kept <= bound or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert kept <= bound, f"{kept} bytes of one principal's finished logs kept in Redis (bound {bound})"
    assert kept >= PRINCIPAL_BYTES // 2, "the newest logs are kept for resuming"
    bobs_log = f"{PREFIX}ev:{session_key(bobs)}:{bob_ids[-1].split('.')[0]}"
    assert store.xlen(bobs_log) >= 2, "another principal's log was dropped"

    # The newest stream of a session resumes on the other process from its progress note: its answer comes.
    session = sessions[0]
    progress, answer = last[session][0], last[session][-1]
    resumed = wire.Events("GET", urls[1], {**wire.headers(session, **{"Last-Event-ID": progress}), **auth("alice"),
                                           "Accept": "text/event-stream"})
    try:
        assert resumed.status == 200
        event_id, message = resumed.next(step="the resumed stream's answer")
        assert event_id == answer
        assert message["result"]["content"][0]["text"] == "x" * SIZE
    finally:
        resumed.close()


def test_a_deleted_sessions_logs_go_with_it(two: tuple[Cluster, redis.Redis]) -> None:
    nodes, store = two
    url = nodes.servers[0].url
    session = wire.initialize(url, extra=auth("bob"))
    with httpx.Client(timeout=60) as client:
        for rid in range(2, 5):
            ids = sse_call(client, url, "bob", session, rid, n=10_000)
        written(store, session, ids[-1])
        assert len(logs(store, session)) == 3
        deadline = time.monotonic() + 20  # each listed once its answer is written (the same pipeline, or just after)
        while time.monotonic() < deadline and store.llen(f"{PREFIX}ek:{session_key(session)}") < 3:
            time.sleep(0.05)
        assert store.llen(f"{PREFIX}ek:{session_key(session)}") == 3
        gone = client.delete(url, headers={**wire.headers(session), **auth("bob")})
        assert gone.status_code == 204
    assert logs(store, session) == []
    assert not store.exists(f"{PREFIX}ek:{session_key(session)}", f"{PREFIX}eb:{session_key(session)}")

