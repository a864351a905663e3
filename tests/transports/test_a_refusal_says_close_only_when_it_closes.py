"""A refusal says ``Connection: close`` exactly when the server closes the connection after it (review r36 F8).

A 401 (no token), 403 (a foreign Origin) or 421 (a foreign Host) to a request WITHOUT a body said
``Connection: close`` and then kept the connection, answering a pipelined next request on it: RFC 9112 § 9.6
says a server that sends ``close`` closes after that response and processes no further request. Such a
refusal now keeps the connection without the word (nothing is left unread); a refused request WITH a body,
answered before the body is read, still says ``close`` and closes (the streamed twin's finish).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from raw_http import read_reply
from support import serve

from nanohubmcp import MCPServer

TOKEN = "a-token-of-alice-1234567"


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    server = MCPServer("refusals")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    with serve(server, token=TOKEN) as url:
        yield int(url.rstrip("/").rsplit(":", 1)[1])


def request(method: str, *, host: str = "127.0.0.1", extra: str = "", body: bytes = b"") -> bytes:
    length = f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n" if body else ""
    return (f"{method} /mcp HTTP/1.1\r\nHost: {host}\r\nAccept: application/json, text/event-stream\r\n"
            f"{extra}{length}\r\n").encode() + body


PROBE = b"GET /.well-known/oauth-protected-resource HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def refused_then_probe(port: int, refused: bytes) -> tuple[int, dict[str, str], int | None]:
    """Send ``refused``, read its answer, then send a probe on the same connection: the refusal's status and
    headers, and the probe's status (None: the server had closed the connection after the refusal)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(refused)
        status, headers, _body = read_reply(sock)
        try:
            sock.sendall(PROBE)
            second: int | None = read_reply(sock)[0]
        except OSError:  # (ConnectionError: closed; a reset)
            second = None
        return status, headers, second


@pytest.mark.parametrize(("case", "sent", "status"), [
    ("no token", request("GET"), 401),
    ("no token, DELETE", request("DELETE"), 401),
    ("foreign origin", request("GET", extra=f"Authorization: Bearer {TOKEN}\r\nOrigin: http://evil.example\r\n"),
     403),
    ("foreign host", request("GET", host="evil.example", extra=f"Authorization: Bearer {TOKEN}\r\n"), 421),
])
def test_a_bodyless_refusal_keeps_its_connection_and_does_not_say_close(
        port: int, case: str, sent: bytes, status: int) -> None:
    got, headers, probe = refused_then_probe(port, sent)
    assert got == status, (case, got, headers)
    assert headers.get("connection", "").lower() != "close", (case, headers)
    assert probe == 200, (case, probe)


def test_a_refusal_before_its_body_says_close_and_closes(port: int) -> None:
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    got, headers, probe = refused_then_probe(port, request("POST", body=body))
    assert got == 401, headers
    if probe is not None:  # the body was read after all: then the connection may stay, and must not say close
        assert headers.get("connection", "").lower() != "close", headers
    else:
        assert headers.get("connection", "").lower() == "close", headers
