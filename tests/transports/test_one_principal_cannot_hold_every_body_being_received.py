"""One principal cannot take the budget of request bodies being received from every other principal.

A fresh-user trial (trial31 S4): the bodies being received at once are bounded by
``max_buffered_bytes``, reserved by their declared ``Content-Length`` when their headers arrive. One
token holder opened 17 connections declaring 16 MiB bodies, sent 6 bytes each and then nothing: every
other principal's call with a body over 64 KiB got 503 until the body timeout, and reconnecting kept it
so. Now one principal's bodies take at most ``max_buffered_bytes_per_principal`` (default an eighth of
``max_buffered_bytes``, at least ``max_request_bytes``): beyond it that principal alone gets 503 naming
the setting; the overall bound still holds over all of them; a token not yet checked (an ``async``
verifier's answer still to come) takes nothing; without authorization only the overall bound applies.

Source: RFC 9110 § 15.6.4 (503), § 10.2.3 (Retry-After), § 10.1.1 (Expect: 100-continue).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from raw_http import read_reply
from support import serve
from token_holders import TOKENS, async_check, build, sync_check

from nanohubmcp.errors import ConfigurationError
from nanohubmcp.transports.config import TransportConfig

MiB = 1 << 20
LIMIT = MiB
"""max_request_bytes of the servers below; max_buffered_bytes is four times it, so the default
share is one body of the largest size (an eighth of 4 MiB is less)."""


@contextlib.contextmanager
def served(check: Callable[[str], Any] | None = None, **options: Any) -> Iterator[int]:
    with serve(build(check), max_request_bytes=LIMIT, max_buffered_bytes=4 * LIMIT, **options) as url:
        yield int(url.rsplit(":", 1)[1].strip("/"))


def head(length: int, token: str | None, path: str = "/tools/echo") -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Accept: application/json\r\nContent-Length: {length}\r\nExpect: 100-continue\r\n{auth}\r\n").encode()


def hold(port: int, token: str | None, opened: list[socket.socket]) -> tuple[int, dict[str, str], bytes]:
    """Open a connection declaring a body of ``LIMIT`` bytes and send 6 of them, then nothing (S4's
    client): ``100`` when the server took the budget for it (the connection stays in ``opened``),
    else the refusal."""
    sock = socket.create_connection(("127.0.0.1", port))
    opened.append(sock)
    sock.sendall(head(LIMIT, token))
    status, headers, body = read_reply(sock, timeout=10)
    if status == 100:
        sock.sendall(b'{"text')
    return status, headers, body


def call(port: int, token: str | None, size: int = 200_000) -> int:
    """A tool call whose arguments take ``size`` bytes (over 64 KiB: counted however it is sent)."""
    body = json.dumps({"text": "x" * size}).encode()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head(len(body), token))
        status, _, _ = read_reply(sock, timeout=10)
        if status != 100:
            return status
        sock.sendall(body)
        return read_reply(sock, timeout=10)[0]


def busy_message(headers: dict[str, str], body: bytes) -> str:
    assert int(headers["retry-after"]) >= 1
    return str(json.loads(body)["error"])


@pytest.mark.parametrize("check", [sync_check, async_check], ids=["sync-check", "async-check"])
def test_one_principal_holding_connections_does_not_deny_the_others(
        check: Callable[[str], Any], opened: list[socket.socket]) -> None:
    with served(check) as port:
        bob = [hold(port, "bob-token", opened) for _ in range(5)]
        assert call(port, "alice-token") == 200  # was: 503 (max_buffered_bytes) until bob's bodies timed out
        assert [status for status, _, _ in bob] == [100, 503, 503, 503, 503]
        message = busy_message(bob[1][1], bob[1][2])
        assert "(max_buffered_bytes_per_principal)" in message
        assert message.startswith("Service Unavailable: ")
        assert call(port, "carol-token", 3 * LIMIT // 4) == 200  # a body near the largest fits too


def test_the_overall_bound_still_holds_over_every_principal(opened: list[socket.socket]) -> None:
    with served(sync_check) as port:
        held = [hold(port, f"{name}-token", opened)[0] for name in ("alice", "bob", "carol", "dave")]
        assert held == [100] * 4  # one largest body each: the whole 4 MiB
        status, headers, body = hold(port, "erin-token", opened)
        assert status == 503
        message = busy_message(headers, body)
        assert "(max_buffered_bytes)" in message
        assert "per_principal" not in message
        opened[0].close()  # alice's body is given up: its bytes are free again
        deadline = time.monotonic() + 10
        while (status := call(port, "frank-token")) != 200 and time.monotonic() < deadline:
            pass
        assert status == 200


def test_a_token_not_yet_checked_takes_nothing(opened: list[socket.socket]) -> None:
    release = threading.Event()
    asked = threading.Semaphore(0)

    async def slow_refusal(token: str) -> str | None:
        if token == "forged":  # answered once the test says so, then refused
            asked.release()
            await asyncio.get_running_loop().run_in_executor(None, release.wait, 30)
            return None
        return TOKENS.get(token)

    with served(slow_refusal) as port:
        socks = []
        for _ in range(5):  # more than the whole bound, declared by clients whose token is being checked
            sock = socket.create_connection(("127.0.0.1", port))
            opened.append(sock)
            sock.sendall(head(LIMIT, "forged"))
            socks.append(sock)
        for _ in socks:
            assert asked.acquire(timeout=10)
        try:
            assert hold(port, "alice-token", opened)[0] == 100  # was: 503, the forged ones held the budget
        finally:
            release.set()
        assert [read_reply(sock, timeout=10)[0] for sock in socks] == [401] * 5


def test_without_authorization_only_the_overall_bound_applies(opened: list[socket.socket]) -> None:
    with served(token="") as port:
        assert [hold(port, None, opened)[0] for _ in range(4)] == [100] * 4  # one anonymous caller, no share
        status, headers, body = hold(port, None, opened)
        assert status == 503
        assert "(max_buffered_bytes)" in busy_message(headers, body)


def test_the_share_is_set_with_the_other_limits() -> None:
    assert TransportConfig().buffered_share == 32 * MiB  # an eighth of 256 MiB
    assert TransportConfig(max_request_bytes=64 * MiB).buffered_share == 64 * MiB  # one largest body at least
    assert TransportConfig(max_buffered_bytes_per_principal=512 * MiB).buffered_share == 256 * MiB  # no share
    with pytest.raises(ConfigurationError, match=r"^max_buffered_bytes_per_principal must be at least "
                                                 r"max_request_bytes \(16777216\), not 1048576: a body of the"):
        TransportConfig(max_buffered_bytes_per_principal=MiB)
    with serve(build(sync_check), max_request_bytes=LIMIT, max_buffered_bytes=4 * LIMIT,
               max_buffered_bytes_per_principal=2 * LIMIT) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        socks: list[socket.socket] = []
        try:
            assert [hold(port, "bob-token", socks)[0] for _ in range(3)] == [100, 100, 503]
        finally:
            for sock in socks:
                sock.close()


def test_the_notebook_setting_is_checked_as_run_checks_it_and_exported() -> None:
    import nbformat
    from traitlets import TraitError

    from nanohubmcp.jupyter.config import NanohubMCP
    from nanohubmcp.jupyter.translate import translate

    assert NanohubMCP().max_buffered_bytes_per_principal is None  # derived: run()'s default
    assert NanohubMCP(max_buffered_bytes_per_principal=64 * MiB).max_buffered_bytes_per_principal == 64 * MiB
    config = NanohubMCP()
    with pytest.raises(TraitError, match=r"NanohubMCP.max_buffered_bytes_per_principal = 2048 is below "
                                         r"NanohubMCP.max_request_bytes \(16777216\); max_buffered_bytes_per_principal "
                                         r"must be at least max_request_bytes: lower max_request_bytes first"):
        config.max_buffered_bytes_per_principal = 2048
    config.max_buffered_bytes_per_principal = 20 * MiB
    with pytest.raises(TraitError, match=r"max_request_bytes = 31457280 is above "
                                         r"NanohubMCP.max_buffered_bytes_per_principal \(20971520\)"):
        config.max_request_bytes = 30 * MiB
    config.max_buffered_bytes_per_principal = None
    config.max_request_bytes = 30 * MiB  # the derived share follows it

    notebook = nbformat.v4.new_notebook()
    notebook.cells.append(nbformat.v4.new_code_cell("%config NanohubMCP.max_buffered_bytes_per_principal = 67108864"))
    script = translate(notebook, source="work/demo.ipynb", format_code=False)
    assert "server.run(**_command_line_options(), max_buffered_bytes_per_principal=67108864)" in script.text
