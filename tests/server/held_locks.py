"""A lock held by another thread of this process, for the tests of what a fork leaves a child of a lock held at
the fork (real forks: the child's answer is its exit status)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def held_by_another_thread(lock: Any) -> Iterator[None]:
    """Inside, ``lock`` (anything ``with`` takes) is held by a thread of its own, entered once that thread holds it;
    on leaving the thread lets go of it and ends (30 s at most for each)."""
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with lock:
            held.set()
            release.wait(30)

    thread = threading.Thread(target=holder, daemon=True)
    thread.start()
    assert held.wait(30)
    try:
        yield
    finally:
        release.set()
        thread.join(30)
