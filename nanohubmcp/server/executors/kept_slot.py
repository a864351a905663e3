"""The place in a job's record where the link to its kept data is stored (its ``kept_data``), reserved before
the data is written, so that of several processes keeping one job's data at once only one writes a copy.

A keep (:class:`~.polled_data.PolledData`) that finds no live link in the record stores a *reservation* there
first: ``[{"pending": <token>, "since": <time.time() of the reserving process>, "host": <its host name>,
"pid": <its process id>, "start": <that process's start time>}]`` (:func:`.reserver.holder`), with the
conditional write every back end has (:meth:`~..jobs.stores.JobBackend.keep_data`: the first stored wins). The
process whose reservation was stored writes the data, then replaces its reservation with the blocks that link
it (:meth:`KeptSlot.complete`). Another process that finds a reservation writes nothing: it reads the record
again, every :data:`LOOK_SECONDS` at first and then less often, until the link is there (and answers it), or
the reservation is gone (released: it reserves in turn), or the reservation is stale: its process, on this
host, is no longer running (:func:`.reserver.ended`: taken over at once), or it reached :data:`RESERVED_SECONDS`
(a process on another host died, or its write outlasted the bound): it takes the slot over with its own
reservation.
So a losing keep never writes a copy, and never makes room for one by evicting its owner's other results.

A reservation is never a link: :func:`linked` is False for it, and every reader of ``kept_data`` reads it as
"not kept yet" (this module's callers are its only readers; the job stores compare it as any other value).
What this module does not do: write the data (:mod:`..results`), or decide whether a link still reads
(the caller's ``lives``).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeGuard

from . import reserver

if TYPE_CHECKING:
    from ..jobs.stores import JobBackend

__all__ = ["LOOK_SECONDS", "RESERVED_SECONDS", "KeptSlot", "linked", "pending", "stored"]

Blocks = list[dict[str, Any]]

RESERVED_SECONDS: Final = 60.0
"""Seconds a reservation holds: one older (by the reader's clock against the time it carries, or as long
unchanged while the reader waits for it) is stale, its process taken for dead, and the slot is taken over.
Longer than a keep takes: the results folder's lock is waited for 10 s at most (``LOCK_WAIT_SECONDS``), and
a write of the store's most bytes takes seconds. A keep that outlasts it still completes: the first link stored
is answered by both, and the other copy dropped."""
LOOK_SECONDS: Final = 0.02
"""Seconds before the first read of the record again while another process's reservation holds (doubled at
each read, to :data:`MOST_LOOK_SECONDS`)."""
MOST_LOOK_SECONDS: Final = 0.5
"""Most seconds between two reads of the record while another process's reservation holds."""
ROUNDS: Final = 8
"""Conditional writes one keep tries at most (each lost to another process's change of the record)."""


def pending(kept: Blocks | None) -> TypeGuard[Blocks]:
    """Whether ``kept`` (a record's ``kept_data``) is a reservation: the data being kept, no link yet."""
    return kept is not None and len(kept) == 1 and "pending" in kept[0]


def linked(kept: Blocks | None) -> TypeGuard[Blocks]:
    """Whether ``kept`` (a record's ``kept_data``) is the blocks of a link: none, or a reservation, is not."""
    return kept is not None and not pending(kept)


def stored(records: JobBackend, job_id: str) -> Blocks | None:
    """The ``kept_data`` of ``job_id``'s record: blocks, a reservation, or None (none yet, or no record)."""
    rows = records.summaries([job_id], ("id", "kept_data"))
    return rows[0].get("kept_data") if rows else None


class KeptSlot:
    """One keep's view of one job's ``kept_data``: :meth:`claim` it, then :meth:`complete` or :meth:`release`.

    Blocking (it reads and writes the job store, and waits for another process's keep): call it off the event
    loop.

    Args:
        records: the job store's back end.
        job_id: the job.
        lives: whether blocks a record holds link a copy that still reads (for this job, its owner).
    """

    def __init__(self, records: JobBackend, job_id: str, lives: Callable[[Blocks], bool]) -> None:
        self._records = records
        self._job_id = job_id
        self._lives = lives
        self._mine: Blocks | None = None
        self._abandoned: Blocks | None = None
        self._seen: dict[str, float] = {}  # each reservation's token: when this keep first saw it (monotonic)

    @property
    def reservation(self) -> Blocks | None:
        """This keep's reservation while it holds one (after :meth:`claim`, until :meth:`complete` or
        :meth:`release` ended: still held when they raised), else None."""
        return self._mine

    def claim(self, seen: Blocks | None, abandoned: Blocks | None = None) -> Blocks | None:
        """Reserve the slot for this keep, or find another process's link there.

        ``seen``: the ``kept_data`` read before (None, a link that no longer reads, or a reservation);
        ``abandoned``: a reservation this process made and could not complete nor release (its job store
        went away meanwhile), taken over at once when found. Returns
        the live blocks another process stored (the answer: nothing to write), else None: this keep writes the
        data, then :meth:`complete` (or :meth:`release`) — which stores nothing when the slot was not reserved
        (the record went, or it changed at every try).
        """
        self._abandoned = abandoned
        for _ in range(ROUNDS):
            seen = self._settled(seen)
            if linked(seen) and self._lives(seen):
                return seen
            mine = [{"pending": secrets.token_urlsafe(12), "since": time.time(), **reserver.holder()}]
            held = self._records.keep_data(self._job_id, mine, seen)
            if held == mine:
                self._mine = mine
                return None
            if held is None and seen is None:
                return None  # the record went
            seen = held
        return None

    def complete(self, blocks: Blocks) -> Blocks | None:
        """Store ``blocks`` (this keep's link) in place of its reservation; returns what to answer: ``blocks``,
        or another process's live blocks stored first (one that took a stale reservation over: this copy is
        to be dropped), or None (not reserved, or the record went: ``blocks``, stored nowhere). Another's
        reservation, or a link that no longer reads, found in place of this one's is replaced."""
        expected = self._mine
        for _ in range(ROUNDS if expected is not None else 0):
            held = self._records.keep_data(self._job_id, blocks, expected)
            self._mine = None
            if held == blocks or (linked(held) and self._lives(held)):
                return held
            if held is None and expected is None:
                return None  # the record went
            expected = held
        return None

    def release(self) -> None:
        """Give up this keep's reservation (its data was not written, or only to this process's memory): the
        slot holds none again, for the next keep. Nothing when not reserved, or when it was taken over."""
        if self._mine is not None:
            self._records.keep_data(self._job_id, None, self._mine)
            self._mine = None

    def _settled(self, seen: Blocks | None) -> Blocks | None:
        """``seen``, or, while it is another's reservation that holds, the record's ``kept_data`` once it
        changed (read again, less often each time) or once that reservation went stale."""
        look = LOOK_SECONDS
        while pending(seen) and not self._stale(seen):
            time.sleep(look)
            look = min(look * 2, MOST_LOOK_SECONDS)
            seen = stored(self._records, self._job_id)
        return seen

    def _stale(self, reservation: Blocks) -> bool:
        """Whether ``reservation``'s process, on this host, is no longer running, or it outlived
        :data:`RESERVED_SECONDS`: by the time it carries, or as long unchanged since this keep first saw it (a
        writer whose clock runs ahead of this one's)."""
        marker = reservation[0]
        if reservation == self._abandoned or reserver.ended(marker):
            return True
        first = self._seen.setdefault(str(marker["pending"]), time.monotonic())
        since = marker.get("since")
        aged = isinstance(since, int | float) and time.time() - since > RESERVED_SECONDS
        return aged or time.monotonic() - first > RESERVED_SECONDS
