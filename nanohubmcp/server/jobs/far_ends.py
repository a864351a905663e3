"""Waiting, on one process, for the end of a job another process runs (``tasks/result``, a 2026
``subscriptions/listen`` that names a task), and following a job's changes (that listen).

A job this process runs ends with its ``done`` event. A job that another process runs shares only the
job store with this one (several processes sharing a Redis or a state directory), so the store
tells this process when the job ends. With Redis, the waiting process marks the job as awaited in
the same step in which it reads the record (``RedisJobBackend.awaited``). When the process that
stores the job's end finds that mark, it names the job on the channel ``jobs:end``, and the wait
is woken (:meth:`FarEnds.told`).

Every :data:`LOOK_SECONDS` (:data:`TOLD_LOOK_SECONDS` when the store tells of ends) the wait reads
the record again. That read catches a notice lost while Redis was away, serves a store with no
channel (a shared SQLite file), and settles a job whose process died. Such a job is settled as
every read settles it: taken back by its executor or failed (:mod:`.settle`).

Following (:meth:`FarEnds.follow`) is the same wait, woken also by each change of the job's status
or progress: stored by the process running it, which names a marked job on the channel
``jobs:status`` (a job nobody follows costs no message), or made in this process (the job store
tells :meth:`FarEnds.told` itself). Each wake reads the job once, however many changes woke it, and
reads follow each other by :data:`FOLLOW_GAP_SECONDS` at least: a job reporting progress every
millisecond costs a follower five reads a second, and what it is told is the job as it is now,
never a backlog.

Bounds: at most :data:`MAX_TOLD` waits at once are woken by the channel; a wait beyond that only
reads the record every :data:`LOOK_SECONDS`. A wait ends when its request is cancelled: the client
cancelled it or went away, or its session ended.

Source: MCP 2025-11-25, Basic § Utilities § Tasks (``tasks/result`` blocks until the task reaches
a terminal status); tasks extension (SEP-2663) § Task Status Notifications.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from .record import Job

if TYPE_CHECKING:
    from ..wire.request import RequestContext

__all__ = ["FOLLOW_GAP_SECONDS", "LOOK_SECONDS", "MAX_TOLD", "TOLD_LOOK_SECONDS", "FarEnds"]

LOOK_SECONDS = 1.0
"""Seconds between two reads of a job's record while waiting for its end, when the store does not
tell of ends (a shared SQLite file). This is also the poll interval the server advises clients."""
TOLD_LOOK_SECONDS = 5.0
"""Seconds between two reads of a job's record when the store tells of ends (Redis): the wait is
woken sooner by the notice, and the read only catches a lost notice or a dead process."""
MAX_TOLD = 10_000
"""Waits the store's notices wake at most (keyed by job ids clients sent); the others read the record."""
FOLLOW_GAP_SECONDS = 0.2
"""Seconds at least between two reads of a followed job: the changes told meanwhile are read at once."""

Wake = tuple[asyncio.AbstractEventLoop, asyncio.Event, bool]
"""Where a wait is woken: its loop, its event, and whether it follows changes too (:meth:`FarEnds.follow`)."""
Read = Callable[[Job], "tuple[Job, bool]"]
"""Reads a job again from the store: the job now, and whether the wait for its end is over."""
Report = Callable[[Job], None]
"""Told the job as one read found it (:meth:`FarEnds.follow`)."""


class FarEnds:
    """The waits of one job store for ends stored by other processes, and its followers of jobs'
    changes (module docstring)."""

    def __init__(self, limit: int = MAX_TOLD) -> None:
        self._limit = limit
        self._lock = threading.Lock()  # told() runs on the store's watching thread
        self._waits: dict[str, list[Wake]] = {}
        self._count = 0

    def __len__(self) -> int:
        return self._count

    @contextlib.contextmanager
    def waiting(self, job_id: str, *, follows: bool = False) -> Iterator[asyncio.Event]:
        """An event set when the store tells that ``job_id`` ended (or that every wait should look
        again; with ``follows``, also when it changed), for the body of the ``with`` (on the running
        loop). Past :data:`MAX_TOLD` waits the event is set by nobody: that wait reads the record
        every :data:`LOOK_SECONDS`."""
        event = asyncio.Event()
        wake: Wake = (asyncio.get_running_loop(), event, follows)
        with self._lock:
            told = self._count < self._limit
            if told:
                self._waits.setdefault(job_id, []).append(wake)
                self._count += 1
        try:
            yield event
        finally:
            if told:
                with self._lock:
                    waits = self._waits.get(job_id, [])
                    waits.remove(wake)
                    self._count -= 1
                    if not waits:
                        self._waits.pop(job_id, None)

    def told(self, job_id: str | None) -> None:
        """The store says that another process stored the end of ``job_id``. ``None`` means that
        every wait should look again: the store's notices were lost while it was away. Safe from
        any thread; nothing but a look at a counter while nobody waits."""
        self._wake(job_id, changes_only=False)

    def changed(self, job_id: str | None) -> None:
        """``job_id``'s status or progress changed (told by the store, or made in this process): its
        followers read it (:meth:`follow`). ``None``: every follower reads again. Safe from any
        thread; nothing but a look at a counter while nobody waits."""
        self._wake(job_id, changes_only=True)

    def _wake(self, job_id: str | None, *, changes_only: bool) -> None:
        if not self._count:
            return
        with self._lock:
            if job_id is None:
                woken = [wake for waits in self._waits.values() for wake in waits]
            else:
                woken = list(self._waits.get(job_id, ()))
        for loop, event, follows in woken:
            if changes_only and not follows:
                continue
            with contextlib.suppress(RuntimeError):  # its loop closed: the wait is gone with it
                loop.call_soon_threadsafe(event.set)

    async def wait(self, job: Job, read: Read, *, look: float, request: RequestContext | None) -> Job:
        """Wait for the end of ``job``, run by another process: ``read(job)`` when the store tells
        that it ended and every ``look`` seconds, until it says the wait is over; the job it read
        last. Returns early, with the job as last read, once ``request`` is cancelled."""
        with self.waiting(job.id) as woken:
            if request is not None:
                request.on_cancel(woken.set)
            while request is None or not request.cancelled.is_set():
                woken.clear()  # (before the read: a notice that comes after it wakes the wait)
                job, over = read(job)
                if over:
                    break
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(woken.wait(), look)
        return job

    async def follow(
        self, job: Job, read: Read, report: Report, *, look: float, request: RequestContext | None
    ) -> None:
        """Follow ``job``: ``report(job)`` with each read, ``read(job)`` when the store tells of a
        change (or of the end) and every ``look`` seconds, reads :data:`FOLLOW_GAP_SECONDS` apart
        at least, until a read says the job ended (that read is reported too) or ``request`` is
        cancelled."""
        loop = asyncio.get_running_loop()
        with self.waiting(job.id, follows=True) as woken:
            if request is not None:
                request.on_cancel(woken.set)
            while request is None or not request.cancelled.is_set():
                woken.clear()  # (before the read: a change that comes after it wakes the follower)
                last = loop.time()
                job, over = read(job)
                report(job)
                if over:
                    return
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(woken.wait(), look)
                pause = last + FOLLOW_GAP_SECONDS - loop.time()
                if pause > 0:  # the changes told until then are read together
                    await asyncio.sleep(pause)
