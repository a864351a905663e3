"""The in-memory client takes the path a stdio line takes (review r42, R42-6): the same bytes, sent in the same
order on one connection, get the same answers, with the same notifications before them, in the same order.
The memory transport read each message itself beside stdio's: a blank message was answered -32700 where stdio
passes a blank line over, and a message over stdio's 4 MiB limit was served where stdio refuses it (-32600,
naming its id). Both now go through ``transports/one_peer``. A stdio line is the message without its newline
(trial74 F12: the parse error of the line ``{`` pointed at a line 2 the client never sent).

Stdio is the real transport on two pipes, served by a thread of its own; the in-memory client is the public
one (``in_memory``) on a server built alike. After each message a ``ping`` (a fence, sent over stdio only) marks
where that message's answers end, so a message owed none is seen to get none without a sleep.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import threading
from collections.abc import Iterator
from typing import Any

from nanohubmcp import Context, MCPServer
from nanohubmcp.testing import in_memory
from nanohubmcp.transports.stdio import StdioTransport

INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def build() -> MCPServer:
    server = MCPServer("same-bytes", provenance=False)

    @server.tool()
    def echo(s: str) -> str:
        """Echo the text."""
        return s

    @server.tool()
    def chatty(n: int, ctx: Context) -> int:
        """Log and report progress n times."""
        for i in range(n):
            ctx.info(f"step {i}")
            ctx.report_progress(i + 1, n)
        return n

    return server


def message(request_id: Any, method: str, params: dict[str, Any] | None = None) -> bytes:
    sent: dict[str, Any] = {"jsonrpc": "2.0"} if request_id is None else {"jsonrpc": "2.0", "id": request_id}
    return json.dumps({**sent, "method": method, "params": params or {}}).encode()  # (the id first: a cut finds it)


def call(request_id: int, name: str, arguments: dict[str, Any], **meta: Any) -> bytes:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = meta
    return message(request_id, "tools/call", params)


SENT = [
    b"",  # before: -32700 in memory; a blank line is passed over
    b"   \t ",
    message(None, "notifications/initialized"),  # a notification before initialize
    message(1, "ping"),
    b'{"jsonrpc": ',  # not JSON
    b"{",  # before: stdio parsed the line with its newline, "line 2 column 1 (char 2)" of a one-line message
    b"5",  # JSON, no message
    b"[]",
    b"[" + message(2, "ping") + b"," + call(3, "echo", {"s": "in a batch"}) + b"]",  # sessionless: 2025-03-26
    call(4, "echo", {"s": "x" * (5 * 1024 * 1024)}),  # before: served in memory; refused over stdio
    json.dumps(INIT).encode(),
    message(None, "notifications/initialized"),
    message(5, "logging/setLevel", {"level": "info"}),
    b"[" + message(6, "ping") + b"]",  # a batch in a 2025-11-25 session: refused
    call(7, "chatty", {"n": 3}, progressToken="p"),  # its log messages and progress, in order, then its answer
    call(8, "nope", {}),
    message(9, "no/such/method"),
    json.dumps(INIT).encode(),  # a second handshake starts over
    call(10, "echo", {"s": "again"}),
]


class Stdio:
    """A server over stdio on two pipes; ``exchange(body)`` sends a line and returns what it was answered."""

    def __init__(self, server: MCPServer) -> None:
        self.in_r, self.in_w = os.pipe()
        self.out_r, self.out_w = os.pipe()
        transport = StdioTransport(server, in_fd=self.in_r, out_fd=self.out_w)
        self.lines: queue.Queue[Any] = queue.Queue()
        self.thread = threading.Thread(target=lambda: asyncio.run(transport.serve()), daemon=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.fences = 0

    def _read(self) -> None:
        with os.fdopen(self.out_r, "rb", closefd=False) as out:
            for line in out:
                self.lines.put(json.loads(line))

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.in_w, view):]

    def exchange(self, body: bytes, answered: bool) -> list[Any]:
        """What ``body`` was answered with, up to its fence's answer; and past it, when ``answered``, until
        an answer came (a request still running when the fence was answered)."""
        self.fences += 1
        fence = f"fence-{self.fences}"
        self._write(body + b"\n" + message(fence, "ping") + b"\n")
        got: list[Any] = []
        fenced = False
        while not fenced or (answered and not any(isinstance(m, list) or "id" in m for m in got)):
            line = self.lines.get(timeout=30)
            if isinstance(line, dict) and line.get("id") == fence:
                fenced = True
            else:
                got.append(line)
        return got


@contextlib.contextmanager
def over_stdio(server: MCPServer) -> Iterator[Stdio]:
    stdio = Stdio(server)
    stdio.thread.start()
    stdio.reader.start()
    try:
        yield stdio
    finally:
        os.close(stdio.in_w)  # end of input: the server stops
        stdio.thread.join(30)
        os.close(stdio.out_w)
        stdio.reader.join(30)
        for fd in (stdio.in_r, stdio.out_r):
            os.close(fd)


def test_the_same_bytes_get_the_same_answers_and_notifications() -> None:
    with in_memory(build(), version="2025-03-26", session=False) as client, over_stdio(build()) as stdio:
        for body in SENT:
            seen = len(client.client.messages)
            answer = client.send(body)  # the bytes of stdio's line, without its end
            in_memory_answers = client.client.messages[seen:] + ([answer] if answer is not None else [])
            assert stdio.exchange(body, answer is not None) == in_memory_answers, body[:80]


def test_the_refusals_are_stdios() -> None:
    with in_memory(build(), version="2025-03-26", session=False) as client:
        assert client.send(b"") is None
        assert client.send("  \n") is None
        too_long = client.send(call(4, "echo", {"s": "x" * (5 * 1024 * 1024)}))
        assert too_long == {"jsonrpc": "2.0", "id": 4, "error": {
            "code": -32600, "message": "Message too long: the limit is 4194304 bytes per line"}}
        assert client.call_tool("echo", {"s": "still"})["content"][0]["text"] == "still"
