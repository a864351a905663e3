"""Each owner's share of the provenance records: an owner (a principal, else a session, else nobody: see
:func:`~nanohubmcp.server.results.owners.owner_of`) keeps at most ``per_owner`` records, its oldest dropped
first, so one caller's calls never push another's records out; the store's bound of records in all
(``max_records``) stays, the last resort.

The records written are counted per owner in memory, a batch at a time (no statement per call): once an
owner's count since its last check reaches a tenth of its share (:data:`CHECKS_PER_SHARE`), its oldest past
the share are deleted (:meth:`~.record_backend.RecordBackend.trim_owner`: one statement over the
``(owner, seq)`` index). An owner may so hold up to a tenth more than its share between two checks (per
process writing its records).
"""

from __future__ import annotations

import logging
import sqlite3
from collections import Counter
from collections.abc import Iterable

from .record_backend import RecordBackend

__all__ = ["CHECKS_PER_SHARE", "OwnerShares", "share_of"]

log = logging.getLogger("nanohubmcp.provenance")

CHECKS_PER_SHARE = 10
"""An owner's records are checked against its share each time it wrote this fraction of it (a tenth)."""
MAX_TALLIED = 4096
"""Owners counted at once at most: past it every counted owner is checked and the counts start again."""
RECORDS_PER_JOB = 10
"""Records kept per job the job store keeps: ``max_records`` is ``max_jobs`` times it, an owner's share
``max_jobs_per_owner`` times it (10,000 of 100,000 by default)."""


def share_of(max_jobs_per_owner: int, max_records: int) -> int:
    """The records one owner keeps: :data:`RECORDS_PER_JOB` per job it may keep, at most ``max_records``."""
    return max(1, min(max_jobs_per_owner * RECORDS_PER_JOB, max_records))


class OwnerShares:
    """Counts the records written per owner and trims an owner past its share.

    Args:
        per_owner: the records one owner keeps at most (its oldest go first).
    """

    def __init__(self, per_owner: int) -> None:
        self.per_owner = per_owner
        self.step = max(1, per_owner // CHECKS_PER_SHARE)
        self._written: Counter[str | None] = Counter()

    def wrote(self, backend: RecordBackend, owners: Iterable[str | None]) -> int:
        """Count the records just written (their ``owners``: one per record) and trim each owner whose
        count reached a tenth of its share since it was last checked; how many records went. A failing
        file is logged, never raised (the owner is checked again at its next records)."""
        written = self._written
        written.update(owners)
        if len(written) > MAX_TALLIED:
            due = list(written)
        else:
            step = self.step
            due = [owner for owner, count in written.items() if count >= step]
        gone = 0
        for owner in due:
            try:
                gone += backend.trim_owner(owner, self.per_owner)
            except sqlite3.Error as exc:
                log.warning("could not drop the oldest provenance records past an owner's share: %s", exc)
                return gone
            del written[owner]
        return gone
