"""Redis holds no principal's subject, nor its bare SHA-256: only a keyed digest (HMAC) of it.

The count of a principal's sessions was ``pr:<sha256(subject)>`` (and its finished logs ``pk:``/``pb:`` likewise):
for nanoHUB user names reversed by hashing the site's user names; and the session record held
``"principal": "alice"`` in clear (trial 68 T68-O3). Now Redis holds ``HMAC(K, subject)``, ``K`` derived from the
``requestState`` key every process shares, and a request's principal is checked against the record's digest: two
processes still serve one session, and another principal naming it is still answered 404. A record stored before
(its principal in clear) is taken for gone: its client initializes again.
"""

from __future__ import annotations

import hashlib
import json

import httpx
import pytest
import redis
import wire
from redis_contents import everything_held
from redis_server import RedisServer
from support import serve
from two_principals import bearer, counting_server

from nanohubmcp.state.base import session_key

pytestmark = pytest.mark.timeout(60)

NAME = "no-subjects"
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}


def call_count(url: str, session: str, request_id: int) -> list[dict[str, object]]:
    """alice's ``count(3)`` with a progress token on ``url`` (an SSE answer: its log is written to Redis)."""
    body = {"name": "count", "arguments": {"n": 3}, "_meta": {"progressToken": "p1"}}
    call = wire.Events("POST", url, {**wire.headers(session), **bearer("alice-token")},
                       {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": body})
    try:
        messages: list[dict[str, object]] = []
        while not messages or messages[-1].get("id") != request_id:
            messages.append(call.next(step="the call's progress and answer")[1])
    finally:
        call.close()
    assert any(m.get("method") == "notifications/progress" for m in messages), messages
    return messages


def test_no_key_and_no_value_holds_the_subject_or_its_bare_digest(redis_server: RedisServer) -> None:
    with serve(counting_server(redis_server.url, NAME)) as one, serve(counting_server(redis_server.url, NAME)) as two, \
            redis.Redis.from_url(redis_server.url, decode_responses=True) as store:
        session = wire.initialize(one + "mcp", extra=bearer("alice-token"))
        call_count(one + "mcp", session, 5)
        call_count(two + "mcp", session, 6)  # the other process serves alice's session too
        for where in (one, two):  # and bob, naming it, is refused on both
            stolen = httpx.post(where + "mcp", headers={**wire.headers(session), **bearer("bob-token")}, json=LIST,
                                timeout=10)
            assert stolen.status_code == 404, stolen.text
        held = everything_held(store)
        assert any(session_key(session) in key for key, _ in held), "the session is not in the store at all"
        assert any(":pr:" in key for key, _ in held), "the count of alice's sessions is not in the store"
        bare = hashlib.sha256(b"alice").hexdigest()
        holding = [(key, value[:200]) for key, value in held
                   if any(secret in text for secret in ("alice", bare) for text in (key, value))]
        assert not holding, f"the store holds alice's subject or its bare SHA-256: {holding}"


def test_a_record_stored_before_names_no_session(redis_server: RedisServer) -> None:
    with serve(counting_server(redis_server.url, NAME)) as one, serve(counting_server(redis_server.url, NAME)) as two, \
            redis.Redis.from_url(redis_server.url, decode_responses=True) as store:
        session = wire.initialize(one + "mcp", extra=bearer("alice-token"))
        record_key = f"nanohubmcp:{NAME}:s:{session_key(session)}"
        record = json.loads(store.get(record_key))
        del record["principal_digest"]
        record["principal"] = "alice"  # as a record was stored before digests were kept
        store.set(record_key, json.dumps(record))
        answer = httpx.post(two + "mcp", headers={**wire.headers(session), **bearer("alice-token")}, json=LIST,
                            timeout=10)
        assert answer.status_code == 404, answer.text  # initialize again
