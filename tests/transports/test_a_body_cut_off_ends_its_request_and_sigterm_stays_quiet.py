"""trial24 N7: a request whose body was still being read in pieces (a chunked body, or one over
``max_request_bytes`` being read on after its 413) never heard that its connection closed: the MCP and
legacy SSE handlers' ``on_connection_close`` did not pass it on to Tornado's, which ends such a request.
A client that dropped mid-body left the request waiting for ever; at SIGTERM the process ended by
cancelling it, and Tornado logged ``Cannot send error response after headers written`` (after a 413) or
a ``500 POST /mcp`` for a client long gone.

Now the request ends when its connection closes, and a SIGTERM after such input (with GET streams open,
a half-sent header block, a call still running) leaves nothing on stderr: every stream is ended, the
GET streams with the last chunk of their response.

What is waited for is a condition (the server's answer, ``100 Continue`` saying it read the headers,
the count of requests running on its loop), never a fixed time.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, closing
from pathlib import Path

import pytest
from support import serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)

HANDSHAKE = "MCP-Protocol-Version: 2025-06-18\r\n"
TOO_LONG = 20 * 1024 * 1024  # over the default max_request_bytes (16 MiB), within what is read on after a 413


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=30)


def head_of(sock: socket.socket) -> bytes:
    """Read up to the end of a response's header block."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"the connection closed before a response: {data!r}"
        data += chunk
    return data


def post(sock: socket.socket, port: int, path: str, body: object, headers: str = "") -> None:
    text = json.dumps(body).encode()
    sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                 f"Accept: application/json, text/event-stream\r\n{headers}Content-Length: {len(text)}\r\n\r\n"
                 .encode() + text)


def chunked_started(port: int, path: str) -> socket.socket:
    """A chunked POST whose headers the server has read (its ``100 Continue``) and whose body stops
    after one piece."""
    sock = connect(port)
    sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                 "Expect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
    assert head_of(sock).startswith(b"HTTP/1.1 100"), "no 100 Continue"
    sock.sendall(b"5\r\n{\"jso\r\n")
    return sock


def too_long_started(port: int, path: str) -> socket.socket:
    """A POST over the body limit, answered 413 while the rest of its body is being read."""
    sock = connect(port)
    sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {TOO_LONG}\r\n\r\n".encode() + b"x" * 4096)
    assert head_of(sock).startswith(b"HTTP/1.1 413"), "no 413"
    return sock


ROUTES = ["/mcp", "/", "/messages/?session_id=none", "/tools/add"]


def running_requests(server: MCPServer) -> int:
    """How many requests are being handled on the server's loop now."""
    loop = server.core.loop
    assert loop is not None

    async def count() -> int:
        return sum(1 for task in asyncio.all_tasks() if task.get_coro().__qualname__.endswith("._execute"))

    return asyncio.run_coroutine_threadsafe(count(), loop).result(10)


def test_a_client_dropping_mid_body_ends_its_request() -> None:
    server = MCPServer("cut-bodies")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    with serve(server) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        for route in ROUTES:
            for start in (chunked_started, too_long_started):
                start(port, route).close()
        deadline = time.monotonic() + 10
        while (left := running_requests(server)) and time.monotonic() < deadline:
            time.sleep(0.02)  # polling a condition, bounded by the deadline
        assert left == 0, f"{left} requests still wait for bodies whose clients left"


APP = '''
import asyncio

from nanohubmcp import MCPServer

server = MCPServer("hostile")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@server.tool()
async def forever() -> str:
    """Runs until the server stops."""
    await asyncio.Event().wait()
    return "never"
'''


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    app = tmp_path / "hostile_app.py"
    app.write_text(APP, encoding="utf-8")
    # (--exit-grace 3: the stop cuts the running call off 1 s after SIGTERM, not at the default grace's 8 s)
    process = subprocess.Popen([sys.executable, "-m", "nanohubmcp", "run", str(app), "--port", "0",
                                "--exit-grace", "3"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=tmp_path)
    try:
        assert process.stdout is not None
        banner = ""
        while (found := re.search(r"127\.0\.0\.1:(\d+)", banner)) is None:
            line = process.stdout.readline()
            assert line, f"the server did not start: {banner}{process.communicate(timeout=30)}"
            banner += line
        yield process, int(found[1])
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(30)


def test_sigterm_after_hostile_input_ends_every_stream_and_logs_nothing(
    served: tuple[subprocess.Popen[str], int],
) -> None:
    process, port = served
    with ExitStack() as stack:
        opened = []
        with closing(connect(port)) as first:
            post(first, port, "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
            found = re.search(rb"(?i)mcp-session-id: (\S+)", head_of(first))
            assert found is not None
            session = f"Mcp-Session-Id: {found[1].decode()}\r\n{HANDSHAKE}"
            post(first, port, "/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
            head_of(first)
        get = stack.enter_context(closing(connect(port)))
        get.sendall(f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n{session}\r\n"
                    .encode())
        legacy = stack.enter_context(closing(connect(port)))
        legacy.sendall(f"GET /sse HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
        streams = [get, legacy]
        for sock in streams:
            assert head_of(sock).startswith(b"HTTP/1.1 200")
        call = stack.enter_context(closing(connect(port)))
        post(call, port, "/mcp", {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                  "params": {"name": "forever", "arguments": {}}}, session)
        for route in ROUTES:
            opened += [stack.enter_context(closing(chunked_started(port, route))),
                       stack.enter_context(closing(too_long_started(port, route)))]
        half_header = stack.enter_context(closing(connect(port)))
        half_header.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Ty".encode())

        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 0
        # Only the stop's own line on the call it waits for (said as the stop begins, docs/api/summary.md): no
        # Tornado error, no 500 for a client long gone.
        said = [line for line in stderr.splitlines()
                if not line.startswith("nanohubmcp: stopped; waiting for 1 running tool call(s) to return")]
        assert said == [], stderr

        for sock in [*streams, call, *opened, half_header]:
            rest = b""
            while chunk := sock.recv(65536):  # the server closed every connection
                rest += chunk
            if sock in streams:
                assert rest.endswith(b"0\r\n\r\n"), rest[-200:]  # the response's last chunk
