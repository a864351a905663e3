"""Job ends the job store could not take yet (the shared Redis unreachable, or refusing writes, for a while).

A job's end (status and result) is never dropped for an outage: it stays in the process that
holds the job (which answers polls from it meanwhile) and is written again, with backoff
(:data:`FIRST_DELAY` doubling up to :data:`MAX_DELAY` seconds), until the store answers or the
job's ``ttl`` has passed (its record would have expired by then anyway). One daemon thread per
job store, started when an end is first kept and ended when none is left.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from ...state.errors import StateUnavailable
from .record import Job

log = logging.getLogger("nanohubmcp.jobs")

FIRST_DELAY = 0.25
"""Seconds before the first retry of a kept end."""
MAX_DELAY = 2.0
"""The longest wait between two retries: an end is stored within this long of the store's return."""


class PendingEnds:
    """The ends of jobs kept for ``write`` (``write(job)`` stores ``job``'s end, raising
    :class:`StateUnavailable` while the store cannot be reached)."""

    def __init__(self, write: Callable[[Job], None]) -> None:
        self._write = write
        self._lock = threading.Lock()
        self._jobs: dict[str, tuple[Job, float]] = {}
        self._thread: threading.Thread | None = None

    def __len__(self) -> int:
        return len(self._jobs)

    def keep(self, job: Job) -> None:
        """Keep ``job``'s end and write it again until the store takes it (any thread)."""
        with self._lock:
            self._jobs[job.id] = (job, time.monotonic() + max(job.ttl, MAX_DELAY))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="nanohubmcp-job-ends", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        delay = FIRST_DELAY
        while True:
            time.sleep(delay)
            with self._lock:
                jobs = list(self._jobs.values())
            for job, deadline in jobs:
                try:
                    self._write(job)
                except StateUnavailable:
                    if time.monotonic() < deadline:
                        continue
                    log.error("gave up storing the end of job %s: the job store stayed unreachable or refused it "
                              "for its ttl (%.0f s); only this process knew it", job.id, job.ttl)
                except Exception:
                    log.exception("could not store the end of job %s", job.id)
                else:
                    log.info("stored the end of job %s, kept while the job store could not take it", job.id)
                with self._lock:
                    self._jobs.pop(job.id, None)
            with self._lock:
                if not self._jobs:
                    self._thread = None
                    return
            delay = min(delay * 2, MAX_DELAY)
