"""Ctrl-C while a sync tool runs: the server stops at once, says it waits for the running call,
and a second Ctrl-C ends the process without a traceback (a fresh-user trial saw a silent
20 s wait, then a threading traceback on the second Ctrl-C)."""

from __future__ import annotations

import contextlib
import io
import json
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

SCRIPT = """
import sys, time
from nanohubmcp import MCPServer
server = MCPServer("slow")

@server.tool()
def slow() -> str:
    '''Sleeps.'''
    print("slow: running", flush=True)
    time.sleep(30)
    return "late"

server.run(host="127.0.0.1", port=0)
"""


def test_a_second_ctrl_c_quits_while_a_tool_still_runs(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(SCRIPT)
    proc = subprocess.Popen([sys.executable, str(app)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = proc.stdout.readline() if proc.stdout else ""
        port = int(banner.rsplit(":", 1)[1])
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "slow", "arguments": {}}}).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", body, {"Content-Type": "application/json"})

        def call() -> None:
            with contextlib.suppress(OSError):  # the connection closes with the server
                urllib.request.urlopen(request, timeout=40).read()

        threading.Thread(target=call, daemon=True).start()
        # Ctrl-C only once the tool runs (a fixed pause lost that race on a loaded machine).
        running = threading.Event()

        def watch() -> None:
            for line in proc.stdout or ():
                if "slow: running" in line:
                    running.set()

        threading.Thread(target=watch, daemon=True).start()
        assert running.wait(30), "the tool never started"
        proc.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 10
        said = ""
        while "Ctrl-C again" not in said and time.monotonic() < deadline:
            said += proc.stderr.readline() if proc.stderr else ""
        assert "waiting for 1 running tool call(s)" in said, said
        proc.send_signal(signal.SIGINT)
        code = proc.wait(10)
        assert code == 128 + signal.SIGINT
        rest = proc.stderr.read() if proc.stderr else ""
        assert "Traceback" not in rest, rest
        assert "Exception ignored" not in rest, rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_the_second_ctrl_c_handler_is_in_place_before_the_message_asks_for_it(monkeypatch: Any) -> None:
    # Regression: the message was printed before the handler was installed, so a second Ctrl-C sent
    # as soon as the message showed (as the test above does) could hit Python's default handler and
    # leave the process waiting for the tool at exit. The handler must already be there when the
    # message is written.
    from concurrent.futures import Future

    from nanohubmcp.processes import process_exit
    from nanohubmcp.processes.exit_grace import MIN_EXIT_GRACE_SECONDS
    from nanohubmcp.server.calls import invoke

    monkeypatch.setattr(invoke, "RUNNING", {Future()})  # one pool call still running
    handlers_at_write: list[Any] = []

    class Stderr(io.StringIO):
        def write(self, text: str) -> int:
            handlers_at_write.append(signal.getsignal(signal.SIGINT))
            return super().write(text)

    stderr = Stderr()
    monkeypatch.setattr(sys, "stderr", stderr)
    # (SIGHUP too: the wait ignores it, and a process this one starts later would inherit that)
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        # the shortest exit grace: the wait for the call that never returns ends 1 s on, not the default's 9 s
        process_exit.explain_exit_wait(None, signal.SIGINT, grace=MIN_EXIT_GRACE_SECONDS)
        installed = signal.getsignal(signal.SIGINT)
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    assert "press Ctrl-C again to quit now" in stderr.getvalue()
    assert installed is not saved[signal.SIGINT]
    assert handlers_at_write
    assert all(handler is installed for handler in handlers_at_write), handlers_at_write
