"""A ``--workers`` worker sent a stop signal the moment it is forked stops cleanly: its ``atexit`` handlers run
(a Rappture tool's program kill, a job store's flush, the app's own), it tells its parent, which does not start it
again.

A worker took SIGTERM, SIGINT and SIGHUP only once its event loop ran: from its fork until then (the store's first
read, its socket's bind, the loop's start) the signal's default action ended it, and no exit code of its ran. Here
the served app itself signals each worker from an at-fork hook in the parent, right after ``os.fork`` returned
there (the worker has most often not run yet), a few rounds each (before the fix every worker of every round died
so).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cluster import group_members
from redis_server import RedisServer, free_port
from support import wait_until

pytestmark = pytest.mark.timeout(180)

ROUNDS = 3
"""Servers started per signal (each forks :data:`WORKERS` workers, each signalled as it is forked)."""
WORKERS = 2

APP = """
import atexit
import os
import signal
import threading

from nanohubmcp import MCPServer

server = MCPServer("earlystop")


@server.tool()
def ping() -> str:
    '''Answers pong.'''
    return "pong"


PARENT = os.getpid()
SIGNAL = signal.Signals[os.environ["STOP_SIGNAL"]]
NOTES = os.environ["EARLY_NOTES"]
signalled = set()


def note(line):
    with open(NOTES, "a") as notes:
        notes.write(line + "\\n")


def signal_the_new_worker():  # in the parent, right after a fork: the child it made is its newest
    children = open(f"/proc/self/task/{threading.get_native_id()}/children").read().split()
    for pid in map(int, children):
        if pid not in signalled:
            signalled.add(pid)
            os.kill(pid, SIGNAL)
            note(f"signalled {pid}")


os.register_at_fork(after_in_parent=signal_the_new_worker)


@atexit.register
def note_the_exit():
    note(f"exited {os.getpid()}")
"""


def notes_of(path: Path, what: str) -> list[int]:
    return [int(line.split()[1]) for line in path.read_text().splitlines() if line.startswith(what + " ")]


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT", "SIGHUP"])
def test_a_worker_signalled_as_it_is_forked_runs_its_exit_handlers(
    redis_server: RedisServer, tmp_path: Path, name: str
) -> None:
    app = tmp_path / "earlystop_app.py"
    app.write_text(APP)
    failed = []
    for round_ in range(ROUNDS):
        notes = tmp_path / f"notes-{round_}.txt"
        notes.touch()
        log = tmp_path / f"server-{round_}.log"
        env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": "", "STOP_SIGNAL": name,
               "EARLY_NOTES": str(notes)}
        with log.open("wb") as out:
            server = subprocess.Popen(
                [sys.executable, "-m", "nanohubmcp", "run", str(app), "--port", str(free_port()),
                 "--workers", str(WORKERS), "--state-url", redis_server.url],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
            )
        try:
            code = server.wait(60)  # every worker stopped as told: the parent exits
            wait_until(lambda: not group_members(server.pid), "the workers are gone", 10)  # noqa: B023
        finally:
            for pid in group_members(server.pid):
                os.kill(pid, signal.SIGKILL)
            if server.poll() is None:
                server.kill()
                server.wait(10)
        text = log.read_text(errors="replace")
        signalled = notes_of(notes, "signalled")
        exited = notes_of(notes, "exited")
        assert code == 0, f"exit status {code}:\n{text}"
        assert len(signalled) == WORKERS, (signalled, text)  # (no worker started again: each was told)
        for pid in signalled:
            assert f"(pid {pid}) stopped by {name}; not restarted" in text, text
        assert "Traceback" not in text, text
        if sorted(exited) != sorted([*signalled, server.pid]):
            failed.append(f"round {round_}: signalled {signalled}, exit handlers ran in {exited} "
                          f"(the server is {server.pid}):\n{text}")
    assert not failed, f"{len(failed)} of {ROUNDS} rounds:\n" + "\n".join(failed)
