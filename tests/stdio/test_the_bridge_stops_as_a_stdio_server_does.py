"""``nanohubmcp bridge URL`` stops as ``nanohubmcp run --transport stdio`` does.

- SIGHUP (a desktop client's terminal closing) stops it as SIGTERM does while SIGHUP has its default action: the
  request still running is answered with the stopping server's -32000 error, its call is cancelled on the server
  (the ``async def`` tool's coroutine gets ``CancelledError``), the bridge says why on stderr and exits 0. Started
  with SIGHUP ignored (under ``nohup``) it keeps relaying.
- Its client closing stdin (it quit) ends it promptly: the call still running is the client's cancel, sent on to
  the server, rather than waited for up to the bridge's 10 s drain and left running on the server. So is any other
  request still unanswered (an ``async def`` resource's read, prompt's get), ``initialize`` aside: before, only a
  ``tools/call`` was cancelled, the others ended by the session's end 10 s later.
- An answer the server sends after the stop answered its request (it crossed the cancel) is not relayed: the
  client gets one response per request. Before, a legacy server's answer on its SSE stream followed the -32000.

Before, the bridge took SIGINT and SIGTERM only (its own copy of the stop signals): SIGHUP's default action ended it
at once, the request unanswered; a stop signal left the request unanswered; at the end of input it waited 10 s for
the call and then ended its session, which left the coroutine running. A real bridge process in front of a real
server, over Streamable HTTP and legacy SSE.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stdio_support import Piped, bridge_command
from support import serve

from nanohubmcp import Context, MCPServer
from nanohubmcp.transports.bridge.ending import HANGUP_LINE

pytestmark = [pytest.mark.timeout(120),
              pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="a platform without SIGHUP")]

LONG = 600.0  # seconds the tool would run uncancelled: far past every wait below
STOPPING = -32000
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "quits", "version": "1"}}
HANGUP = getattr(signal, "SIGHUP", signal.SIGTERM)


class Upstream:
    """A served server whose ``aspin`` says when it starts and when its coroutine is cancelled; ``holds`` holds the
    server's loop from its start until :attr:`release` is set; the ``data://waits`` resource and the ``waits`` prompt
    end once told of their cancel, noting whether their session was open then (:attr:`session_open`)."""

    def __init__(self) -> None:
        self.started, self.cancelled, self.release = threading.Event(), threading.Event(), threading.Event()
        self.session_open: list[bool] = []
        self.server = server = MCPServer("bridged")

        @server.tool()
        async def holds() -> str:
            """Holds the loop (the bridge's cancel unread) until released, then answers."""
            self.started.set()
            self.release.wait(LONG)
            return "late"

        async def waits(ctx: Context) -> str:
            told = asyncio.Event()

            def cancelled() -> None:
                session = ctx.session_id
                self.session_open.append(session is not None and server.core.sessions.get(session) is not None)
                told.set()

            ctx.on_cancel(cancelled)
            self.started.set()
            await asyncio.wait_for(told.wait(), LONG)
            return "cancelled"

        server.resource("data://waits")(waits)
        server.prompt(name="waits")(waits)

        @server.tool()
        async def aspin(seconds: float) -> str:
            """Sleeps ``seconds``; notes its cancel."""
            self.started.set()
            sleeping = asyncio.ensure_future(asyncio.sleep(seconds))
            sleeping.add_done_callback(lambda done: done.cancelled() and self.cancelled.set())
            await sleeping
            return "done"


class Bridged(Piped):
    """A bridge process to ``url``; SIGHUP ignored at its start when ``hangup_ignored`` (as ``nohup`` starts it)."""

    def __init__(self, url: str, log: Path, *, hangup_ignored: bool = False) -> None:
        def ignore_hangup() -> None:
            signal.signal(signal.SIGHUP, signal.SIG_IGN)

        with log.open("wb") as sink:
            process = subprocess.Popen(bridge_command(url), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=sink, preexec_fn=ignore_hangup if hangup_ignored else None)
        super().__init__(process, log)

    def initialized(self) -> None:
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        assert self.line()["id"] == 1, self.stderr
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, request_id: int, tool: str = "aspin", **arguments: Any) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                   "params": {"name": tool, "arguments": arguments}})


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with serve(up.server):
        try:
            yield up
        finally:
            up.release.set()


@pytest.fixture
def bridged(upstream: Upstream, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Bridged]:
    """A bridge to ``upstream``'s ``/mcp`` (``/sse`` when parametrized ``"sse"``)."""
    endpoint, ignored = getattr(request, "param", ("mcp", False))
    assert upstream.server.url is not None
    bridge = Bridged(upstream.server.url + endpoint, tmp_path / "stderr.log", hangup_ignored=ignored)
    try:
        yield bridge
    finally:
        if bridge.process.poll() is None:
            bridge.process.kill()
        bridge.process.wait(30)


@pytest.mark.parametrize("signum", [signal.SIGTERM, HANGUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_signal_answers_the_running_request_cancels_its_call_and_exits_zero(
        upstream: Upstream, bridged: Bridged, signum: int) -> None:
    bridged.initialized()
    bridged.call(2, seconds=LONG)
    assert upstream.started.wait(30), bridged.stderr
    bridged.process.send_signal(signum)
    assert bridged.process.stdout is not None
    lines = [json.loads(line) for line in bridged.process.stdout]
    assert bridged.process.wait(30) == 0, bridged.stderr  # (before: SIGHUP's default action, -1)
    assert lines, bridged.stderr
    assert lines[-1]["id"] == 2, lines
    assert lines[-1]["error"]["code"] == STOPPING, lines[-1]
    assert upstream.cancelled.wait(30), "the call's coroutine was not cancelled on the server"
    assert "Traceback" not in bridged.stderr, bridged.stderr
    assert (HANGUP_LINE in bridged.stderr) == (signum == HANGUP), bridged.stderr


@pytest.mark.parametrize("bridged", [("mcp", True)], indirect=True, ids=["nohup"])
def test_sighup_ignored_as_under_nohup_keeps_it_relaying(bridged: Bridged) -> None:
    bridged.initialized()
    bridged.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert bridged.line() == {"jsonrpc": "2.0", "id": 2, "result": {}}  # relaying, its signal handlers taken
    bridged.process.send_signal(signal.SIGHUP)  # (an ignored signal is discarded as it is sent)
    bridged.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    assert bridged.line() == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert bridged.process.poll() is None
    assert HANGUP_LINE not in bridged.stderr


@pytest.mark.parametrize("bridged", [("mcp", False), ("sse", False)], indirect=True, ids=["mcp", "sse"])
def test_closing_its_input_cancels_the_running_call_and_ends_it(upstream: Upstream, bridged: Bridged) -> None:
    bridged.initialized()
    bridged.call(2, seconds=LONG)
    assert upstream.started.wait(30), bridged.stderr
    assert bridged.process.stdin is not None
    bridged.process.stdin.close()
    # Before: the bridge waited out its 10 s drain, then ended the session, which left the coroutine running.
    assert upstream.cancelled.wait(30), "the call's coroutine was not cancelled on the server"
    assert bridged.process.wait(30) == 0, bridged.stderr
    assert "Traceback" not in bridged.stderr, bridged.stderr


def test_a_quick_call_piped_in_is_still_answered(upstream: Upstream) -> None:
    assert upstream.server.url is not None
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "aspin",
                                                                           "arguments": {"seconds": 0}}}]
    done = subprocess.run(bridge_command(upstream.server.url + "mcp"),
                          input=b"".join(json.dumps(line).encode() + b"\n" for line in lines),
                          capture_output=True, timeout=60, check=False)
    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines())}
    assert answers[2]["result"]["content"][0]["text"] == "done", done.stderr.decode()
    assert done.returncode == 0
    assert not upstream.cancelled.is_set()


@pytest.mark.parametrize(("method", "params"), [("resources/read", {"uri": "data://waits"}),
                                                ("prompts/get", {"name": "waits"})], ids=["resource", "prompt"])
def test_closing_its_input_cancels_any_request_still_unanswered(
        upstream: Upstream, bridged: Bridged, method: str, params: dict[str, Any]) -> None:
    bridged.initialized()
    bridged.send({"jsonrpc": "2.0", "id": 2, "method": method, "params": params})
    assert upstream.started.wait(30), bridged.stderr
    assert bridged.process.stdin is not None
    bridged.process.stdin.close()
    assert bridged.process.wait(30) == 0, bridged.stderr
    # The client's cancel, its session open; before, the session's end (the bridge's DELETE after its 10 s drain).
    assert upstream.session_open == [True]


@pytest.mark.parametrize("bridged", [("sse", False)], indirect=True, ids=["sse"])
def test_an_answer_crossing_the_stop_is_not_relayed_after_the_bridges(upstream: Upstream, bridged: Bridged) -> None:
    bridged.initialized()
    bridged.call(2, "holds")
    assert upstream.started.wait(30), bridged.stderr
    bridged.process.send_signal(signal.SIGTERM)
    assert bridged.line()["error"]["code"] == STOPPING, bridged.stderr  # the bridge's answer; its cancel is unread
    upstream.release.set()  # the tool answers on the SSE stream, then the server reads the cancel
    assert bridged.process.stdout is not None
    after = [json.loads(line) for line in bridged.process.stdout]
    assert bridged.process.wait(30) == 0, bridged.stderr
    assert after == []  # before: the tool's "late" answer, a second response to request 2
