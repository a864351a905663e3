"""A job is its session's on every process of a server run (``--workers N``, or servers on several
machines sharing one Redis), until that run ends.

docs/how-to/jobs.md: "within that, only the session that started it until the server stops". Each
process has a runner token of its own; a job of a sibling process that still serves is a job of the
same run, not of an earlier one. Found by a fresh-user trial (trial 5, F7): with ``--workers 3``
another session read a live job whenever its poll landed on a worker other than the job's, because
any runner but the reader's own counted as "an earlier run".

Two servers in this process sharing a real redis-server stand for two workers: each has its own
job store, runner token and heartbeat, as a forked worker has (a stop, a shared state directory, a
principal's second session); the last test runs three real ``nanohubmcp run`` processes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
import wire
from jobs.session_calls import Held
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(60)


def build(state_url: str, held: Held, **options: Any) -> MCPServer:
    server = MCPServer("jobs-everywhere", state_url=state_url, **options)

    @server.async_tool()
    def hold(n: int) -> dict:
        """Runs until the test releases it."""
        return held(n)

    return server


@contextmanager
def two(state_url: str, held: Held, **options: Any) -> Iterator[tuple[list[MCPServer], list[str]]]:
    servers = [build(state_url, held, **options) for _ in range(2)]
    with ExitStack() as stack:
        yield servers, [stack.enter_context(serve(s)) + "mcp" for s in servers]


def initialize(url: str, token: str | None = None) -> str:
    extra = {"Authorization": f"Bearer {token}"} if token else {}
    opened = wire.httpx.post(url, headers={"Accept": wire.ACCEPT, **extra}, timeout=10, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": wire.VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    assert opened.status_code == 200, opened.text
    session = opened.headers["Mcp-Session-Id"]
    sent = wire.httpx.post(url, headers={**wire.headers(session), **extra}, timeout=10,
                           json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert sent.status_code == 202, sent.text
    return session


def call(url: str, session: str, name: str, arguments: dict, token: str | None = None) -> dict:
    extra = {"Authorization": f"Bearer {token}"} if token else {}
    reply = wire.httpx.post(url, headers={**wire.headers(session), "Accept": "application/json", **extra},
                            timeout=10, json={"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                              "params": {"name": name, "arguments": arguments}})
    assert reply.status_code == 200, reply.text
    return dict(json.loads(reply.json()["result"]["content"][0]["text"]))


def start(url: str, held: Held, token: str | None = None) -> tuple[str, str]:
    """A new session at ``url`` and the id of the held job it started (running once this returns)."""
    session = initialize(url, token)
    job_id = str(call(url, session, "hold", {"n": 1}, token)["job_id"])
    assert held.running.wait(10)
    return session, job_id


def poll(url: str, session: str, job_id: str, token: str | None = None) -> str:
    return str(call(url, session, "get_job_result", {"job_id": job_id}, token)["status"])


def finish_then_stop(held: Held, first: MCPServer, owner: Callable[[], str], stranger: Callable[[], str]) -> None:
    """Let the job end: done for its session, still no one else's; then the run that ran it ends
    (a stop; its process lives on, as in a notebook): its sessions went with it, and the id is
    the capability."""
    held.release.set()
    wait_until(lambda: owner() == "done", "the owner reads the job done", 30)
    assert stranger() == "not_found"
    first.stop()
    wait_until(lambda: stranger() == "done", "a stranger reads it done (the id is the capability)", 30)


def test_another_session_never_reads_a_live_job_of_a_sibling_process(redis_server: RedisServer) -> None:
    held = Held()
    try:
        with two(redis_server.url, held) as ([first, _], (here, there)):
            mine, job_id = start(here, held)
            other = initialize(there)
            assert poll(there, mine, job_id) == "running"  # its session, on the other process
            assert poll(there, other, job_id) == "not_found"  # another session, on the other process
            assert poll(here, other, job_id) == "not_found"
            rest = wire.httpx.post(there.removesuffix("mcp") + "tools/get_job_result", json={"job_id": job_id},
                                   timeout=10)
            assert rest.json()["status"] == "not_found", rest.text  # no session at all
            finish_then_stop(held, first, lambda: poll(there, mine, job_id), lambda: poll(there, other, job_id))
    finally:
        held.release.set()


def test_another_session_of_the_same_principal_never_reads_it_either(redis_server: RedisServer) -> None:
    held = Held()
    verifier = StaticTokenVerifier({"alice-token": "alice", "bob-token": "bob"})
    try:
        with two(redis_server.url, held, auth=verifier) as (_, (here, there)):
            mine, job_id = start(here, held, "alice-token")
            again, bob = initialize(there, "alice-token"), initialize(there, "bob-token")
            assert poll(there, mine, job_id, "alice-token") == "running"
            assert poll(there, again, job_id, "alice-token") == "not_found"
            assert poll(there, bob, job_id, "bob-token") == "not_found"
            held.release.set()
            wait_until(lambda: poll(there, mine, job_id, "alice-token") == "done", "the job is done there", 30)
            assert poll(there, again, job_id, "alice-token") == "not_found"
    finally:
        held.release.set()


def test_the_same_holds_for_processes_sharing_a_state_directory(tmp_path: Any) -> None:
    held = Held()
    state = str(tmp_path / "state")
    try:
        with two("", held, state_dir=state) as ([first, _], (here, there)):
            mine, job_id = start(here, held)
            other = initialize(there)  # sessions are each process's own here: only the id is shared
            assert poll(there, other, job_id) == "not_found"
            finish_then_stop(held, first, lambda: poll(here, mine, job_id), lambda: poll(there, other, job_id))
    finally:
        held.release.set()


def test_the_same_holds_between_real_server_processes(cluster: Any) -> None:
    """Three ``nanohubmcp run`` processes sharing the Redis, as the trial ran them: the job's
    session reads it on every process, another session on none."""
    first, second, third = (server.url for server in cluster.servers)
    mine = wire.initialize(first)
    started = wire.tool(first, mine, "slow_square", {"x": 7})
    job_id = json.loads(started["result"]["content"][0]["text"])["job_id"]
    other = wire.initialize(second)

    def status(url: str, session: str) -> str:
        answer = wire.tool(url, session, "get_job_result", {"job_id": job_id})
        return str(answer["result"]["structuredContent"]["status"])

    wait_until(lambda: status(second, mine) == "done", "the second process reads it done", 30)
    assert [status(url, other) for url in (first, second, third)] == ["not_found"] * 3
    assert [status(url, mine) for url in (first, second, third)] == ["done"] * 3


def test_a_job_waiting_for_a_worker_says_so_on_every_process(redis_server: RedisServer) -> None:
    held = Held()
    try:
        with two(redis_server.url, held, job_workers=1) as (_, (here, there)):
            mine, running = start(here, held)
            waiting = call(here, mine, "hold", {"n": 2})["job_id"]
            assert call(here, mine, "get_job_result", {"job_id": waiting}) == {
                "status": "running", "job_id": waiting, "queued": True, "ahead": 0}
            # Another process reads the record: queued, without the count its process keeps.
            assert call(there, mine, "get_job_result", {"job_id": waiting}) == {
                "status": "running", "job_id": waiting, "queued": True}
            held.release.set()
            wait_until(lambda: poll(there, mine, waiting) == "done", "the waiting job is done there", 30)
            assert call(there, mine, "get_job_result", {"job_id": running})["status"] == "done"
    finally:
        held.release.set()
