"""start_mcp's ready lines come after the app's own banner (its endpoints under the weber URL), in a log file
too (a trial finding: the app's banner came after ``Listening locally on:``; the launcher called the app
ready once its socket took a connection, before the app's loop served and printed its banner).

The app here is slow between listening and serving (a ``server_started`` subscriber that waits for
start_mcp's ready line, at most 20 s): a launcher that calls it ready at its socket prints its lines first."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from nanohub_standins import GOOD_APP, Hub, Launch, call_add, free_port

pytestmark = pytest.mark.slow

WEBER_URL = "https://proxy.hub.example.org/weber/4242/c00kie/123/"
PREFIX = "/weber/4242/c00kie/123/"

SLOW_TO_SERVE = """
import pathlib, time

def _slow(event, data):
    # listening, not serving yet: wait (bounded) for start_mcp to call this app ready, as a loaded host may
    out = pathlib.Path(__file__).parent / "launcher.out"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and "MCP Server ready!" not in out.read_text(errors="replace"):
        time.sleep(0.05)

server.events.subscribe(_slow, ["server_started"])
"""


def test_the_ready_lines_follow_the_apps_banner(hub: Hub, launch: Callable[..., Launch]) -> None:
    hub.resources()
    weber = free_port()
    app = hub.app("slow.py", GOOD_APP + SLOW_TO_SERVE)
    run = launch(["--app", str(app), "--host", "127.0.0.1", "--weber-port", str(weber)])
    assert run.wait_for("MCP Server ready!", timeout=90), run.stderr
    assert run.wait_for("MCP Server 'launcher-test'"), run.stderr
    lines = run.stdout.splitlines()
    banner = next(i for i, line in enumerate(lines) if line.startswith("MCP Server 'launcher-test'"))
    assert lines[banner + 1:].count(f"Proxy URL : {WEBER_URL}") == 1, lines  # start_mcp's lines after the app's
    assert f"  Streamable HTTP:      {WEBER_URL}mcp" in lines[banner:]
    assert call_add(f"http://127.0.0.1:{weber}{PREFIX}mcp") == (["add"], "5")
