"""A ``ForkSafeLock`` held by another thread at a fork is free in the child (review r28 #7: the one helper the
modules' locks use, instead of a ``register_at_fork`` handler each). A real fork; the child's answer is its exit
status."""

from __future__ import annotations

import os

import pytest
from held_locks import held_by_another_thread

from nanohubmcp.server.wire.fork_safe import ForkSafeLock

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="a fork")


@pytest.mark.timeout(60)
def test_a_lock_another_thread_holds_at_the_fork_is_free_in_the_child() -> None:
    lock = ForkSafeLock()
    with held_by_another_thread(lock):
        pid = os.fork()
        if pid == 0:  # the child: the lock is free, and works as a lock
            code = 0 if lock.acquire(timeout=5) and lock.locked() else 1
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert lock.locked()  # (still the parent's thread's)
    assert not lock.locked()


@pytest.mark.timeout(60)
def test_a_thread_forking_inside_its_with_block_leaves_it_cleanly_in_the_child() -> None:
    """Review r29 #4: the child's re-made lock was free, so the forking thread's own ``with`` exit raised
    "release unlocked lock"; now it is re-made held by that thread, released by its exit, then free."""
    lock = ForkSafeLock()
    pid, code = -1, 1
    try:
        with lock:
            pid = os.fork()
            if pid == 0:  # the child: still inside the `with`, the lock held by this (its only) thread
                code = 0 if lock.locked() and not lock.acquire(blocking=False) else 2
    except BaseException:
        if pid == 0:  # the `with` exit raised in the child (before the fix: "release unlocked lock")
            os._exit(4)
        raise
    if pid == 0:
        try:
            code = code or (0 if not lock.locked() and lock.acquire(timeout=5) else 3)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert not lock.locked()
