"""Cancels heard before the request they name started in this process (a server of several processes).

A client's ``notifications/cancelled`` may reach a process, or be relayed to it through the shared store, while
the POST holding the request it names is still on its way there (held by a proxy, a slow client, a large body).
MCP 2025-11-25 (Utilities § Cancellation) lets a receiver ignore a cancel for a request it does not know; but this
request is known to the client and only not started yet, and the client expects no answer to it. So such a cancel is
kept here :data:`EARLY_CANCEL_SECONDS` (as long as the store keeps one for a process subscribing again), and the
request, when it starts within that time, ends cancelled before it runs.

What this module does not own: hearing the cancels (:mod:`.replication`), ending the request
(:mod:`nanohubmcp.server.connection`).
"""

from __future__ import annotations

import time

EARLY_CANCEL_SECONDS = 60.0
"""Seconds a cancel heard for a request not running here is kept for it to start (the store keeps one a minute)."""
MAX_EARLY_CANCELS = 4096
"""Such cancels kept at most (the oldest dropped first): a flood of cancels costs a bounded memory."""


class EarlyCancels:
    """The cancels heard for requests not running here, by ``(session key, request id)``, oldest first.

    Args:
        seconds: how long one is kept.
        most: how many are kept at most.
    """

    def __init__(self, seconds: float = EARLY_CANCEL_SECONDS, most: int = MAX_EARLY_CANCELS) -> None:
        self.seconds = seconds
        self.most = most
        self._kept: dict[tuple[str, str | int], tuple[float, str]] = {}
        """(monotonic deadline, reason); in the order kept, so the deadlines ascend."""

    def __len__(self) -> int:
        return len(self._kept)

    def keep(self, key: str, request_id: str | int, reason: str) -> None:
        """Keep a cancel of ``request_id`` of the session ``key`` (a later one replaces it); those expired, and the
        oldest past :attr:`most`, go."""
        now = time.monotonic()
        kept = self._kept
        kept.pop((key, request_id), None)
        while kept:
            oldest = next(iter(kept))
            if kept[oldest][0] >= now and len(kept) < self.most:
                break
            del kept[oldest]
        kept[(key, request_id)] = (now + self.seconds, reason)

    def take(self, key: str, request_id: str | int) -> str | None:
        """The reason of the kept cancel of ``request_id`` of the session ``key``, removed; None when none is kept
        (or it expired). ``5`` and ``"5"`` are two ids."""
        if not self._kept:  # the common case: one truth test
            return None
        found = self._kept.pop((key, request_id), None)
        if found is None or found[0] < time.monotonic():
            return None
        return found[1]
