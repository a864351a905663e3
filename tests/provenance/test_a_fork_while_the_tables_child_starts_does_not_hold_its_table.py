"""A process forked while the distributions table's child is being started (a ``--workers`` worker, a ``processes``
job forked on another thread) does not hold the table up (review r32 finding 3, its LOW).

The parent wrote its ``sys.path`` to the child's stdin after ``Popen`` returned and then closed it: a fork between
the two kept the stdin's write end (and, inside ``Popen``, its output's write end), so the child waited for the end
of its input, and the parent for the end of its output, while the forked process lived (here 60 s; the child was
killed after ``CHILD_SECONDS``, 600 s, and the records gave up waiting). The child is now given ``sys.path`` in its
environment, and no fork happens while it is being started (``distributions_read.STARTING``): the fork waits for
``Popen`` to return.

The fork is provoked for real inside that window: an audit hook on ``subprocess.Popen`` (raised inside ``Popen``,
its pipes made) lets another thread fork and waits until that fork went through, or waits at the fence. A process
forked once the child has started holds only the read end of its output: harmless, shown too.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

pytestmark = [pytest.mark.timeout(120), pytest.mark.skipif(not hasattr(os, "fork"), reason="a fork")]

BOUND = 20.0
"""The longest the table may take (it takes under 2 s here; the forked process lives 60 s)."""

FORK_WHILE_STARTING = """
import json, os, sys, threading, time
from nanohubmcp.server.provenance import distributions_read

when, bound = sys.argv[1], float(sys.argv[2])
go, forked = threading.Event(), threading.Event()
held = []
os.register_at_fork(after_in_parent=forked.set)  # (Popen's own fork runs no such hook)

def fork():  # another thread, as a server forks its workers or a job's process
    go.wait()
    pid = os.fork()
    if pid == 0:  # a worker: it lives on, with what it inherited
        time.sleep(60)
        os._exit(0)
    held.append(pid)

threading.Thread(target=fork, daemon=True).start()
fence = getattr(distributions_read, "STARTING", None)
seen = {}

def in_popen(event, args):
    if event == "subprocess.Popen" and when == "starting" and not go.is_set() and "distributions_read" in str(args[1]):
        go.set()  # the fork, now, with Popen's pipes open in this process
        deadline = time.monotonic() + bound
        while time.monotonic() < deadline and not forked.is_set() and not (fence is not None and fence.held()):
            time.sleep(0.001)
        seen.update(forked_inside=forked.is_set(), held=fence is not None and fence.held() > 0)

sys.addaudithook(in_popen)
started = time.monotonic()
child = distributions_read.start_child()
if when == "started":
    go.set()
    forked.wait(bound)
try:
    table = distributions_read.child_table(child, bound)
    outcome = "table" if table else "no table"
except TimeoutError:
    outcome = "timed out"
took = time.monotonic() - started
forked.wait(bound)
for pid in held:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
print(json.dumps({"outcome": outcome, "took": took, "forked": bool(held), **seen}), flush=True)
"""


def _run(when: str) -> dict[str, Any]:
    process = subprocess.Popen([sys.executable, "-c", FORK_WHILE_STARTING, when, str(BOUND)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, errors = process.communicate(timeout=90)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # (a forked process its script left, if it failed)
        process.wait()
    assert process.returncode == 0, errors
    return json.loads(out.splitlines()[-1])


def test_a_fork_while_the_child_is_being_started_waits_and_the_table_is_read() -> None:
    answer = _run("starting")
    assert answer["forked"], answer
    assert answer["held"] or answer["forked_inside"], answer  # the fork was tried inside the window
    assert answer["outcome"] == "table", answer  # (before: "timed out", the forked process holding the pipes)
    assert answer["took"] < BOUND, answer
    assert answer["held"], answer  # it waited for Popen to return
    assert not answer["forked_inside"], answer


def test_a_process_forked_once_the_child_started_holds_only_a_harmless_read_end() -> None:
    started = time.monotonic()
    answer = _run("started")
    assert answer["forked"], answer
    assert answer["outcome"] == "table", answer
    assert answer["took"] < BOUND, (answer, time.monotonic() - started)
