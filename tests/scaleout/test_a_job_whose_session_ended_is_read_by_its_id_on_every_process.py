"""With Redis, a job whose session ended — by a DELETE on any process, or by idle expiry, which no
process is told of — is read and cancelled by its id by any caller of the same principal, on every
process, while the run that started it still serves (trial11 F13; the single-process cases:
tests/jobs/test_a_job_whose_session_ended_is_read_by_its_id.py).

Two servers in this process sharing a real redis-server stand for two workers (each its own job store,
runner token and heartbeat); the last test runs three real ``nanohubmcp run`` processes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
import wire
from jobs.session_calls import Caller
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(90)


def build(state_url: str, release: threading.Event, **options: Any) -> MCPServer:
    server = MCPServer("ended-sessions-everywhere", state_url=state_url, **options)

    @server.async_tool()
    def hold(n: int) -> dict:
        """Runs until the test releases it."""
        release.wait(30)
        return {"held": n}

    return server


@contextmanager
def two(state_url: str, **options: Any) -> Iterator[tuple[threading.Event, str, str]]:
    release = threading.Event()
    try:
        with ExitStack() as stack:
            here, there = (stack.enter_context(serve(build(state_url, release, **options))) for _ in range(2))
            yield release, here, there
    finally:
        release.set()


def test_a_delete_on_another_process_lets_every_process_read_and_cancel_it(redis_server: RedisServer) -> None:
    verifier = StaticTokenVerifier({"alice-token": "alice", "bob-token": "bob"})
    with two(redis_server.url, auth=verifier) as (release, here, there):
        near, far = Caller(here, "alice-token"), Caller(there, "alice-token")
        mine = near.open()
        job_id = near.call(mine, "hold", {"n": 1})["job_id"]
        waiting = near.call(mine, "hold", {"n": 2})["job_id"]
        other = far.open()
        assert far.status(other, job_id) == "not_found"
        far.end(mine)  # the job runs on the first process; its session is ended on the second
        assert far.status(other, job_id) == "running"
        assert near.status(near.open(), job_id) == "running"  # the process running it reads the store too
        assert far.rest("get_job_result", {"job_id": job_id})[0] == 200
        bob = Caller(there, "bob-token")
        assert bob.status(bob.open(), job_id) == "not_found"
        assert bob.rest("get_job_result", {"job_id": job_id})[0] == 404
        assert far.call(other, "cancel_job", {"job_id": waiting})["status"] == "cancelled"
        release.set()
        wait_until(lambda: far.call(other, "get_job_result", {"job_id": job_id}).get("result") == {"held": 1},
                   "the other process answers the result", 30)


def test_idle_expiry_in_redis_ends_the_session_for_every_process(redis_server: RedisServer) -> None:
    with two(redis_server.url, session_idle_seconds=3) as (release, here, there):
        near, far = Caller(here), Caller(there)
        mine = near.open()
        job_id = near.call(mine, "hold", {"n": 3})["job_id"]
        other = far.open()
        assert far.status(other, job_id) == "not_found"
        # Nobody uses the job's session: its record expires in Redis, telling no process.
        wait_until(lambda: far.status(far.open(), job_id) == "running", "the far process reads it running", 30)
        release.set()
        wait_until(lambda: near.status(near.open(), job_id) == "done", "the near process reads it done", 30)


def test_the_same_between_real_server_processes(cluster: Any) -> None:
    first, second, third = (server.url for server in cluster.servers)
    mine = wire.initialize(first)
    started = wire.tool(first, mine, "slow_square", {"x": 6})
    job_id = json.loads(started["result"]["content"][0]["text"])["job_id"]
    ended = wire.httpx.delete(second, headers=wire.headers(mine), timeout=10)
    assert ended.status_code == 204, ended.text
    other = wire.initialize(third)

    def status() -> str:
        answer = wire.tool(third, other, "get_job_result", {"job_id": job_id})
        return str(answer["result"]["structuredContent"]["status"])

    wait_until(lambda: status() == "done", "the job reads done", 30)
    answer = wire.tool(third, other, "get_job_result", {"job_id": job_id})
    assert answer["result"]["structuredContent"]["result"] == 36
