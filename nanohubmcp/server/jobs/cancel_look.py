"""Cancels that other processes sharing a SQLite state directory stored, noticed where the job runs.

A cancel stored by another process is final (the store keeps a job's first end), but the process
running the job has to hear of it to stop the work. Redis tells it at once (a channel:
``RedisJobBackend.watch``); a SQLite file has none, so while a process runs jobs it reads,
every :data:`LOOK_SECONDS`, which of them a record shows cancelled — one read of their ids, on the
serving loop, only while it runs any — and cancels those as a local cancel does
(:meth:`~nanohubmcp.server.jobs.record.Job.cancel`: ``ctx.is_cancelled()`` turns true, the job's task
is cancelled, its executor stops the work: a child process ended, ``scancel``...).

Source: MCP 2025-11-25, Basic § Utilities § Tasks § Task Cancellation.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Collection, Mapping

from .record import TERMINAL, Job

log = logging.getLogger("nanohubmcp.jobs")

LOOK_SECONDS = 1.0
"""Seconds between two looks for cancels stored elsewhere (the poll interval advised to clients)."""

Read = Callable[[Collection[str]], Mapping[str, "str | None"]]
"""Of some job ids, those whose record holds a cancel, with its message (``SQLiteBackend.cancelled``)."""


class CancelLook:
    """Looks for cancels of ``live`` jobs (this process's, by id) with ``read``, on a loop."""

    def __init__(self, read: Read, live: Mapping[str, Job]) -> None:
        self._read = read
        self._live = live
        self._next: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Look in a while on ``loop`` (a job started there), unless a look is due already."""
        if self._next is not None and self._loop is loop and not loop.is_closed():
            return
        self._loop = loop
        self._next = loop.call_later(LOOK_SECONDS, self._look)

    def _look(self) -> None:
        self._next = None
        running = [job for job in list(self._live.values()) if job.status not in TERMINAL]  # (list: one step)
        if not running:
            return  # started again with the next job
        try:
            cancelled = self._read([job.id for job in running])
        except sqlite3.Error as exc:  # a busy or broken file: look again later
            log.debug("could not look for cancels of running jobs: %s", exc)
            cancelled = {}
        for job in running:
            if job.id in cancelled and job.status not in TERMINAL:
                job.cancel(cancelled[job.id] or "cancelled")
        if self._loop is not None and not self._loop.is_closed():
            self.start(self._loop)
