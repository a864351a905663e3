"""SIGTERM to a server whose sync tool is blocked in ``time.sleep`` ends the process within the documented
10 s (``EXIT_GRACE_SECONDS``), counted from the signal: a process supervisor (systemd, Slurm, a container
runtime) can rely on it. The process waited the 2 s drain and then 10 s more, about 12 s in all, while
the docs said 10 s (fresh-user trial, low finding). Measured by waiting for the process's exit.

Over HTTP the default 10 s is kept end to end; over stdio the same bound is checked with ``--exit-grace 2``
(the drain cut to 1 s, then the wait for the call to its end: the old sum, drain and then the whole grace, would
be 3 s or more and fail it)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO

import pytest
from support import DEAF_APP, call_tool_http

from nanohubmcp.processes.exit_grace import MIN_EXIT_GRACE_SECONDS
from nanohubmcp.processes.process_exit import EXIT_GRACE_SECONDS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parents[2]
APP = DEAF_APP
CEILING = 60.0
"""How long the test waits for the exit at the most (far above the bound: a hang fails, not a slow machine)."""


class Lines:
    """The lines of a process's stream, read to its end by a thread of their own."""

    def __init__(self, stream: IO[str]) -> None:
        self.seen: list[str] = []
        self._grew = threading.Condition()
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._grew:
                self.seen.append(line)
                self._grew.notify_all()

    def wait_for(self, said: str) -> str | None:
        """The first line holding ``said``, once read (None when the stream ends or CEILING passes first)."""
        deadline = time.monotonic() + CEILING
        with self._grew:
            while True:
                found = next((line for line in self.seen if said in line), None)
                if found is not None or not self._reader.is_alive() or time.monotonic() > deadline:
                    return found
                self._grew.wait(0.5)

    def text(self) -> str:
        """Everything the stream held (read to its end: call it once the process has exited)."""
        self._reader.join(CEILING)
        return "".join(self.seen)


class Served:
    """``nanohubmcp run app.py ARGUMENTS`` in ``folder``, its output read as it comes."""

    def __init__(self, folder: Path, *arguments: str, app: str = APP) -> None:
        (folder / "app.py").write_text(app)
        env = {k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
        env["PYTHONPATH"] = str(ROOT)
        self.proc = subprocess.Popen([sys.executable, "-m", "nanohubmcp", "run", "app.py", *arguments], cwd=folder,
                                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        assert self.proc.stdout is not None
        assert self.proc.stderr is not None
        self.stdout, self.stderr = Lines(self.proc.stdout), Lines(self.proc.stderr)

    def assert_exits_within_the_bound(self, bound: float = EXIT_GRACE_SECONDS) -> None:
        """Once the tool runs: SIGTERM, then wait for the exit (status 0, as a stopped server's) and check it
        came within ``bound`` seconds of the signal (the server's exit grace: 10 s by default)."""
        try:
            assert self.stderr.wait_for("nap: running"), self.stderr.seen
            began = time.monotonic()
            self.proc.send_signal(signal.SIGTERM)
            assert self.proc.wait(CEILING) == 0
            took = time.monotonic() - began
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(CEILING)
        assert took <= bound, f"exited {took:.2f} s after SIGTERM; the bound is {bound:g} s"
        # Still blocked when the process exited: the bound was measured, not a quick exit.
        assert "1 tool call(s) still running" in self.stderr.text()


def test_over_http_the_process_exits_within_the_bound_of_the_signal(tmp_path: Path) -> None:
    served = Served(tmp_path, "--host", "127.0.0.1", "--port", "0")
    listening = served.stdout.wait_for("http://127.0.0.1:")
    if listening is not None:  # else the assertion below says why
        base = "http://" + listening.split("http://", 1)[1].split("/")[0] + "/"
        threading.Thread(target=call_quietly, args=(base,), daemon=True).start()
    served.assert_exits_within_the_bound()


def test_over_stdio_the_process_exits_within_the_bound_of_the_signal(tmp_path: Path) -> None:
    served = Served(tmp_path, "--transport", "stdio", "--exit-grace", f"{MIN_EXIT_GRACE_SECONDS:g}")
    assert served.proc.stdin is not None
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "nap", "arguments": {}}},
    ):
        served.proc.stdin.write(json.dumps(message) + "\n")
        served.proc.stdin.flush()
    served.assert_exits_within_the_bound(MIN_EXIT_GRACE_SECONDS)


def test_at_the_shortest_grace_the_stop_answers_the_call_and_promises_no_wait_of_nothing(tmp_path: Path) -> None:
    """review r26 NIT-1: at ``--exit-grace 2`` the drain's first step (the calls' moment to answer) took all of the
    second it has, so the lines promised waits of 0.0 s ("some connections did not close within 0.0 s", "at most
    0.0 s more"). Now that step leaves part of it to the steps after it: the call is still answered, and no line
    names a wait of nothing."""
    served = Served(tmp_path, "--host", "127.0.0.1", "--port", "0", "--exit-grace", f"{MIN_EXIT_GRACE_SECONDS:g}")
    listening = served.stdout.wait_for("http://127.0.0.1:")
    answers: list[tuple[int, str]] = []

    def call() -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "nap"}}).encode()
        request = urllib.request.Request(base, body, {"Content-Type": "application/json",
                                                      "Accept": "application/json, text/event-stream"})
        try:
            with urllib.request.urlopen(request, timeout=CEILING) as answer:
                answers.append((answer.status, answer.read().decode()))
        except urllib.error.HTTPError as refused:
            answers.append((refused.code, refused.read().decode()))

    if listening is not None:  # else the assertion below says why
        base = "http://" + listening.split("http://", 1)[1].split("/")[0] + "/"
        caller = threading.Thread(target=call, daemon=True)
        caller.start()
    served.assert_exits_within_the_bound(MIN_EXIT_GRACE_SECONDS)
    caller.join(CEILING)
    said = served.stderr.text()
    assert " 0.0 s" not in said, said
    assert "stopped; waiting for 1 running tool call(s) to return" in said, said
    ((status, text),) = answers
    assert status == 503, text
    assert json.loads(text)["error"]["code"] == -32000, text


def call_quietly(base: str, name: str = "nap", arguments: dict[str, float] | None = None) -> None:
    try:
        call_tool_http(base, name, arguments, timeout=CEILING)
    except Exception:  # the stopping server answers 503 or closes the connection: not this test's business
        return


LATE_STOP = """
import sys, threading, time
from nanohubmcp import MCPServer

server = MCPServer("late")

@server.tool()
def stuck() -> str:
    '''Never returns (a sync tool: a worker thread).'''
    print("stuck: running", file=sys.stderr, flush=True)
    threading.Event().wait()
    return "never"

@server.tool()
async def block(seconds: float) -> str:
    '''Blocks the event loop.'''
    print("block: blocking the loop", file=sys.stderr, flush=True)
    time.sleep(seconds)
    return "done"
"""


def test_the_explanation_comes_before_the_bound_when_the_loop_took_the_stop_late(tmp_path: Path) -> None:
    """SIGTERM while an ``async def`` tool blocks the loop 4.5 s and a sync call never returns, the bound 6 s: the
    loop begins the stop 4.5 s late, and its 2 s drain passed the bound (the exit watchdog ended the process,
    status 1, before the "waiting for 1 running tool call(s)" line). The drain and the wait for calls end
    ``EXIT_MARGIN_SECONDS`` before the watchdog's deadline, both counted from the signal."""
    # --exit-grace 6: shorter than the 10 s default, the same relation, a shorter test
    served = Served(tmp_path, "--host", "127.0.0.1", "--port", "0", "--exit-grace", "6", app=LATE_STOP)
    try:
        listening = served.stdout.wait_for("http://127.0.0.1:")
        assert listening is not None, served.stderr.seen
        base = "http://" + listening.split("http://", 1)[1].split("/")[0] + "/"
        threading.Thread(target=call_quietly, args=(base, "stuck"), daemon=True).start()
        assert served.stderr.wait_for("stuck: running"), served.stderr.seen
        threading.Thread(target=call_quietly, args=(base, "block", {"seconds": 4.5}), daemon=True).start()
        assert served.stderr.wait_for("block: blocking the loop"), served.stderr.seen
        served.proc.send_signal(signal.SIGTERM)
        code = served.proc.wait(CEILING)
    finally:
        if served.proc.poll() is None:
            served.proc.kill()
            served.proc.wait(CEILING)
    said = served.stderr.text()
    assert "after SIGTERM" not in said, said  # the watchdog's own line: it ended the process
    assert code == 0, said
    lines = said.splitlines()
    waiting = next(i for i, line in enumerate(lines) if "stopped; waiting for 1 running tool call(s)" in line)
    leaving = next(i for i, line in enumerate(lines) if "1 tool call(s) still running; exiting without them" in line)
    assert waiting < leaving, said
