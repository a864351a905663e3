"""``start_mcp`` names the header clients send without writing a token it read from ``$MCP_TOKEN`` or
``--token-file`` into an output that is not a terminal (a tool session's log, a pipe), as ``nanohubmcp
run`` never prints it (trial16 F6: it printed ``Authorization: Bearer <token>`` in clear whatever the
output). On a terminal the header is printed whole, as before; a token given with ``--token`` (already on
the command line, with a warning) is printed too."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from collections.abc import Callable

import pytest
from nanohub_standins import GOOD_APP, Hub, Launch, free_port

pytestmark = pytest.mark.slow

TOKEN = "tty-SECRET-8080"
Start = Callable[..., Launch]


def test_a_token_file_is_named_not_printed_when_stdout_is_a_file(hub: Hub, launch: Start) -> None:
    app = hub.app("app.py", GOOD_APP)
    secret = hub.root / "token"
    secret.write_text(TOKEN + "\n")
    secret.chmod(0o600)
    run = launch(["--app", str(app), "--port", str(free_port()), "--token-file", str(secret)], hub.env(session=False))
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert run.wait_for("Clients send the header"), run.stdout
    assert TOKEN not in run.stdout + run.stderr
    assert f"Authorization: Bearer <the token in {secret}>" in run.stdout


def test_mcp_token_is_named_not_printed_when_stdout_is_a_file(hub: Hub, launch: Start) -> None:
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--port", str(free_port())], hub.env(session=False, MCP_TOKEN=TOKEN))
    assert run.wait_for("Clients send the header"), run.stderr
    assert TOKEN not in run.stdout + run.stderr
    assert "Authorization: Bearer <the token in $MCP_TOKEN>" in run.stdout


def test_on_a_terminal_the_whole_header_is_printed(hub: Hub) -> None:
    app = hub.app("app.py", GOOD_APP)
    leader, follower = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "nanohubmcp.nanohub.launcher", "--app", str(app), "--port", str(free_port())],
        stdout=follower, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
        env=hub.env(session=False, MCP_TOKEN=TOKEN), cwd=hub.root,
    )  # fmt: skip
    os.close(follower)
    seen = b""
    try:
        deadline = time.monotonic() + 60
        while not (TOKEN.encode() in seen or b"<the token in" in seen) and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(leader, 4096)
                except OSError:  # the launcher exited: its terminal is gone
                    break
        text = seen.decode(errors="replace")
        assert f"Authorization: Bearer {TOKEN}" in text, text
    finally:
        proc.terminate()
        proc.wait(20)
        os.close(leader)
