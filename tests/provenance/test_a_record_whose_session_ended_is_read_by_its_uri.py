"""A provenance record made in a session (without authorization: the session owns it) is that
session's while the session lives; once the session ended — a DELETE, idle expiry, eviction, the
server's stop — it is read by its unguessable URI by any caller without a principal, as a job of an
ended session is (tests/jobs/test_a_job_whose_session_ended_is_read_by_its_id.py). A principal's
record stays that principal's, in every session, and never another's.

A fresh-user trial (trial12 LOW-5) found records of an ended session unreadable by everyone while
the session's jobs were read by their id: a client restarted (a new session) read its job's result
but not the record its ``_meta`` named. Here over real servers, with records in memory and in
SQLite, and for two servers sharing a state directory; with Redis: tests/scaleout.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from provenance.record_calls import RecordCaller
from support import serve, wait_until

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(90)


def build(**options: Any) -> MCPServer:
    server = MCPServer("ended-session-records", **options)

    @server.tool()
    def square(n: int) -> int:
        """n squared."""
        return n * n

    return server


@pytest.mark.parametrize("job_store", ["memory", "sqlite"])
def test_a_client_that_closed_its_session_reads_its_records_from_a_new_one(job_store: str, tmp_path: Path) -> None:
    with serve(build(job_store=job_store, state_dir=str(tmp_path / "state"))) as url:
        caller = RecordCaller(url)
        mine, other = caller.open(), caller.open()
        uri = caller.recorded(mine, "square", {"n": 7})
        assert caller.reads(mine, uri)
        assert not caller.reads(other, uri)  # its session lives: its own
        assert not caller.reads_without_session(uri)
        caller.end(mine)
        assert caller.reads(other, uri)
        assert caller.reads(caller.open(), uri)
        assert caller.reads_without_session(uri)


def test_idle_expiry_and_eviction_end_a_session_as_a_delete_does(tmp_path: Path) -> None:
    idle = build(state_dir=str(tmp_path / "idle"), session_idle_seconds=1.0)
    crowded = build(state_dir=str(tmp_path / "crowded"))
    crowded.core.sessions.max_sessions = 2  # the 10,000 of docs/api/http.md, made small
    with ExitStack() as stack:
        idle_url, crowded_url = (stack.enter_context(serve(s)) for s in (idle, crowded))
        caller = RecordCaller(idle_url)
        uri = caller.recorded(caller.open(), "square", {"n": 3})
        # Each read opens a session, which closes the ones idle over a second first.
        wait_until(lambda: caller.reads(caller.open(), uri), "a new session reads the record", 30)

        caller = RecordCaller(crowded_url)
        uri = caller.recorded(caller.open(), "square", {"n": 4})
        second = caller.open()
        assert not caller.reads(second, uri)
        third = caller.open()  # the table is full: the least recently used quiet session (the record's) goes
        assert caller.reads(third, uri)


def test_records_of_a_stopped_servers_sessions_are_read_after_a_restart(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    with serve(build(state_dir=state)) as url:
        caller = RecordCaller(url)
        uri = caller.recorded(caller.open(), "square", {"n": 5})  # its session lives until the stop
    with serve(build(state_dir=state)) as url:
        assert RecordCaller(url).reads(RecordCaller(url).open(), uri)


def test_another_principal_never_reads_it(tmp_path: Path) -> None:
    verifier = StaticTokenVerifier({"alice-token": "alice", "bob-token": "bob"})
    with serve(build(state_dir=str(tmp_path / "state"), auth=verifier)) as url:
        alice, bob, nobody = RecordCaller(url, "alice-token"), RecordCaller(url, "bob-token"), RecordCaller(url)
        first = alice.open()
        uri = alice.recorded(first, "square", {"n": 5})
        assert not bob.reads(bob.open(), uri)
        alice.end(first)
        assert alice.reads(alice.open(), uri)
        assert not bob.reads(bob.open(), uri)
        assert not bob.reads_without_session(uri)
        assert not nobody.reads_without_session(uri)


@pytest.fixture
def sharing(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two servers sharing one state directory (each its own sessions and records' writer)."""
    with ExitStack() as stack:
        yield tuple(stack.enter_context(serve(build(state_dir=str(tmp_path / "state")))) for _ in range(2))  # type: ignore[misc]


def test_a_server_sharing_the_state_directory_reads_it_once_its_session_ended_there(
        sharing: tuple[str, str]) -> None:
    here, there = sharing
    near, far = RecordCaller(here), RecordCaller(there)
    mine = near.open()
    uri = near.recorded(mine, "square", {"n": 6})
    elsewhere = far.open()
    assert not far.reads(elsewhere, uri)  # its session lives (on the first server)
    near.end(mine)
    assert far.reads(elsewhere, uri)
