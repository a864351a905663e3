"""An empty token is not quietly "no authorization" (trial12): ``--token ""`` — what ``--token "$VAR"``
gives when ``VAR`` is unset — is a usage error (exit 2) of every command taking ``--token``; an exported but
empty ``MCP_TOKEN`` reads as unset, and a server it leaves open on another interface says so in its warning.
``token=""`` in Python stays the way to turn authorization off."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nanohubmcp import MCPServer

ROOT = Path(__file__).resolve().parents[2]
EMPTY = "--token is empty; give the token (in $MCP_TOKEN or --token-file PATH rather than on the command line), "
APP = "from nanohubmcp import MCPServer\nserver = MCPServer('empty-token')\n"


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        (["nanohubmcp", "run", "app.py", "--port", "0"], "nanohubmcp run: error: "),
        (["nanohubmcp", "bridge", "http://127.0.0.1:9/mcp"], "nanohubmcp bridge: error: "),
        (["nanohubmcp", "desktop-config", "--url", "http://127.0.0.1:9/mcp"], "nanohubmcp desktop-config: error: "),
        (["nanohubmcp.nanohub.launcher", "--app", "app.py", "--port", "0"], "start_mcp: error: "),
    ],
)
@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_token_option_is_a_usage_error(tmp_path: Path, command: list[str], prefix: str, value: str) -> None:
    (tmp_path / "app.py").write_text(APP)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", *command, "--token", value],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert f"{prefix}{EMPTY}or leave --token out for no token\n" in done.stderr
    assert "visible to other users" not in done.stderr  # refused before the command-line warning
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_an_empty_mcp_token_is_named_by_the_open_server_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("MCP_TOKEN", "")
    server = MCPServer("open")
    with caplog.at_level(logging.WARNING, logger="nanohubmcp"):
        server.start(host="0.0.0.0", port=0, quiet=True)
        try:
            assert server.token is None
        finally:
            server.stop()
    assert "serving on 0.0.0.0 with no authorization (MCP_TOKEN is set but empty): " in caplog.text
    caplog.clear()
    monkeypatch.delenv("MCP_TOKEN")
    with caplog.at_level(logging.WARNING, logger="nanohubmcp"):
        server.start(host="0.0.0.0", port=0, quiet=True, token="")
        server.stop()
    assert "serving on 0.0.0.0 with no authorization: " in caplog.text
