"""Redis holds no job's principal in clear: a job record keeps the keyed digest of its subject, and the owner's index
is ``jobs:o:pd:<digest>``; each principal still sees only its own jobs, on every process.

A job record held ``"principal": "alice"`` and ``"owner_key": "principal:alice"``, and the index of her jobs was
``jobs:o:principal:alice`` (the sessions' records held only the digest already). Two servers share one real
redis-server; alice and bob each start tasks on both: no key or value names either, nor its bare SHA-256; each
session lists its own tasks on both servers; bob can neither read nor cancel alice's task; once alice's session
ended, her task is read by its id from another session of hers, on the other server, and still not by bob. Her
task's large result, waited for on the server not running it, is kept as a link she reads there and bob does not.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import wire
from redis_contents import everything_held
from redis_server import RedisServer
from support import serve, wait_until
from two_principals import bearer

from nanohubmcp import Context, MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(90)

NAME = "no-job-subjects"
TOKENS = {"alice-token": "alice@example.org", "bob-token": "bob@example.org"}
"""Subjects no id the server makes can hold by chance (an ``@``)."""
TASK = {"ttl": 60000}
BIG = 300_000
"""Characters of the large result (over ``max_inline_bytes``: kept, answered as a link)."""
_IDS = itertools.count(100)


def waiting_server(url: str) -> MCPServer:
    """The server on the store ``url``: its task ``until_file(path)`` runs until the file exists or it is cancelled."""
    server = MCPServer(NAME, state_url=url, auth=StaticTokenVerifier(TOKENS))

    @server.async_tool()
    def until_file(path: str, ctx: Context) -> str:
        """Wait for ``path``."""
        waited(path, ctx)
        return "seen"

    @server.async_tool()
    def large_after(path: str, ctx: Context) -> str:
        """Wait for ``path``, then return a large text."""
        waited(path, ctx)
        return "y" * BIG

    return server


def waited(path: str, ctx: Context) -> None:
    """Return once ``path`` exists or the call is cancelled."""
    pause = threading.Event()
    while not os.path.exists(path) and not ctx.is_cancelled():
        pause.wait(0.05)  # (a tool's poll of its condition)


@contextlib.contextmanager
def two_servers(redis_server: RedisServer) -> Iterator[tuple[str, str, redis.Redis, str, str]]:
    """Two servers on ``redis_server`` (their base URLs), a client of the store, and a session of alice's opened on
    the first and one of bob's on the second."""
    with serve(waiting_server(redis_server.url)) as one, serve(waiting_server(redis_server.url)) as two, \
            redis.Redis.from_url(redis_server.url, decode_responses=True) as store:
        yield (one, two, store, wire.initialize(one + "mcp", extra=bearer("alice-token")),
               wire.initialize(two + "mcp", extra=bearer("bob-token")))


def named(held: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The keys and values of ``held`` naming a principal's subject or its bare SHA-256."""
    secrets = (*TOKENS.values(), *(hashlib.sha256(name.encode()).hexdigest() for name in TOKENS.values()))
    return [(key, value[:200]) for key, value in held if any(secret in text for secret in secrets
                                                            for text in (key, value))]


def send(url: str, session: str, token: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """One request of ``token``'s caller in ``session``; its JSON-RPC answer."""
    reply = httpx.post(url + "mcp", headers={**wire.headers(session), "Accept": "application/json", **bearer(token)},
                       json={"jsonrpc": "2.0", "id": next(_IDS), "method": method, "params": params}, timeout=30)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def start(url: str, session: str, token: str, done: Path) -> str:
    answer = send(url, session, token, "tools/call", {"name": "until_file", "arguments": {"path": str(done)},
                                                      "task": TASK})
    return str(answer["result"]["task"]["taskId"])


def listed(url: str, session: str, token: str) -> list[str]:
    return [task["taskId"] for task in send(url, session, token, "tasks/list", {})["result"]["tasks"]]


def test_each_caller_sees_only_its_own_tasks_and_redis_names_neither(redis_server: RedisServer,
                                                                      tmp_path: Path) -> None:
    done = tmp_path / "done"
    with two_servers(redis_server) as (one, two, store, hers, his):
        try:
            alices = [start(one, hers, "alice-token", done), start(two, hers, "alice-token", done)]
            bobs = [start(two, his, "bob-token", done)]

            held = everything_held(store)
            assert any(":jobs:o:pd:" in key for key, _ in held), [key for key, _ in held]
            assert not named(held)

            for url in (one, two):
                assert listed(url, hers, "alice-token") == alices, url
                assert listed(url, his, "bob-token") == bobs, url
                for method in ("tasks/get", "tasks/cancel"):  # (his session, his token: her task is unknown)
                    refused = send(url, his, "bob-token", method, {"taskId": alices[0]})
                    assert refused.get("error", {}).get("code") == -32602, refused
            mine = send(one, his, "bob-token", "tasks/cancel", {"taskId": bobs[0]})  # started on the other server
            assert mine["result"]["status"] == "cancelled", mine

            httpx.delete(one + "mcp", headers={**wire.headers(hers), **bearer("alice-token")}, timeout=10)
            again = wire.initialize(two + "mcp", extra=bearer("alice-token"))
            for url in (one, two):  # her task of an ended session: hers by its id, from any session of hers
                assert send(url, again, "alice-token", "tasks/get", {"taskId": alices[0]})["result"]["status"] \
                    == "working", url
                refused = send(url, his, "bob-token", "tasks/get", {"taskId": alices[0]})
                assert refused.get("error", {}).get("code") == -32602, refused
        finally:
            done.write_text("go")


def test_her_tasks_large_result_waited_for_elsewhere_is_hers_to_read_alone(redis_server: RedisServer,
                                                                         tmp_path: Path) -> None:
    done = tmp_path / "done"
    with two_servers(redis_server) as (one, two, store, hers, his):
        try:
            task = send(one, hers, "alice-token", "tools/call", {"name": "large_after", "task": TASK,
                                                                  "arguments": {"path": str(done)}})
            task_id = task["result"]["task"]["taskId"]
            answers: list[dict[str, Any]] = []
            waiter = threading.Thread(target=lambda: answers.append(
                send(two, hers, "alice-token", "tasks/result", {"taskId": task_id})))
            waiter.start()
            wait_until(lambda: store.exists(f"nanohubmcp:{NAME}:awaited:{task_id}"), "the other server waiting")
        finally:
            done.write_text("go")
        waiter.join(60)
        assert answers, "tasks/result did not answer"
        links = [block for block in answers[0]["result"]["content"] if block["type"] == "resource_link"]
        assert links, answers[0]
        read = send(two, hers, "alice-token", "resources/read", {"uri": links[0]["uri"]})
        assert read.get("result", {}).get("contents"), read
        refused = send(two, his, "bob-token", "resources/read", {"uri": links[0]["uri"]})
        assert "error" in refused, refused
        assert not named(everything_held(store))  # (the record's kept link names none either)
