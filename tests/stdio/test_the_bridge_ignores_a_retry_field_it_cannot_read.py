"""``nanohubmcp bridge`` reads an SSE event's ``retry`` field only when it is ASCII digits, as the HTML Living
Standard says (§ Server-sent events: any other value is ignored), and reads it without converting its digits
to an int. A server answering with ``retry: ²`` (a digit to ``str.isdigit``, not to ``int``), or with 5,000
digits (past Python's 4,300) or 400 (past a float, once divided), had the bridge raise inside the stream's
reader: the answer in the same event was lost and the client got -32603 "the server ended the response stream
before answering" instead of its result. A real HTTP server answers; the bridge runs as the client runs it.

A field it reads is bounded (``MAX_RETRY_SECONDS``, 30 s): a server ending the response stream before its answer
with ``retry: 999999999999`` (31 years) had the bridge wait that long before resuming the stream with a GET
(``Last-Event-ID``); now it resumes within 30 s and its client gets the answer. And from below (0.25 s): a
server ending every GET stream at once with ``retry: 0`` had the bridge reconnect in a busy loop.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest
import tornado.web
from stdio_support import bridge_command, second_answer, upstream_at

from nanohubmcp.transports.bridge.response_stream import MAX_RETRY_SECONDS, MIN_RETRY_SECONDS, retry_seconds

pytestmark = pytest.mark.timeout(120)

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
RESULT = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "upstream", "version": "1"}}


class _Answer(tornado.web.RequestHandler):
    """Answers a POST with one event carrying ``retry`` and the answer; with ``retry`` "later <value>", a POST
    other than ``initialize`` gets that event's ``retry`` and no data, its answer left to the GET resuming the
    stream (``Last-Event-ID``)."""

    def initialize(self, retry: str) -> None:
        self.retry = retry

    def post(self) -> None:
        request = json.loads(self.request.body)
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Mcp-Session-Id", "s1")
        answer = {"jsonrpc": "2.0", "id": request.get("id"), "result": RESULT}
        retry = self.retry.removeprefix("later ")
        later = retry != self.retry and request.get("method") != "initialize"
        self.write(f"id: a.1\nretry: {retry}\ndata: {'' if later else json.dumps(answer)}\n\n")

    def get(self) -> None:
        if self.request.headers.get("Last-Event-ID") != "a.1":
            raise tornado.web.HTTPError(405)  # no standalone stream
        self.set_header("Content-Type", "text/event-stream")
        self.write(f"id: a.2\ndata: {json.dumps({'jsonrpc': '2.0', 'id': 2, 'result': {'tools': []}})}\n\n")


@pytest.fixture
def upstream(request: pytest.FixtureRequest) -> Iterator[str]:
    """A server answering every POST with one SSE event carrying ``retry: <param>`` and the answer; its URL."""
    with upstream_at([(r"/mcp", _Answer, {"retry": request.param})]) as url:
        yield url


@pytest.mark.parametrize("upstream", ["\u00b2", "9" * 5_000, "9" * 400, "1500"], indirect=True,
                         ids=["superscript two", "5000 digits", "400 digits", "1500 ms"])
def test_the_answer_in_an_event_with_any_retry_field_reaches_the_client(upstream: str) -> None:
    done = subprocess.run(bridge_command(upstream), input=json.dumps(INITIALIZE).encode() + b"\n",
                          capture_output=True, timeout=60, check=False)
    reply = json.loads(done.stdout.decode().splitlines()[0])
    assert reply == {"jsonrpc": "2.0", "id": 1, "result": RESULT}, done.stderr.decode()[-2000:]
    assert b"Traceback" not in done.stderr, done.stderr.decode()[-2000:]


BOUND = 1.0
"""The bridge's ``MAX_RETRY_SECONDS`` in the resuming test (the real 30 s is the table test's; waiting it out
would show the same resume, later)."""
BOUNDED_BRIDGE = """
import sys
from nanohubmcp.cli import main
from nanohubmcp.transports.bridge import response_stream
response_stream.MAX_RETRY_SECONDS = float(sys.argv[1])
sys.exit(main(["bridge", sys.argv[2]]))
"""
"""``nanohubmcp bridge URL`` with its ``MAX_RETRY_SECONDS`` set to ``argv[1]``: ``python -c BOUNDED_BRIDGE
SECONDS URL``."""


@pytest.mark.parametrize("upstream", ["later 999999999999"], indirect=True)
def test_a_stream_ended_with_a_huge_retry_field_is_resumed_within_the_bound(upstream: str) -> None:
    command = [sys.executable, "-c", BOUNDED_BRIDGE, str(BOUND), upstream]
    tools_list = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    line, _, err = second_answer(command, INITIALIZE, tools_list, BOUND + 30)  # before: a wait of 31 years
    assert line, err[-2000:]
    assert json.loads(line) == {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}, err[-2000:]


@pytest.mark.parametrize(("field", "seconds"), [
    ("1500", 1.5), ("0", MIN_RETRY_SECONDS), ("249", MIN_RETRY_SECONDS), ("250", 0.25), ("30000", 30.0),
    ("30001", MAX_RETRY_SECONDS), ("999999999999", MAX_RETRY_SECONDS),
    ("9" * 400, MAX_RETRY_SECONDS), ("-5", None), ("1.5", None), ("5s", None), (" 5", None), ("", None), (None, None),
])
def test_a_retry_field_is_read_as_plain_digits_and_bounded(field: str | None, seconds: float | None) -> None:
    assert retry_seconds(field) == seconds
