"""``server.run()`` returns with the stop signals' handlers as it found them (found by a fresh-user trial):

- a SIGINT ignored when the script started (a background job ``python3 app.py &`` of a non-interactive shell)
  was KeyboardInterrupt after ``run()``; it is ignored again (``kill -INT`` still stops the server);
- after a stop by SIGHUP, a second SIGHUP that came once ``run()`` had returned (a shell passing its own on)
  killed the script's code after ``run()`` (status 129): SIGHUP stays ignored then;
- at SIGTERM with a call running, the wait said "press Ctrl-C again to quit now" to a service manager's journal:
  it names SIGTERM.

Real subprocesses; every wait is for a line, never a fixed time.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

import pytest

pytestmark = pytest.mark.timeout(120)

SCRIPT = """
import signal, sys, time
from nanohubmcp import MCPServer

server = MCPServer("found")

@server.tool()
def slow() -> str:
    '''Sleeps.'''
    print("slow: running", flush=True)
    time.sleep(30)
    return "late"

def shown():
    handlers = [signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
    return " ".join(str(int(h)) if isinstance(h, int) else getattr(h, "__name__", "?") for h in handlers)

signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a non-interactive shell starts a background job
print("before:", shown(), flush=True)
server.run(host="127.0.0.1", port=0, token="")
print("after:", shown(), flush=True)
sys.stdin.readline()  # the script's own work after run(), until the test says
print("after-work done", flush=True)
sys.exit(7)
"""


class Lines:
    """A pipe's lines, read by a thread, waited for with a bound."""

    def __init__(self, pipe: IO[str]) -> None:
        self._lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=lambda: [self._lines.put(line) for line in pipe], daemon=True).start()

    def wait_for(self, needle: str, timeout: float = 30.0) -> str:
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no line with {needle!r} came; seen: {self.seen}") from None
            self.seen.append(line)
            if needle in line:
                return line.rstrip("\n")


@contextmanager
def started(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Lines, Lines]]:
    app = tmp_path / "app.py"
    app.write_text(SCRIPT)
    proc = subprocess.Popen([sys.executable, str(app)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stderr is not None
    try:
        yield proc, Lines(proc.stdout), Lines(proc.stderr)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


@pytest.mark.parametrize(("stop", "after"), [(signal.SIGHUP, "after: 1 0 1"), (signal.SIGTERM, "after: 1 0 0")])
def test_run_puts_the_handlers_back_and_a_repeated_sighup_changes_nothing(tmp_path: Path, stop: int,
                                                                          after: str) -> None:
    with started(tmp_path) as (proc, out, _):
        assert out.wait_for("before:") == "before: 1 0 0"  # SIGINT ignored, the others their default
        out.wait_for("http://")  # the banner: serving
        proc.send_signal(stop)
        assert out.wait_for("after:") == after
        if stop == signal.SIGHUP:
            proc.send_signal(signal.SIGHUP)  # the shell's own, once run() returned
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        out.wait_for("after-work done")
        assert proc.wait(30) == 7


def test_the_wait_after_sigterm_says_to_send_sigterm_again(tmp_path: Path) -> None:
    with started(tmp_path) as (proc, out, err):
        port = int(out.wait_for("http://").rsplit(":", 1)[1].split("/")[0])
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "slow", "arguments": {}}}).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", body,
                                         {"Content-Type": "application/json",
                                          "Accept": "application/json, text/event-stream"})

        def call() -> None:
            with suppress(OSError):  # the connection closes with the server
                urllib.request.urlopen(request, timeout=40).read()

        threading.Thread(target=call, daemon=True).start()
        out.wait_for("slow: running")
        proc.send_signal(signal.SIGTERM)
        said = err.wait_for("waiting for 1 running tool call(s)")
        assert said.endswith(" - send SIGTERM again to quit now"), said
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 128 + signal.SIGTERM
