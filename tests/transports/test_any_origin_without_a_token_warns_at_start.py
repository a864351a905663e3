"""``--allowed-origins '*'`` (``allowed_origins="*"``) on a server with no token turns off the Origin check,
the only thing keeping a web page the user opens from calling a loopback server's tools through the user's
browser. It started silently (fresh-user trial 26, F15); it now says so once, on stderr, naming the fixes.
The server still serves as asked."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from support import wait_until

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
WARNING = ("allowed_origins '*' with no authorization: any web page open in a browser that reaches this server can "
           "call every tool")
APP = """
from nanohubmcp import MCPServer

server = MCPServer("any-origin")

@server.tool()
def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b
"""


def test_nanohubmcp_run_warns_once_and_still_serves(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    log = tmp_path / "server.log"
    env = {k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-u", "-m", "nanohubmcp", "run", "app.py", "--port", "0", "--allowed-origins", "*"],
            cwd=tmp_path, env=env, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        found = wait_until(lambda: re.search(r"listening on 127\.0\.0\.1:(\d+)", log.read_text())
                           or process.poll() is not None, "the server's banner")
        assert process.poll() is None, log.read_text()
        assert isinstance(found, re.Match)
        request = urllib.request.Request(
            f"http://127.0.0.1:{found[1]}/tools/add", data=b'{"a": 1, "b": 2}',
            headers={"Origin": "http://evil.example", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 200
        warnings = [line for line in log.read_text().splitlines() if "allowed_origins" in line]
        assert len(warnings) == 1, log.read_text()
        assert WARNING in warnings[0]
        assert "token=... or MCP_TOKEN" in warnings[0]
        assert "--allowed-origins https://app.example.org" in warnings[0]
    finally:
        process.kill()
        process.wait(30)


@pytest.mark.parametrize("origins", ["*", ["https://app.example.org", "*"]])
def test_start_warns_for_any_origin_without_a_token(origins: object, caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("any-origin")
    with caplog.at_level(logging.WARNING, logger="nanohubmcp"):
        server.start(host="127.0.0.1", port=0, allowed_origins=origins, token="", quiet=True)
        server.stop()
    assert [r.getMessage() for r in caplog.records if WARNING in r.getMessage()] != []


@pytest.mark.parametrize(("origins", "token"), [("*", "a-token-0123"), (None, ""), (["https://app.example.org"], "")])
def test_no_warning_with_a_token_or_without_the_star(
    origins: object, token: str, caplog: pytest.LogCaptureFixture
) -> None:
    server = MCPServer("any-origin")
    with caplog.at_level(logging.WARNING, logger="nanohubmcp"):
        server.start(host="127.0.0.1", port=0, allowed_origins=origins, token=token, quiet=True)
        server.stop()
    assert not [r for r in caplog.records if "allowed_origins" in r.getMessage()]
