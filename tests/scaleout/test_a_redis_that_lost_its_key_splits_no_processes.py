"""A Redis that lost the ``requestState`` key (``rs:key``) leaves the processes of a server agreeing on one key.

Every process derives the keyed digest of a principal kept in a session record, and the key signing a
``requestState`` and a list cursor, from ``rs:key``, read once as it starts. Trial 71 (T71-1): Redis restarted
without persistence (or flushed, or evicting), then one process restarted: it made a new ``rs:key`` while the other
kept the one it read, and from then on every new session was answered 404 ("Session not found") whenever a request
reached the process that did not open it, for good, ``/readyz`` saying ready and nothing logged. Now each heartbeat
puts back the key the store lost, or takes the one another process made meanwhile (logged), so within a heartbeat
or two every process signs with one key again. With ``state_secret`` the store holds no key: nothing to lose.
The first process says the store lost the key whoever put it back (flaky43: in CI the second, killed just after
Redis restarted, had put it back and ended before it logged; nothing was said), at a heartbeat after the processes
agree again: waited for.

Two ``nanohubmcp run`` processes on a real redis-server, alice's requests sent to each process's own port.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import wire
from cluster import Server
from paged_lists import paged_server
from redis_server import RedisServer, free_port
from support import serve, wait_until

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(180)
AUTH = {"Authorization": "Bearer alice-token"}
AGREE_SECONDS = 30.0
"""How long the processes may take to agree again (a heartbeat is every 2 s; a loaded host is slow)."""
SECRET = "a state secret both processes share"
NAME = "rekeyed"
JOBS = "rekeyed-jobs"


def listed(url: str, session: str) -> int:
    """The HTTP status of alice's ``tools/list`` naming ``session`` at ``url``."""
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    return httpx.post(url, headers={**wire.headers(session), **AUTH}, json=body, timeout=20).status_code


def crossed(here: Server, there: Server) -> int:
    """The status of a new session of alice's opened ``here``, then named ``there`` (or the status opening it
    had: 503 while ``here`` finds Redis back)."""
    opened = wire.open_session(here.url, extra=AUTH)
    if opened.status_code != 200:
        return opened.status_code
    session = opened.headers["Mcp-Session-Id"]
    wire.notify(here.url, session, "notifications/initialized", extra=AUTH)
    return listed(there.url, session)


def crossing(first: Server, second: Server) -> list[int]:
    """:func:`crossed` both ways."""
    return [crossed(first, second), crossed(second, first)]


def started(tmp_path: Path, port: int, state_url: str, index: int, secret: str | None) -> Server:
    env = {**os.environ, "MCP_TOKEN": "", "SCALEOUT_TOKENS": "alice-token=alice",
           "NANOHUBMCP_STATE_DIR": str(tmp_path / f"state-{index}")}  # as on two machines
    env.pop("NANOHUBMCP_STATE_URL", None)
    if secret is not None:
        env["SCALEOUT_STATE_SECRET"] = secret
    server = Server(tmp_path, port, state_url, env=env)
    server.wait_listening()
    return server


@pytest.mark.parametrize(("loss", "secret"), [("restart", None), ("another key", None), ("restart", SECRET)])
def test_new_sessions_cross_processes_after_redis_lost_the_key_and_one_restarted(
        redis_server: RedisServer, tmp_path: Path, loss: str, secret: str | None) -> None:
    one = started(tmp_path, free_port(), redis_server.url, 0, secret)
    two = started(tmp_path, free_port(), redis_server.url, 1, secret)
    try:
        assert crossing(one, two) == [200, 200]
        if loss == "restart":  # as the trial: without persistence, Redis forgets everything, rs:key too
            redis_server.stop()
            redis_server.start()
        else:  # flushed, and a process starting meanwhile made another key before any heartbeat put one back
            with redis.Redis.from_url(redis_server.url) as store:
                store.flushall()
                store.set("nanohubmcp:scaleout-test:rs:key", "f" * 64)
        two.kill()
        two = started(tmp_path, two.port, redis_server.url, 1, secret)
        deadline = time.monotonic() + AGREE_SECONDS
        while (seen := crossing(one, two)) != [200, 200] and time.monotonic() < deadline:
            time.sleep(0.2)  # (polled: the processes agree at a heartbeat of the first)
        assert seen == [200, 200], f"a new session is 404 on the other process: {seen}\n{one.report()}"
        for _ in range(3):  # and they keep agreeing
            assert crossing(one, two) == [200, 200]
        if secret is not None:
            assert "requestState key" not in one.text() + two.text()  # nothing in the store to lose
        elif loss == "another key":  # (said before it took the key: before they could agree)
            assert "holds another requestState key (rs:key) than this process's" in one.text(), one.report()
        else:  # said by the first process whoever put the key back (in CI, the second, then killed), at a heartbeat
            wait_until(lambda: "requestState key (rs:key" in one.text(),
                       f"the first process saying the store lost the key\n{one.report()}", AGREE_SECONDS)
    finally:
        one.stop()
        two.stop()


def second_page_elsewhere(first: str, late: str) -> bool:
    """Whether a ``tools/list`` cursor ``first`` issued (sealed with its ``requestState`` key) pages on ``late``."""
    session = wire.initialize(first)
    cursor = wire.result(first, session, "tools/list", {})["nextCursor"]
    return wire.call(late, session, "tools/list", {"cursor": cursor}).json().get("result") is not None


def test_a_process_signs_with_the_key_another_made_after_the_store_lost_its_own(redis_server: RedisServer) -> None:
    """The key taken from the store is the one signing from then on, not only the principals' digests': a list
    cursor the surviving process issues pages on a process started after the loss (two servers in this process)."""
    with serve(paged_server(NAME, state_url=redis_server.url)) as first:
        assert second_page_elsewhere(first + "mcp", first + "mcp")
        with redis.Redis.from_url(redis_server.url) as store:
            store.flushall()
            store.set(f"nanohubmcp:{NAME}:rs:key", "e" * 64)  # as a process starting then made it
        with serve(paged_server(NAME, state_url=redis_server.url)) as late:
            wait_until(lambda: second_page_elsewhere(first + "mcp", late + "mcp"),
                       "a cursor of the surviving process pages on the late one", AGREE_SECONDS)


def jobs_server(url: str) -> MCPServer:
    """alice's server on the store ``url``, with a task ``double(n)``."""
    server = MCPServer(JOBS, state_url=url, auth=StaticTokenVerifier({"alice-token": "alice"}))

    @server.async_tool()
    def double(n: int) -> int:
        """Twice n, as a job."""
        return 2 * n

    return server


def sent(url: str, session: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = httpx.post(url, headers={**wire.headers(session), "Accept": "application/json", **AUTH},
                       json={"jsonrpc": "2.0", "id": 3, "method": method, "params": params}, timeout=30)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def task_read_elsewhere(first: str, late: str) -> bool:
    """Whether alice's task started in a new session on ``first`` is hers on ``late`` (the job record names her by the
    digest ``first``'s job store made; ``late`` must serve the session too)."""
    session = wire.initialize(first, extra=AUTH)
    started = sent(first, session, "tools/call", {"name": "double", "arguments": {"n": 2}, "task": {"ttl": 60000}})
    task_id = started["result"]["task"]["taskId"]
    got = httpx.post(late, headers={**wire.headers(session), "Accept": "application/json", **AUTH}, timeout=30,
                     json={"jsonrpc": "2.0", "id": 4, "method": "tasks/get", "params": {"taskId": task_id}})
    return got.status_code == 200 and "result" in got.json()


def test_the_job_store_follows_the_key_another_process_made(redis_server: RedisServer) -> None:
    """A job store names a job's principal by the digest under the store's key, read at its first job: it follows a
    key made after the loss too, as the sessions' digest does, so alice's task started on the surviving process is
    hers on a process started after (two servers in this process)."""
    with serve(jobs_server(redis_server.url)) as first:
        assert task_read_elsewhere(first + "mcp", first + "mcp")  # its job store has read the key
        with redis.Redis.from_url(redis_server.url) as store:
            store.flushall()
            store.set(f"nanohubmcp:{JOBS}:rs:key", "d" * 64)  # as a process starting then made it
        with serve(jobs_server(redis_server.url)) as late:
            wait_until(lambda: task_read_elsewhere(first + "mcp", late + "mcp"),
                       "a task of the surviving process is alice's on the late one", AGREE_SECONDS)
