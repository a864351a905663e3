"""The job store's side as the keeper of its running jobs (:class:`~.record.JobKeeper`): the updates a
running job makes to its record — its executor's reference, progress, status, notes, end — written by
:mod:`.writes` and told to the job's followers by :mod:`.elsewhere`.

:class:`JobKeeping` is the base of :class:`~.service.JobStore`, which hands it the two at its ``__init__``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from .elsewhere import Elsewhere
    from .record import Job
    from .writes import JobWrites

__all__ = ["JobKeeping"]


class JobKeeping:
    """The updates from running jobs, for which the job store is their keeper (``job.store``)."""

    def __init__(self, writes: JobWrites, elsewhere: Elsewhere) -> None:
        self._writes = writes
        self._elsewhere = elsewhere

    def set_executor_ref(self, job: Job, ref: str) -> None:
        """Record what ``job``'s executor needs to find it again after a restart, once it knows (any
        thread; :meth:`.writes.JobWrites.set_executor_ref`)."""
        self._writes.set_executor_ref(job, ref)

    def progress(self, job_id: str, progress: float, total: float | None, message: str | None) -> None:
        """Record a job's progress, best effort (any thread; :meth:`.writes.JobWrites.progress`)."""
        self._writes.progress(job_id, progress, total, message)
        self._elsewhere.changed(job_id)  # (its followers in this process; nothing while none follows)

    def changed(self, job: Job) -> None:
        """Store a running job's ``status`` and ``input_requests`` (``input_required`` while its task
        asks its client), unless its record holds an end, and tell its followers (:meth:`.service.JobStore.follow`) here
        and, through the store, elsewhere (:meth:`.writes.JobWrites.changed`)."""
        self._writes.changed(job)
        self._elsewhere.changed(job.id)

    def note(self, job: Job) -> None:
        """Store a job's ``status_message`` and task metadata as they are now (:meth:`.writes.JobWrites.note`)."""
        self._writes.note(job)

    def on_finish(self, callback: Callable[[Job], None]) -> None:
        """Call ``callback(job)`` when a job reaches its terminal state, before its end is stored
        (:meth:`.writes.JobWrites.on_finish`)."""
        self._writes.on_finish(callback)

    def finished(self, job: Job) -> None:
        """Store a job that reached its terminal state (called by :meth:`.record.Job.finish`); a result over
        ``max_result_bytes`` fails the job instead (:meth:`.writes.JobWrites.finished`)."""
        self._writes.finished(job)
        self._elsewhere.told(job.id)  # (its followers in this process read it once this call returns)
