"""The exit of a ``--workers`` server with a large heap flushes the files its processes left open without walking
that heap: within the second the exit grace keeps for the exit, however much of it the ``atexit`` handlers took.

The exit flushed the files left open by walking every object the collector tracks (``gc.get_objects()``): in a
forked worker of a Sim2L server, ~320k objects, 0.25-0.5 s, each page it touched copied from the parent (~15k page
faults). Here the heap is ~5M objects and the app's ``atexit`` handler takes 0.6 s of the exit's second: the walk
outlasted what was left, the exit was cut ("the process's exit handlers still ran 1 s after serving ended"), status
1, the files left unflushed. Now the start-up's file objects are noted when it is frozen (the parent's before its
forks, each worker's at its serving's start) and the exit walks only what serving made.

What the flush guarantees is kept: a file opened at the app's import (before the forks) and one a tool opened
while serving, both written and never flushed by the app, are flushed in each process.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import httpx
import pytest
from cluster import Server, group_members, listeners
from redis_server import RedisServer, free_port, listening
from support import wait_until

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

WORKERS = 2
HEAP_OBJECTS = 5_000_000
"""Objects the collector tracks in the app's heap (~200 MB; a Sim2L server's is ~320k larger ones)."""

APP = """
import atexit
import os
import time

from nanohubmcp import MCPServer

server = MCPServer("bigheap")


class Speck:
    __slots__ = ()


HEAP = [Speck() for _ in range(int(os.environ["HEAP_OBJECTS"]))]
STARTED = open(os.environ["START_NOTES"], "a", buffering=1 << 16)  # left open, never flushed by the app
SERVING = []


@server.tool()
def note() -> int:
    '''Opens a file, writes into it and leaves it open, unflushed; returns the process id.'''
    notes = open(os.environ["SERVING_NOTES"], "a", buffering=1 << 16)
    notes.write(f"called {os.getpid()}\\n")
    SERVING.append(notes)
    return os.getpid()


@atexit.register
def slow_exit_handler() -> None:  # (a job store's flush, a program's kill: most of the exit's second)
    time.sleep(0.6)
    STARTED.write(f"exited {os.getpid()}\\n")
"""


def test_a_large_heaps_exit_flushes_the_files_left_open_within_its_second(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    app = tmp_path / "bigheap_app.py"
    app.write_text(APP)
    started, serving = tmp_path / "started.txt", tmp_path / "serving.txt"
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": "",
           "HEAP_OBJECTS": str(HEAP_OBJECTS), "START_NOTES": str(started), "SERVING_NOTES": str(serving)}
    port = free_port()
    server = Server(tmp_path, port, redis_server.url, workers=WORKERS, env=env, access_log=False, app=app)
    proc = server.proc
    try:
        wait_until(lambda: listening(port) and listeners(port) == WORKERS, "every worker listens", 120)
        calls = []  # the process that answered each call (which worker does is the kernel's choice)
        for _ in range(8):
            answer = httpx.post(f"http://127.0.0.1:{port}/tools/note", json={}, timeout=30)
            assert answer.status_code == 200, answer.text
            calls.append(int(answer.json()["result"]))
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(60)
        text = server.log.read_text(errors="replace")

        assert "exit handlers still ran" not in text, text
        assert code == 0, f"exit status {code}:\n{text}"
        wait_until(lambda: not group_members(proc.pid), "the workers are gone too", 10)
        exited = started.read_text().splitlines()  # each process's handler ran, the file it wrote into flushed
        assert len(exited) == len(set(exited)) == WORKERS + 1, (exited, text)
        assert f"exited {proc.pid}" in exited, (exited, text)
        noted = sorted(serving.read_text().splitlines())  # each call's note, flushed by the worker that made it
        assert noted == sorted(f"called {pid}" for pid in calls), (noted, calls, text)
        assert "Traceback" not in text, text
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.wait(10)

