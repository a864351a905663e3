"""A server's reason phrase is repeated by the bridge (``HTTP <status> <reason> from <URL>``) no longer than what it
repeats of an error's body (``MAX_SAID_CHARS``), review r37 F14: the whole phrase went through ``redact``, whose
user-information rule was quadratic in a ``a.a.a…`` text (a 32 KB phrase: 4.3 s, the bridge's loop blocked
meanwhile), and was echoed whole into the client's error and the log. A real Tornado server answers; the bridge runs
as a client runs it."""

from __future__ import annotations

import json
import subprocess

import pytest
import tornado.web
from stdio_support import bridge_command, upstream_at

from nanohubmcp.transports.bridge.refusal import MAX_SAID_CHARS

pytestmark = pytest.mark.timeout(120)

REASON = "a." * 15_000
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


class _Refusing(tornado.web.RequestHandler):
    def post(self) -> None:
        self.set_status(400, reason=REASON)
        self.finish("")


def test_the_reason_phrase_is_cut_in_the_answer_and_the_log() -> None:
    with upstream_at([(r"/mcp", _Refusing)]) as url:
        done = subprocess.run(bridge_command(url), input=json.dumps(INITIALIZE).encode() + b"\n",
                              capture_output=True, timeout=60, check=False)
    answer = json.loads(done.stdout.decode().splitlines()[0])
    message = answer["error"]["message"]
    assert message.startswith(f"HTTP 400 {REASON[:MAX_SAID_CHARS - 1]}… from {url}"), message[:1000]
    assert REASON[:MAX_SAID_CHARS] not in message
    assert REASON[:MAX_SAID_CHARS] not in done.stderr.decode()
