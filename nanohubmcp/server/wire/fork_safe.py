"""Module-level locks a forked child gets free: :class:`ForkSafeLock`, and :func:`after_fork_in_child` for the
rest of a module's state a child must not inherit; :class:`ForkFence`, a section no fork happens inside.

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
import time
import weakref
from collections.abc import Callable
from types import TracebackType

__all__ = ["ForkFence", "ForkSafeLock", "after_fork_in_child"]


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


FENCE_WAIT_SECONDS = 30.0
"""The longest a fork waits for a :class:`ForkFence`'s sections to end (they last milliseconds: a process
started); past it, it forks all the same."""


class ForkFence:
    """A section no fork of this process happens inside (``with fence:``; several threads may be inside at once):
    a fork (``os.fork``, and so ``multiprocessing``'s ``fork`` method, a ``--workers`` worker, a ``processes``
    job) from another thread waits, in an ``os.register_at_fork`` ``before`` hook, until no thread is inside (at
    most :data:`FENCE_WAIT_SECONDS`), and a thread entering waits for a fork under way to end.

    For the pipes of a child process being started (``subprocess.Popen``'s own, made inside it): a process forked
    while their ends are open here keeps them, and the child then waits for an end of its input, or this process
    for an end of the child's output (or of ``Popen``'s exec-status pipe), for as long as the forked process
    lives. Not held: a fork by a thread inside the section itself (only an audit hook could: it would wait for
    itself), nor a fork made in C without Python's fork hooks. A section must not wait for another thread's
    fork. Made at a module's import (its hooks keep it for the process's life)."""

    __slots__ = ("_changed", "_forking", "_held", "_inside")

    def __init__(self) -> None:
        self._changed = threading.Condition(threading.Lock())
        self._inside: dict[int, int] = {}  # thread ident -> how deep in the section (nested ``with``)
        self._forking: set[int] = set()  # the threads forking (past the ``before`` hook, before ``after``)
        self._held = 0  # forks waiting in the ``before`` hook for the section to end
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(before=self._before_fork, after_in_parent=self._after_fork_in_parent,
                                after_in_child=self._after_fork_in_child)

    def __enter__(self) -> None:
        me = threading.get_ident()
        with self._changed:
            if me not in self._inside:
                while self._forking or self._held:  # a fork held by the sections now is let through first
                    self._changed.wait()
            self._inside[me] = self._inside.get(me, 0) + 1

    def __exit__(self, *exc_info: object) -> None:
        me = threading.get_ident()
        with self._changed:
            depth = self._inside.pop(me, 1) - 1
            if depth:
                self._inside[me] = depth
            else:
                self._changed.notify_all()

    def held(self) -> int:
        """How many forks wait for the section to end now."""
        return self._held

    def _before_fork(self) -> None:
        me = threading.get_ident()
        deadline = time.monotonic() + FENCE_WAIT_SECONDS
        with self._changed:
            if self._inside and me not in self._inside:
                self._held += 1
                try:
                    while self._inside and time.monotonic() < deadline:
                        self._changed.wait(deadline - time.monotonic())
                finally:
                    self._held -= 1
            self._forking.add(me)  # (a section entering now waits for this fork's end)

    def _after_fork_in_parent(self) -> None:
        with self._changed:
            self._forking.discard(threading.get_ident())
            self._changed.notify_all()

    def _after_fork_in_child(self) -> None:
        """The child's one thread: no fork under way; in the section only if it forked from inside it."""
        me = threading.get_ident()
        self._changed = threading.Condition(threading.Lock())
        self._forking = set()
        self._held = 0
        self._inside = {me: self._inside[me]} if me in self._inside else {}
