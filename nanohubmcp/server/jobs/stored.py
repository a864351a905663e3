"""The job store's records as one process holds them: the back end opened at its first use, purged, closed,
and the operator's reads of it.

:class:`StoredJobs` owns where the records are kept — the kind asked for (``"sqlite"`` or ``"memory"``), a
shared state URL, the server's name and state directory — and the one :class:`~.backend.JobBackend` made from
them (:func:`.stores.open_backend`). Opening it wires the back end's messages to the jobs of other processes
(:mod:`.elsewhere`) and, for a store that outlives the process, settles the unfinished jobs dead processes left
(each row handed to the job store's ``revive``) and drops the folders of jobs it does not hold (:mod:`.leftovers`).
It purges expired records, and lists the newest for the operator (:data:`.visibility.LISTED` fields only), a look
that opens no store where none exists yet.

It runs no job and decides nothing about who sees one: that is the job store's (:mod:`.service`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any

from ...state.errors import StateUnavailable
from ..wire.state_dir import resolve_state_dir
from . import DB_FILE
from .backend import JobBackend
from .runs import process_of
from .stores import open_backend
from .visibility import LISTED, operator_rows

if TYPE_CHECKING:
    from ...state.url import StateURL
    from .elsewhere import Elsewhere
    from .leftovers import Tidy
    from .record import Job
    from .runs import Runs

__all__ = ["StoredJobs"]

log = logging.getLogger("nanohubmcp.jobs")


class StoredJobs:
    """Where a job store's records live, opened on first use: building a server writes nothing.

    Args:
        kind: ``"sqlite"`` (kept across restarts) or ``"memory"``; becomes ``"memory"`` when the state
            directory could not be used (:func:`.stores.open_backend` warns).
        shared: a Redis state URL: the records live there (``kind`` "memory" wins).
        secret: the ``state_secret`` given, or None (the key of the principals' digests a Redis store holds).
        name / state_dir: the server's name and state directory (see :mod:`..wire.state_dir`).
        runs: this process's runner tokens; the back end claims its lock.
        elsewhere: told of the back end once open, and hears its messages of other processes' cancels,
            ends, changes and answers.
        tidy: the executors' leftover folders, dropped for the jobs the store does not hold.
        live: the jobs this process runs (read, never changed: a live job is not recovered).
        revive: settles a stored row of an unfinished job of a dead process (the job store's).
        max_jobs: the store's bound on records: the operator's look at runners reads at most these.
    """

    def __init__(self, *, kind: str, shared: StateURL | None, secret: str | bytes | None = None, name: str,
                 state_dir: str | os.PathLike[str] | None, runs: Runs, elsewhere: Elsewhere, tidy: Tidy,
                 live: Mapping[str, Job], revive: Callable[[dict[str, Any]], object], max_jobs: int) -> None:
        self.kind = kind
        self.shared = shared
        self._secret = secret
        self.name = name
        self.state_dir = state_dir
        self._runs = runs
        self._elsewhere = elsewhere
        self._tidy = tidy
        self._live = live
        self._revive = revive
        self._max_jobs = max_jobs
        self._backend: JobBackend | None = None

    @property
    def directory(self) -> str:
        """The state directory used (or that would be used)."""
        return resolve_state_dir(self.name, self.state_dir)

    @property
    def persistent(self) -> bool:
        """True when records outlive the process."""
        return self.kind != "memory"

    @property
    def opened(self) -> bool:
        """Whether the back end is open now."""
        return self._backend is not None

    @property
    def backend(self) -> JobBackend:
        """The back end, opened on first use; a store left by a dead process is recovered."""
        if self._backend is None:
            elsewhere = self._elsewhere
            self._backend = open_backend(self.kind, self.shared, self.name, self.directory, self._runs,
                                         elsewhere.cancelled, elsewhere.told, elsewhere.changed, elsewhere.answered,
                                         secret=self._secret)
            elsewhere.opened(self._backend)
            if self._backend.persistent:
                self.recover()
                self._tidy.orphaned(self.holds)
            else:
                self.kind = "memory"  # asked for, or the state directory could not be used
        return self._backend

    def recover(self) -> None:
        """Settle the unfinished jobs of dead processes (``revive``: taken back by their executor, or
        failed with :data:`.settle.SERVER_STOPPED`)."""
        for row in self.backend.unfinished():
            if row["id"] not in self._live:
                self._revive(row)

    def holds(self, job_id: str) -> bool:
        """Whether the store holds a record of ``job_id`` (True when it cannot tell); only its id is read."""
        try:
            return job_id in self._live or bool(self.backend.summaries([job_id], ("id",)))
        except (sqlite3.Error, StateUnavailable):
            return True

    def nothing_stored(self) -> bool:
        """True when no store file exists yet: a look must not create one."""
        return self._backend is None and self.persistent and not os.path.exists(os.path.join(self.directory, DB_FILE))

    def listing(self, limit: int, processes: Collection[str] | None) -> list[dict[str, Any]]:
        """The newest ``limit`` stored jobs for the operator (``JobStore.listing``), of ``processes`` only unless
        None, with the status and progress of those this process runs as they are now; nothing before a store
        exists."""
        if self.nothing_stored():
            return []
        ids = self.backend.newest(limit)
        if processes is not None:
            ids = [row["id"] for row in self._runners() if process_of(row.get("runner")) in processes][:limit]
        return operator_rows(self.backend.summaries(ids, LISTED), self._live)

    def count_elsewhere(self, processes: Collection[str]) -> int:
        """How many stored jobs were run by job stores other than ``processes``."""
        if self.nothing_stored():
            return 0
        return sum(1 for row in self._runners() if process_of(row.get("runner")) not in processes)

    def _runners(self) -> list[dict[str, Any]]:
        """The id and runner of every stored job, newest first (at most ``max_jobs``)."""
        return self.backend.summaries(self.backend.newest(self._max_jobs), ("id", "runner"))

    def purge(self, now: float | None = None) -> None:
        """Delete the records expired at ``now`` (default: the time now), if the back end is open, and their
        folders; an outage or an SQLite error is logged, never raised."""
        if self._backend is None:
            return
        try:
            purged = self._backend.purge(time.time() if now is None else now)
        except StateUnavailable:  # (the store's outage is logged once where it is seen)
            pass
        except sqlite3.Error as exc:
            log.warning("could not purge expired jobs: %s", exc)
        else:
            self._tidy.purged(purged)  # their folders (a Slurm job's logs)

    def close(self) -> None:
        """Close the back end; the next use opens it again."""
        backend, self._backend = self._backend, None
        if backend is not None:
            backend.close()
