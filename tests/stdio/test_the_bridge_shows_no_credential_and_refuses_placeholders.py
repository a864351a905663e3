"""What ``nanohubmcp bridge`` prints and answers never holds a credential, and a placeholder left in its
configuration is refused at start, saying what to put there (fresh-user trial 23, F8 and F4).

The real bridge process against real servers: one that cannot be reached (the URL with a password and
a ``?token=``), and one that echoes the request's credentials in its error body, as some do.
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

from nanohubmcp.jupyter.display import JUPYTER_TOKEN_PLACEHOLDER, REVEAL, TOKEN_PLACEHOLDER

INITIALIZE = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}) + "\n"
TOKEN = "mcp-token-0123456789abcdef"
JUPYTER_TOKEN = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
PASSWORD = "pass-word-42"


def run_bridge(url: str, *options: str, token: str | None = TOKEN) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
    if token is not None:
        env["MCP_TOKEN"] = token
    return subprocess.run([*bridge_command(url, *options)], input=INITIALIZE, capture_output=True, text=True,
                          timeout=60, env=env, check=False)


def error_message(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout.splitlines()[0])["error"]["message"])


class Echo(BaseHTTPRequestHandler):
    """Refuses every request with 500 and a body quoting its credentials back."""

    def do_POST(self) -> None:
        body = (f"refused {self.path}: Authorization={self.headers.get('Authorization')} "
                f"Cookie={self.headers.get('Cookie')} X-Api-Key={self.headers.get('X-Api-Key')}").encode()
        self.send_response(500)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def echo_url() -> Iterator[str]:
    with serve_handler(Echo) as origin:
        yield origin + "/mcp"


def test_an_unreachable_url_is_named_without_its_token() -> None:
    done = run_bridge(f"http://127.0.0.1:9/mcp?token={JUPYTER_TOKEN}&view=1")
    message = error_message(done)
    assert "cannot connect to 127.0.0.1:9" in message
    assert f"nanohubmcp bridge: {message}" in done.stderr
    for secret in (JUPYTER_TOKEN, TOKEN):
        assert secret not in done.stdout + done.stderr


def test_a_url_with_a_password_is_refused_without_showing_it() -> None:
    """A ``user:password@`` is no credential the bridge sends (see test_the_bridge_refuses_a_url_with_user_info)."""
    done = run_bridge(f"http://alice:{PASSWORD}@127.0.0.1:9/mcp?token={JUPYTER_TOKEN}&view=1")
    assert done.returncode == 2, done.stderr
    assert "http://alice:***@127.0.0.1:9/mcp?token=***&view=1" in done.stderr
    for secret in (PASSWORD, JUPYTER_TOKEN, TOKEN):
        assert secret not in done.stdout + done.stderr


def test_credentials_a_server_echoes_are_hidden(echo_url: str) -> None:
    done = run_bridge(f"{echo_url}?token={JUPYTER_TOKEN}", "--cookie", "session=cookie-value-123",
                      "--header", "X-Api-Key: key-value-456")
    message = error_message(done)
    assert message.startswith(f"HTTP 500 Internal Server Error from {echo_url}?token=***: refused /mcp?token=***: ")
    assert "Authorization=Bearer *** Cookie=session=*** X-Api-Key=***" in message
    assert f"nanohubmcp bridge: {message}" in done.stderr
    for secret in (JUPYTER_TOKEN, TOKEN, "cookie-value-123", "key-value-456"):
        assert secret not in done.stdout + done.stderr


def test_a_url_with_the_jupyter_token_placeholder_is_refused_saying_what_goes_there() -> None:
    for url in (f"http://127.0.0.1:9/user/a/nanohubmcp/8000/mcp?token={JUPYTER_TOKEN_PLACEHOLDER}",
                "http://127.0.0.1:9/user/a/nanohubmcp/8000/mcp?token=%3Cyour%20Jupyter%20token%3E"):
        done = run_bridge(url)
        assert done.returncode == 2, done.stderr
        assert done.stdout == ""
        assert f"the URL still holds the placeholder {JUPYTER_TOKEN_PLACEHOLDER}" in done.stderr
        assert "with the Jupyter server's own token (`jupyter server list`" in done.stderr


def test_a_token_that_is_still_the_status_placeholder_is_refused_saying_what_goes_there() -> None:
    placeholder = TOKEN_PLACEHOLDER.format(REVEAL["cells"])
    done = run_bridge("http://127.0.0.1:9/mcp", token=placeholder)
    assert done.returncode == 1, done.stderr
    assert f"the token (MCP_TOKEN, --token or --token-file) still holds the placeholder {placeholder}" in done.stderr
    assert "with the token `%mcp token` shows in the notebook" in done.stderr


@pytest.mark.parametrize("url", ["http://<weber URL>/mcp", "http://127.0.0.1:<port>/mcp"])
def test_any_other_placeholder_in_the_url_is_named(url: str) -> None:
    done = run_bridge(url)
    assert done.returncode == 2
    placeholder = url[url.index("<"): url.index(">") + 1]
    assert f"the URL still holds the placeholder {placeholder}" in done.stderr
    assert "with the value it stands for" in done.stderr


def test_the_desktop_entry_with_the_placeholder_is_still_written() -> None:
    """Writing an entry keeps the placeholder (the notebook's status shows it so): only running refuses it."""
    from nanohubmcp.desktop_config import bridge_launch

    url = f"http://127.0.0.1:9/user/a/nanohubmcp/8000/mcp?token={JUPYTER_TOKEN_PLACEHOLDER}"
    assert bridge_launch(url).args[-1] == url
