"""An ``async def`` function that holds the event loop: timed step by step, said once, answered as late.

A coroutine function (a tool, a resource, a prompt written ``async def``) runs on the server's event loop, one
step at a time: from one ``await`` that suspends to the next. A step that blocks (``time.sleep``, a solver, a
numpy call, file or socket I/O without ``await``) holds the loop: every other client's call waits, ``ping``
included, and nothing in Python can interrupt it, so ``tool_timeout`` cannot answer it either (its timer runs
on the loop the step holds). :class:`TimedSteps` drives such a coroutine and times each step (two clock reads
a step, no thread): at the end of the first step longer than :data:`HOLD_SECONDS`, the first moment anything
can run, it logs one WARNING on the ``nanohubmcp.tool`` logger naming the function, how long it held the loop,
and what to do instead; :attr:`TimedSteps.held` is what the call's answer reads when the call ended past its
``tool_timeout`` (:func:`held_note`: the call is answered as the timeout it was, its value dropped).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Coroutine, Generator
from typing import Any

log = logging.getLogger("nanohubmcp.tool")

HOLD_SECONDS = 1.0
"""A step of an ``async def`` function longer than this (wall time, seconds) held the event loop: said once
per call at WARNING. Far above what an ``await``-driven step takes (microseconds), far below what a user
notices of a server that answers nobody."""

ADVICE = ("a blocking call in an async def function holds every client's calls and no timeout can stop it; "
          "make it a plain def (it then runs on a worker thread), or await asyncio.to_thread(...) for "
          "the blocking part")
"""What to do, said by the warning (the server's operator reads it; the call's answer says what happened)."""


class TimedSteps:
    """``await TimedSteps(coro, what)`` is ``await coro``, each step timed (see the module's docstring).

    ``what`` names the function in the warning (``"tool 'solve'"``, a call key). :attr:`held` is the total
    wall time, in seconds, of the steps longer than :data:`HOLD_SECONDS` (0.0 when none was)."""

    __slots__ = ("_coro", "_what", "held")

    def __init__(self, coro: Coroutine[Any, Any, Any], what: str) -> None:
        self._coro = coro
        self._what = what
        self.held = 0.0

    def __await__(self) -> Generator[Any, Any, Any]:
        # ``yield from coro``, written out so that each step (send or throw) is timed.
        coro = self._coro
        sent: Any = None
        thrown: BaseException | None = None
        while True:
            start = time.perf_counter()
            try:
                yielded = coro.send(sent) if thrown is None else coro.throw(thrown)
            except StopIteration as stop:
                self._timed(time.perf_counter() - start)
                return stop.value
            except BaseException:
                self._timed(time.perf_counter() - start)
                raise
            self._timed(time.perf_counter() - start)
            thrown = None
            try:
                sent = yield yielded
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # a cancel (CancelledError) goes on into the coroutine
                sent, thrown = None, exc

    def _timed(self, took: float) -> None:
        if took <= HOLD_SECONDS:
            return
        if not self.held:  # said once per call, at its first long step
            log.warning("%s held the event loop for %.1f s in one step (no await) while other calls waited: %s",
                        self._what, took, ADVICE)
        self.held += took


def held_note(held: float) -> str:
    """The tail of the timeout answer of a coroutine call that ended past its limit: it held the loop for
    ``held`` seconds (0.0: it did not; the loop was held by other work when the limit passed)."""
    if held:
        return (f"it held the event loop for {held:.1f} s (a blocking call in an async def function), which no "
                "timeout can interrupt: it ran to its end and its result was dropped")
    return "it ended after the limit (the event loop was held by other work) and its result was dropped"
