"""``nanohubmcp bridge`` resumes a response stream its server ended before the answer (a GET with
``Last-Event-ID``) within one budget (``RESUME_BUDGET_SECONDS``, 30 s of pauses in all), and says so on stderr
once. A server ending every stream with ``retry: 30000`` and never answering had the client's call wait five
30-second pauses, 2.5 minutes with nothing in its log, for its -32603. A real HTTP server; the bridge runs as a
desktop client runs it, its budget set small (``python -c``) to keep the test short.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import pytest
import tornado.web
from stdio_support import second_answer, upstream_at

from nanohubmcp.transports.bridge.response_stream import RESUME_BUDGET_SECONDS

pytestmark = pytest.mark.timeout(120)

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
RESULT = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "upstream", "version": "1"}}
BUDGET = 2.0
"""The bridge's ``RESUME_BUDGET_SECONDS`` in this test (the real one is 30 s)."""
BUDGETED_BRIDGE = """
import sys
from nanohubmcp.cli import main
from nanohubmcp.transports.bridge import response_stream
response_stream.RESUME_BUDGET_SECONDS = float(sys.argv[1])
sys.exit(main(["bridge", sys.argv[2]]))
"""


class _NeverAnswers(tornado.web.RequestHandler):
    """Answers ``initialize``; every other POST, and every GET resuming it, gets one event with ``retry: 30000``
    and no answer, and ends."""

    def post(self) -> None:
        request = json.loads(self.request.body)
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Mcp-Session-Id", "s1")
        if request.get("method") == "initialize":
            self.write(f"id: a.0\ndata: {json.dumps({'jsonrpc': '2.0', 'id': request['id'], 'result': RESULT})}\n\n")
        else:
            self.write("id: a.1\nretry: 30000\ndata: \n\n")

    def get(self) -> None:
        if not self.request.headers.get("Last-Event-ID"):
            raise tornado.web.HTTPError(405)  # no standalone stream
        self.set_header("Content-Type", "text/event-stream")
        self.write("id: a.2\nretry: 30000\ndata: \n\n")


@pytest.fixture
def upstream() -> Iterator[str]:
    with upstream_at([(r"/mcp", _NeverAnswers)]) as url:
        yield url


def test_the_budget_is_thirty_seconds() -> None:
    assert RESUME_BUDGET_SECONDS == 30.0


def test_an_unanswered_call_gets_its_error_within_the_budget_and_the_log_says_why(upstream: str) -> None:
    command = [sys.executable, "-c", BUDGETED_BRIDGE, str(BUDGET), upstream]
    tools_list = {"jsonrpc": "2.0", "id": "call-7", "method": "tools/list"}
    # before: the first pause alone was 30 s, and five of them
    line, waited, err = second_answer(command, INITIALIZE, tools_list, BUDGET + 20)
    assert line, err[-2000:]
    reply = json.loads(line)
    assert reply["id"] == "call-7", err[-2000:]
    assert reply["error"]["code"] == -32603
    assert "could not be resumed" in reply["error"]["message"]
    assert waited >= BUDGET  # the pauses were waited, up to the budget
    notices = [text for text in err.splitlines() if "resuming it" in text]
    assert len(notices) == 1, err[-2000:]
    assert 'request "call-7"' in notices[0]
    assert f"within {BUDGET:g} s" in notices[0]
