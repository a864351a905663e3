"""``make_app()`` on an HTTPServer of the user's own serves everything the runner does,
change notifications included (regression: they needed the runner's notifier)."""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
from typing import Any

import tornado.httpserver
import tornado.netutil

from nanohubmcp import MCPServer

SSE = "application/json, text/event-stream"


class OwnServer:
    """The user's own Tornado HTTPServer on a loop in a thread, serving ``server.make_app()``."""

    def __init__(self, server: MCPServer) -> None:
        sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
        self.port = sockets[0].getsockname()[1]
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self._stop: asyncio.Event | None = None

        async def main() -> None:
            http = tornado.httpserver.HTTPServer(server.make_app())
            http.add_sockets(sockets)
            self._stop = asyncio.Event()
            ready.set()
            await self._stop.wait()
            http.stop()

        self.thread = threading.Thread(target=lambda: self.loop.run_until_complete(main()), daemon=True)
        self.thread.start()
        assert ready.wait(10)

    def close(self) -> None:
        assert self._stop is not None
        self.loop.call_soon_threadsafe(self._stop.set)
        self.thread.join(10)


def post(port: int, body: dict[str, Any], session: str | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/json", "Accept": SSE, "MCP-Protocol-Version": "2025-11-25"}
    if session:
        headers["Mcp-Session-Id"] = session
    conn.request("POST", "/mcp", json.dumps(body), headers)
    return conn.getresponse()


def test_list_changed_reaches_the_get_stream_without_the_runner() -> None:
    server = MCPServer("own")

    @server.tool()
    def first() -> str:
        """One."""
        return "1"

    own = OwnServer(server)
    port = own.port
    try:
        reply = post(port, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                            "params": {"protocolVersion": "2025-11-25", "capabilities": {}}})
        session = reply.getheader("Mcp-Session-Id")
        reply.read()
        post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session).read()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": session,
                                             "MCP-Protocol-Version": "2025-11-25"})
        stream = conn.getresponse()
        assert stream.status == 200
        stream.readline()  # the priming event's id line: the stream is attached

        @server.tool()
        def second() -> str:
            """Two."""
            return "2"

        for _ in range(20):
            line = stream.readline().decode()
            if "notifications/tools/list_changed" in line:
                break
        else:
            raise AssertionError("no list_changed on the GET stream")
        conn.close()
    finally:
        own.close()


def test_a_preflight_may_ask_for_mcp_param_headers() -> None:
    from support import serve

    server = MCPServer("cors")
    with serve(server) as base:
        port = int(base.rsplit(":", 1)[1].strip("/"))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("OPTIONS", "/mcp", headers={
            "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, mcp-method, mcp-param-region"})
        reply = conn.getresponse()
        reply.read()
        allowed = [h.strip().lower() for h in reply.getheader("Access-Control-Allow-Headers", "").split(",")]
        assert reply.status == 204
        assert "mcp-param-region" in allowed
        assert "mcp-method" in allowed


def test_the_slow_body_deadline_holds_on_your_own_server_too() -> None:
    """The slow-body deadline belongs to the application, not to the runner's server; a body left
    unfinished is forgotten once its client leaves."""
    import socket
    import time

    from nanohubmcp.transports.http_server import loop_deadlines

    own = OwnServer(MCPServer("limits"))
    try:
        def pending() -> int:
            return asyncio.run_coroutine_threadsafe(_count(loop_deadlines), own.loop).result(10)

        with socket.create_connection(("127.0.0.1", own.port), timeout=10) as sock:
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100\r\n\r\n{\"jsonrpc\":")
            deadline = time.monotonic() + 10
            while pending() != 1:  # the body is being timed
                assert time.monotonic() < deadline
                time.sleep(0.01)
        deadline = time.monotonic() + 10
        while pending() != 0:  # the client left: nothing is kept for it
            assert time.monotonic() < deadline
            time.sleep(0.01)
    finally:
        own.close()


async def _count(tables: Any) -> int:
    return len(tables(asyncio.get_running_loop()))
