"""A resume naming a POST stream no process could have made, or one past its session's share of waits, does not
wait for the stream's first log entry.

A resume of a POST stream whose log is still empty waits up to ``relay_streams.FIRST_ENTRY_MS`` (5 s) for its
first entry, on the process's one blocking ``XREAD`` (its producer may not have written it yet). Any client can
name any stream in ``Last-Event-ID``: 500 made-up resumes held 500 connections 5 s each, and a burst of 32,000-
character ids made Redis read 388 MB (review r39 R39-1). Now only an id of the form a process mints is waited
on, at most ``first_entry_waits.PER_SESSION`` at once per session and ``PER_PROCESS`` in all.
"""

from __future__ import annotations

import threading
import uuid

import pytest
import redis
import wire
from redis_server import RedisServer
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.server.wire.first_entry_waits import PER_PRINCIPAL, PER_PROCESS, PER_SESSION, FirstEntryWaits
from nanohubmcp.state.base import session_key

pytestmark = pytest.mark.timeout(60)

NAME = "made-up"
MINTED = "s0123456789ab1"


MADE_UP = ["s" + "0" * 4000, "sZZZZZZZZZZZZZZZ", "x0123456789ab1"]


@pytest.mark.parametrize("stream", MADE_UP, ids=["long", "not-hex", "not-s"])
def test_a_made_up_stream_is_not_waited_on(redis_server: RedisServer, stream: str) -> None:
    with serve(MCPServer(NAME, state_url=redis_server.url)) as base:
        url = base + "mcp"
        session = wire.initialize(url)
        key = f"nanohubmcp:{NAME}:ev:{session_key(session)}:{stream}"
        marker = uuid.uuid4().hex
        seen: list[str] = []
        watcher = redis.Redis.from_url(redis_server.url, socket_timeout=20, decode_responses=True)
        with watcher.monitor() as monitor:

            def watch() -> None:
                for command in monitor.listen():
                    seen.append(command["command"])
                    if marker in command["command"]:
                        return

            thread = threading.Thread(target=watch, daemon=True)
            thread.start()
            resumed = wire.open_get(url, session, last_event_id=f"{stream}.1")
            try:
                assert resumed.status == 200  # a fresh GET stream: the named one's log holds nothing
            finally:
                resumed.close()
            redis.Redis.from_url(redis_server.url).echo(marker)  # every command before it was seen once it is
            thread.join(25)
        assert any(marker in command for command in seen), "the monitor never saw the marker"
        blocking = [c for c in seen if c.split(" ", 1)[0].strip('"').upper() == "XREAD" and key in c]
        assert not blocking, blocking[:1]


def test_waits_are_granted_to_minted_ids_within_a_sessions_and_the_processs_share() -> None:
    waits = FirstEntryWaits()
    with waits.granted("a", "s0123") as short:
        assert not short  # not the form a process mints
    held = [waits.granted("a", MINTED) for _ in range(PER_SESSION)]
    assert all(h.__enter__() for h in held)
    with waits.granted("a", MINTED) as over:
        assert not over  # past the session's share
    with waits.granted("b", MINTED) as other:
        assert other  # another session's own share
    held[0].__exit__(None, None, None)
    with waits.granted("a", MINTED) as freed:
        assert freed  # a wait ended frees its place
    for h in held[1:]:
        h.__exit__(None, None, None)
    everyone = [waits.granted(f"s{i}", MINTED) for i in range(PER_PROCESS)]
    assert all(h.__enter__() for h in everyone)
    with waits.granted("late", MINTED) as late:
        assert not late  # past the process's share
    for h in everyone:
        h.__exit__(None, None, None)
    assert waits._total == 0
    assert not waits._by_session


def test_waits_are_granted_within_a_principals_share() -> None:
    waits = FirstEntryWaits()
    held = [waits.granted(f"bob{i}", MINTED, "bob") for i in range(PER_PRINCIPAL)]
    assert all(h.__enter__() for h in held)
    with waits.granted("bob-more", MINTED, "bob") as over:
        assert not over  # past the principal's share, though this session holds none
    with waits.granted("alice", MINTED, "alice") as other:
        assert other  # another principal's own share
    with waits.granted("anyone", MINTED) as unauthenticated:
        assert unauthenticated  # no authorization: bounded per session and per process only
    for h in held:
        h.__exit__(None, None, None)
    assert waits._total == 0
    assert not waits._by_principal
