"""The jobs other processes run, as one process sees them: cancels and ends that cross processes
through the shared job store.

Several processes may share one job store (``--workers N``, processes sharing a Redis or a state
directory). A job runs in the process that started it, and any of them may be asked about it. This
module holds what one process does about the jobs that another process runs, and what it does
about the cancels that others store for its own jobs:

- A cancel of a job that another process runs is stored in the job's record
  (:func:`.ends.store_cancel`), where it is final.
- The running process hears of such a cancel and cancels the job where it runs. A Redis store
  tells it at once (the back end's ``on_cancel``). With a SQLite file, the process reads the
  records of its running jobs instead (:mod:`.cancel_look`). Until it hears, a question about the
  job there reads its record's status first (:meth:`Elsewhere.look_for_cancel`), so no process
  answers ``working`` once one answered ``cancelled``.
- A wait for the end of a job that another process runs reads the job's record again when the
  store tells that the job ended, and every few seconds in any case (:mod:`.far_ends`). Each such
  read settles a job whose process died, as every read does (:mod:`.settle`).
- A follower of a job (a 2026 listen naming a task) reads it again at each change: of a job this
  process runs, as the job store tells (:meth:`Elsewhere.changed`, :meth:`Elsewhere.told`); of one
  another process runs, when the store tells that that process stored a change or the end.
- Answers to the input requests of a task another process runs (a 2026 ``tasks/update`` received
  here) are kept in the store for that process, which the store tells (:meth:`Elsewhere.answer`);
  those that other processes kept for a task of this one are handed to its waiting function
  (:meth:`Elsewhere.answered`).

The jobs this process runs are the job store's (``JobStore``); this module only reads their map.

Source: MCP 2025-11-25, Basic § Utilities § Tasks (``tasks/result``, Task Cancellation); tasks
extension (SEP-2663) § Task Status Notifications.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...errors import NanohubMCPError, ServerBusy
from ...state.errors import StateUnavailable
from .cancel_look import CancelLook
from .ends import store_cancel, stored_cancels
from .far_ends import LOOK_SECONDS, TOLD_LOOK_SECONDS, FarEnds, Report
from .record import TERMINAL, Job
from .sqlite_store import SQLiteBackend
from .visibility import unknown_job

if TYPE_CHECKING:
    from ..wire.request import RequestContext
    from .backend import JobBackend

__all__ = ["Elsewhere"]

log = logging.getLogger("nanohubmcp.jobs")


class Elsewhere:
    """What one job store does about the jobs that other processes sharing its back end run.

    Args:
        backend: the store's back end, opened at the first call (``JobStore.backend``).
        live: the jobs this process runs, by id (the store's own map, only read here).
        revive: a record as a job, settled if its run ended (``JobStore``'s :func:`.settle.revive`).
    """

    def __init__(self, backend: Callable[[], JobBackend], live: Mapping[str, Job],
                 revive: Callable[[dict[str, Any]], Job]) -> None:
        self._backend = backend
        self._live = live
        self._revive = revive
        self._loop: asyncio.AbstractEventLoop | None = None  # where a cancel stored elsewhere is acted on
        self._cancel_look: CancelLook | None = None  # a SQLite file shared with other processes (cancel_look)
        self._far_ends = FarEnds()  # waits for the ends of jobs other processes run (ended)

    def opened(self, backend: JobBackend) -> None:
        """The store's back end is open. A SQLite file has no channel that tells this process of a
        cancel, so this process looks for cancels itself (:mod:`.cancel_look`)."""
        if isinstance(backend, SQLiteBackend):
            self._cancel_look = CancelLook(backend.cancelled, self._live)

    def job_started(self) -> None:
        """A job of this process started. If it started on a running loop, note that loop: a cancel
        that another process stores is acted on there. Start looking for such cancels when no channel
        tells of them."""
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()
            if self._cancel_look is not None:
                self._cancel_look.start(self._loop)

    def cancel(self, job: Job, reason: str) -> Job:
        """Cancel ``job``, which another process runs (or no process does), by storing the cancel in
        its record. Returns the job as it is now: ``cancelled``, or the end it reached first."""
        if job.status in TERMINAL:
            return job
        return store_cancel(self._backend(), job, reason)

    def look_for_cancel(self, job: Job) -> Job:
        """``job``, running in this process and asked about, with a cancel another process stored
        for it taken in first. The store tells this process of such a cancel (:meth:`cancelled`), but
        that word may still be on its way (Redis's channel) or the next look not come round (a SQLite
        file): without this read a ``tasks/get`` here could answer ``working`` after another process
        answered ``cancelled``, which the task then must remain. One read of the status fields
        (:func:`.ends.stored_cancels`); a store that cannot be read leaves ``job`` as it is here. Call
        on the serving loop (the job is cancelled as a local cancel does: :meth:`Job.cancel`)."""
        try:
            reasons = stored_cancels(self._backend(), [job.id])
        except (sqlite3.Error, StateUnavailable) as exc:
            log.debug("could not look for a stored cancel of job %s: %s", job.id, exc)
            return job
        if job.id in reasons and job.status not in TERMINAL:
            job.cancel(reasons[job.id])
        return job

    def cancelled(self, job_id: str | None) -> None:
        """The store says that another process cancelled ``job_id``. ``None`` means look at every live
        job: those are the cancels sent while this process was not listening. Stop each such job if
        it runs here. Called on the back end's watching thread; the job is cancelled on the serving
        loop."""
        jobs = list(self._live.values()) if job_id is None else [self._live.get(job_id)]
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        running = [job for job in jobs if job is not None and job.status not in TERMINAL]
        reasons = stored_cancels(self._backend(), [job.id for job in running])
        for job in running:
            if job.id in reasons:
                loop.call_soon_threadsafe(job.cancel, reasons[job.id])

    def answer(self, job: Job, answers: dict[str, Any]) -> None:
        """Hand ``answers`` (checked answers to the input requests of ``job``, a task another process
        runs) to the process running it: kept in the store, which tells that process.

        Raises:
            ServerBusy: the store tells no process (a SQLite file): nothing carries the answers; the
                client should send them again (503), to reach the task's process.
            StateUnavailable: Redis cannot be reached (503).
        """
        if not answers:
            return
        if not self._backend().tells_ends:
            raise ServerBusy("this task runs in another process of the server, and its processes share no Redis "
                             "to hand the answer over: send the tasks/update again (the process running the task "
                             "delivers it)", retry_after=1)
        self._backend().answer(job.id, answers)

    def answered(self, job_id: str | None) -> None:
        """The store says another process kept answers for ``job_id`` (``None``: look at every live
        task whose function waits for answers): take them and hand them to the function
        (``Job.answers_to``) on the serving loop. Called on the back end's watching thread."""
        jobs = list(self._live.values()) if job_id is None else [self._live.get(job_id)]
        loop = self._loop
        for job in jobs:
            if job is None or job.answers_to is None or loop is None or loop.is_closed():
                continue
            try:
                found = self._backend().take_answers(job.id)
            except StateUnavailable:  # taken when the store answers again (it tells every task then)
                continue
            for answers in found:
                loop.call_soon_threadsafe(_deliver, job, answers)

    def told(self, job_id: str | None) -> None:
        """The store says that another process stored the end of ``job_id`` (``None``: every wait
        should look again). Wakes the waits for it (:meth:`.far_ends.FarEnds.told`); safe from any thread."""
        self._far_ends.told(job_id)

    def changed(self, job_id: str | None) -> None:
        """``job_id``'s status or progress changed, stored by another process (told by the store) or by
        this one (``None``: every follower should look again). Wakes its followers
        (:meth:`.far_ends.FarEnds.changed`); safe from any thread, nothing while none follows."""
        self._far_ends.changed(job_id)

    async def follow(self, job: Job, report: Report, request: RequestContext | None) -> None:
        """Call ``report(job)`` with ``job`` as it is now at each change, until it ended or ``request``
        is cancelled (:meth:`.far_ends.FarEnds.follow`): a job this process runs as it is here, one
        another process runs as the store holds it (read with the mark that this process follows it).

        Raises:
            UnknownComponent: the job's record is gone from the store meanwhile.
        """
        look = TOLD_LOOK_SECONDS if self._backend().tells_ends else LOOK_SECONDS
        await self._far_ends.follow(job, self._as_now, report, look=look, request=request)

    def _as_now(self, job: Job) -> tuple[Job, bool]:
        """``job`` as it is now (this process's own, else as the store holds it: :meth:`_read_again`),
        and whether it ended."""
        live = self._live.get(job.id)
        if live is None:
            job = self._read_again(job, follow=True)[0]
            live = self._live.get(job.id) or job  # (taken back by this process: its own from now on)
        return live, live.status in TERMINAL

    async def ended(self, job: Job, request: RequestContext | None) -> Job:
        """Wait for ``job``, which another process runs, to end. Returns the job as last read from
        the store (:mod:`.far_ends`).

        The wait is over when the job ended, when this process took it back (it then ends with its
        ``done`` event), or when ``request`` is cancelled (the job is then returned unended).

        Raises:
            UnknownComponent: the job's record is gone from the store meanwhile.
        """
        look = TOLD_LOOK_SECONDS if self._backend().tells_ends else LOOK_SECONDS
        return await self._far_ends.wait(job, self._read_again, look=look, request=request)

    def _read_again(self, job: Job, *, follow: bool = False) -> tuple[Job, bool]:
        """``job`` as the store holds it now, settled as every read settles it, and whether a wait
        for its end is over here: it ended, or this process took it back (it ends with its ``done``
        event). ``job`` as it was when the store cannot be read (read again at the next look).

        Raises:
            UnknownComponent: the job's record is gone from the store.
        """
        try:
            row = self._backend().awaited(job.id, follow=follow)
        except (sqlite3.Error, StateUnavailable) as exc:
            log.debug("could not read job %s while waiting for its end: %s", job.id, exc)
            return job, False
        if row is None:
            raise unknown_job(job.id)
        fresh = self._revive(row)
        if fresh.principal is None and fresh.principal_digest is not None:
            fresh.principal = job.principal  # (the subject whose digest matched it: JobStore.get; none: still none)
        return fresh, fresh.status in TERMINAL or self._live.get(fresh.id) is fresh


def _deliver(job: Job, answers: dict[str, Any]) -> None:
    """Hand answers another process received to ``job``'s waiting function (on the serving loop)."""
    if job.answers_to is None:
        return
    try:
        job.answers_to(answers)
    except NanohubMCPError as exc:  # (checked where received: the requests changed meanwhile)
        log.warning("answers to task %s dropped: %s", job.id, exc)
