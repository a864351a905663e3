"""A Sim2L run's claim stays one holder's when its folder (``.running``) is removed and made anew while it is
held, as when an operator clears the state directory under a running server (review r22 N5, confirmed).

- The threads of one process waited on a thread lock keyed by the folder's inode: a thread claiming the path
  after the folder was made anew (by its own claim) got a new inode, so a second entry, and the claim at once,
  while the first thread still made the run.
- The holder removed the file at the path when it let go, whatever the path named by then: the claim file of
  another process that had claimed the path since, so a third claimer got the run while that process held it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from nanohubmcp.sources.sim2l.claims import claimed, in_use

pytestmark = [pytest.mark.skipif(sys.platform == "win32", reason="POSIX record locks"), pytest.mark.timeout(60)]
NOT_BEFORE = 0.5
"""Seconds a claimer is given to get a claim it must not get yet (it waits on a lock: nothing happens)."""

_HOLD = """
import sys
from nanohubmcp.sources.sim2l.claims import claimed
with claimed(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.readline()
"""


def _claimer(path: str) -> tuple[threading.Thread, threading.Event, threading.Event]:
    """A thread that claims ``path``, sets ``entered`` once it holds it and lets go when ``leave`` is set."""
    entered, leave = threading.Event(), threading.Event()

    def claim() -> None:
        with claimed(path):
            entered.set()
            leave.wait(30)

    thread = threading.Thread(target=claim, daemon=True)
    thread.start()
    return thread, entered, leave


def test_a_thread_waits_for_a_claim_held_before_its_folder_was_made_anew(tmp_path: Path) -> None:
    folder = tmp_path / ".running"
    path = str(folder / "run.claim")
    with claimed(path):
        shutil.rmtree(folder)  # the operator clears it; the next claim makes it anew
        thread, entered, leave = _claimer(path)
        assert not entered.wait(NOT_BEFORE), "a second thread of the process holds the claim"
        assert folder.is_dir()
    assert entered.wait(10)  # once the first let go
    leave.set()
    thread.join(10)
    assert in_use() == 0


def test_a_holder_letting_go_leaves_the_claim_another_process_took_after_the_folder_was_made_anew(
        tmp_path: Path) -> None:
    folder = tmp_path / ".running"
    path = str(folder / "run.claim")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    other: subprocess.Popen[str] | None = None
    try:
        with claimed(path):
            shutil.rmtree(folder)
            other = subprocess.Popen([sys.executable, "-c", _HOLD, path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env)
            assert other.stdout is not None
            assert other.stdout.readline() == "held\n"  # its own claim file in the folder made anew
        assert os.path.exists(path), "the first holder removed the other process's claim file"
        thread, entered, leave = _claimer(path)
        assert not entered.wait(NOT_BEFORE), "a third claimer got the run while the other process held it"
        assert other.stdin is not None
        other.stdin.write("\n")
        other.stdin.flush()
        assert other.wait(10) == 0
        assert entered.wait(10)
        leave.set()
        thread.join(10)
    finally:
        if other is not None and other.poll() is None:
            other.kill()
            other.wait()
