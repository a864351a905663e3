"""review r26 MED-2: the exit grace was no bound for a heavy process. ``nanohubmcp sim2l NB --workers 2
--exit-grace 2`` exited 3-7 s after SIGTERM, status 0, nothing said: the stop's watchdog is disarmed once the serve
returns, and the interpreter's own exit (freeing ~300k objects and ~1900 modules of papermill, nbclient and simtool:
~1 s, more in forked workers, whose freeing copies every page it touches) ran outside the bound, in each worker and
then in the parent. Now a serving command ends its process once the exit's visible part is done (``atexit``
handlers, files left open flushed) without freeing the heap: within the grace.

The heavy heap is stood in for by an app whose module holds an object that takes 3 s to free (a papermill-sized
heap takes 1-3 s, depending on the machine's load: too unsteady to fail on before the fix every time). The app's
``atexit`` handler writes into a file it leaves open and unflushed: a user's app relying on both keeps them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest
from cluster import Server, group_members, listeners
from redis_server import RedisServer, free_port, listening
from support import wait_until

pytestmark = pytest.mark.timeout(120)

GRACE = 2.0
"""The exit grace served with (``--exit-grace``), the shortest there is."""
SLACK = 0.5
"""What the test's own measure may add to the bound: the signal's delivery and the reaping of the process."""

APP = """
import atexit
import os
import sys
import time
import types

from nanohubmcp import MCPServer

server = MCPServer("heavy")


@server.tool()
def ping() -> str:
    return "pong"


class SlowToFree:
    \"\"\"What a heap of papermill's size costs the interpreter's exit, in one object.\"\"\"

    def __del__(self) -> None:
        time.sleep(3)


sys.modules["heavy_heap"] = HEAP = types.ModuleType("heavy_heap")  # freed with the modules, as a library's heap
HEAP.held = SlowToFree()
NOTES = open(os.environ["HEAVY_NOTES"], "a", buffering=1 << 16)  # left open, never flushed by the app


@atexit.register
def note_the_exit() -> None:
    NOTES.write(f"exited {os.getpid()}\\n")
"""


def catches_sigterm(pid: int) -> bool:
    """Whether process ``pid`` has a handler for SIGTERM (its ``SigCgt`` mask, /proc/PID/status)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):  # (gone before the open, or between it and the read)
        return False
    caught = int(next(line for line in status.splitlines() if line.startswith("SigCgt:")).split()[1], 16)
    return bool(caught >> (signal.SIGTERM - 1) & 1)


@pytest.mark.parametrize("workers", [1, 2], ids=["one-process", "two-workers"])
def test_a_heavy_server_stopped_by_sigterm_exits_within_its_grace_having_run_its_exit_handlers(
    redis_server: RedisServer, tmp_path: Path, workers: int
) -> None:
    app = tmp_path / "heavy_app.py"
    app.write_text(APP)
    notes = tmp_path / "notes.txt"
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": "", "HEAVY_NOTES": str(notes)}
    port = free_port()
    server = Server(tmp_path, port, redis_server.url, workers=workers, env=env, access_log=False, app=app,
                    extra_args=["--exit-grace", f"{GRACE:g}"])
    proc = server.proc
    try:
        wait_until(lambda: listening(port) and listeners(port) == workers, "every process listens", 60)
        # (a single process listens a moment before its loop takes SIGTERM: one sent then ends it by the default
        # action; a worker takes it from its fork, its parent from before it)
        wait_until(lambda: len(group_members(proc.pid)) == workers + (workers > 1)
                   and (workers > 1 or catches_sigterm(proc.pid)), "every process takes SIGTERM", 60)
        began = time.monotonic()
        proc.send_signal(signal.SIGTERM)  # as a service manager stops it
        code = proc.wait(60)
        spent = time.monotonic() - began
        text = server.log.read_text(errors="replace")

        assert code == 0, f"exit status {code}:\n{text}"
        assert spent < GRACE + SLACK, f"exited {spent:.1f} s after SIGTERM, its grace {GRACE:g} s:\n{text}"
        wait_until(lambda: not group_members(proc.pid), "the workers are gone too", 10)
        written = notes.read_text().splitlines()  # each process's handler ran, its file flushed: once each
        assert len(written) == len(set(written)) == workers + (workers > 1), (written, text)
        assert "exit handlers still ran" not in text, text
        assert "Traceback" not in text, text
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.wait(10)
