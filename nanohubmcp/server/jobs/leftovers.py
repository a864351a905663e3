"""What a job leaves outside its record, and when the job store has it dropped.

Some executors keep files of a job beside the store (a batch job's folder: ``<state
dir>/slurm-jobs/<job id>/``, with the pickled call — a ``Secret`` argument's value in it — and
its pickled result). The job store tells them (:class:`Leftovers`, the executors' side is
:mod:`..executors.job_folders`) when each may go: once a job's end is stored, what served only to
run it and to take it back after a restart (:meth:`Leftovers.stored`); once its record expired,
the rest (:meth:`Leftovers.purged`); when the store opens, whatever belongs to no job it holds
(:meth:`Leftovers.orphaned`: jobs whose records expired while no server ran). A failure to
remove a file is logged and never reaches the job or the caller.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .record import Job

__all__ = ["Leftovers", "Tidy"]

log = logging.getLogger("nanohubmcp.jobs")


class Leftovers(Protocol):
    """The executors' files of jobs kept outside the store (see the module docstring)."""

    def stored(self, job: Job) -> None:
        """``job``'s end is in the store: drop what it needed to run and to be taken back (its inputs,
        its result as the executor read it)."""
        ...

    def purged(self, job_ids: Collection[str]) -> None:
        """The records of ``job_ids`` expired: drop everything kept of them."""
        ...

    def orphaned(self, known: Callable[[str], bool]) -> None:
        """Drop what is kept of every job for which ``known(job_id)`` is False (the store holds no
        record of it)."""
        ...


class Tidy:
    """The job store's calls of its :class:`Leftovers` hook (``hook()`` makes it; None: nothing kept
    outside the store): never raising into the store."""

    def __init__(self, hook: Callable[[], Leftovers] | None) -> None:
        self._hook = hook

    def stored(self, job: Job) -> None:
        if self._hook is not None and job.executor_ref is not None:
            self._run(lambda kept: kept.stored(job), f"the files of job {job.id}")

    def purged(self, job_ids: Collection[str]) -> None:
        if self._hook is not None and job_ids:
            self._run(lambda kept: kept.purged(job_ids), "the files of expired jobs")

    def orphaned(self, known: Callable[[str], bool]) -> None:
        """:meth:`Leftovers.orphaned`, in a thread of its own (a look at every job folder)."""
        if self._hook is not None:
            threading.Thread(
                target=self._run,
                args=(lambda kept: kept.orphaned(known), "job folders of no job"),
                name="nanohubmcp-job-leftovers",
                daemon=True,
            ).start()

    def _run(self, action: Callable[[Leftovers], None], what: str) -> None:
        try:
            if self._hook is not None:
                action(self._hook())
        except Exception as exc:  # a file system error, an unreadable folder: the store goes on
            log.warning("could not remove %s: %s", what, exc)
