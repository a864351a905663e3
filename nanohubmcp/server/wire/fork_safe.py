"""Module-level locks a forked child gets free: :class:`ForkSafeLock`, and :func:`after_fork_in_child` for the
rest of a module's state a child must not inherit.

A process forked (a job's process of the ``processes`` executor, a worker of ``--workers``) while another thread
held a module's lock would wait for it for ever: the thread that would free it is not in the child. Each module
re-made its locks in a ``register_at_fork`` handler of its own (six of them, found one by one: review r27 #6, r28
#7); a :class:`ForkSafeLock` is re-made, free, in every child, by one handler registered here, so the next
module-level lock is safe by being one.

(The Rappture compatibility package, ``sources/rappture/compat/Rappture``, keeps its own handler: a Rappture
program imports it from its ``PYTHONPATH``, perhaps in another Python where this package is not installed.)
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from types import TracebackType

__all__ = ["ForkSafeLock", "after_fork_in_child"]


def after_fork_in_child(handler: Callable[[], object]) -> None:
    """Call ``handler`` in the child of every fork of this process from now on (``os.register_at_fork``'s
    ``after_in_child``; nothing where a process cannot fork, Windows)."""
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=handler)


class ForkSafeLock:
    """A ``threading.Lock`` (``with``, :meth:`acquire`, :meth:`release`, :meth:`locked`) that a forked child has
    free when another thread of the parent held it then: its lock is re-made in the child. Held by the thread that
    forks (a fork inside ``with lock:``), it is re-made held: that thread, the child's only one, goes on to release
    it, as ``threading`` keeps the forking thread's own locks in the child. Made at a module's import (a few per
    process; each is dropped from the re-making list when no longer referenced)."""

    __slots__ = ("__weakref__", "_holder", "_lock")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holder: int | None = None  # the thread ident that acquired it (None: free, or let go of)
        _made.add(self)

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """As ``threading.Lock.acquire``."""
        taken = self._lock.acquire(blocking, timeout)
        if taken:
            self._holder = threading.get_ident()
        return taken

    def release(self) -> None:
        """As ``threading.Lock.release`` (raises ``RuntimeError`` when it is not held)."""
        holder, self._holder = self._holder, None
        try:
            self._lock.release()
        except RuntimeError:
            self._holder = holder
            raise

    def locked(self) -> bool:
        """Whether a thread holds it."""
        return self._lock.locked()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.release()

    def _renew(self) -> None:
        """In a forked child: free, unless the forking thread (the child's one thread) held it."""
        held_here = self._lock.locked() and self._holder == threading.get_ident()
        self._lock = threading.Lock()
        if held_here:
            self._lock.acquire()
        else:
            self._holder = None


_made: weakref.WeakSet[ForkSafeLock] = weakref.WeakSet()


def _forked() -> None:
    for lock in list(_made):
        lock._renew()


after_fork_in_child(_forked)
