"""How long a keep waits for the results folder's lock, and the keep put off from the event loop.

The processes of a server sharing the state directory (``--workers N``) keep results holding the results
folder's lock (:class:`.folder.FolderLock`). An event loop never waits for it: every other call and
``/healthz`` would stop answering while a peer held it. Off the loop a keep waits up to
``lock_wait_seconds`` (:data:`LOCK_WAIT_SECONDS` by default, :func:`lock_wait`). A result whose lock is not
had in time is kept in this process's memory (logged), which the other processes cannot read.

A result shaped on the loop (a plain dict or list) would then land in memory whenever two keeps meet, which
with ``--workers`` is ordinary. So a keep made on the loop with a list to put work off on
(:func:`file_now_or_later`) tries the lock once, without waiting or logging, and, it being held, puts off the
rest: the call answers from the worker pool once what was put off ran there, waiting for the lock as any keep
off the loop does (:meth:`.sink.ResultSink.finish_later`); memory only when a peer holds it that whole wait.
What the keep writes is :mod:`.store`'s, the index it adds to :mod:`.index`'s.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Final

__all__ = ["LOCK_WAIT_SECONDS", "Finish", "file_now_or_later", "lock_wait", "on_loop"]

LOCK_WAIT_SECONDS: Final = 10.0
"""How long a keep off the event loop waits for the results folder's lock another process holds, by default
(:attr:`.store.ResultStore.lock_wait_seconds`); on the event loop it does not wait."""

Finish = Callable[[], object]
"""A keep put off from the event loop: call it off the loop (it may wait for the folder's lock)."""


def on_loop() -> bool:
    """Whether this thread runs an event loop (which must never wait for the folder's lock)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # (the public API's answer for "none": a keep off the loop is rare enough to pay it)
        return False
    return True


def lock_wait(seconds: float) -> float:
    """How long a keep made in this thread waits for the folder's lock: ``seconds``, or 0 on an event loop."""
    return 0.0 if on_loop() else seconds


def file_now_or_later(file: Callable[[bool], bool], later: list[Finish] | None) -> None:
    """Run a keep, or put off its wait for the folder's lock.

    ``file(last)`` adds the result holding the folder's lock, waiting for it up to :func:`lock_wait`; when
    it is not had in time it keeps the result in memory if ``last``, else does nothing and returns False.
    On an event loop with a ``later`` list, ``file`` is tried once not ``last`` and, the lock held, the rest
    (``file(True)``) is appended to ``later``; anywhere else ``file(True)`` runs at once.
    """
    if later is not None and on_loop():
        if not file(False):  # (the one non-blocking try, on the loop)
            later.append(functools.partial(file, True))
    else:
        file(True)
