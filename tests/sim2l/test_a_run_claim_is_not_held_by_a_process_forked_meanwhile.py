"""A Sim2L run's claim belongs to the process that took it (review r21 M6).

The server forks while a claim may be held: each ``processes`` job, and that executor's manager, which lives
as long as the server. A claim taken with ``flock`` was held by every such child too (the lock belongs to the
open file, which a fork shares): another process waiting for the run waited until the child exited, and the
child asking for the run itself never got it.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from support import wait_until

from nanohubmcp.sources.sim2l.store import RunStore, run_id

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc/<pid>/fd (Linux)")


def _claim_file(root: Path, run: str) -> str:
    return str(root / ".running" / f"{run}.claim")


def _has_open(pid: int | str, path: str) -> bool:
    folder = f"/proc/{pid}/fd"
    for name in os.listdir(folder):
        try:
            if os.readlink(f"{folder}/{name}") == path:
                return True
        except OSError:
            continue
    return False


_WAIT_FOR_RUN = """
import sys
from nanohubmcp.sources.sim2l.store import RunStore, run_id
with RunStore(sys.argv[1], "demo", "r1").claim(run_id({"x": 1})):
    print("got it", flush=True)
"""


def test_a_process_waiting_for_a_run_gets_it_though_a_child_was_forked_while_it_was_held(tmp_path: Path) -> None:
    run = run_id({"x": 1})
    read_end, write_end = os.pipe()
    with RunStore(str(tmp_path), "demo", "r1").claim(run):
        waiter = subprocess.Popen([sys.executable, "-c", _WAIT_FOR_RUN, str(tmp_path)], stdout=subprocess.PIPE,
                                  text=True)
        wait_until(lambda: _has_open(waiter.pid, _claim_file(tmp_path, run)), "the other process waits for the run")
        child = os.fork()  # a job's process forked meanwhile: it lives until the test ends
        if child == 0:
            try:
                os.close(write_end)
                os.read(read_end, 1)
            finally:
                os._exit(0)
    os.close(read_end)
    try:
        out, _ = waiter.communicate(timeout=30)
        assert out == "got it\n"
        assert waiter.returncode == 0
    finally:
        os.close(write_end)  # the forked child reads the end of the pipe and exits
        os.waitpid(child, 0)
        waiter.kill()
        waiter.wait()


def test_a_child_forked_while_a_thread_holds_a_run_gets_it_once_the_parent_lets_go(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path), "demo", "r1")
    run = run_id({"x": 1})
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        with store.claim(run):
            held.set()
            done.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    assert held.wait(10)
    read_end, write_end = os.pipe()
    child = os.fork()  # a `processes` job of the same Sim2L with the same inputs
    if child == 0:
        status = 1
        try:
            os.close(read_end)
            with store.claim(run):
                os.write(write_end, b"y")
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    reaped = False
    try:
        assert select.select([read_end], [], [], 0.3)[0] == []  # the child waits while the parent holds the run
        done.set()
        holder.join(10)
        ready, _, _ = select.select([read_end], [], [], 20)
        assert ready, "the forked child never got the run its parent let go"
        assert os.read(read_end, 1) == b"y"
        _, status = os.waitpid(child, 0)
        reaped = True
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        done.set()
        os.close(read_end)
        if not reaped:
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)


_HOLD_B_THEN_WANT_A = """
import sys, threading
from nanohubmcp.sources.sim2l.store import RunStore, run_id
store = RunStore(sys.argv[1], "demo", "r1")
with store.claim(run_id({"run": "B"})):
    print("holding B", flush=True)
    def want_a():
        with store.claim(run_id({"run": "A"})):
            pass
    wanting = threading.Thread(target=want_a)
    wanting.start()
    wanting.join()
print("done", flush=True)
"""


def test_claims_crossing_between_two_processes_are_all_made(tmp_path: Path) -> None:
    # This process holds run A and a thread of it asks for run B, which the other process holds while a thread
    # of it asks for A: the kernel, counting each process as one owner, refuses one of the waits as a deadlock;
    # it is none (each holder lets go), so that wait is asked again.
    store = RunStore(str(tmp_path), "demo", "r1")
    a, b = run_id({"run": "A"}), run_id({"run": "B"})
    outcome: list[str] = []
    let_go = threading.Event()
    holding = threading.Event()

    def hold_a() -> None:
        with store.claim(a):
            holding.set()
            let_go.wait(30)

    def want_b() -> None:
        try:
            with store.claim(b):
                outcome.append("got B")
        except OSError as error:
            outcome.append(f"refused: {error}")

    holder = threading.Thread(target=hold_a)
    holder.start()
    assert holding.wait(10)
    other = subprocess.Popen([sys.executable, "-c", _HOLD_B_THEN_WANT_A, str(tmp_path)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None
        assert other.stdout.readline() == "holding B\n"
        wait_until(lambda: _has_open(other.pid, _claim_file(tmp_path, a)), "the other process asks for A")
        wanting = threading.Thread(target=want_b)
        wanting.start()
        wait_until(lambda: _has_open("self", _claim_file(tmp_path, b)) or outcome, "this process asks for B")
        let_go.set()
        holder.join(10)
        wanting.join(30)
        out, err = other.communicate(timeout=30)
        assert (out, other.returncode) == ("done\n", 0), err
        assert outcome == ["got B"]
    finally:
        let_go.set()
        other.kill()
        other.wait()

