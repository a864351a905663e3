"""Redis holds no session id: a session is named there by its key (the SHA-256 of its id), and a request of another
principal naming a session keeps it alive no longer.

Without authorization a session id is the session's credential, and scale-out.md asks for Redis persistence: the
store named every session by its id in clear (``s:<id>``, ``h:<id>``, ``ev:<id>:<stream>``, ``rd:<id>``, the
principal's count ``pr:``...) and the record held ``"id"``, so live ids landed in ``dump.rdb``, every backup and any
``SCAN`` (review r40 R40-9). And a load restarted the session's idle clock before the request's principal was
compared: bob naming alice's session (404) kept it alive.
"""

from __future__ import annotations

import httpx
import pytest
import redis
import wire
from redis_contents import everything_held
from redis_server import RedisServer
from support import serve, wait_until
from two_principals import bearer, counting_server

from nanohubmcp.state.base import session_key

pytestmark = pytest.mark.timeout(60)

NAME = "no-ids"


def test_no_key_and_no_value_holds_a_session_id(redis_server: RedisServer) -> None:
    with serve(counting_server(redis_server.url, NAME)) as base, redis.Redis.from_url(
            redis_server.url, decode_responses=True) as store:
        url = base + "mcp"
        auth = bearer("alice-token")
        session = wire.initialize(url, extra=auth)
        stream = wire.Events("GET", url, {**wire.headers(session), "Accept": "text/event-stream", **auth})
        try:
            assert stream.status == 200
            body = {"name": "count", "arguments": {"n": 3}, "_meta": {"progressToken": "p1"}}
            call = wire.Events("POST", url, {**wire.headers(session), **auth},
                               {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": body})
            messages = []
            while not messages or messages[-1].get("id") != 5:
                messages.append(call.next(step="the call's progress and answer")[1])
            assert any(m.get("method") == "notifications/progress" for m in messages), messages
            call.close()
            held = everything_held(store)
            assert any(session_key(session) in key for key, _ in held), "the session is not in the store at all"
            holding = [(key, value[:200]) for key, value in held if session in key or session in value]
            assert not holding, f"the store holds the session id: {holding}"
        finally:
            stream.close()


def test_another_principals_request_naming_a_session_leaves_its_idle_clock(redis_server: RedisServer) -> None:
    with serve(counting_server(redis_server.url, NAME)) as base, \
            serve(counting_server(redis_server.url, NAME)) as other, \
            redis.Redis.from_url(redis_server.url, decode_responses=True) as store:
        url = base + "mcp"
        alices = wire.initialize(url, extra=bearer("alice-token"))
        bobs = wire.initialize(url, extra=bearer("bob-token"))
        alice_record, bob_record = (f"nanohubmcp:{NAME}:s:{session_key(s)}" for s in (alices, bobs))
        body = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}

        def bobs_own_request_restarts_its_clock() -> None:
            """bob uses his own session: once its idle clock restarted, so did those of every session used before
            (the clocks restart together, once per lease)."""
            store.expire(bob_record, 100)
            own = httpx.post(url, headers={**wire.headers(bobs), **bearer("bob-token")}, json=body, timeout=10)
            assert own.status_code == 200, own.text
            wait_until(lambda: store.ttl(bob_record) > 100, "bob's own session's idle clock restarted")

        bobs_own_request_restarts_its_clock()  # (alice's opening requests restarted hers before this)
        store.expire(alice_record, 100)
        for where in (url, other + "mcp"):  # the process holding alice's record, and one loading it
            stolen = httpx.post(where, headers={**wire.headers(alices), **bearer("bob-token")}, json=body, timeout=10)
            assert stolen.status_code == 404
        bobs_own_request_restarts_its_clock()
        assert 0 < store.ttl(alice_record) <= 100, "bob's request naming alice's session kept it alive"
