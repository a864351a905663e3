"""On Linux the provenance writer's thread runs on the CPU where the thread that started it (the serving event
loop, which hands it the records) last ran, looked up again before each of its rounds; once that thread is gone,
it may run wherever the process's main thread may.

The two threads share one interpreter lock: on another core the writer made no more progress, and each hand-over
of the lock between cores left the loop waiting. With records on, a server free on two cores served ~9 % fewer
calls a second than pinned to one core, and each worker of ``--workers 2`` spent ~4 % more CPU per call than one
process alone on one core (bench/scaleout.md, 2026-12-07).

Run in a process of its own: the writing thread is one per process, started by the first record.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own CPU affinity is Linux's"),
    pytest.mark.skipif(
        sys.platform.startswith("linux") and len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to choose from"
    ),
]

SCRIPT = """
import json, os, threading
from nanohubmcp.server.provenance import writer

cpus = sorted(os.sched_getaffinity(0))
seen = []
written = threading.Event()

def write(batch):
    seen.append([batch, sorted(os.sched_getaffinity(0))])
    written.set()

batches = writer.BatchWriter(write, name="follow-test")

def starter():  # the serving loop's part: it hands the items over, running on one CPU, then on another
    for item, cpu in ((1, cpus[-1]), (2, cpus[0])):
        os.sched_setaffinity(0, (cpu,))  # (moves this thread there before it returns)
        written.clear()
        batches.add(item)
        assert written.wait(60)

thread = threading.Thread(target=starter)
thread.start()
thread.join()
written.clear()
batches.add(3)  # the starter is gone
assert written.wait(60)
print(json.dumps({"cpus": cpus, "main": sorted(os.sched_getaffinity(0)), "seen": seen}))
"""


def test_the_writing_thread_follows_its_starters_cpu_and_is_freed_when_it_ends(tmp_path: Path) -> None:
    # (from tmp_path: ``-c`` puts the working directory first on sys.path)
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    cpus = found["cpus"]
    assert found["seen"] == [[[1], [cpus[-1]]], [[2], [cpus[0]]], [[3], found["main"]]], found
