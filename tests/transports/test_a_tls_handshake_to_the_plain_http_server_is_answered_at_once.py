"""Trial 66 F3: a client given an ``https://`` URL for the runner's plain-HTTP server opens with a TLS ClientHello
(first byte 0x16), which has no header-block end: the server waited its 30 s header timeout and said nothing, the
client failed with an empty timeout. Now such a connection is answered a plain-text 400 and closed at once, and the
server's log says a client spoke TLS to this plain-HTTP server; plain HTTP clients are served as before. And
scripts/demo_client.py, given the https:// URL, says "(https:// to a plain-HTTP server? ...)".
"""

from __future__ import annotations

import os
import socket
import ssl
import subprocess
import sys
from pathlib import Path

import pytest
from support import call_tool_http, script_server, wait_until

SCRIPT = '''
from nanohubmcp import MCPServer

server = MCPServer("plain")


@server.tool()
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


server.run(host="127.0.0.1", port=0)
'''


def _port(url: str) -> int:
    return int(url.rstrip("/").rsplit(":", 1)[1])


def test_a_tls_client_fails_at_once_and_the_log_says_why(tmp_path: Path) -> None:
    with script_server(SCRIPT, directory=tmp_path) as served:
        port = _port(served.url)
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        # before: TimeoutError (the server held the ClientHello 30 s)
        with socket.create_connection(("127.0.0.1", port), timeout=20) as raw, pytest.raises(ssl.SSLError):
            context.wrap_socket(raw, server_hostname="127.0.0.1")
        wait_until(lambda: "spoke TLS (https://) to this plain-HTTP server" in served.output, "the TLS log line")
        line = next(line for line in served.output.splitlines() if "spoke TLS" in line)
        assert "http:// URL" in line, line
        assert call_tool_http(served.url, "add", {"a": 1, "b": 2}) is not None  # plain HTTP is served as before


def test_the_answer_a_tls_client_gets_says_to_use_http(tmp_path: Path) -> None:
    hello = bytes.fromhex("16030100a5010000a10303") + bytes(160)  # a ClientHello's record start (its rest: zeros)
    with script_server(SCRIPT, directory=tmp_path) as served, \
            socket.create_connection(("127.0.0.1", _port(served.url)), timeout=20) as raw:
        raw.sendall(hello)
        answer = b""
        while chunk := raw.recv(4096):  # the server closes once it has answered
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 400 Bad Request\r\n"), answer
        assert b"use an http:// URL" in answer, answer


def test_the_demo_client_asks_whether_an_https_url_meets_a_plain_http_server(tmp_path: Path) -> None:
    client = Path(__file__).parents[2] / "scripts" / "demo_client.py"
    env = {key: value for key, value in os.environ.items() if key not in ("MCP_TOKEN", "MCP_PORT")}
    with script_server(SCRIPT, directory=tmp_path) as served:
        url = f"https://127.0.0.1:{_port(served.url)}/mcp"
        done = subprocess.run([sys.executable, str(client), url, "--timeout", "60"], capture_output=True, text=True,
                              timeout=90, stdin=subprocess.DEVNULL, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "(https:// to a plain-HTTP server?" in done.stderr, done.stderr
    assert f"try http://127.0.0.1:{_port(served.url)}/mcp" in done.stderr, done.stderr
    assert "is the server running?" not in done.stderr, done.stderr


def test_a_0x16_byte_past_the_first_is_no_tls_and_its_request_is_tornados_to_refuse(tmp_path: Path) -> None:
    # The first read ends at any 0x16 (a pattern re scans fast, review r39 R39-8); one past the first byte is read
    # on to the header block's end and handed to Tornado, which refuses a control byte in a header (400, no body).
    with script_server(SCRIPT, directory=tmp_path) as served:
        port = _port(served.url)
        with socket.create_connection(("127.0.0.1", port), timeout=20) as raw:
            raw.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Note: a\x16b\r\n\r\n" % port)
            answer = b""
            while chunk := raw.recv(4096):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 400 Bad Request\r\n"), answer
        assert b"http:// URL" not in answer, answer  # not taken for a TLS client
        assert "spoke TLS" not in served.output
        assert call_tool_http(served.url, "add", {"a": 1, "b": 2}) is not None
