"""With Redis, a provenance record whose session ended — by a DELETE on any process, or by idle
expiry, which no process is told of — is read by its URI by any caller without a principal, on every
process, as a job of an ended session is (trial12 LOW-5; the single-process cases:
tests/provenance/test_a_record_whose_session_ended_is_read_by_its_uri.py). A principal's record
stays that principal's.

Two servers in this process sharing a real redis-server stand for two workers (each its own
sessions' copies and records' writer; the records in the state directory they share). A record is
read on the other process once its own process wrote it: a read there writes what is pending.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from provenance.record_calls import RecordCaller
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(90)


def build(state_url: str, **options: Any) -> MCPServer:
    server = MCPServer("ended-session-records-everywhere", state_url=state_url, **options)

    @server.tool()
    def square(n: int) -> int:
        """n squared."""
        return n * n

    return server


@contextmanager
def two(state_url: str, **options: Any) -> Iterator[tuple[str, str]]:
    with ExitStack() as stack:
        here, there = (stack.enter_context(serve(build(state_url, **options))) for _ in range(2))
        yield here, there


def test_a_delete_on_another_process_lets_every_process_read_it(redis_server: RedisServer) -> None:
    with two(redis_server.url) as (here, there):
        near, far = RecordCaller(here), RecordCaller(there)
        mine = near.open()
        uri = near.recorded(mine, "square", {"n": 2})
        assert near.reads(mine, uri)  # a read writes what its process has pending: the record is on disk
        other = far.open()
        assert not far.reads(other, uri)
        far.end(mine)  # the record was made on the first process; its session is ended on the second
        assert far.reads(other, uri)
        assert near.reads(near.open(), uri)
        assert far.reads_without_session(uri)


def test_idle_expiry_in_redis_ends_the_session_for_every_process(redis_server: RedisServer) -> None:
    with two(redis_server.url, session_idle_seconds=3) as (here, there):
        near, far = RecordCaller(here), RecordCaller(there)
        mine = near.open()
        uri = near.recorded(mine, "square", {"n": 3})
        assert near.reads(mine, uri)
        other = far.open()
        assert not far.reads(other, uri)
        # Nobody uses the record's session: its record expires in Redis, telling no process.
        wait_until(lambda: far.reads(far.open(), uri), "the far process reads the record", 30)


def test_another_principal_never_reads_it(redis_server: RedisServer) -> None:
    verifier = StaticTokenVerifier({"alice-token": "alice", "bob-token": "bob"})
    with two(redis_server.url, auth=verifier) as (here, there):
        alice, bob = RecordCaller(here, "alice-token"), RecordCaller(there, "bob-token")
        mine = alice.open()
        uri = alice.recorded(mine, "square", {"n": 4})
        assert alice.reads(mine, uri)
        RecordCaller(there, "alice-token").end(mine)
        assert RecordCaller(there, "alice-token").reads(RecordCaller(there, "alice-token").open(), uri)
        assert not bob.reads(bob.open(), uri)
