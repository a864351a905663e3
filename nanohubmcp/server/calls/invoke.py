"""Calling user functions: arguments in, Context injected, on the right thread, bounded in time.

Coroutine functions run on the event loop; everything else runs on the server's worker pool,
so a slow tool never blocks the loop (and ``ping`` keeps answering) — except a sync function the
pool has seen finish every call in microseconds, given the same arguments, which runs on the loop itself (the
pool's inline lane, see :mod:`.workers`). A sync function that returns an awaitable has it awaited on the loop.
A coroutine's steps are timed: one that blocks holds the loop, which is said and answered (:mod:`.loop_hold`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import Executor, Future
from typing import TYPE_CHECKING, Any, Final

from ...errors import RequestCancelled, ToolBusy, ToolError, ToolTimeout
from ..wire.request import CLIENT_CANCELLED, PEER_GONE, RequestContext
from .hand_off import HandOff, watching
from .loop_hold import TimedSteps, going_on, held_note
from .progress import ran_here
from .slow_calls import GC_SECONDS, INLINE_SECONDS, thread_usage
from .workers import WorkerPool

if TYPE_CHECKING:
    from ..wire.events import EventBus

CANCEL_GRACE_SECONDS = 5.0
"""How long after its cancel at ``tool_timeout`` a coroutine call may take to end before it is said to go on
(:func:`.loop_hold.going_on`): a cleanup that awaits takes far less."""


async def call_function(
    fn: Callable[..., Any],
    kwargs: dict[str, Any],
    *,
    is_coroutine: bool,
    executor: Executor,
    timeout: float | None,
    what: str,
    key: str | None = None,
    arguments: Mapping[str, Any] | None = None,
    on_timeout: Callable[[], None] | None = None,
    on_submit: Callable[[Future[Any]], None] | None = None,
    may_run_inline: bool = True,
    stops_when_cancelled: bool = False,
) -> Any:
    """Run ``fn(**kwargs)`` on the loop (coroutines) or the pool (the rest).

    A sync function the pool found quick with these arguments runs on the loop itself, unless ``may_run_inline`` is
    False: a function given a ``Context`` (its asks and progress wait on the loop) stays on the pool. ``key`` names
    the function in the pool (``what``, how messages name the call, by default); ``arguments`` are the call's JSON
    arguments, those the pool remembers as answered quickly (``kwargs`` by default).

    ``timeout`` counts from now: a sync call still queued for a worker when it runs out never
    starts. ``on_timeout`` is told when the limit passes (e.g. to mark the request cancelled, so
    a function that checks ``ctx.is_cancelled()`` stops and frees its worker). ``on_submit`` is
    given the pool's future of a sync function once it is queued. ``stops_when_cancelled``: the
    function ends its run when its call is cancelled (a Rappture or Sim2L tool: ``on_timeout`` cancels
    it), so a timed-out call's answer says the run was stopped, not that it may still be running.

    Raises:
        ToolBusy: the call could not start within ``timeout`` seconds: every worker was busy
            (the function never ran); or, at once, the pool holds its most abandoned calls
            (``max_stuck_calls``, :attr:`WorkerPool.full_of_stuck`).
        ToolTimeout: the call took longer than ``timeout`` seconds; a coroutine that ended past it (a step
            that blocked held the loop, and the limit's timer with it) too: its value is dropped.
        Exception: whatever ``fn`` raised.
    """
    key = what if key is None else key
    known = kwargs if arguments is None else arguments
    if not is_coroutine and may_run_inline and on_submit is None:
        value = call_inline(fn, kwargs, executor, key, known)
        if value is not NOT_INLINE:
            return (await value) if is_awaitable(value) else value
    loop = asyncio.get_running_loop()
    started: list[bool] = []
    work: Future[Any] | None = None
    steps: TimedSteps | None = None
    awaitable: Awaitable[Any]
    hand_off: HandOff | None = None
    if is_coroutine:
        awaitable = steps = TimedSteps(fn(**kwargs), what, loop)  # a step that blocks holds the loop: said, and timed
        if timeout:
            with watching() as hand_off:  # its task copies this context: a sync function it hands off is reported
                awaitable = asyncio.ensure_future(steps)  # (as wait_for would make it)
    else:
        if isinstance(executor, WorkerPool) and executor.full_of_stuck:
            raise _stuck_refusal(what, executor, timeout)
        context = contextvars.copy_context()

        def call() -> Any:
            started.append(True)
            context.run(ran_here, "worker-pool")  # the call's provenance record names this thread
            return context.run(fn, **kwargs)

        inline = may_run_inline and on_submit is None  # (else its arguments are never to be remembered)
        awaitable, work = submit(loop, executor, call, key=key, arguments=known if inline else None)
        if on_submit is not None:
            on_submit(work)
    try:
        if not timeout:
            value = await awaitable
            return (await value) if is_awaitable(value) else value
        deadline = loop.time() + timeout
        due = time.perf_counter() + timeout  # as TimedSteps.ended reads
        # A coroutine still running this long after its cancel at the limit (it caught CancelledError, or its
        # cleanup awaits what never comes) is said once: wait_for waits for it to end, unanswered otherwise.
        watch = None if steps is None or not isinstance(awaitable, asyncio.Future) else loop.call_at(
            deadline + CANCEL_GRACE_SECONDS, going_on, awaitable, what, timeout, time.perf_counter())
        try:
            value = await asyncio.wait_for(awaitable, timeout)
            if steps is not None and steps.ended >= due:
                # It ended, but past its limit: a step that held the loop kept the limit's timer from running.
                # (One that ended in time keeps its value, however late this reads it: other work may have
                # held the loop between its end and now.)
                if on_timeout is not None:
                    on_timeout()
                raise ToolTimeout(f"{timeout_head(what, timeout)}; {held_note(steps.held, steps.held_in)}") from None
            if is_awaitable(value):
                value = await asyncio.wait_for(value, timeout)
        except asyncio.TimeoutError:
            if loop.time() < deadline:
                raise  # the function's own TimeoutError (e.g. a client that did not answer in time)
            if on_timeout is not None:
                on_timeout()
            if not is_coroutine and not started:
                raise ToolBusy(f"{what} could not start within {timeout:g} s: every worker was busy with other "
                               "calls (raise workers=, or make long tools @async_tool)",
                               retry_after=max(1, math.ceil(timeout))) from None
            if steps is not None and steps.held:
                # A task it started held the loop past the limit (its timer waited for that step), and the call
                # had not ended then: say the hold, as for a call's own blocking step.
                raise ToolTimeout(f"{timeout_head(what, timeout)}; "
                                  f"{held_note(steps.held, steps.held_in, cancelled=True)}") from None
            if hand_off is not None and hand_off.reported:  # the sync function it ran on the pool runs on
                raise ToolTimeout(timeout_message(what, timeout, stops_when_cancelled=stops_when_cancelled,
                                                  abandoned=hand_off.abandoned)) from None
            abandoned = not is_coroutine and isinstance(executor, WorkerPool) and work is not None \
                and executor.abandon(work)  # its worker goes back to the pool; the function runs on, alone
            raise ToolTimeout(timeout_message(what, timeout, stops_when_cancelled=stops_when_cancelled,
                                              abandoned=abandoned, cancelled=is_coroutine)) from None
        finally:
            if watch is not None:
                watch.cancel()
        return value
    except (SystemExit, KeyboardInterrupt) as exc:
        raise _stopped(what, exc) from None


async def cancelled_with_its_client(request: RequestContext, run: Awaitable[Any]) -> Any:
    """Await ``run``, an ``async def`` function's call (a tool's, a resource's, a prompt's: :func:`call_function`'s),
    cancelling it when its client cancels ``request`` (``notifications/cancelled``, or the 2026-07-28 era's response
    stream closed): its ``await`` raises ``CancelledError``, as at ``tool_timeout``. A cancel of the server's (its
    stop) or of the time limit is not the client's and is left to them. A sync function's run is not given here: it
    runs on to its end on its worker (nothing can stop its thread; one given a ``Context`` reads the cancel as
    ``ctx.is_cancelled()``). Either way the call then ends as :func:`.call_endings.cancelled_by_client` says: no
    answer is sent. (Each caller writes ``cancelled_with_its_client(request, run) if is_coroutine else run``: a
    function of ours around it cost a ``tools/call`` ~660 instructions, ``bench/seam_instructions.py off``.)

    Raises:
        RequestCancelled: the client's cancel ended the run (:data:`~..wire.request.CLIENT_CANCELLED` set).
    """
    task = asyncio.current_task()
    running: list[asyncio.Task[Any]] = [task] if task is not None else []
    fired: list[bool] = []

    def by_client() -> None:
        if running and (request.withdrawn or request.slots.get(PEER_GONE)):
            request.slots[CLIENT_CANCELLED] = True
            fired.append(True)
            running[0].cancel()

    request.on_cancel(by_client)
    uncancel = getattr(task, "uncancel", None)  # (Python 3.11+ counts a task's cancels)
    try:
        value = await run
    except asyncio.CancelledError:
        if not fired or (uncancel is not None and uncancel() > 0):
            raise  # (not the client's, or the server's stop cancelled it too)
        raise RequestCancelled(f"Request cancelled: {request.cancel_reason or 'cancelled by the client'}") from None
    finally:
        running.clear()  # a cancel after its end is not its coroutine's
    if fired and uncancel is not None:  # the cancel came as it ended (wait_for gave its value): taken back
        uncancel()
    return value


def timeout_message(what: str, timeout: float, *, stops_when_cancelled: bool, abandoned: bool,
                    cancelled: bool = False) -> str:
    """The answer of a call past ``tool_timeout``, true for what became of its run: a run the
    cancel stops (Rappture, Sim2L) was stopped; a coroutine (``cancelled``) was cancelled, and
    ``asyncio.wait_for`` waited for it to end; a sync function nothing can stop was abandoned to
    its own thread (``abandoned``) or kept its worker (``max_stuck_calls`` reached), and may still run; so
    may one a coroutine handed to the pool (a notebook's sync tool: :mod:`.hand_off`)."""
    head = timeout_head(what, timeout)
    if stops_when_cancelled:
        return f"{head}; its run was stopped"
    if cancelled:
        return f"{head}; it was cancelled"
    if abandoned:
        return f"{head}; it was abandoned and may still be running (its worker now serves other calls)"
    return f"{head}; it may still be running"


def timeout_head(what: str, timeout: float) -> str:
    """The first words of every answer of a call past ``tool_timeout`` (what became of its run follows)."""
    return f"{what} did not finish within {timeout:g} s (tool_timeout)"


def _stuck_refusal(what: str, pool: WorkerPool, timeout: float | None) -> ToolBusy:
    # Past the cap a timed-out call keeps its worker for good: refuse now rather than let the
    # calls of a tool that hangs take the workers one by one.
    return ToolBusy(f"{what} was not started: {pool.stuck} calls abandoned at tool_timeout are still running, "
                    f"the server's limit (max_stuck_calls={pool.max_stuck}); retry once one returns (a tool that "
                    "hangs needs fixing, or raise max_stuck_calls=)",
                    retry_after=max(1, math.ceil(timeout or STUCK_RETRY_SECONDS)))


STUCK_RETRY_SECONDS = 60
"""The ``Retry-After`` of a call refused for stuck calls when the server has no ``tool_timeout``."""

NOT_INLINE: Final = object()
"""What :func:`call_inline` answers for a function that does not run on the loop."""

_NEVER_AWAITABLE: Final = frozenset({type(None), bool, int, float, str, bytes, dict, list, tuple})


def is_awaitable(value: object) -> bool:
    """``inspect.isawaitable(value)``, answered without a call for the plain values most functions return."""
    return type(value) not in _NEVER_AWAITABLE and inspect.isawaitable(value)


def call_inline(fn: Callable[..., Any], kwargs: dict[str, Any], executor: Executor, what: str,
                arguments: Mapping[str, Any] | None = None) -> Any:
    """``fn(**kwargs)`` of a sync function run here, on the loop, when the worker pool found it quick
    with these arguments (``what`` is in its inline lane and holds ``arguments``, ``kwargs`` by default: see
    :func:`call_function`); else :data:`NOT_INLINE` (call it with :func:`call_function`). What it returns may
    be awaitable (a sync function returning a coroutine): await it on the loop.

    Raises:
        ToolError: the function tried to stop the program (``sys.exit``).
        Exception: whatever ``fn`` raised.
    """
    if isinstance(executor, WorkerPool):
        quick = executor.inline_keys.get(what)
        if quick is not None:
            known = kwargs if arguments is None else arguments
            last = quick.last  # (the same arguments as last: no fingerprint made)
            if (last is not None and same_json(known, last)) or quick.holds(known):
                return _call_inline(fn, kwargs, executor, what)
    return NOT_INLINE


def same_json(value: Any, other: Any) -> bool:
    """Whether ``value`` and ``other`` are equal with every value of the same type (a dict's members in any
    order): ``1``, ``True`` and ``1.0`` differ, as their JSON texts, the fingerprints, do (``==`` holds them
    equal); the inline lane's first test of a call's arguments (:mod:`.quick_arguments`)."""
    kind = type(value)
    if kind is not type(other):
        return False
    if kind is dict:
        return value.keys() == other.keys() and all(same_json(item, other[name]) for name, item in value.items())
    if kind is list or kind is tuple:
        return len(value) == len(other) and all(map(same_json, value, other))
    return bool(value == other)


def _call_inline(fn: Callable[..., Any], kwargs: dict[str, Any], pool: WorkerPool, what: str) -> Any:
    """Run a quick sync ``fn`` here, on the loop, timed: a slow call sends it back to the pool
    (:meth:`WorkerPool.too_slow_inline`), unless the time was not its own (:mod:`.slow_calls`)."""
    usage, cpu, collected = thread_usage(), time.thread_time(), GC_SECONDS[0]
    t0 = time.perf_counter()
    try:
        return contextvars.copy_context().run(fn, **kwargs)
    except (SystemExit, KeyboardInterrupt) as exc:
        raise _stopped(what, exc) from None
    finally:
        took = time.perf_counter() - t0
        if took > INLINE_SECONDS:
            pool.too_slow_inline(what, cpu, usage, collected, took)


def _stopped(what: str, exc: BaseException) -> ToolError:
    # A function that calls sys.exit() (an argparse-based program, say) must not stop the
    # server it runs in: report it as the call's failure instead.
    detail = f"sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else "KeyboardInterrupt"
    return ToolError(f"{what} tried to stop the program ({detail}); the server keeps running")


RUNNING: set[Any] = set()
"""Pool calls not finished yet, process-wide (so a stopping program can say what it waits for)."""


def submit(loop: asyncio.AbstractEventLoop, executor: Executor, call: Callable[[], Any],
           key: str | None = None, arguments: Any = None) -> tuple[asyncio.Future[Any], Future[Any]]:
    """``loop.run_in_executor`` with one hand-over instead of two.

    ``run_in_executor`` wraps the pool's future in an asyncio future chained both ways (two
    callbacks and a state copy per call). Here the pool's future reports once, straight into a
    plain loop future; cancelling the loop future (a timeout) cancels the call if it has not
    started. About a fifth of a small tools/call's CPU was this hand-over (bench/findings.md).
    Returns the loop future and the pool's (``key`` names the function for the quick lane, ``arguments``
    are the call's JSON arguments for the inline lane: :meth:`.WorkerPool.submit_call`).
    """
    future: asyncio.Future[Any] = loop.create_future()
    work = executor.submit_call(call, key, arguments) if isinstance(executor, WorkerPool) else executor.submit(call)
    RUNNING.add(work)

    def settle(done: Future[Any]) -> None:  # on the loop
        if future.cancelled():
            return
        exc = done.exception() if not done.cancelled() else asyncio.CancelledError()
        if exc is not None:
            future.set_exception(exc)
        else:
            future.set_result(done.result())

    def report(done: Future[Any]) -> None:  # on the worker thread (or here, if already done)
        RUNNING.discard(done)
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits for this call any more
            loop.call_soon_threadsafe(settle, done)

    work.add_done_callback(report)
    future.add_done_callback(lambda f: work.cancel() if f.cancelled() else None)
    return future, work


class CallRecord:
    """Publishes ``call_started``/``call_finished`` for observers (notebook log, lab panel)."""

    __slots__ = ("_bus", "_data", "_request", "_t0")

    def __init__(self, bus: EventBus, request: RequestContext, method: str, name: str | None) -> None:
        self._bus = bus
        self._request = request
        self._t0 = time.perf_counter()
        session = request.session
        self._data = {
            "call_id": id(request),
            "method": method,
            "name": name,
            "session_id": session.id if session is not None else None,
            "started": time.time(),
        }
        bus.emit("call_started", **self._data)

    def finish(self, ok: bool, error: str | None = None) -> None:
        """Publish the end of the call."""
        duration_ms = (time.perf_counter() - self._t0) * 1000.0
        self._bus.emit("call_finished", **self._data, duration_ms=duration_ms, ok=ok, error=error,
                       record=self._request.provenance_id)
