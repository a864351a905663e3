"""``nanohubmcp bridge`` reads an SSE event's ``retry`` field only when it is ASCII digits, as the HTML Living
Standard says (§ Server-sent events: any other value is ignored), and reads it without converting its digits
to an int. A server answering with ``retry: ²`` (a digit to ``str.isdigit``, not to ``int``), or with 5,000
digits (past Python's 4,300) or 400 (past a float, once divided), had the bridge raise inside the stream's
reader: the answer in the same event was lost and the client got -32603 "the server ended the response stream
before answering" instead of its result. A real HTTP server answers; the bridge runs as the client runs it.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading
from collections.abc import Iterator

import pytest
import tornado.web
from stdio_support import bridge_command
from tornado.httpserver import HTTPServer
from tornado.testing import bind_unused_port

pytestmark = pytest.mark.timeout(120)

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
RESULT = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "upstream", "version": "1"}}


class _Answer(tornado.web.RequestHandler):
    def initialize(self, retry: str) -> None:
        self.retry = retry

    def post(self) -> None:
        request = json.loads(self.request.body)
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Mcp-Session-Id", "s1")
        answer = {"jsonrpc": "2.0", "id": request.get("id"), "result": RESULT}
        self.write(f"id: a.1\nretry: {self.retry}\ndata: {json.dumps(answer)}\n\n")


@pytest.fixture
def upstream(request: pytest.FixtureRequest) -> Iterator[str]:
    """A server answering every POST with one SSE event carrying ``retry: <param>`` and the answer; its URL."""
    loop = asyncio.new_event_loop()
    sock, port = bind_unused_port()
    started = threading.Event()
    server: list[HTTPServer] = []

    def serve() -> None:
        asyncio.set_event_loop(loop)
        http = HTTPServer(tornado.web.Application([(r"/mcp", _Answer, {"retry": request.param})]))
        http.add_sockets([sock])
        server.append(http)
        loop.call_soon(started.set)
        loop.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert started.wait(30)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        loop.call_soon_threadsafe(server[0].stop)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


@pytest.mark.parametrize("upstream", ["\u00b2", "9" * 5_000, "9" * 400, "1500"], indirect=True,
                         ids=["superscript two", "5000 digits", "400 digits", "1500 ms"])
def test_the_answer_in_an_event_with_any_retry_field_reaches_the_client(upstream: str) -> None:
    done = subprocess.run(bridge_command(upstream), input=json.dumps(INITIALIZE).encode() + b"\n",
                          capture_output=True, timeout=60, check=False)
    reply = json.loads(done.stdout.decode().splitlines()[0])
    assert reply == {"jsonrpc": "2.0", "id": 1, "result": RESULT}, done.stderr.decode()[-2000:]
    assert b"Traceback" not in done.stderr, done.stderr.decode()[-2000:]
