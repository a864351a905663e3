"""When the ``--workers`` parent starts a crashed worker again (:class:`Restarts`).

A worker that served a while and then crashed (killed by the kernel's OOM killer, say) is started again at
once. One that keeps dying soon after its start (within :data:`QUICK_SECONDS`: its shared state store is
unreachable, say) is started again after a pause, doubled at each such failure in a row from
:data:`FIRST_PAUSE_SECONDS` up to :data:`MAX_PAUSE_SECONDS`, so that a crash loop neither burns a core on
forks nor floods the log. The first such failure is started again at once, since one failure at start is
often a passing one. The streak ends once a worker of that slot lives :data:`QUICK_SECONDS`. If a slot's
starts keep failing for :data:`GIVE_UP_SECONDS`, the server gives up. How often a worker crashed over the
server's whole life does not count.

This module does bookkeeping only. Times are ``time.monotonic()`` seconds that the caller gives. The parent
(:mod:`.supervisor`) forks, waits and says what it does.
"""

from __future__ import annotations

from dataclasses import dataclass

QUICK_SECONDS = 10.0
"""A worker that ends less than this long after its fork failed at its start, and one that lived this long
ends its slot's streak of such failures."""
FIRST_PAUSE_SECONDS = 0.5
"""The pause before the next start after the second failure at start in a row; it doubles after each one more."""
MAX_PAUSE_SECONDS = 30.0
"""The longest pause between two starts of a worker that keeps failing at its start."""
GIVE_UP_SECONDS = 600.0
"""How long a slot's starts may keep failing (every start of it ending within :data:`QUICK_SECONDS`) before
the server gives up: it stops the other workers and exits with status 1."""


@dataclass(frozen=True)
class Next:
    """What becomes of a worker slot after its worker crashed (:meth:`Restarts.died`)."""

    pause: float | None
    """Seconds to wait before starting it again (0: at once); None: give up (the server stops)."""
    failures: int
    """Failures at start in a row, this one included (0: the worker had served a while)."""
    failing_for: float
    """Seconds since the first of those failures (0 when there is none or one)."""

    def words(self) -> str:
        """What the parent does next, as it says it after the worker's end ("...; restarted")."""
        if self.pause is None:
            return (f"it ended within {QUICK_SECONDS:g} s of its start every time for {self.failing_for:.0f} s "
                    f"({self.failures} times in a row); giving up: stopping the server")
        if self.pause == 0:
            return "restarted"
        return (f"it ended within {QUICK_SECONDS:g} s of its start {self.failures} times in a row; "
                f"restarting in {self.pause:g} s")


class Restarts:
    """When each worker slot of a ``--workers`` server is started again after a crash (the module docstring).

    The limits are read from this module's constants when it is made.
    """

    def __init__(self) -> None:
        self.quick = QUICK_SECONDS
        self.first_pause = FIRST_PAUSE_SECONDS
        self.max_pause = MAX_PAUSE_SECONDS
        self.give_up = GIVE_UP_SECONDS
        self._streaks: dict[int, tuple[int, float]] = {}  # slot -> (failures at start in a row, when the first was)

    def died(self, slot: int, started: float, now: float) -> Next:
        """The worker of ``slot`` forked at ``started`` crashed at ``now`` (both ``time.monotonic()`` seconds):
        when to start it again, or whether to give up."""
        if now - started >= self.quick:
            self._streaks.pop(slot, None)
            return Next(0.0, 0, 0.0)
        failures, first = self._streaks.get(slot, (0, now))
        failures += 1
        self._streaks[slot] = (failures, first)
        if now - first >= self.give_up:
            return Next(None, failures, now - first)
        pause = 0.0 if failures == 1 else min(self.max_pause, self.first_pause * 2.0 ** (failures - 2))
        return Next(pause, failures, now - first)
