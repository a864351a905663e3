"""Turns at a bounded job executor, given fairly over the jobs' owners.

An executor that runs at most N jobs at a time (``threads``: ``job_workers`` threads; ``processes``:
that many processes) lets the others wait here instead of in one first-in-first-out line, where one
caller's hundred queued jobs would hold back everyone else's. Each owner (the principal, else the
session, else all sessionless callers together: :meth:`Job.owner_key`) waits in a line of its own;
a freed turn goes to the first job of the owner whose jobs hold the fewest turns (ties: the owner
served longest ago). So a newcomer's job starts at the next freed turn however many jobs another
owner has queued, and owners with jobs waiting share the turns evenly.

While a job waits, its ``status_message`` is :data:`QUEUED` (kept in its record, so every process
of the server sees it) and ``job.waiting`` tells how many jobs will start before it
(``get_job_result``: ``"queued": true, "ahead": N``; MCP Tasks: status ``working``, statusMessage
``"queued, N ahead"``). Owners are bounded by the job store's ``max_jobs`` (each waiting job is a
stored one).

On the server's event loop only (jobs' tasks run there).
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque

from .record import QUEUED, TERMINAL, Job

__all__ = ["FairTurns"]


class FairTurns:
    """``slots`` turns, given to waiting jobs fairly over their owners.

    Use: ``await turns.take(job)`` before the job's function runs (raises
    ``asyncio.CancelledError`` when the job is cancelled while it waits), ``turns.give_back(job)``
    once it is done (the loop's thread only).
    """

    def __init__(self, slots: int) -> None:
        self.slots = max(1, slots)
        self.taken = 0
        self._holding: dict[str, int] = {}  # owner -> turns its jobs hold (owners holding none left out)
        # Owner -> its waiting jobs, first come first; the dict's order breaks ties (the owner
        # served last goes to the back).
        self._lines: dict[str, deque[tuple[Job, asyncio.Future[None]]]] = {}

    def waiting(self) -> int:
        """Jobs waiting for a turn."""
        return sum(len(line) for line in self._lines.values())

    async def take(self, job: Job) -> None:
        """Wait for a turn for ``job`` (at once when one is free and nobody waits)."""
        owner = job.owner_key()
        if self.taken < self.slots and not self._lines:
            self._hold(owner)
            return
        entry = (job, asyncio.get_running_loop().create_future())
        self._lines.setdefault(owner, deque()).append(entry)
        before = job.status_message
        job.waiting = functools.partial(self.ahead, job)
        _note(job, QUEUED)
        try:
            await entry[1]
        except asyncio.CancelledError:
            if entry[1].done() and not entry[1].cancelled():
                self.give_back(job)  # given a turn, cancelled before it could start: pass it on
            else:
                self._drop(owner, entry)
            raise
        finally:
            job.waiting = None
            if job.status not in TERMINAL:
                _note(job, before)

    def give_back(self, job: Job) -> None:
        """``job``'s turn ended: the first waiting job of the owner holding fewest turns starts."""
        owner = job.owner_key()
        self.taken -= 1
        left = self._holding.get(owner, 1) - 1
        if left > 0:
            self._holding[owner] = left
        else:
            self._holding.pop(owner, None)
        while self.taken < self.slots and self._lines:
            chosen = min(self._lines, key=lambda name: self._holding.get(name, 0))  # the first of the fewest
            line = self._lines.pop(chosen)
            _, started = line.popleft()
            if line:
                self._lines[chosen] = line  # to the back, among owners holding as many
            if not started.done():
                started.set_result(None)
                self._hold(chosen)

    def ahead(self, job: Job) -> int:
        """How many waiting jobs start before ``job`` if no job ends and nobody else comes: its
        owner's jobs ahead of it, and each other owner's that the fewest-turns-first rule picks
        first (up to the number that owner has waiting)."""
        owner = job.owner_key()
        line = self._lines.get(owner, ())
        index = next((i for i, (queued, _) in enumerate(line) if queued is job), 0)
        level = self._holding.get(owner, 0) + index  # the turns its owner holds when it is picked
        count, earlier = index, True
        for other, theirs in self._lines.items():
            if other == owner:
                earlier = False
                continue
            picked = level - self._holding.get(other, 0) + (1 if earlier else 0)
            count += min(len(theirs), max(0, picked))
        return count

    def _hold(self, owner: str) -> None:
        self.taken += 1
        self._holding[owner] = self._holding.get(owner, 0) + 1

    def _drop(self, owner: str, entry: tuple[Job, asyncio.Future[None]]) -> None:
        line = self._lines.get(owner)
        if line is not None and entry in line:
            line.remove(entry)
            if not line:
                del self._lines[owner]


def _note(job: Job, message: str | None) -> None:
    job.status_message = message
    if job.store is not None:
        job.store.note(job)
