"""``nanohubmcp bridge`` opens a new session from its GET stream's 404 only for a session whose stream the
server had opened, once per session, and keeps trying while a proxy answers 404 for a restarting server.

- A server whose POSTs know the session but whose GET answers 404 (a load balancer sending the GET to a
  process that does not hold it) had the bridge open a new session, GET, 404, renew again, in a tight loop:
  780 ``initialize`` and as many ``list_changed`` and stderr warnings in 3 s (review-r36 F1). Now: one new
  session at most, then the GET listener stops as before; requests still work.
- ``notifications/<list>/list_changed`` goes to the client only for a list the new server declares with
  ``listChanged: true`` (MCP 2025-11-25, Server features: only such servers send it; review-r36 F2).
- Behind a proxy that answers 404 while the server restarts (the Jupyter extension's route), the failed
  renewal ended the GET listener for good: the client heard of the new server's lists only at its next
  request. Now the bridge tries again, pausing longer each time, and tells the client soon after the new
  server is up (review-r36 F9). A client request meanwhile dropped the session, which ended that listening
  again, and the bridge went on without a session (review-r37 F1): now the session is kept.
- A server restarted again before the new session's GET stream opened ended the listening: that second restart
  was told only at the client's next request (review-r37 F2). Now a never-streamed session is renewed when a
  ``ping`` with it is refused too, at most a few times in a row while no stream opens.

Real bridge processes; Tornado stand-ins for the foreign server and the proxy; real nanohubmcp servers.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import threading
import time
from collections.abc import Callable, Container, Iterator
from typing import Any

import mcp.types as mcp_types
import pytest
import tornado.web
from mcp.shared.exceptions import MCPError
from stdio_support import bridge_command, lab, official_client, until, until_streaming, upstream_at

from nanohubmcp.transports.bridge.session import MAX_UNSTREAMED_RENEWALS

pytestmark = pytest.mark.timeout(120)

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
QUIET_SECONDS = 2.0
"""How long the bridge is watched for more sessions once its listener met the 404s: the loop this test
catches opened some 250 sessions a second."""


class Upstream:
    """A stand-in Streamable HTTP server's state: its live sessions, what it counted, how it answers."""

    def __init__(self, capabilities: dict[str, Any], get: str, restarts: Container[int] = ()) -> None:
        self.capabilities = capabilities
        # "404": every GET; "405": no stream; "first": the first session's first GET opens one; "live": a live
        # session's GET opens one (which ends at once: the bridge comes back)
        self.get = get
        self.restarts = restarts  # the GETs (1 the first) met by a restart: every session forgotten, then 404
        self.sessions = True  # False: initialize answered without Mcp-Session-Id, requests without one served
        self.initialize_status = 200
        self.alive: list[str] = []
        self.counts = {"initialize": 0, "GET": 0}


class _Server(tornado.web.RequestHandler):
    def initialize(self, upstream: Upstream) -> None:
        self.upstream = upstream

    def post(self) -> None:
        up = self.upstream
        message = json.loads(self.request.body)
        if message.get("method") == "initialize":
            up.counts["initialize"] += 1
            if up.initialize_status != 200:
                raise tornado.web.HTTPError(up.initialize_status)
            session = f"s{up.counts['initialize']}"
            up.alive.append(session)
            if up.sessions:
                self.set_header("Mcp-Session-Id", session)
            self.write({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": "2025-11-25", "capabilities": up.capabilities,
                "serverInfo": {"name": "upstream", "version": "1"}}})
        elif self.request.headers.get("Mcp-Session-Id") not in up.alive and (
            up.sessions or "Mcp-Session-Id" in self.request.headers
        ):
            self.set_status(404)
            self.write("no such session")
        elif "id" not in message:
            self.set_status(202)
        else:
            self.write({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}})

    def get(self) -> None:
        up = self.upstream
        up.counts["GET"] += 1
        if up.get == "405":
            raise tornado.web.HTTPError(405)
        if up.counts["GET"] in up.restarts:
            up.alive.clear()
        if (up.get == "first" and up.counts["GET"] == 1) or (
            up.get == "live" and self.request.headers.get("Mcp-Session-Id") in up.alive
        ):
            self.set_header("Content-Type", "text/event-stream")
            self.write(": open\n\n")  # then ends: the bridge comes back for it
            return
        self.set_status(404)
        self.write("no such session")


class BridgeLines:
    """A real bridge process: lines to its stdin, its stdout lines and stderr kept as they come."""

    def __init__(self, url: str) -> None:
        self.process = subprocess.Popen(bridge_command(url), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        self.out: list[dict[str, Any]] = []
        self.err: list[str] = []
        assert self.process.stdout is not None
        assert self.process.stderr is not None
        out, err = self.process.stdout, self.process.stderr
        threading.Thread(target=lambda: [self.out.append(json.loads(line)) for line in out], daemon=True).start()
        threading.Thread(target=lambda: [self.err.append(line.decode()) for line in err], daemon=True).start()

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(message)
        wait_for(lambda: any(m.get("id") == message["id"] for m in self.out), f"no answer to {message}", self)
        return next(m for m in self.out if m.get("id") == message["id"])

    def told(self) -> list[str]:
        return [m["method"] for m in self.out if str(m.get("method", "")).endswith("/list_changed")]

    def close(self) -> None:
        self.process.kill()
        self.process.communicate(timeout=30)


def wait_for(condition: Callable[[], bool], what: str, bridge: BridgeLines | None = None) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, what + (f"; bridge stderr: {bridge.err[-5:]}" if bridge else "")
        time.sleep(0.02)


@contextlib.contextmanager
def bridged(upstream: Upstream) -> Iterator[BridgeLines]:
    with upstream_at([(r"/mcp", _Server, {"upstream": upstream})]) as url:
        bridge = BridgeLines(url)
        try:
            assert "result" in bridge.answer(INITIALIZE), bridge.err
            bridge.send(INITIALIZED)
            yield bridge
        finally:
            bridge.close()


@pytest.mark.parametrize(("get", "gets", "sessions"), [("404", 1, 1), ("first", 3, 2)],
                         ids=["every GET answered 404", "a first stream, then 404"])
def test_a_get_stream_answered_404_for_a_live_session_renews_at_most_once(get: str, gets: int, sessions: int) -> None:
    upstream = Upstream({"tools": {"listChanged": True}}, get)
    with bridged(upstream) as bridge:
        wait_for(lambda: upstream.counts["GET"] >= gets, f"the bridge made fewer than {gets} GETs", bridge)
        time.sleep(QUIET_SECONDS)  # what is checked is that nothing more happens
        assert upstream.counts["initialize"] == sessions, (upstream.counts, bridge.err[-3:])  # before: ~500
        assert upstream.counts["GET"] == gets, upstream.counts
        assert bridge.told() == ["notifications/tools/list_changed"] * (sessions - 1)
        assert sum("opened a new one" in line for line in bridge.err) == sessions - 1, bridge.err[-3:]
        assert bridge.answer({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"] == {"tools": []}


def test_only_lists_declared_with_list_changed_are_told() -> None:
    upstream = Upstream({"tools": {}, "resources": {"subscribe": True, "listChanged": True},
                         "prompts": {"listChanged": False}, "logging": {}}, "405")
    with bridged(upstream) as bridge:
        assert bridge.answer({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"] == {"tools": []}
        upstream.alive.clear()  # the server forgets the session: the next request meets 404
        assert bridge.answer({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})["result"] == {"tools": []}
        assert upstream.counts["initialize"] == 2
        assert bridge.told() == ["notifications/resources/list_changed"]  # before: tools too


def test_a_second_restart_before_the_new_sessions_stream_opened_is_told() -> None:
    # The server restarts at the bridge's 2nd GET (a stream had opened: a new session) and again at its 3rd, the
    # new session's first, before its stream opened. Before: that 404 ended the listening; the client heard of the
    # second restart only at its next request (review-r37 F2).
    upstream = Upstream({"tools": {"listChanged": True}}, "live", restarts={2, 3})
    with bridged(upstream) as bridge:
        wait_for(lambda: len(bridge.told()) == 2, "the second restart was not told", bridge)
        wait_for(lambda: upstream.counts["GET"] >= 5, "the bridge stopped listening on the third session", bridge)
        assert upstream.counts["initialize"] == 3, upstream.counts
        assert bridge.answer({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"] == {"tools": []}
        assert upstream.alive == ["s3"]


def test_a_server_forgetting_every_session_before_its_stream_is_renewed_a_bounded_number_of_times() -> None:
    # Every GET after the first meets a restarted server (a crash loop faster than the bridge's pause, or a server
    # forgetting each session at once): the bridge stops after a few new sessions, no stream having opened.
    upstream = Upstream({"tools": {"listChanged": True}}, "live", restarts=range(2, 1000))
    renewals = MAX_UNSTREAMED_RENEWALS
    with bridged(upstream) as bridge:
        wait_for(lambda: upstream.counts["GET"] >= renewals + 2, "the bridge stopped renewing too soon", bridge)
        time.sleep(QUIET_SECONDS)
        assert upstream.counts["initialize"] == 1 + renewals, upstream.counts
        assert upstream.counts["GET"] == renewals + 2, upstream.counts
        assert bridge.told() == ["notifications/tools/list_changed"] * renewals


def test_a_request_the_server_refused_a_new_session_for_keeps_the_session_for_the_next() -> None:
    # The server forgot the session and refuses a new one for now (503): the request is answered with an error,
    # and the next one, the server taking sessions again, renews it. Before: the bridge dropped its session and
    # sent the next requests without one, which a session server answers 404 for good (review-r37 F1).
    upstream = Upstream({"tools": {"listChanged": True}}, "405")
    with bridged(upstream) as bridge:
        assert bridge.answer({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})["result"] == {"tools": []}
        upstream.alive.clear()
        upstream.initialize_status = 503
        error = bridge.answer({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["error"]
        assert "did not open a new one; the bridge tries again with the next request" in error["message"], error
        upstream.initialize_status = 200
        assert bridge.answer({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})["result"] == {"tools": []}
        assert upstream.alive == ["s3"]
        assert bridge.told() == ["notifications/tools/list_changed"]


def test_a_server_that_restarts_without_sessions_is_sent_the_request_without_one() -> None:
    upstream = Upstream({"tools": {"listChanged": True}}, "405")
    with bridged(upstream) as bridge:
        assert bridge.answer({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})["result"] == {"tools": []}
        upstream.alive.clear()
        upstream.sessions = False  # the restarted server runs without sessions
        # before: an error (the renewal "failed"), then the next request without a session
        assert bridge.answer({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"] == {"tools": []}
        assert bridge.answer({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})["result"] == {"tools": []}
        assert bridge.told() == ["notifications/tools/list_changed"]


class _NoServer(tornado.web.RequestHandler):
    """The Jupyter extension's answer while the kernel's server is down."""

    def initialize(self, counts: dict[str, int]) -> None:
        self.counts = counts

    def prepare(self) -> None:
        self.counts[self.request.method or ""] = self.counts.get(self.request.method or "", 0) + 1
        self.set_status(404)
        self.set_header("Content-Type", "application/json")
        self.finish('{"message": "no MCP server is running on port 8000", "reason": "Not Found"}')


@contextlib.contextmanager
def proxy_with_no_server(port: int) -> Iterator[dict[str, int]]:
    """A stand-in proxy on 127.0.0.1:``port`` answering every request 404; yields the requests it answered, by
    method."""
    counts: dict[str, int] = {}
    with upstream_at([(r"/.*", _NoServer, {"counts": counts})], port):
        yield counts


@pytest.mark.anyio
@pytest.mark.parametrize("asks", [False, True], ids=["a quiet client", "a request during the gap"])
async def test_a_restart_behind_a_proxy_answering_404_is_told_without_a_request(asks: bool) -> None:
    heard: list[Any] = []

    async def on_message(message: Any) -> None:
        heard.append(message)

    server = lab("first version")
    server.start(host="127.0.0.1", port=0)
    port = server.port
    assert port is not None
    try:
        async with official_client(bridge_command(f"{server.url}mcp"), message_handler=on_message) as session:
            assert (await session.list_tools()).tools[0].description == "first version"
            await until_streaming(server)
            server.stop()
            with proxy_with_no_server(port) as counts:
                # before: one GET and one initialize met the 404, then the listener ended for good
                await until(lambda: counts.get("GET", 0) >= 2 and counts.get("POST", 0) >= 2,
                            lambda: f"the bridge stopped trying while the proxy answered 404 ({counts})")
                if asks:  # before: the request's 404 dropped the session; the GET stream ended, nothing renewed it
                    with pytest.raises(MCPError, match="no MCP server is running on port 8000"):
                        await session.list_tools()
                    gets = counts["GET"]
                    await until(lambda: counts["GET"] > gets, "the GET stream stopped after the client's request")
            server = lab("second version")
            server.start(host="127.0.0.1", port=port)
            await until(lambda: any(isinstance(m, mcp_types.ToolListChangedNotification) for m in heard),
                        "the client was not told the tools changed before its next request")
            await until_streaming(server)  # the bridge listens on a session of the new server
            assert (await session.list_tools()).tools[0].description == "second version"
            assert len(list(server.core.sessions.all())) == 1
    finally:
        server.stop()
