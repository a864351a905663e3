"""A stdio server (a desktop client's) whose ``async def`` tool blocks the event loop (``time.sleep``) still exits
within 10 s of SIGTERM, Ctrl-C or the client closing its stdin, saying why on stderr, and at once at a second
signal (trial46 T46-13: every stop waited for the tool to return, 29 s, and exited 0 without a word; the loop
never saw the signal nor the end of input). The tests that wait for the bound serve with ``--exit-grace 2``
(``run(exit_grace=2)``): the same bound, kept the same way, in a fifth of the time."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from support import BLOCKING_APP, run_command, tool_call_message, wait_until, wait_until_delivered

pytestmark = pytest.mark.timeout(90)

BLOCKED = "an async tool blocks the event loop"
GRACE = 2.0
"""The exit grace the tests waiting for the bound serve with (``--exit-grace``): the shortest taken."""


class Blocked:
    """``nanohubmcp run app.py --transport stdio`` in ``folder`` (or ``command``), ``app.py`` holding ``source``:
    by default one whose call blocks the event loop for 60 s (:meth:`block`); ``grace``: its ``--exit-grace``
    (None: the default, 10 s)."""

    def __init__(self, folder: Path, source: str = BLOCKING_APP, command: list[str] | None = None,
                 grace: float | None = None) -> None:
        (folder / "app.py").write_text(source)
        env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_")}
        env.update(HOME=str(folder), NANOHUBMCP_STATE_DIR=str(folder / "state"))
        command = command or [*run_command("app.py"), *(["--exit-grace", f"{grace:g}"] if grace else [])]
        self.proc = subprocess.Popen(command, cwd=folder, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)  # fmt: skip
        self.lines: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.folder = folder

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def send(self, message: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def block(self) -> None:
        """Initialize, then call ``block`` and wait until it runs."""
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        assert self.lines.get(timeout=60)["id"] == 0
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.send(tool_call_message("block", {"seconds": 60}, 1))
        wait_until(lambda: (self.folder / "started").exists() or self.proc.poll() is not None, "the tool to start")
        assert self.proc.poll() is None, self.stderr()

    def exit(self, timeout: float = 20) -> tuple[int, float]:
        """Its status, and the seconds it took to exit (it would take 60 s, the tool's)."""
        began = time.monotonic()
        code = self.proc.wait(timeout)
        return code, time.monotonic() - began

    def stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def blocked(tmp_path: Path) -> Any:
    server = Blocked(tmp_path)
    yield server
    server.close()


@pytest.fixture
def blocked_briefly(tmp_path: Path) -> Any:
    """A :class:`Blocked` whose stop is bounded by :data:`GRACE` (the tests that wait for the bound)."""
    server = Blocked(tmp_path, grace=GRACE)
    yield server
    server.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_ends_the_process_within_the_bound_while_a_tool_blocks_the_loop(blocked_briefly: Blocked,
                                                                                       sig: int) -> None:
    blocked = blocked_briefly
    blocked.block()
    blocked.proc.send_signal(sig)
    code, took = blocked.exit()
    said = blocked.stderr()
    assert took < GRACE + 2, took
    assert code == 1, (code, said)
    assert f"still running {GRACE:g} s after {signal.Signals(sig).name}: {BLOCKED}" in said
    assert blocked.lines.empty()  # nothing but protocol on stdout: the line went to stderr


def test_the_client_closing_stdin_ends_the_process_within_the_bound_while_a_tool_blocks_the_loop(
        blocked_briefly: Blocked) -> None:
    blocked = blocked_briefly
    blocked.block()
    assert blocked.proc.stdin is not None
    blocked.proc.stdin.close()
    code, took = blocked.exit()
    said = blocked.stderr()
    assert took < GRACE + 2, took
    assert code == 1, (code, said)
    assert f"still running {GRACE:g} s after the end of input: {BLOCKED}" in said
    assert blocked.lines.empty()


def test_a_second_ctrl_c_ends_the_process_at_once_while_a_tool_blocks_the_loop(blocked: Blocked) -> None:
    blocked.block()
    blocked.proc.send_signal(signal.SIGINT)
    wait_until_delivered(blocked.proc.pid, signal.SIGINT)  # (a SIGINT sent while one is pending is lost)
    began = time.monotonic()
    # Again until it exits: one delivered before the handler of the first ran (a busy host) is one for Python.
    wait_until(lambda: blocked.proc.send_signal(signal.SIGINT) or blocked.proc.poll() is not None, "the exit", 20)
    code, took = blocked.proc.wait(10), time.monotonic() - began
    said = blocked.stderr()
    assert took < 3, took
    assert code == 128 + signal.SIGINT, (code, said)
    assert "SIGINT again while stopping; exiting now" in said


def test_sigterm_after_the_client_closed_stdin_ends_the_process_at_once(blocked: Blocked) -> None:
    # What a desktop client does when the server does not exit after it closed stdin (MCP, Transports § stdio).
    blocked.block()
    assert blocked.proc.stdin is not None
    threads = _threads(blocked.proc.pid)
    blocked.proc.stdin.close()
    wait_until(lambda: _threads(blocked.proc.pid) < threads, "the end of input seen (its watching thread ends)")
    blocked.proc.send_signal(signal.SIGTERM)
    code, took = blocked.exit()
    said = blocked.stderr()
    assert took < 3, took
    assert code == 128 + signal.SIGTERM, (code, said)
    assert "SIGTERM while stopping (after the end of input); exiting now" in said


def _threads(pid: int) -> int:
    """How many threads process ``pid`` has (Linux's /proc/PID/task)."""
    return len(list(Path(f"/proc/{pid}/task").iterdir()))


SERVE_THEN_WORK = """
import sys, time
from nanohubmcp import MCPServer
server = MCPServer("after")
server.run(transport="stdio", exit_grace=2)
time.sleep(3)  # the script's own work after serving, past the 2 s bound of the stop
print("done", file=sys.stderr, flush=True)
"""


def test_what_a_script_does_after_serving_stdio_is_not_cut_off(tmp_path: Path) -> None:
    server = Blocked(tmp_path, SERVE_THEN_WORK, [sys.executable, str(tmp_path / "app.py")])
    try:
        assert server.proc.stdin is not None
        server.send({"jsonrpc": "2.0", "id": 5, "method": "ping"})
        assert server.lines.get(timeout=60)["id"] == 5
        server.proc.stdin.close()
        code, _ = server.exit(30)
        said = server.stderr()
        assert code == 0, said
        assert "done" in said
    finally:
        server.close()


JOB_APP = """
import time
from pathlib import Path
from nanohubmcp import MCPServer
server = MCPServer("jobs")

@server.async_tool()
def slow() -> str:
    '''Runs 3 s, told to cancel or not.'''
    Path("started").touch()
    time.sleep(3)
    return "done"
"""


@pytest.mark.parametrize("stop", ["the end of input", "SIGTERM"])
def test_a_stop_waiting_for_a_threads_job_does_not_say_the_event_loop_is_blocked(tmp_path: Path, stop: str) -> None:
    """The loop took the stop and ended; the process waits for a job's thread: the watchdog's notice that the loop
    does not answer ("an async tool blocking it?") was a false alarm there, 1 s into the wait, at every such stop
    (the loop's stop flag, which it read, is lowered again once the loop's stop is over)."""
    server = Blocked(tmp_path, JOB_APP)
    try:
        server.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        assert server.lines.get(timeout=60)["id"] == 0
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        server.send(tool_call_message("slow", {}, 1))
        assert server.lines.get(timeout=30)["result"]["structuredContent"]["status"] == "running"
        wait_until(lambda: (tmp_path / "started").exists(), "the job to start")
        if stop == "SIGTERM":
            server.proc.send_signal(signal.SIGTERM)
        else:
            assert server.proc.stdin is not None
            server.proc.stdin.close()
        code, _ = server.exit(30)
        said = server.stderr()
        assert code == 0, said
        assert "waiting for 1 running job(s) to return" in said
        assert "does not answer" not in said, said
    finally:
        server.close()
