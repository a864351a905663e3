"""A ``Content-Length`` the server cannot use is answered with a JSON error, never an uncaught exception.

The runner's server decides from a request's declared length how much to read at a time. A 5,000-digit value
made ``int()`` raise past Python's digit limit there: the log showed "Uncaught exception" and the client got
its connection closed without a word. Source: RFC 9112 § 6.3 (an invalid length is an unrecoverable error the
server answers 400), RFC 9110 § 15.5.14 (413 for a body over the limit).
"""

from __future__ import annotations

import socket

import pytest
from raw_http import read_reply
from support import serve

from nanohubmcp import MCPServer


def build() -> MCPServer:
    server = MCPServer("lengths")

    @server.tool()
    def echo(text: str) -> str:
        """Echo."""
        return text

    return server


@pytest.mark.parametrize(("length", "status"), [
    ("9" * 5000, 413),  # past Python's int digit limit
    ("99999999999999999999999", 413),
    ("\u0661\u0662\u0663", 400),  # Arabic-Indic digits: str.isdigit() is true, no HTTP length
    ("12abc", 400),
    ("-1", 400),
], ids=["5000 digits", "23 digits", "arabic-indic", "letters", "negative"])
def test_a_content_length_it_cannot_use_gets_a_json_error_and_the_server_serves_on(
        length: str, status: int, caplog: pytest.LogCaptureFixture) -> None:
    with serve(build()) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         f"Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n\r\n"
                         .encode())
            got, _, answer = read_reply(sock)
        assert got == status
        assert b'"error"' in answer
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert read_reply(sock)[0] == 200
    assert "Uncaught exception" not in caplog.text
