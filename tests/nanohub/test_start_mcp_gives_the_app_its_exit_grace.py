"""``start_mcp --app`` had no ``--exit-grace``: an app's ``server.run(exit_grace=...)`` was named as a keyword
it leaves out with no option to give it, and the app's stop was bounded by the 10 s default (and start_mcp killed
it 5 s after SIGTERM, whatever bound it kept). Now ``--exit-grace SECONDS`` reaches the app's ``run()``, as
``nanohubmcp run``'s does, and start_mcp waits for the app 5 s past it before killing it."""

from __future__ import annotations

import re
import signal
import threading
import time
from collections.abc import Callable

import pytest
from nanohub_standins import Hub, Launch
from support import DEAF_APP, call_tool_http, wait_until

pytestmark = pytest.mark.slow

APP = DEAF_APP + '''
if __name__ == "__main__":
    server.run(exit_grace=7)
'''
GRACE = 7
"""The exit grace given: past start_mcp's old 5 s kill, so the app's own line, said a second before it, shows that
start_mcp waits for the app's grace (5 s past it) rather than killing it at 5 s."""
Start = Callable[..., Launch]


def _call_quietly(base: str) -> None:
    try:
        call_tool_http(base, "nap", timeout=60)
    except Exception:  # the stopping app closes the connection: not this test's business
        return


def test_the_note_names_exit_grace_and_its_option(hub: Hub, launch: Start) -> None:
    run = launch(["--app", str(hub.app("app.py", APP)), "--port", "0"], hub.env(session=False))
    assert run.wait_for("MCP Server ready!"), run.stderr
    note = next((line for line in run.stderr.splitlines() if line.startswith("start_mcp: note:")), "")
    assert "passes exit_grace= to server.run()" in note, run.stderr
    assert "give --exit-grace" in note, note


def test_the_app_stops_within_the_exit_grace_given_to_start_mcp(hub: Hub, launch: Start) -> None:
    run = launch(["--app", str(hub.app("app.py", APP)), "--port", "0", "--exit-grace", str(GRACE)],
                 hub.env(session=False))
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert "note:" not in run.stderr  # the option gives the app's exit_grace=
    base = re.search(r"MCP Server ready! Access it at: (\S+)", run.stdout)
    assert base, run.stdout
    threading.Thread(target=_call_quietly, args=(base[1],), daemon=True).start()
    wait_until(lambda: "nap: running" in run.stderr, "the tool runs", 30)

    began = time.monotonic()
    run.proc.send_signal(signal.SIGTERM)
    code = run.wait(30)
    took = time.monotonic() - began
    said = run.stderr
    assert code == 128 + signal.SIGTERM, said
    # the app's own run() kept the grace given: its last line (a second before the grace, past 5 s) names it, and
    # start_mcp let it say it and exit on its own
    assert f"1 tool call(s) still running; exiting without them (within {GRACE} s of the stop)" in said, said
    assert 5 < took < GRACE + 2, f"start_mcp took {took:.1f} s"
    assert "killed" not in said, said


def test_a_grace_out_of_range_is_a_usage_error(hub: Hub, launch: Start) -> None:
    run = launch(["--app", str(hub.app("app.py", APP)), "--exit-grace", "1"], hub.env(session=False))
    assert run.wait(30) == 2, run.stderr
    assert "argument --exit-grace: must be a number of seconds from 2 to 86400" in run.stderr, run.stderr
