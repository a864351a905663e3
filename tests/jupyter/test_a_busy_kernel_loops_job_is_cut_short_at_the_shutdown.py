"""A notebook kernel's shutdown cuts short a running ``--async`` job of a "kernel" mode server whose loop a cell
holds at the shutdown request (review r32 F8): the stop's drain, which hands running jobs over, had not run on that
loop by the stop's deadline, so no job was handed over, ``kernel_exit.stop_server`` cut none, and the job stayed
``working`` in its store until a server opened the state folder again. Every job of the process not ended is now
cut short there — ``failed``, "the server stopped while this job ran" — handed over or not.

A real server on a loop another thread runs (as a kernel's), held by ``time.sleep`` as a cell would hold it; a
real REST call over HTTP; the job read back from the real SQLite file.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.jupyter import kernel_exit
from nanohubmcp.jupyter.kernel_exit import EXIT_STOP_SECONDS
from nanohubmcp.server.jobs.settle import SERVER_STOPPED

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("cell_seconds", [0.0, 6.0], ids=["idle-loop", "busy-loop"])
def test_a_job_running_at_the_shutdown_is_cut_short_however_busy_the_loop(tmp_path: Path,
                                                                          cell_seconds: float) -> None:
    state = tmp_path / "state"
    server = MCPServer("kernel-mode", state_dir=str(state))
    running = threading.Event()
    release = threading.Event()

    @server.async_tool()
    def slowjob() -> str:
        """Waits until the test ends, never looking for a cancel."""
        running.set()
        release.wait(30)
        return "rested"

    loop = asyncio.new_event_loop()
    ready = threading.Event()

    async def start() -> None:
        server.start(port=0, loop="current", quiet=True)
        ready.set()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(loop.create_task(start()))
        loop.run_forever()

    threading.Thread(target=run, daemon=True).start()
    assert ready.wait(10)
    try:
        request = urllib.request.Request(f"{server.url}tools/slowjob", b"{}", {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            job_id = json.loads(answer.read())["job_id"]
        assert running.wait(10)
        cell = threading.Event()
        loop.call_soon_threadsafe(lambda: (cell.set(), time.sleep(cell_seconds)))  # a cell computing
        assert cell.wait(5)
        kernel_exit.stop_server(server, EXIT_STOP_SECONDS)  # the shutdown request's stop

        def stored() -> tuple[str, str | None]:
            with sqlite3.connect(state / "jobs.sqlite3") as db:
                row: tuple[str, str | None] = db.execute(
                    "SELECT status, status_message FROM jobs WHERE id = ?", (job_id,)).fetchone()
            return row

        # (at once: the kernel's process ends right after; before, busy-loop: ("working", None))
        assert stored() == ("failed", SERVER_STOPPED)
    finally:
        release.set()
        loop.call_soon_threadsafe(loop.stop)
