"""``nanohubmcp bridge`` hides a Jupyter ``?token=`` of the URL however short it is, wherever the URL
stands in what it prints and answers (fresh-user trial 62, F5: a token under 8 characters was shown
in clear when a ``:`` followed the URL, as in "HTTP 404 Not Found from <url>: ...").

The real bridge process against a stand-in for Jupyter's route to a notebook kernel that is gone (its
404 with Jupyter's ``{"message": ...}``), and one that quotes the request's path back in its body,
so that the URL is followed by ``:``, by ``,`` and by the end of the text.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from stdio_support import bridge_command
from support import serve_handler

from nanohubmcp.transports.redaction import hide_query_secrets, redact, secrets_of

PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}) + "\n"
SHORT = "abc"
LONG = "0f1e2d3c4b5a69788796a5b4c3d2e1f0a1b2c3d4"


class GoneKernel(BaseHTTPRequestHandler):
    """Jupyter's answer on ``/nanohubmcp/<port>/mcp`` once the kernel is gone; ``?echo=`` makes the message
    quote the request's path, followed by a comma (``echo=comma``) or ending the text (``echo=end``)."""

    def do_POST(self) -> None:
        echo = self.path.partition("echo=")[2][:5]
        message = {"comma": f"no notebook kernel at {self.path}, run its cells again",
                   "end": f"no notebook kernel at {self.path}"}.get(echo, "no notebook kernel serves this port")
        body = json.dumps({"message": message, "reason": None}).encode()
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def jupyter() -> Iterator[str]:
    with serve_handler(GoneKernel) as origin:
        yield origin


def run_bridge(url: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
    return subprocess.run(bridge_command(url), input=PING, capture_output=True, text=True, timeout=60, env=env,
                          check=False)


@pytest.mark.parametrize("token", [SHORT, LONG], ids=["3 characters", "40 characters"])
@pytest.mark.parametrize(("query", "after"), [("", ": no notebook kernel serves this port"),
                                              ("&echo=comma", ", run its cells again"),
                                              ("&echo=end", '"')],
                         ids=["followed by a colon", "followed by a comma", "ending the text"])
def test_the_token_is_hidden_in_the_log_line_and_the_error(jupyter: str, token: str, query: str, after: str) -> None:
    url = f"{jupyter}/nanohubmcp/48299/mcp?token={token}{query}"
    done = run_bridge(url)
    assert done.returncode == 0, done.stderr
    message = json.loads(done.stdout.splitlines()[0])["error"]["message"]
    shown = f"{jupyter}/nanohubmcp/48299/mcp?token=***{query}"
    assert message.startswith(f"HTTP 404 Not Found from {shown}: no notebook kernel")
    assert f"/nanohubmcp/48299/mcp?token=***{query}{after}" in json.dumps(message) if after == '"' else \
        f"/nanohubmcp/48299/mcp?token=***{query}{after}" in message
    assert f"nanohubmcp bridge: {message}" in done.stderr
    assert f"token={token}" not in done.stdout + done.stderr


@pytest.mark.parametrize("token", [SHORT, "1", LONG])
@pytest.mark.parametrize("after", [":", ",", ".", ")", "", " next", "&view=on", "#top"])
def test_a_url_token_is_hidden_whatever_follows_it(token: str, after: str) -> None:
    url = f"http://127.0.0.1:8888/nanohubmcp/8000/mcp?token={token}"
    assert redact(f"from {url}{after}", secrets_of(url)) == f"from http://127.0.0.1:8888/nanohubmcp/8000/mcp?token=***{after}"


def test_only_the_value_of_a_credential_parameter_is_hidden_and_a_placeholder_stays() -> None:
    assert hide_query_secrets("a ?view=1&code=zz: b") == "a ?view=1&code=***: b"
    assert hide_query_secrets("a ?session_id=12#x") == "a ?session_id=***#x"
    assert hide_query_secrets("?token=%3Cyour%20Jupyter%20token%3E") == "?token=%3Cyour%20Jupyter%20token%3E"
    assert hide_query_secrets("?token=<your Jupyter token>") == "?token=<your Jupyter token>"
    assert hide_query_secrets("?token=ab:cd") == "?token=***"


def test_a_short_token_elsewhere_in_the_text_still_stands_alone_to_be_hidden() -> None:
    url = "http://127.0.0.1:9/mcp?token=1"
    assert redact(f"cannot reach 127.0.0.1:9 ({url})", secrets_of(url)) == \
        "cannot reach 127.0.0.1:9 (http://127.0.0.1:9/mcp?token=***)"
