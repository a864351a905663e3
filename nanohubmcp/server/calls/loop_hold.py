"""An ``async def`` function that holds the event loop: timed step by step, said once, answered as late.

A coroutine function (a tool, a resource, a prompt written ``async def``) runs on the server's event loop, one
step at a time: from one ``await`` that suspends to the next. A step that blocks (``time.sleep``, a solver, a
numpy call, file or socket I/O without ``await``) holds the loop: every other client's call waits, ``ping``
included, and nothing in Python can interrupt it, so ``tool_timeout`` cannot answer it either (its timer runs
on the loop the step holds). :class:`TimedSteps` drives such a coroutine and times each step (two clock reads
a step, no thread): at the end of the first step longer than :data:`HOLD_SECONDS`, the first moment anything
can run, it logs one WARNING on the ``nanohubmcp.tool`` logger naming the function, how long it held the loop,
and what to do instead; :attr:`TimedSteps.held` is what the call's answer reads when the call ended past its
``tool_timeout`` (:func:`held_note`: the call is answered as the timeout it was, its value dropped), and
:attr:`TimedSteps.ended` says when its last step ended (a call that ended in time keeps its value, however late
its answer is made).

The tasks a call starts (``asyncio.gather``, ``create_task``, a ``TaskGroup``, Python 3.11's ``wait_for``) run
their steps outside the call's own coroutine: they are timed into the call all the same (:mod:`.child_tasks`),
so a blocking call in a gathered helper is said and answered as the call's own.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Coroutine, Generator
from typing import Any

from . import child_tasks

log = logging.getLogger("nanohubmcp.tool")

HOLD_SECONDS = 1.0
"""A step of an ``async def`` function longer than this (wall time, seconds) held the event loop: said once
per call at WARNING. Far above what an ``await``-driven step takes (microseconds), far below what a user
notices of a server that answers nobody."""

ADVICE = ("a blocking call in an async def function holds every client's calls and no timeout can stop it; "
          "make it a plain def (it then runs on a worker thread), or await asyncio.to_thread(...) for "
          "the blocking part")
"""What to do, said by the warning (the server's operator reads it; the call's answer says what happened)."""

_NEVER = math.inf


class TimedSteps:
    """``await TimedSteps(coro, what)`` is ``await coro``, each step timed (see the module's docstring).

    ``what`` names the function in the warning (``"tool 'solve'"``, a call key); ``loop`` is the running loop,
    when the caller has it at hand. :attr:`held` is the total wall time, in seconds, of the steps longer than
    :data:`HOLD_SECONDS`, its own and those of the tasks it started (0.0 when none was); :attr:`ended` is the
    :func:`time.perf_counter` reading at the end of the coroutine's last step (``math.inf`` until it returned a
    value); :attr:`held_in` names the task whose step held the loop first (``"blocker(), a task it started"``),
    None when none did or the call's own step held it first."""

    __slots__ = ("_coro", "_loop", "_previous", "_what", "ended", "held", "held_in")

    def __init__(self, coro: Coroutine[Any, Any, Any], what: str,
                 loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._coro = coro
        self._what = what
        self._loop = loop
        self.held = 0.0
        self.held_in: str | None = None
        self.ended = _NEVER

    def __await__(self) -> Generator[Any, Any, Any]:
        # ``yield from coro``, written out so that each step (send or throw) is timed; during a step the loop's
        # task factory is this call (a task made in it is timed into the call: :mod:`.child_tasks`).
        coro = self._coro
        sent: Any = None
        thrown: BaseException | None = None
        loop = self._loop or asyncio.get_running_loop()
        self._previous = previous = loop.get_task_factory()
        while True:
            loop.set_task_factory(self)
            start = time.perf_counter()
            try:
                yielded = coro.send(sent) if thrown is None else coro.throw(thrown)
            except StopIteration as stop:
                self.ended = end = time.perf_counter()
                loop.set_task_factory(previous)
                self._timed(end - start)
                return stop.value
            except BaseException:
                loop.set_task_factory(previous)
                self._timed(time.perf_counter() - start)
                raise
            loop.set_task_factory(previous)
            self._timed(time.perf_counter() - start)
            thrown = None
            try:
                sent = yield yielded
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # a cancel (CancelledError) goes on into the coroutine
                sent, thrown = None, exc

    def __call__(self, loop: asyncio.AbstractEventLoop, coro: Any, **options: Any) -> asyncio.Future[Any]:
        # The loop's task factory during a step of this call: a task made in it is the call's.
        return child_tasks.made(loop, coro, options, self, self._previous)

    def _timed(self, took: float) -> None:
        if took <= HOLD_SECONDS:
            return
        if not self.held:  # said once per call, at its first long step
            log.warning("%s held the event loop for %.1f s in one step (no await) while other calls waited: %s",
                        self._what, took, ADVICE)
        self.held += took

    def task_step(self, took: float, coro: Coroutine[Any, Any, Any]) -> None:
        """A step of a task the call started (running ``coro``) took ``took`` seconds: held as the call's own."""
        if took <= HOLD_SECONDS:
            return
        if not self.held:
            self.held_in = f"{getattr(coro, '__qualname__', type(coro).__name__)}(), a task it started"
            log.warning("%s held the event loop for %.1f s in one step (no await) of %s, while other calls waited: "
                        "%s", self._what, took, self.held_in, ADVICE)
        self.held += took


def going_on(task: asyncio.Future[Any], what: str, timeout: float, started: float) -> None:
    """Log once, at WARNING on ``nanohubmcp.tool``, that ``task`` (the call of ``what``, begun at ``started``, a
    :func:`time.perf_counter` reading) has not ended though ``tool_timeout`` (``timeout`` seconds) cancelled it:
    the call stays unanswered until it ends (``"tool 'x' has run 5.2 s, past its 0.2 s (tool_timeout), and goes on
    after its cancel: ..."``); nothing when it ended."""
    if not task.done():
        log.warning("%s has run %.1f s, past its %g s (tool_timeout), and goes on after its cancel: it caught "
                    "CancelledError, or its cleanup awaits what does not come; its call is answered only when it ends "
                    "(let CancelledError propagate: re-raise it after cleaning up)",
                    what, time.perf_counter() - started, timeout)


def held_note(held: float, held_in: str | None = None, *, cancelled: bool = False) -> str:
    """The tail of the timeout answer of a coroutine call past its limit: it (or a task it started, ``held_in``:
    :attr:`TimedSteps.held_in`) held the loop for ``held`` seconds (0.0: no step of either held it for over
    :data:`HOLD_SECONDS`). ``cancelled``: the call had not ended when the limit could act (the blocking step was a
    task's, and the call was cancelled after it); else it ended past the limit and its value is dropped."""
    if held:
        where = f" in {held_in}," if held_in else ","
        end = ("the limit could act only once that step ended, and the call was then cancelled" if cancelled
               else "it ran to its end and its result was dropped")
        return (f"it held the event loop for {held:.1f} s (a blocking call in an async def function){where} which "
                f"no timeout can interrupt: {end}")
    return (f"it ended after the limit (no step of it or of a task it started held the event loop for over "
            f"{HOLD_SECONDS:g} s) and its result was dropped")
