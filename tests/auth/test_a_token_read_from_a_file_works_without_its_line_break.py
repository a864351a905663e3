"""A token read from a file (``MCP_TOKEN=$(cat token.txt)`` with Windows line endings, a JSON ``env``
value ending in ``\\n``) keeps its line break; no client can send that in a header. The server and
``nanohubmcp bridge`` drop the surrounding whitespace, and a control character inside the token is
a clear configuration error, not a 401 on every request or a traceback per message."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError

pytestmark = pytest.mark.timeout(60)


def test_the_server_accepts_the_token_without_its_trailing_line_break() -> None:
    server = MCPServer("token-file")
    server.start(host="127.0.0.1", port=0, token="from-a-file-0123\r\n")
    try:
        request = urllib.request.Request(f"{server.url}", headers={"Authorization": "Bearer from-a-file-0123"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
    finally:
        server.stop()


def test_a_control_character_inside_the_token_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match=r"^the token given as token= contains a line break at position 4;"):
        MCPServer("bad-token").start(host="127.0.0.1", port=0, token="abc\ndef")


def test_a_blank_token_is_called_blank_not_unprintable() -> None:
    """A fresh-user trial's ``MCP_TOKEN=" "`` was told to remove control characters it did not have."""
    with pytest.raises(ConfigurationError, match="is blank") as caught:
        MCPServer("blank-token").start(host="127.0.0.1", port=0, token="  \n")
    assert "control characters" not in str(caught.value)


def test_the_bridge_sends_the_token_without_its_line_break_and_refuses_one_inside() -> None:
    server = MCPServer("token-file")
    server.start(host="127.0.0.1", port=0, token="from-a-file-0123")
    initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
    command = [sys.executable, "-m", "nanohubmcp", "bridge", f"{server.url}mcp"]
    try:
        done = subprocess.run(command, input=initialize.encode() + b"\n", capture_output=True, timeout=30,
                              env={**os.environ, "MCP_TOKEN": "from-a-file-0123\r\n"}, check=False)
        assert json.loads(done.stdout.decode().splitlines()[0])["result"]["serverInfo"]["name"] == "token-file"
        done = subprocess.run(command, input=initialize.encode() + b"\n", capture_output=True, timeout=30,
                              env={**os.environ, "MCP_TOKEN": "from\r\nX-Evil: 1"}, check=False)
        assert done.returncode == 1
        assert b"control character" in done.stderr
        assert b"Traceback" not in done.stderr
    finally:
        server.stop()
