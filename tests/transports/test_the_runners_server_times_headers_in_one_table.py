"""The runner's HTTPServer (``http_server.LimitedServer``): a connection's next request headers
are timed in the loop's one deadline table (not a Tornado timer per request) and forgotten when
the connection closes; connections keep TCP_NODELAY on (Tornado turns it on and off around every
response: two system calls per request); a request's headers are read 8 KiB at a time (Tornado reads 64 KiB
into a zero-filled buffer per read), a large body in Tornado's 64 KiB pieces. Handlers format the ``Date``
header once a second and otherwise reset a response exactly as Tornado's ``clear()`` does.

The end-to-end trickling-headers case is in test_oversized_and_slow_requests_get_readable_answers.py.
"""

from __future__ import annotations

import asyncio
import email.utils
import http.client
import itertools
import json
import socket
import threading
import time
from typing import Any

import tornado.netutil
import tornado.web
from support import wait_until
from tornado import httputil

from nanohubmcp import MCPServer
from nanohubmcp.transports.base import BaseHandler, http_date
from nanohubmcp.transports.http_server import FIRST_READ_BYTES, LimitedServer, loop_deadlines

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2025-11-25"}


class Served:
    """``LimitedServer`` serving ``server.make_app()`` on a loop in a thread."""

    def __init__(self, server: MCPServer, header_timeout: float = 30.0) -> None:
        sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
        self.port = sockets[0].getsockname()[1]
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.http: LimitedServer | None = None
        self._stop: asyncio.Event | None = None

        async def main() -> None:
            self.http = LimitedServer(server.make_app(), header_timeout=header_timeout)
            self.http.add_sockets(sockets)
            self._stop = asyncio.Event()
            ready.set()
            await self._stop.wait()
            self.http.stop()
            await self.http.close_all_connections()

        self.thread = threading.Thread(target=lambda: self.loop.run_until_complete(main()), daemon=True)
        self.thread.start()
        assert ready.wait(10)

    def on_loop(self, fn: Any) -> Any:
        async def run() -> Any:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)

    def timed(self) -> int:
        return int(self.on_loop(lambda: len(loop_deadlines(asyncio.get_running_loop()))))

    def close(self) -> None:
        assert self._stop is not None
        self.loop.call_soon_threadsafe(self._stop.set)
        self.thread.join(10)


def build() -> MCPServer:
    server = MCPServer("headers")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add."""
        return a + b

    @server.tool()
    def size(text: str) -> int:
        """The text's length."""
        return len(text)

    return server


def test_an_idle_connection_is_timed_until_it_closes_and_then_forgotten() -> None:
    served = Served(build())
    try:
        assert served.timed() == 0
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}), HEADERS)
        reply = conn.getresponse()
        assert reply.status == 200
        reply.read()
        # Answered: the keep-alive connection now waits for its next request's headers, timed.
        wait_until(lambda: served.timed() == 1, "the idle connection is timed", 10)
        conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}), HEADERS)
        reply = conn.getresponse()
        assert reply.status == 200
        reply.read()
        wait_until(lambda: served.timed() == 1, "still one entry for the one connection", 10)
        conn.close()
        wait_until(lambda: served.timed() == 0, "a closed connection is forgotten", 10)
    finally:
        served.close()


def test_headers_not_in_by_the_deadline_lose_the_connection() -> None:
    served = Served(build(), header_timeout=0.5)
    try:
        with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
            started = time.monotonic()
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and no more
            assert sock.recv(1024) == b""  # closed unanswered
            assert time.monotonic() - started < 5
        wait_until(lambda: served.timed() == 0, "the closed connection is forgotten", 10)
    finally:
        served.close()


def test_connections_keep_tcp_nodelay_between_requests() -> None:
    served = Served(build())
    try:
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        for request_id in (1, 2):
            conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}), HEADERS)
            reply = conn.getresponse()
            assert reply.status == 200
            reply.read()

        def nodelay() -> list[int]:
            assert served.http is not None
            return [c.stream.socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
                    for c in served.http._connections]

        # Tornado's HTTPServer leaves it off between requests (it turns it on only to finish one).
        assert served.on_loop(nodelay) == [1]
        conn.close()
    finally:
        served.close()


def test_headers_are_read_in_small_pieces_and_a_large_body_in_tornados() -> None:
    served = Served(build())
    reads: list[int] = []  # the size of each buffer the server's connection reads its socket into

    def watch() -> None:
        assert served.http is not None
        for connection in served.http._connections:
            stream = connection.stream
            read = stream.read_from_fd

            def counted(buf: Any, read: Any = read) -> Any:
                reads.append(len(buf))
                return read(buf)

            stream.read_from_fd = counted

    def post(conn: http.client.HTTPConnection, body: dict[str, Any]) -> dict[str, Any]:
        conn.request("POST", "/mcp", json.dumps(body), HEADERS)
        reply = conn.getresponse()
        assert reply.status == 200
        answer: dict[str, Any] = json.loads(reply.read())
        return answer

    try:
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        post(conn, {"jsonrpc": "2.0", "id": 1, "method": "ping"})
        served.on_loop(watch)
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}
        assert post(conn, call)["result"]["content"][0]["text"] == "3.0"
        assert reads
        assert set(reads) == {FIRST_READ_BYTES}
        del reads[:]
        text = "x" * 300_000
        call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "size", "arguments": {"text": text}}}
        assert post(conn, call)["result"]["content"][0]["text"] == "300000"
        # The headers (and what came with them) in small pieces, the body in Tornado's own once the headers
        # declared a large one, then (maybe already) the next request's headers in small ones. (A read that
        # finds the socket empty takes a buffer too: one of the previous request's may come first.)
        runs = [size for size, _ in itertools.groupby(reads)]
        assert runs in ([FIRST_READ_BYTES, 64 * 1024], [FIRST_READ_BYTES, 64 * 1024, FIRST_READ_BYTES]), reads
        del reads[:]
        post(conn, {"jsonrpc": "2.0", "id": 4, "method": "ping"})  # the next request: small pieces again
        assert set(reads) == {FIRST_READ_BYTES}
        conn.close()
    finally:
        served.close()


def test_a_handler_resets_its_response_as_tornados_clear_does() -> None:
    app = tornado.web.Application()
    request = httputil.HTTPServerRequest(connection=_NoConnection(),
                                         start_line=httputil.RequestStartLine("GET", "/", "HTTP/1.1"),
                                         headers=httputil.HTTPHeaders({"Host": "127.0.0.1"}))

    class Plain(tornado.web.RequestHandler):
        pass

    kwargs: dict[str, Any] = {"config": None, "connection": None}
    ours, theirs = BaseHandler(app, request, **kwargs), Plain(app, request)
    ours.set_status(404)
    ours.set_header("X-Left", "over")
    ours.write(b"left over")
    ours.clear()
    mine, tornados = vars(ours), vars(theirs)
    # The same state: no attribute Tornado's clear() sets is missing or different.
    for name in ("_write_buffer", "_status_code", "_reason"):
        assert mine[name] == tornados[name], name
    assert dict(ours._headers) == {**dict(theirs._headers), "Date": ours._headers["Date"]}
    stamp = email.utils.parsedate_to_datetime(ours._headers["Date"]).timestamp()
    assert abs(stamp - time.time()) < 2
    assert email.utils.parsedate_to_datetime(http_date()).timestamp() >= stamp


class _NoConnection:
    def set_close_callback(self, callback: Any) -> None:
        pass
