"""``nanohubmcp desktop-config --url`` asks the running server its name as the bridge sends its requests
(review r37 F8, F9, N4).

F8: the question went through ``urllib.request.urlopen``, whose redirect handler turns a POST answered ``302``
into a GET to the ``Location`` and copies every header, ``Authorization: Bearer <token>`` included, to any host:
a hub answering ``302 Location: https://<hub>/login`` received the token in its login server's log. The bridge
follows no redirect; nor does the question now: it says what the server answered.
F9: ``ASK_SECONDS`` bounded each socket read, not the question: a server sending an SSE keep-alive every 2 s
kept the command waiting for ever. The whole question now ends within ``ASK_SECONDS``, and reads at most
``MAX_REPLY_BYTES`` of a body.
N4: a reply that is not JSON was reported as ``Expecting value: line 1 column 1 (char 0)``; now
``answered text/html, not JSON``.
Review r38 F5: the deadline left out the host's name lookup: ``asyncio.run`` (and the interpreter's exit) waited
for the resolver's executor thread, so a DNS server that does not answer held the command 10-30 s. The lookup
now runs on a daemon thread nobody waits for.

The stand-in servers are real HTTP servers on threads of this process; the command runs as a user runs it.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

import pytest
from support import serve_handler

from nanohubmcp.served_name import ASK_SECONDS, asked_name

pytestmark = pytest.mark.timeout(180)

TOKEN = "tok-1234567890-secret"
TRICKLE_SECONDS = 40.0
"""How long the slow stand-ins go on (a question bounded by ASK_SECONDS ends long before)."""


def _handler(post: Callable[[BaseHTTPRequestHandler], None], heard: list[dict[str, str | None]] | None = None,
             ) -> type[BaseHTTPRequestHandler]:
    """A request handler answering a POST with ``post`` and recording every request it gets in ``heard``."""

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            if heard is not None:
                heard.append({"method": self.command, "path": self.path,
                              "authorization": self.headers.get("Authorization")})

        def do_POST(self) -> None:
            self._record()
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            post(self)

        def do_GET(self) -> None:
            self._record()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<html>login</html>")

        def log_message(self, *args: object) -> None:
            pass

    return Handler


def _trickle(self: BaseHTTPRequestHandler) -> None:
    self.send_response(200)
    self.send_header("Content-Type", "text/event-stream")
    self.end_headers()
    end = time.monotonic() + TRICKLE_SECONDS
    while time.monotonic() < end:
        try:
            self.wfile.write(b": still thinking\n\n")
            self.wfile.flush()
        except OSError:  # the question was given up: the connection is closed
            return
        time.sleep(0.5)


def _endless_json(self: BaseHTTPRequestHandler) -> None:
    self.send_response(200)
    self.send_header("Content-Type", "application/json")
    self.end_headers()
    with contextlib.suppress(OSError):
        for _ in range(64):  # 64 MiB of whitespace: never a message
            self.wfile.write(b" " * (1 << 20))


def _html(self: BaseHTTPRequestHandler) -> None:
    page = b"<html><body>Sign in</body></html>"
    self.send_response(200)
    self.send_header("Content-Type", "text/html; charset=utf-8")
    self.send_header("Content-Length", str(len(page)))
    self.end_headers()
    self.wfile.write(page)


def test_a_redirect_is_not_followed_and_the_token_stays_with_the_url_given() -> None:
    heard: list[dict[str, str | None]] = []
    with serve_handler(_handler(lambda s: None, heard)) as other:
        login = other.replace("127.0.0.1", "localhost") + "/login?next=/mcp"

        def redirect(self: BaseHTTPRequestHandler) -> None:
            self.send_response(302)
            self.send_header("Location", login)
            self.send_header("Content-Length", "0")
            self.end_headers()

        with serve_handler(_handler(redirect)) as hub:
            done = subprocess.run([sys.executable, "-m", "nanohubmcp", "desktop-config", "--url", hub + "/mcp"],
                                  capture_output=True, text=True, timeout=60, check=False,
                                  env={**os.environ, "MCP_TOKEN": TOKEN})
    assert done.returncode == 0, done.stderr
    assert heard == [], heard  # the other host never heard of the question, nor of the token
    assert list(json.loads(done.stdout)["mcpServers"]) == ["nanohubmcp"]
    assert f"answered HTTP 302 (a redirect to {login}, not followed" in done.stderr, done.stderr
    assert TOKEN not in done.stderr + done.stdout.replace(f'"MCP_TOKEN": "{TOKEN}"', "")


@pytest.mark.parametrize(("answer", "said"), [
    (_trickle, f"gave no answer within {ASK_SECONDS:g} s"),
    (_endless_json, f"answered more than {1 << 20} bytes"),  # (MAX_REPLY_BYTES)
], ids=["SSE keep-alives", "an endless body"])
def test_the_whole_question_ends_within_its_deadline(answer: Callable[[BaseHTTPRequestHandler], None],
                                                     said: str) -> None:
    with serve_handler(_handler(answer)) as slow:
        started = time.monotonic()
        name, why = asked_name(slow + "/mcp", TOKEN)
        took = time.monotonic() - started
    assert name is None
    assert said in why, why
    assert took < ASK_SECONDS + 5, f"asked for {took:.1f} s"


def test_a_reply_that_is_not_json_is_named_by_its_content_type() -> None:
    with serve_handler(_handler(_html)) as page:
        name, why = asked_name(page + "/mcp")
    assert (name, why) == (None, f"{page}/mcp answered text/html, not JSON")


SLOW_LOOKUP = """
import runpy, socket, sys, time
real = socket.getaddrinfo
def slow(*args, **kwargs):  # a DNS server that does not answer (glibc tries 5 s a server, twice)
    time.sleep(30)
    return real(*args, **kwargs)
socket.getaddrinfo = slow
sys.argv = ["nanohubmcp", "desktop-config", "--url", "http://mcp-host.invalid:8000/mcp"]
runpy.run_module("nanohubmcp", run_name="__main__", alter_sys=True)
"""
"""The command as a user runs it, in a process whose every name lookup takes 30 s (no DNS server that never
answers can be set up without root: ``socket.getaddrinfo`` is slowed in that process only)."""


def test_a_name_lookup_that_never_answers_ends_within_the_deadline() -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", SLOW_LOOKUP], capture_output=True, text=True, timeout=120,
                          check=False)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert f"http://mcp-host.invalid:8000/mcp gave no answer within {ASK_SECONDS:g} s" in done.stderr, done.stderr
    assert list(json.loads(done.stdout)["mcpServers"]) == ["nanohubmcp"]
    assert took < ASK_SECONDS + 10, f"the command took {took:.1f} s"  # (30 s and more before)
