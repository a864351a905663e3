"""A legacy SSE stream whose client reads nothing holds one large answer waiting at most (review r20, M2).

An answer over ``sse_writer.PIECE_BYTES`` is written a megabyte at a time; one that waits behind another
counts one piece against the bytes its client may leave unread (``WRITE_BUFFER_BYTES``), so that a client
reading promptly is not cut off by an answer the server wrote whole (trial36 Z4). But the count held for any
size: a client that stopped reading and kept calling a tool with a large answer (bytes are sent inline) had
the server hold about seven such answers per stream, whatever their size, where it held one before.

Now a large answer may wait behind the one being written only when no other large answer waits: a second one
closes the stream as a client that left that much unread (the Z4 case, one large answer behind another, is
still sent whole). The event being written when the stream is closed stops there: Tornado drops the
future of a write to a connection closed under it, which left its task waiting forever with the event.
Stopping it is quiet: the write it was waiting on, cancelled with it, logged an "Exception in callback …
CancelledError" traceback on the event loop each time (trial41 Q13).
"""

from __future__ import annotations

import gc
import json
import logging
import socket
from urllib.parse import urljoin

import pytest
from support import rpc_message, serve, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.transports.sse_writer import PIECE_BYTES

BLOB = 3 * PIECE_BYTES  # its base64 in a JSON-RPC answer: an event of about 4 MiB
CLOSED = "closing a stream whose client left"


def build() -> MCPServer:
    # A resource's text is its answer, whatever its size; one going as an SSE event over the official client's 1 MiB
    # (trial53 F4: that client refuses a larger event) is refused by default, which this server lifts
    # (max_event_bytes=None): its clients are raw sockets, and the test is of how events over a piece wait.
    server = MCPServer("large answers", max_event_bytes=None)

    @server.resource("data://blob")
    def blob() -> str:
        """A text sent whole, whatever its size."""
        return "x" * BLOB

    return server


def open_unread_stream(port: int) -> tuple[socket.socket, str]:
    """``GET /sse`` on a socket that reads the endpoint event, then nothing more."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET /sse HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
    sock.settimeout(10)
    received = b""
    while b"event: endpoint" not in received or not received.split(b"event: endpoint", 1)[1].count(b"\n\n"):
        chunk = sock.recv(4096)
        assert chunk, "GET /sse ended before the endpoint event"
        received += chunk
    endpoint = received.split(b"event: endpoint", 1)[1].split(b"data: ", 1)[1].split(b"\n", 1)[0].decode()
    return sock, urljoin("/sse", endpoint.strip())


def post(port: int, path: str, message: object) -> int:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        body = json.dumps(message).encode()
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        head = sock.recv(64)
    return int(head.split()[1])


def test_a_second_large_answer_waiting_closes_the_stream_of_a_client_reading_nothing(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="nanohubmcp.http")
    server = build()
    with serve(server):
        sock, endpoint = open_unread_stream(server.port)
        try:
            initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
            assert post(server.port, endpoint, initialize) == 202
            assert post(server.port, endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"}) == 202
            closed = lambda: any(CLOSED in record.getMessage() for record in caplog.records)  # noqa: E731
            for request_id in range(2, 8):  # one written (or two, one taken whole by the socket), one waiting, more
                status = post(server.port, endpoint, rpc_message("resources/read", {"uri": "data://blob"}, request_id))
                assert status == 202 or (status == 404 and closed()), status  # (404: the session ended with it)
            wait_until(closed, "the stream of a client reading nothing was closed", timeout=20)
        finally:
            sock.close()
    gc.collect()  # the event being written when the stream closed ended with it, not left waiting forever
    assert not [r for r in caplog.records if "Task was destroyed but it is pending" in r.getMessage()]
    assert not [r for r in caplog.records if r.exc_info or "Exception in callback" in r.getMessage()]
