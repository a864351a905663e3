"""One principal cannot hold more than its share of bodies being received by sending small bodies.

A fresh-user trial (trial33 W11): bodies of up to 64 KiB were not counted in ``max_buffered_bytes`` nor in
``max_buffered_bytes_per_principal``, so one token holder opening 4000 connections, each ``POST /mcp`` with
``Content-Length: 65536`` and 65,000 bytes sent, then nothing, held ~250 MB of the server's memory for as
long as it reconnected. Now a small body that did not come whole with its headers counts like a large one
(by its declared length, once its token is checked): beyond the share that principal's connections get
503 with ``Retry-After`` naming the setting, before their bodies are read, while another principal's call is
answered and a body that came whole with its headers (a tool call sent in one write) still goes through.

Source: RFC 9110 § 15.6.4 (503), § 10.2.3 (Retry-After), § 10.1.1 (Expect: 100-continue).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from raw_http import read_reply
from support import mcp_client, serve, wait_until
from token_holders import async_check, build, sync_check

KiB = 1 << 10
DECLARED = 64 * KiB
"""Each held body's ``Content-Length``: the largest that was not counted (and ``max_request_bytes``)."""
SENT = 4 * KiB
"""The part of it sent before the client stalls (a few kilobytes: the server reads it all; a refused
connection's is read and dropped after the 503, until its body's deadline)."""
SHARE = 4 * DECLARED
"""``max_buffered_bytes_per_principal``: four held bodies."""
OPENED = 12
@contextlib.contextmanager
def served(check: Callable[[str], Any] | None, **options: Any) -> Iterator[str]:
    with serve(build(check), max_request_bytes=DECLARED, **options) as url:
        yield url


def head(port: int, token: str | None, length: int, *, expect: bool = False) -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    continued = "Expect: 100-continue\r\n" if expect else ""
    return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n"
            f"{continued}{auth}\r\n").encode()


def stall(port: int, token: str | None, opened: list[socket.socket]) -> socket.socket:
    """W11's client: the headers of a ``DECLARED``-byte body and ``SENT`` bytes of it in one write, then nothing."""
    sock = socket.create_connection(("127.0.0.1", port))
    opened.append(sock)
    sock.sendall(head(port, token, DECLARED) + b'{"text": "' + b"x" * (SENT - 10))
    return sock


def answered(sock: socket.socket) -> bool:
    """Whether the server sent anything on ``sock`` yet (without waiting)."""
    sock.setblocking(False)
    try:
        return bool(sock.recv(1, socket.MSG_PEEK))
    except BlockingIOError:
        return False
    finally:
        sock.setblocking(True)


def held_and_refused(port: int, token: str | None, opened: list[socket.socket],
                     held: int) -> list[tuple[int, dict[str, str], bytes]]:
    """Open ``OPENED`` stalled connections; once all but ``held`` of them are answered (the refusals,
    whichever the server read last), the others are still waiting for their bodies. The refusals."""
    socks = [stall(port, token, opened) for _ in range(OPENED)]
    wait_until(lambda: sum(map(answered, socks)) == OPENED - held,
               f"{OPENED - held} of {OPENED} stalled bodies refused", timeout=10)
    refused = [sock for sock in socks if answered(sock)]
    assert len(refused) == OPENED - held  # the held ones get nothing until their body's deadline (30 s)
    return [read_reply(sock) for sock in refused]


def whole_call(port: int, token: str | None) -> tuple[int, dict[str, Any]]:
    """A sessionless ``tools/call`` whose headers and body go out in one write: its status and answer."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"text": "hello"}}}).encode()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head(port, token, len(body)) + body)
        status, _, answer = read_reply(sock)
    return status, json.loads(answer)


def continued(port: int, token: str, opened: list[socket.socket]) -> int:
    """The status the server first answers a small body announced with ``Expect: 100-continue``:
    100 when its bytes were taken, 503 when the share is full."""
    sock = socket.create_connection(("127.0.0.1", port))
    opened.append(sock)
    sock.sendall(head(port, token, DECLARED, expect=True))
    return read_reply(sock)[0]


async def bob_calls(url: str) -> str:
    async with mcp_client(url + "mcp", token="bob-token") as session:
        result = await asyncio.wait_for(session.call_tool("echo", {"text": "hello"}), 10)
    return str(result.content[0].text)  # type: ignore[union-attr]


@pytest.mark.parametrize("check", [sync_check, async_check], ids=["sync-check", "async-check"])
def test_stalled_small_bodies_take_the_principals_share(check: Callable[[str], Any],
                                                         opened: list[socket.socket]) -> None:
    with served(check, max_buffered_bytes_per_principal=SHARE) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        refusals = held_and_refused(port, "alice-token", opened, held=SHARE // DECLARED)  # was: none refused
        for status, headers, body in refusals:
            assert status == 503
            assert headers["retry-after"] == "1"
            assert headers.get("connection") != "close"  # the rest of the body is read and dropped (trial56 F12)
            assert "(max_buffered_bytes_per_principal)" in json.loads(body)["error"]["message"]
        assert asyncio.run(bob_calls(url)) == "5"  # another principal's call is answered
        status, answer = whole_call(port, "alice-token")  # a body the server holds whole is not refused
        assert (status, answer["result"]["content"][0]["text"]) == (200, "5")
        assert continued(port, "alice-token", opened) == 503
        for sock in opened:  # alice gives up her bodies: her share is free again
            sock.close()
        opened.clear()
        wait_until(lambda: continued(port, "alice-token", opened) == 100, "alice's share given back", timeout=10)


def test_without_authorization_the_overall_bound_counts_them(opened: list[socket.socket]) -> None:
    with served(None, token="", max_buffered_bytes=SHARE) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        refusals = held_and_refused(port, None, opened, held=SHARE // DECLARED)
        assert {status for status, _, _ in refusals} == {503}
        message = json.loads(refusals[0][2])["error"]["message"]
        assert "(max_buffered_bytes)" in message
        assert whole_call(port, None)[0] == 200
