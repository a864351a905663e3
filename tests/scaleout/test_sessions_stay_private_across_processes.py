"""Security holds across processes sharing one Redis.

- A session belongs to the principal that opened it on every process: another principal naming
  its id on another process gets 404, its owner is served.
- Keys are namespaced per server name: a session of one server is unknown to another server
  on the same Redis.
- A password in the state URL works and is never printed (not in logs, not in errors).
- Several processes without a shared store are refused with a message saying what to set.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest
import wire
from redis_server import RedisServer, find_redis, job_stores_let_go, wake_job_watchers
from support import serve

from nanohubmcp import MCPServer, StaticTokenVerifier
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.state import parse, redact

pytestmark = pytest.mark.timeout(60)


def build(name: str, state_url: str, **options: object) -> MCPServer:
    server = MCPServer(name, state_url=state_url, **options)  # type: ignore[arg-type]

    @server.tool()
    def hello() -> str:
        """Say hello."""
        return "hello"

    return server


@contextmanager
def two(state_url: str, names: tuple[str, str] = ("shared", "shared"), **options: object) -> Iterator[list[str]]:
    with ExitStack() as stack:
        yield [stack.enter_context(serve(build(name, state_url, **options))) + "mcp" for name in names]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_session_is_its_principals_on_every_process(redis_server: RedisServer) -> None:
    verifier = StaticTokenVerifier({"alice-token": "alice", "bob-token": "bob"})
    with two(redis_server.url, auth=verifier) as (first, second):
        opened = wire.open_session(first, extra=bearer("alice-token"))
        session = opened.headers["Mcp-Session-Id"]
        body = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
        stolen = wire.httpx.post(
            second, headers={**wire.headers(session), **bearer("bob-token")}, json=body, timeout=10
        )
        assert stolen.status_code == 404
        own = wire.httpx.post(second, headers={**wire.headers(session), **bearer("alice-token")}, json=body, timeout=10)
        assert own.status_code == 200, own.text
        assert own.json()["result"]["tools"][0]["name"] == "hello"


def test_two_servers_on_one_redis_never_see_each_others_sessions(redis_server: RedisServer) -> None:
    with two(redis_server.url, names=("one", "two")) as (one, other):
        session = wire.initialize(one)
        assert wire.call(one, session, "tools/list", {}).status_code == 200
        assert wire.call(other, session, "tools/list", {}).status_code == 404


def test_a_password_in_the_url_works_and_is_never_printed(tmp_path: object, caplog: pytest.LogCaptureFixture) -> None:
    from pathlib import Path

    assert find_redis() is not None
    secret = "s3cret-Passw0rd"
    store = RedisServer(find_redis() or "", Path(str(tmp_path)), password=secret).start()
    caplog.set_level(logging.INFO)
    try:
        assert secret in store.url
        with job_stores_let_go(wake=lambda: wake_job_watchers(store.url)), two(store.url) as (first, second):
            session = wire.initialize(first)
            assert wire.call(second, session, "tools/list", {}).status_code == 200
            store.stop()
            assert wire.call(second, session, "tools/list", {}).status_code == 503
    finally:
        store.stop()
    assert "unreachable" in caplog.text
    assert "***" in caplog.text
    assert secret not in caplog.text
    assert redact(store.url) == f"redis://:***@127.0.0.1:{store.port}/0"
    with pytest.raises(ConfigurationError) as refused:
        parse(f"rediz://:{secret}@127.0.0.1:1/0")
    assert secret not in str(refused.value)
    assert parse(f"rediss://:{secret}@redis.example.org:6380/0").shared


def test_rediss_with_a_password_shares_sessions_over_tls(tmp_path: object) -> None:
    from pathlib import Path

    store = RedisServer(find_redis() or "", Path(str(tmp_path)), password="tls-s3cret", tls=True).start()
    try:
        assert store.url.startswith("rediss://:tls-s3cret@")
        with job_stores_let_go(wake=lambda: wake_job_watchers(store.url)), two(store.url) as (first, second):
            session = wire.initialize(first)
            assert wire.call(second, session, "tools/list", {}).status_code == 200
    finally:
        store.stop()


def test_several_workers_without_a_shared_store_are_refused() -> None:
    server = build("alone", "")
    with pytest.raises(ConfigurationError, match="workers=3 needs a shared state store"):
        server.run(port=0, workers=3)
