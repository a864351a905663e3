"""``nanohubmcp bridge http://bob:pw123@host/mcp``: the bridge showed the password in every error (a short
one was not hidden at all) and sent ``bob:pw123@host`` as the ``Host`` header, so every server answered 400
and logged the password (fresh-user trial 26, F12). A URL's user information is now refused at start (an
MCP server takes a bearer token: ``$MCP_TOKEN``, ``--token-file``; a proxy's password goes in ``--header``),
shown as ``user:***@``; nothing is sent. What the bridge prints hides any URL's user information, and its
requests' ``Host`` is the URL's ``host[:port]`` alone. A token that is not ASCII (``tök€n``), which no HTTP
header carries, is one line at start, not a traceback per message (F5).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest
from stdio_support import bridge_command
from support import serve_handler

from nanohubmcp import MCPServer
from nanohubmcp.transports.bridge import Exchange
from nanohubmcp.transports.redaction import redact, secrets_of

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
INITIALIZE = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}) + "\n"


class Capture(BaseHTTPRequestHandler):
    """Records every request's Host and Authorization, and answers 400 as servers did to ``Host: bob:pw@...``."""

    seen: ClassVar[list[dict[str, str | None]]] = []

    def _answer(self) -> None:
        Capture.seen.append({"host": self.headers.get("Host"), "authorization": self.headers.get("Authorization")})
        self.send_response(400)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_GET = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def capture() -> Iterator[str]:
    Capture.seen.clear()
    with serve_handler(Capture) as origin:
        yield origin


def run(command: list[str], token: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    if token is not None:
        env["MCP_TOKEN"] = token
    return subprocess.run(command, input=INITIALIZE, capture_output=True, text=True, timeout=60, env=env, check=False)


@pytest.mark.parametrize(
    ("userinfo", "shown", "secret"),
    [("bob:pw123@", "bob:***@", "pw123"), ("a-bare-user-token@", "***@", "a-bare-user-token")],
)
def test_the_bridge_refuses_user_info_and_sends_nothing(capture: str, userinfo: str, shown: str, secret: str) -> None:
    url = capture.replace("http://", f"http://{userinfo}") + "/mcp"
    done = run(bridge_command(url))
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert f"({capture.replace('http://', f'http://{shown}')}/mcp), which the bridge does not send" in done.stderr
    assert "$MCP_TOKEN or --token-file PATH" in done.stderr
    assert "--header 'Authorization: Basic ...'" in done.stderr
    assert secret not in done.stderr
    assert Capture.seen == []


def test_desktop_config_refuses_it_too() -> None:
    done = run([sys.executable, "-m", "nanohubmcp", "desktop-config", "--url", "http://bob:pw123@127.0.0.1:9/mcp"])
    assert done.returncode == 2, done.stderr
    assert "--url holds a user name and password (http://bob:***@127.0.0.1:9/mcp)" in done.stderr
    assert "pw123" not in done.stdout + done.stderr


def test_a_request_names_the_host_alone_and_a_failure_hides_the_password(capture: str) -> None:
    url = capture.replace("http://", "http://bob:pw123@") + "/mcp"
    exchange = asyncio.run(Exchange().run("POST", url, {}, b"{}"))
    assert exchange.status == 400
    assert Capture.seen == [{"host": capture.removeprefix("http://"), "authorization": None}]
    closed = "http://bob:pw123@127.0.0.1:9/mcp"
    with pytest.raises(Exception, match=r"cannot connect to 127\.0\.0\.1:9: ") as failed:
        asyncio.run(Exchange().run("POST", closed, {}, b"{}"))
    assert "pw123" not in str(failed.value)


def test_any_url_in_a_message_shows_its_password_as_stars() -> None:
    """A password shorter than 8 characters was hidden only where it stood alone, so never in its URL."""
    url = "http://bob:pw123@127.0.0.1:18614/mcp?token=0123456789abcdef"
    assert (redact(f"HTTP 400 Bad Request from {url}", secrets_of(url))
            == "HTTP 400 Bad Request from http://bob:***@127.0.0.1:18614/mcp?token=***")
    assert redact("see https://tok@example.org/x", ()) == "see https://***@example.org/x"


def test_a_token_that_is_not_ascii_is_one_line_at_start() -> None:
    server = MCPServer("ascii-only")
    server.start(host="127.0.0.1", port=0, token="good-token-0123", quiet=True)
    try:
        done = run(bridge_command(f"{server.url}mcp"), token="tök€n")
    finally:
        server.stop()
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "nanohubmcp bridge: error: the Authorization header (--header, --cookie, --token or $MCP_TOKEN) holds "
        "'ö', '€', not ASCII: an HTTP header cannot carry it as written; a bearer token is ASCII letters, digits "
        "and - . _ ~ + / (RFC 6750 § 2.1)"]
