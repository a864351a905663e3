"""A job started in a session is that session's while the session lives; once the session has ended
— a DELETE (a client closing or restarting), idle expiry, eviction — the job is read and cancelled by
its unguessable id by any caller of the same principal, as after a stop.

A fresh-user trial (trial11 F13) found such a job unreadable by everyone once its session ended, until
the server restarted, when anyone holding the id read it again: an ``@async_tool`` simulation was lost
to a desktop client restarted through ``nanohubmcp bridge``. Here over real servers, with the memory
and the SQLite job store, and for two servers sharing a state directory (each its own process token,
sessions and job store, as two processes have); with Redis: tests/scaleout.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from jobs.session_calls import Caller, Held
from support import mcp_client, serve, wait_until

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(90)


def build(held: Held, **options: Any) -> MCPServer:
    server = MCPServer("ended-sessions", **options)

    @server.async_tool()
    def hold(n: int) -> dict:
        """Runs until the test releases it."""
        return held(n)

    @server.async_tool()
    def square(n: int) -> dict:
        """n squared."""
        return {"square": n * n}

    return server


@pytest.fixture
def held() -> Iterator[Held]:
    made = Held()
    yield made
    made.release.set()


async def start_and_close(url: str, held: Held) -> tuple[str, str]:
    """The official client starts two jobs in its session and reads one, then closes (its DELETE
    ends the session); the ids of the finished job and the running one."""
    async with mcp_client(url + "mcp") as client:
        done = json.loads((await client.call_tool("square", {"n": 7})).content[0].text)["job_id"]
        running = json.loads((await client.call_tool("hold", {"n": 1})).content[0].text)["job_id"]
        while (await client.call_tool("get_job_result", {"job_id": done})).structured_content["status"] != "done":
            await anyio.sleep(0.05)
        assert held.running.wait(10)
        answer = await client.call_tool("get_job_result", {"job_id": running})
        assert answer.structured_content["status"] == "running"
    return done, running


@pytest.mark.parametrize("job_store", ["memory", "sqlite"])
def test_a_client_that_closed_its_session_reads_and_cancels_its_jobs_from_a_new_one(
        job_store: str, held: Held, tmp_path: Path) -> None:
    server = build(held, job_store=job_store, state_dir=str(tmp_path / "state"))
    with serve(server) as url:
        caller = Caller(url)
        other = caller.open()  # a session that lives on, opened while the jobs' session lived
        with anyio.from_thread.start_blocking_portal() as portal:
            done, running = portal.call(start_and_close, url, held)
        assert caller.call(other, "get_job_result", {"job_id": done}) == {
            "status": "done", "job_id": done, "result": {"square": 49}}
        assert caller.status(caller.open(), running) == "running"
        assert caller.rest("get_job_result", {"job_id": done}) == (
            200, {"status": "done", "job_id": done, "result": {"square": 49}})
        cancelled = caller.call(caller.open(), "cancel_job", {"job_id": running})
        assert cancelled["status"] == "cancelled", cancelled
        assert caller.status(other, running) == "cancelled"


def test_before_its_session_ends_no_other_session_reads_it(held: Held, tmp_path: Path) -> None:
    with serve(build(held, state_dir=str(tmp_path / "state"))) as url:
        caller = Caller(url)
        mine, other = caller.open(), caller.open()
        job_id = caller.call(mine, "hold", {"n": 2})["job_id"]
        assert held.running.wait(10)
        assert caller.status(other, job_id) == "not_found"
        assert caller.rest("get_job_result", {"job_id": job_id})[0] == 404
        assert caller.call(other, "cancel_job", {"job_id": job_id})["status"] == "not_found"
        assert caller.status(mine, job_id) == "running"
        caller.end(mine)
        assert caller.status(other, job_id) == "running"


def test_idle_expiry_and_eviction_end_a_session_as_a_delete_does(held: Held, tmp_path: Path) -> None:
    idle = build(held, state_dir=str(tmp_path / "idle"), session_idle_seconds=1.0)
    crowded = build(held, state_dir=str(tmp_path / "crowded"))
    crowded.core.sessions.max_sessions = 2  # the 10,000 of docs/api/http.md, made small
    with ExitStack() as stack:
        idle_url, crowded_url = (stack.enter_context(serve(s)) for s in (idle, crowded))
        caller = Caller(idle_url)
        job_id = caller.call(caller.open(), "square", {"n": 3})["job_id"]
        # Each poll opens a session, which closes the ones idle over a second first.
        wait_until(lambda: caller.status(caller.open(), job_id) == "done", "a new session reads the job done", 30)

        caller = Caller(crowded_url)
        job_id = caller.call(caller.open(), "square", {"n": 4})["job_id"]
        second = caller.open()
        assert caller.status(second, job_id) == "not_found"
        third = caller.open()  # the table is full: the least recently used quiet session (the job's) goes
        assert caller.call(third, "get_job_result", {"job_id": job_id}) == {
            "status": "done", "job_id": job_id, "result": {"square": 16}}


def test_another_principal_never_reads_it(held: Held, tmp_path: Path) -> None:
    verifier = StaticTokenVerifier({"alice-token": "alice", "bob-token": "bob"})
    with serve(build(held, state_dir=str(tmp_path / "state"), auth=verifier)) as url:
        alice, bob = Caller(url, "alice-token"), Caller(url, "bob-token")
        first = alice.open()
        job_id = alice.call(first, "square", {"n": 5})["job_id"]
        wait_until(lambda: alice.status(first, job_id) == "done", "alice reads the job done", 30)
        alice.end(first)
        assert alice.status(alice.open(), job_id) == "done"
        assert alice.rest("get_job_result", {"job_id": job_id})[0] == 200
        assert bob.status(bob.open(), job_id) == "not_found"
        assert bob.rest("get_job_result", {"job_id": job_id})[0] == 404
        assert bob.rest("cancel_job", {"job_id": job_id})[0] == 404


@contextmanager
def sharing(state: str, held: Held) -> Iterator[tuple[str, str]]:
    """Two servers sharing one state directory (each its own sessions, job store and runner)."""
    with ExitStack() as stack:
        first, second = (stack.enter_context(serve(build(held, state_dir=state))) for _ in range(2))
        yield first, second


def test_a_server_sharing_the_state_directory_reads_it_once_its_session_ended_there(
        held: Held, tmp_path: Path) -> None:
    with sharing(str(tmp_path / "state"), held) as (here, there):
        near, far = Caller(here), Caller(there)
        mine = near.open()
        job_id = near.call(mine, "hold", {"n": 3})["job_id"]
        assert held.running.wait(10)
        elsewhere = far.open()
        assert far.status(elsewhere, job_id) == "not_found"  # its session lives (on the first server)
        near.end(mine)
        assert far.status(elsewhere, job_id) == "running"
        assert far.call(elsewhere, "cancel_job", {"job_id": job_id})["status"] == "cancelled"
        wait_until(lambda: near.status(near.open(), job_id) == "cancelled", "the job reads cancelled", 30)
