"""What running jobs write into their records: an executor's reference, progress, notes, a task's status,
and the end.

Every write is best effort. A write the store cannot take is logged and never raised into the job
or its tool: a full disk or a Redis outage must not fail the work. A job's end is the exception to
"logged and dropped": it is kept and written again until the store answers (:mod:`.pending`).
Before a job's end is stored, the finish hooks run (the provenance recorder), and a result over
``max_job_result_bytes`` fails the job instead (:func:`.ends.cap_result`). Once the end is stored,
the files that served only to run the job are dropped (:mod:`.leftovers`).

The job store (``JobStore``) is each job's keeper and hands these writes here; which job's record
exists, and when it expires, is the store's.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...state.errors import StateUnavailable
from .ends import cap_result, store_end
from .pending import PendingEnds
from .record import Job, bounded_message

if TYPE_CHECKING:
    from .backend import JobBackend
    from .leftovers import Tidy

__all__ = ["JobWrites"]

log = logging.getLogger("nanohubmcp.jobs")


class JobWrites:
    """The writes that one job store's running jobs make to their records (module docstring).

    Args:
        backend: the store's back end, opened at the first call (``JobStore.backend``).
        live: the jobs this process runs, by id (the store's own map, only read here).
        process: the store's process token (:attr:`.runs.Runs.process`): the real end of a job of
            this process replaces the guess that another process stored (:func:`.ends.store_end`).
        max_result_bytes: the largest result kept, as JSON; a larger one fails its job.
        max_lost: at most this many jobs whose progress could not be stored are remembered (so each
            such loss is logged once).
        tidy: the executors' files of jobs kept outside the store (:class:`.leftovers.Tidy`).
    """

    def __init__(self, backend: Callable[[], JobBackend], live: Mapping[str, Job], *, process: str,
                 max_result_bytes: int, max_lost: int, tidy: Tidy) -> None:
        self._backend = backend
        self._live = live
        self._process = process
        self._max_result_bytes = max_result_bytes
        self._max_lost = max_lost
        self._tidy = tidy
        self._on_finish: list[Callable[[Job], None]] = []
        self._pending = PendingEnds(self.store_end)
        self._progress_lost: set[str] = set()  # jobs whose progress could not be stored (logged once)

    def write(self, job_id: str, fields: dict[str, Any]) -> None:
        """Update ``fields`` of the record of ``job_id``; a failure is logged, never raised."""
        try:
            self._backend().update(job_id, fields)
        except (sqlite3.Error, StateUnavailable) as exc:  # a full disk, Redis away: the server goes on
            log.warning("could not store job %s: %s", job_id, exc)

    def set_executor_ref(self, job: Job, ref: str) -> None:
        """Record what ``job``'s executor needs to find it again after a restart (a batch
        system's job id, a folder), once it knows (any thread)."""
        job.executor_ref = ref
        self.write(job.id, {"executor_ref": ref})

    def progress(self, job_id: str, progress: float, total: float | None, message: str | None) -> None:
        """Record a job's progress (any thread); a message is kept to :data:`.record.MAX_PROGRESS_MESSAGE`
        characters. A progress the store cannot take is dropped (logged once a job); the job runs on."""
        message = bounded_message(message)
        job = self._live.get(job_id)
        now = time.time()
        if job is not None:
            job.progress, job.progress_total, job.progress_message = progress, total, message
            job.updated = now
        try:
            self._backend().progress(job_id, progress, total, message, now)
        except (sqlite3.Error, StateUnavailable) as exc:  # best effort: never raised into the tool
            if job_id not in self._progress_lost and len(self._progress_lost) < self._max_lost:
                self._progress_lost.add(job_id)
                log.warning("could not store the progress of job %s (dropped; the job runs on): %s", job_id, exc)

    def note(self, job: Job) -> None:
        """Store a job's ``status_message`` and task metadata as they are now (``"queued"`` while it
        waits for a turn at its executor, so every process shows it; a cancelled Slurm job's last
        state)."""
        job.updated = time.time()
        self.write(job.id, {"status_message": job.status_message, "meta": job.task_meta(), "updated": job.updated})

    def changed(self, job: Job) -> None:
        """Store a running job's ``status`` and ``input_requests`` as they are now (a task that asks its
        client is ``input_required`` until answered) unless its record holds an end (a cancel stored
        by another process); a failure is logged, never raised."""
        job.updated = time.time()
        fields = {"status": job.status, "input_requests": job.input_requests, "updated": job.updated}
        try:
            self._backend().changed(job.id, fields)
        except (sqlite3.Error, StateUnavailable) as exc:  # the job runs on; this process answers from it
            log.warning("could not store the status of job %s: %s", job.id, exc)

    def on_finish(self, callback: Callable[[Job], None]) -> None:
        """Call ``callback(job)`` when a job reaches its terminal state, before its end is stored
        (the provenance recorder completes the job's record and names it in the result)."""
        self._on_finish.append(callback)

    def finished(self, job: Job) -> None:
        """Store a job that reached its terminal state (called by :meth:`Job.finish`); a result
        over ``max_result_bytes`` fails the job instead; an end the store cannot take yet is kept
        and written again (:mod:`.pending`)."""
        for callback in self._on_finish:
            try:
                callback(job)
            except Exception:
                log.exception("a finish hook failed for job %s", job.id)
        cap_result(job, self._max_result_bytes)
        self._progress_lost.discard(job.id)
        try:
            self.store_end(job)
        except StateUnavailable as exc:
            # Kept, never dropped: this process answers polls from ``job`` meanwhile (it stays in
            # the store's live jobs), and the end is written once the store takes it (:mod:`.pending`).
            # One line, no traceback: the store's outage or refusal of writes is said where it is seen.
            log.warning("could not store the end of job %s now (%s); kept and retried until the job store takes "
                        "it", job.id, exc)
            self._pending.keep(job)
        except sqlite3.Error as exc:  # a full disk must not take the server down
            log.warning("could not store job %s: %s", job.id, exc)

    def store_end(self, job: Job) -> None:
        """:func:`.ends.store_end` on the store's back end (any thread; raises StateUnavailable): the
        real end of a job of this process replaces the :data:`.settle.SERVER_STOPPED` guess another
        process stored while its runner looked dead."""
        store_end(self._backend(), job, self._process)
        self._tidy.stored(job)  # what served only to run it and take it back (a Slurm job's pickled call)
