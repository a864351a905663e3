"""A child forked while the parent writes a result's ``.part`` file, or holds ``spool``'s or ``kernel_exit``'s
module-level lock in another thread (review r29 #5): the child's exit clean-up (``spool._remove_unfinished``, what
its ``atexit`` would run) leaves the parent's unfinished file alone, and both locks are free in the child. Real
forks, a real file; the child's answer is its exit status."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from held_locks import held_by_another_thread

from nanohubmcp.jupyter import kernel_exit
from nanohubmcp.server.results import spool
from nanohubmcp.server.results.folder import PART_SUFFIX

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="a fork")


def _child_status(pid: int, within: float = 20.0) -> int:
    """The forked child's exit code; a child still running after ``within`` seconds is killed (-1: it hung)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return -1


@pytest.mark.timeout(60)
def test_a_childs_exit_clean_up_leaves_the_parents_unfinished_part_file(tmp_path: Path) -> None:
    path = str(tmp_path / "result.json")
    started, finish = threading.Event(), threading.Event()

    def parts() -> Iterator[str]:
        yield "[1, "
        started.set()
        finish.wait(30)
        yield "2]"

    writer = threading.Thread(target=spool.to_part_file, args=(path, parts, 1 << 20), daemon=True)
    writer.start()
    assert started.wait(30)
    try:
        pid = os.fork()
        if pid == 0:  # the child: what its exit would run
            try:
                spool._remove_unfinished()
            finally:
                os._exit(0)
        assert _child_status(pid) == 0
        assert Path(path + PART_SUFFIX).exists()  # the parent's write goes on (before: the child removed it)
    finally:
        finish.set()
        writer.join(30)
    assert Path(path + PART_SUFFIX).read_text() == "[1, 2]"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("lock", [spool._WRITING_LOCK, kernel_exit._LOCK], ids=["spool", "kernel_exit"])
def test_a_module_lock_another_thread_holds_at_the_fork_is_free_in_the_child(lock: object) -> None:
    with held_by_another_thread(lock):
        pid = os.fork()
        if pid == 0:  # the child: its own uses of the module's lock go through
            try:
                spool._remove_unfinished()
                kernel_exit.forget(object())
            finally:
                os._exit(0)
        assert _child_status(pid) == 0  # (before: -1, the child waited for a thread it does not have)
