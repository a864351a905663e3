"""A ``ForkFence`` section: a fork from another thread waits for it to end (review r32 finding 3's LOW: a fork while
the distributions table's child was being started kept that child's pipe ends), and a fork from inside the section
itself is let through (it would wait for itself). Real forks; the child's answer is its exit status."""

from __future__ import annotations

import os
import threading
import time

import pytest
from held_locks import held_by_another_thread

from nanohubmcp.server.wire.fork_safe import ForkFence

pytestmark = [pytest.mark.skipif(not hasattr(os, "register_at_fork"), reason="a fork"), pytest.mark.timeout(60)]


def _until(condition: object, within: float = 20.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.005)
    return False


def _exit_code(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def test_a_fork_from_another_thread_waits_until_the_section_ends() -> None:
    fence = ForkFence()
    forked: list[int] = []

    def fork() -> None:
        pid = os.fork()
        if pid == 0:
            os._exit(0 if not fence.held() else 3)
        forked.append(pid)

    with held_by_another_thread(fence):
        forker = threading.Thread(target=fork, daemon=True)
        forker.start()
        assert _until(lambda: fence.held() == 1), "the fork did not reach the fence"
        assert not forked, "the fork went through while a thread was in the section"
    assert _until(lambda: bool(forked)), "the fork never went through once the section ended"
    forker.join(20)
    assert fence.held() == 0
    assert _exit_code(forked[0]) == 0


def test_a_fork_from_inside_the_section_goes_through_and_leaves_it_cleanly_in_the_child() -> None:
    fence = ForkFence()
    pid, code = -1, 1
    with fence:
        pid = os.fork()
        if pid == 0:
            code = 0
    if pid == 0:  # the child, out of the section: a fork from it is not held
        try:
            inner = os.fork()
            if inner == 0:
                os._exit(0)
            code = code or _exit_code(inner)
        finally:
            os._exit(code)
    assert _exit_code(pid) == 0
    with fence:  # (the parent's section is usable again)
        pass
