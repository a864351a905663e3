"""start_mcp takes the token from ``$MCP_TOKEN`` or ``--token-file`` and hands it to the app in its environment:
no process it starts shows the token in ``/proc/<pid>/cmdline`` (world-readable on a shared login node,
trial6 F6). ``--token`` on the command line still works, with a warning on stderr."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from nanohub_standins import GOOD_APP, Hub, Launch, cmdline, free_port
from support import bearer_status

pytestmark = pytest.mark.slow

TOKEN = "launch-SECRET-4711"
WARNING = "--token on the command line is visible to other users"
Start = Callable[..., Launch]


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def environ(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")


def assert_served_with_the_token_in_the_environment_only(run: Launch, port: int) -> None:
    assert run.wait_for("MCP Server ready!"), run.stderr
    (app,) = children(run.proc.pid)
    assert TOKEN not in cmdline(app), cmdline(app)
    assert f"MCP_TOKEN={TOKEN}".encode() in environ(app)
    assert bearer_status(f"http://127.0.0.1:{port}/", None) == 401
    assert bearer_status(f"http://127.0.0.1:{port}/", TOKEN) == 200


def test_mcp_token_reaches_the_app_through_its_environment_not_its_command_line(hub: Hub, launch: Start) -> None:
    port = free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--port", str(port)], hub.env(session=False, MCP_TOKEN=TOKEN))
    assert_served_with_the_token_in_the_environment_only(run, port)
    assert TOKEN not in cmdline(run.proc.pid)
    assert WARNING not in run.stderr


def test_a_private_token_file_is_read_and_no_command_line_shows_the_token(hub: Hub, launch: Start) -> None:
    port = free_port()
    app = hub.app("app.py", GOOD_APP)
    secret = hub.root / "token"
    secret.write_text(TOKEN + "\n")
    secret.chmod(0o600)
    run = launch(["--app", str(app), "--port", str(port), "--token-file", str(secret)], hub.env(session=False))
    assert_served_with_the_token_in_the_environment_only(run, port)
    assert TOKEN not in cmdline(run.proc.pid)
    assert WARNING not in run.stderr


def test_a_token_file_others_can_read_is_refused(hub: Hub, launch: Start) -> None:
    app = hub.app("app.py", GOOD_APP)
    secret = hub.root / "token"
    secret.write_text(TOKEN)
    secret.chmod(0o644)
    run = launch(["--app", str(app), "--port", str(free_port()), "--token-file", str(secret)],
                 hub.env(session=False))
    assert run.wait(timeout=30) == 2
    assert f"chmod 600 {secret}" in run.stderr
    assert "Traceback" not in run.stderr
    assert "MCP Server ready!" not in run.stdout


def test_a_token_on_the_command_line_works_and_is_warned_about(hub: Hub, launch: Start) -> None:
    port = free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--port", str(port), "--token", TOKEN], hub.env(session=False))
    assert_served_with_the_token_in_the_environment_only(run, port)
    assert WARNING in run.stderr
