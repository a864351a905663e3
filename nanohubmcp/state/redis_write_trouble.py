"""What the event log writer (:mod:`~nanohubmcp.state.redis_events`) does when a write fails, and how it says so.

A batch Redis cannot take right now (unreachable, frozen past the socket timeout, this process's pool full) is
tried again after a pause that doubles from :data:`RETRY_FIRST` to :data:`RETRY_MOST` at most (:class:`Backoff`),
and is back to the shortest once a batch is written. Entries that are lost (an error reply that would come again,
such as ``OOM`` or a replica's ``READONLY``; the oldest of a queue past its bound) are reported once per burst
(:class:`LossReport`), never once per entry: the first loss at once (how many, why), further ones at most once a
:data:`REPORT_SECONDS`, and what was lost since the last warning when the burst ends.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

log = logging.getLogger("nanohubmcp.state")

RETRY_FIRST = 0.1
"""Seconds before a batch Redis could not take is tried the first time again."""
RETRY_MOST = 2.0
"""Longest pause between two tries of a batch (the pause doubles from :data:`RETRY_FIRST` to this)."""
REPORT_SECONDS = 60.0
"""Losses of one burst are reported at most once in this many seconds (its first at once)."""


class Backoff:
    """Pauses between tries of a batch: :data:`RETRY_FIRST` s, doubling, :data:`RETRY_MOST` s at most."""

    def __init__(self, first: float = RETRY_FIRST, most: float = RETRY_MOST) -> None:
        self.first = first
        self.most = most
        self._next = first

    def next(self) -> float:
        """The pause before the next try, in seconds (each one twice the last, up to the bound)."""
        pause = self._next
        self._next = min(self.most, pause * 2)
        return pause

    def reset(self) -> None:
        """A batch was written: the next failure waits the shortest pause again."""
        self._next = self.first


class LossReport:
    """Entries of the event logs lost for one reason, said in WARNINGs once per burst (module docstring).

    Args:
        shown: the store's URL without its password.
        what: how they were lost, completing "N message(s) for the event logs ...", e.g. ``"refused by it and
            dropped"``.
        clock: seconds, monotonic (tests).
    """

    def __init__(self, shown: str, what: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.shown = shown
        self.what = what
        self._clock = clock
        self._in_burst = False
        self._said = 0.0
        self._unsaid = 0
        self.total = 0
        """Entries lost so far in all (for tests and operators' probes)."""

    def lost(self, count: int, why: str) -> None:
        """``count`` entries were lost, because ``why`` (the error: ``"ResponseError: OOM ..."``)."""
        self.total += count
        now = self._clock()
        if not self._in_burst:
            self._in_burst = True
            self._said = now
            log.warning("shared state store %s: %d message(s) for the event logs %s (%s); a client resuming their "
                        "streams will not get them (said again at most once a minute while this lasts)",
                        self.shown, count, self.what, why)
            return
        self._unsaid += count
        if now - self._said >= REPORT_SECONDS:
            log.warning("shared state store %s: %d more message(s) for the event logs %s in the last %.0f s (%s)",
                        self.shown, self._unsaid, self.what, now - self._said, why)
            self._said = now
            self._unsaid = 0

    def ended(self) -> None:
        """The burst is over (a batch was written; the queue was drained): say so once, with what was lost since the
        last warning."""
        if not self._in_burst:
            return
        log.warning("shared state store %s: the event logs are written again; %d more message(s) %s since the "
                    "last warning", self.shown, self._unsaid, self.what)
        self._in_burst = False
        self._unsaid = 0
