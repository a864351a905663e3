"""Writing off the call path: bounded queues of pending items, written in batches by one thread.

A call hands over what its record needs as references (:meth:`BatchWriter.add`: a ``deque``
append, atomic, never blocking the event loop). One thread per process (``nanohubmcp-provenance``,
started at the first item) wakes at the first item, gathers more until a writer holds
:data:`BATCH` items or :data:`DELAY_SECONDS` have passed, and writes what every writer holds in
batches of at most :data:`BATCH`, letting other threads run between batches. A round ended by a
full batch writes whole batches only: what came in meanwhile waits for the next round (a full
batch, or the delay) instead of making a batch of its own. The call's side is
an append, a count and a look at a flag: an event is set only by the first item of a round and
the item that fills a batch. A reader that must see every item added so far calls
:meth:`BatchWriter.drain`: it waits for the batch being written and writes the rest itself, in
the order added (one drain at a time). When :data:`MAX_PENDING` items are waiting (the disk
cannot keep up), an item is dropped rather than the caller blocked: :attr:`BatchWriter.dropped`
counts them and a warning says so (at most once a minute).

Before the interpreter exits, the thread stops and everything pending is written.

On Linux the thread runs :data:`NICENESS` below the priority of the thread that started it: on a core the
event loop shares with it, a batch (~4-5 ms of CPU per 256 records) is spread over the loop's waits
instead of taking a fair half of the core for milliseconds while every request in flight waits (the c=64
tail in bench/findings.md).
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ..wire.fork_safe import after_fork_in_child

log = logging.getLogger("nanohubmcp.provenance")

T = TypeVar("T")

BATCH = 256
"""Items written in one batch (one transaction) at most. Between batches the writer lets other
threads run; ``write`` itself yields between the items it makes (the record store every
:data:`.record_writes.MAKE_AT_ONCE` records), so a call served meanwhile on the event loop (the inline
lane of quick tools) is not held up by a whole batch. A transaction of 256 rows costs a fifth
per row of one of 16 (bench/provenance.md)."""
DELAY_SECONDS = 1.0
"""How long the thread gathers items after the first one before writing them, at most: a batch
fixed cost (a statement, its commit; ~70k instructions) is then shared by more records when
calls are slow or few (0.2 s gathered ~5 records a batch under valgrind's instruction counter,
bench/provenance.md sixth pass). Reads, ``stop()`` and the process's exit write what is pending
at once; only a ``kill -9`` loses what waits."""
NICENESS = 5
"""How much the writing thread's nice value is raised (Linux; its own, by its thread id). At +5 it still
has a quarter of a core the loop keeps busy (the writer needs under a tenth of it at ~3,500 calls a
second: nothing dropped over 30 s of c=64 load); at +19 it starved, and records were dropped."""
MAX_PENDING = 20_000
"""Items waiting in one writer at most; one more is dropped (and counted), never waited for."""
WARN_EVERY_SECONDS = 60.0
THREAD_NAME = "nanohubmcp-provenance"


class _Thread:
    """The process's one writing thread and the writers it serves."""

    def __init__(self) -> None:
        self.writers: weakref.WeakSet[Any] = weakref.WeakSet()
        self.wake = threading.Event()
        self.armed = False
        """Whether :attr:`wake` is set or about to be (read on the call's path instead of
        ``Event.is_set()``, a Python call): set by an adder, cleared by the thread before it
        writes."""
        self.full = threading.Event()
        """Set when a writer holds :data:`BATCH` items: the gathering ends."""
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.registered = False
        self.closed = False

    def start(self) -> None:
        with self.lock:
            if self.thread is not None or self.closed:
                return  # after the exit's last write, what is added waits for a reader
            if not self.registered:
                atexit.register(self.close)  # before the interpreter tears down what a write needs
                self.registered = True
            thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)
            try:
                thread.start()
            except RuntimeError as exc:  # no new threads (the interpreter is finishing): readers still drain
                log.warning("cannot start the provenance writer: %s", exc)
                return
            self.thread = thread

    def _run(self) -> None:
        _lower_priority()
        while not self.stop.is_set():
            self.wake.wait()
            filled = self.full.wait(DELAY_SECONDS)  # gather a batch (cut short when one is full, and at exit)
            # this order: an item added once the flag is cleared sets the event again (the writes below
            # may take it already; the next round then finds nothing to write)
            self.wake.clear()
            self.full.clear()
            self.armed = False
            self.write_all(whole=filled and not self.stop.is_set())

    def write_all(self, *, whole: bool = False) -> None:
        """Write what every writer holds; ``whole``: only whole batches (the rest waits for the next round)."""
        for writer in list(self.writers):
            writer.drain(whole=whole)

    def rearm(self) -> None:
        """Start another round: items are waiting (what a round of whole batches left)."""
        self.armed = True
        self.wake.set()

    def close(self) -> None:
        """Stop the thread and write everything pending (at exit)."""
        self.closed = True
        self.stop.set()
        self.wake.set()
        self.full.set()
        thread = self.thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        self.write_all()

    def after_fork(self) -> None:
        """In a forked child: the parent's thread does not exist here."""
        self.thread = None
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.armed = False
        self.full = threading.Event()
        self.stop = threading.Event()
        for writer in list(self.writers):
            writer._drain_lock = threading.Lock()
            writer._pending.clear()  # the parent writes its own items


def _lower_priority() -> None:
    """Raise the calling thread's nice value by :data:`NICENESS` (Linux only: elsewhere a thread has no
    nice value of its own, and ``setpriority`` by a thread id would name a process)."""
    if not sys.platform.startswith("linux"):
        return
    thread = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, thread, min(19, os.getpriority(os.PRIO_PROCESS, thread) + NICENESS))
    except OSError:  # (a sandbox refusing it: the writer runs as before)
        log.debug("could not lower the provenance writer's priority", exc_info=True)


_THREAD = _Thread()
after_fork_in_child(_THREAD.after_fork)


class BatchWriter(Generic[T]):
    """A queue of items that ``write`` receives in batches, on the process's writing thread.

    Args:
        write: writes one batch (a list, oldest first); an exception is logged and the batch lost.
        name: names the writer in log messages.
        max_pending: the bound of the queue (:data:`MAX_PENDING`).
    """

    def __init__(self, write: Callable[[list[T]], None], *, name: str, max_pending: int = MAX_PENDING) -> None:
        self._write = write
        self._name = name
        self._max = max_pending
        self._pending: deque[T] = deque()
        self._drain_lock = threading.Lock()
        self._warned = float("-inf")
        self.dropped = 0
        """Items dropped because :data:`MAX_PENDING` were waiting."""
        _THREAD.writers.add(self)

    def add(self, item: T) -> bool:
        """Queue ``item`` (from any thread, never blocking); False when it was dropped."""
        pending = self._pending
        count = len(pending)
        if count >= self._max:
            self._drop()
            return False
        pending.append(item)
        thread = _THREAD
        if count == BATCH - 1:
            thread.full.set()
        if not thread.armed:
            thread.armed = True
            thread.wake.set()
            if thread.thread is None:
                thread.start()
        return True

    def drain(self, *, whole: bool = False) -> None:
        """Write every item added so far, now, on this thread (after the batch being written).

        ``whole`` (the writing thread's round ended by a full batch): write whole batches of
        :data:`BATCH` only; the rest waits for the next round. Under load the calls answered while a
        batch was being written made a small batch of their own, paying a batch's fixed cost (a
        statement of another size, a transaction) for a few records."""
        with self._drain_lock:
            pending = self._pending
            while len(pending) >= (BATCH if whole else 1):
                batch = [pending.popleft() for _ in range(min(len(pending), BATCH))]
                try:
                    self._write(batch)
                except Exception:
                    log.exception("could not write %d pending item(s) of %s", len(batch), self._name)
                if pending:
                    time.sleep(0)  # let the serving loop run between batches
            if whole and pending:
                _THREAD.rearm()

    def close(self) -> None:
        """Write what is pending (the writer takes items again afterwards)."""
        self.drain()

    def _drop(self) -> None:
        self.dropped += 1
        now = time.monotonic()
        if now - self._warned > WARN_EVERY_SECONDS:
            self._warned = now
            log.warning(
                "%s: %d item(s) waiting to be written; dropped %d so far (the disk does not keep up)",
                self._name,
                len(self._pending),
                self.dropped,
            )
