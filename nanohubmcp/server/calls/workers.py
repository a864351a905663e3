"""The worker pool for sync functions: bounded, and impossible to wedge for good.

A sync tool that blocks (a socket without timeout, a lock never released) cannot be
interrupted in Python. With a plain thread pool, a handful of such calls fill every worker
and the server answers nothing else until they return. :class:`WorkerPool` differs in three
ways:

- **Abandoning.** A call past ``tool_timeout`` is answered with a tool error and its worker
  is *abandoned* (:meth:`WorkerPool.abandon`): the thread keeps running the function to its
  end, then exits; a fresh thread takes its slot at once. Abandoned calls are counted
  (:attr:`WorkerPool.stuck`), and their number is bounded (``max_stuck``, the server's
  ``max_stuck_calls``, default :data:`MAX_ABANDONED`): at it a timed-out call keeps its slot
  rather than growing the process without limit, and the server refuses new pool calls at once
  (:attr:`WorkerPool.full_of_stuck`) until a stuck call returns.
- **A quick lane.** A few extra workers (:data:`QUICK_WORKERS`) serve calls whose function is
  known to return quickly (its last call took at most :data:`QUICK_SECONDS` and none of its
  calls is running longer) or has never been called, when every main worker is busy. So
  ``ping``-like tools keep answering while slow ones queue.
- **An inline lane** (off unless the server's ``inline_quick_calls`` is on: ``inline=True``). A function
  whose last :data:`INLINE_AFTER` calls here each took at most
  :data:`INLINE_CPU_SECONDS` of CPU and :data:`INLINE_WALL_SECONDS` of wall time, and that never
  waited on the serving loop, runs on the event loop itself (:attr:`WorkerPool.inline_keys`):
  handing a call of a few microseconds to a thread and back costs more than the call. It runs there
  only for arguments it answered that quickly here (:class:`~.quick_arguments.QuickArguments`: their
  fingerprints, the last :data:`~.quick_arguments.MAX_REMEMBERED`; a function's run time depends on
  its arguments): a call with new arguments comes to the pool, bounded by ``tool_timeout``, and its
  arguments join the set when it is quick. Each function qualifies alone (a tool, a prompt, a
  resource, a completer: the caller's key). A slower call while it qualifies starts the count again
  and forgets the arguments (a first call that imports or fills a cache, a collection, arguments that
  take longer); the :data:`INLINE_STRIKES`-th keeps it on the pool for good. Every
  inline call is timed; one that takes longer than :data:`~.slow_calls.INLINE_SECONDS` of its own
  time sends its function back to the pool and forgets its arguments
  (:meth:`WorkerPool.too_slow_inline`; why a call was slow, and whose the time was, is
  :mod:`.slow_calls`'s). Sent back, it qualifies again there, unless it was slow long or often: then
  it stays for good. Unknown functions always start on the pool. No history makes user code reliably quick:
  a function quick ten times that then waits on something outside its arguments (a lock, a
  ``threading.Event``, a file) holds the loop, every client and the Event's setter with it, and
  ``tool_timeout`` cannot end it. So the lane is off by default, and then (:attr:`WorkerPool.inline`
  False) no call is timed for it and no function ever qualifies: the one gate is in :meth:`WorkerPool._serve`.
- **Daemon threads.** A process told to stop (SIGTERM) is not held alive by a function that
  never returns; the runner gives running calls a grace period, then exits.

Threads are started on demand (none at construction). Everything here is thread-safe.
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

from .quick_arguments import QuickArguments, fingerprint
from .slow_calls import COLLECTED, INLINE_READMIT_SECONDS, PREEMPTED, count_collections, slow_call_cause

QUICK_SECONDS = 1.0
"""A function whose last call took at most this long (and none runs longer) is "quick"."""
QUICK_WORKERS = 2
"""Workers of the quick lane."""
MAX_ABANDONED = 64
"""Most abandoned (stuck) threads per pool by default (``MCPServer(max_stuck_calls=)``); at it a
timed-out call keeps its worker, and new calls are refused until one returns."""
MAX_TRACKED = 1024
"""Most functions whose timings are remembered."""
INLINE_AFTER = 5
"""Calls on the pool a function makes, each quick, one after the other, before it may run on the event loop."""
INLINE_STRIKES = 3
"""Slow pool calls (over :data:`INLINE_CPU_SECONDS` or :data:`INLINE_WALL_SECONDS`) a function may make
while it qualifies for the event loop: each starts its count of quick calls again; the last keeps it on
the pool for good. Until 2026-12-03 the first did: a tool whose first call imported a module or filled
a cache, or whose call carried a garbage collection (a few hundred microseconds), never ran on the loop
in that process, every call paying the hand-over to a worker and back."""
INLINE_CPU_SECONDS = 0.0001
"""Most CPU time (the worker thread's) a pool call may take and still count as quick."""
INLINE_WALL_SECONDS = 0.05
"""Most wall time a pool call may take and still count as quick (a call that waits is not)."""

_worker = threading.local()
"""The :class:`PoolFuture` a worker thread runs (``.future``), for :func:`waits_on_loop`."""


def waits_on_loop() -> None:
    """Say that the call running on this worker thread waits for the serving event loop (e.g.
    ``server.call`` from a sync tool): its function never runs on the loop itself. A no-op
    outside a worker thread."""
    future = getattr(_worker, "future", None)
    if future is not None:
        future.waited = True


class _Timing:
    __slots__ = ("known", "last", "pool_only", "queued", "quick_calls", "running", "slow_at", "strikes")

    def __init__(self) -> None:
        self.last: float | None = None
        self.queued = 0  # calls submitted, not started yet
        self.running: set[PoolFuture] = set()
        self.quick_calls = 0  # pool calls within the inline bounds in a row, up to INLINE_AFTER
        self.strikes = 0  # pool calls over them while qualifying (INLINE_STRIKES)
        self.pool_only = False  # once slow (or waiting on the loop): never inline again
        self.slow_at = float("-inf")  # when an inline call was last slow (INLINE_READMIT_SECONDS)
        self.known = QuickArguments()  # the arguments of its quick pool calls: those it may run with on the loop


class PoolFuture(Future):
    """The future of one call on a :class:`WorkerPool` (what :meth:`WorkerPool.abandon` takes)."""

    def __init__(self, fn: Callable[[], Any], lane: _Lane, key: str | None, arguments: Any = None) -> None:
        super().__init__()
        self.fn = fn
        self.lane = lane
        self.key = key
        self.arguments = arguments
        self.started_at: float | None = None
        self.abandoned = False
        self.waited = False


class _Lane:
    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = size
        self.work: queue.SimpleQueue[PoolFuture | None] = queue.SimpleQueue()
        self.idle = threading.Semaphore(0)
        self.threads = 0  # live threads serving this lane (abandoned ones not counted)
        self.running = 0  # calls running (abandoned ones not counted)
        self.queued = 0

    def has_room(self) -> bool:
        return self.running + self.queued < self.size


class WorkerPool(Executor):
    """A thread pool with a quick lane, abandonable workers and daemon threads.

    Args:
        workers: threads of the main lane.
        quick_workers: threads of the quick lane (0: none).
        name: thread name prefix.
        max_stuck: most abandoned calls at once (:meth:`abandon`, :attr:`full_of_stuck`); 0: none
            (a timed-out call always keeps its worker).
        inline: whether a function may qualify for the inline lane (the event loop): False, the default,
            runs every call here.
    """

    def __init__(self, workers: int, *, quick_workers: int = QUICK_WORKERS, name: str = "nanohubmcp-worker",
                 max_stuck: int = MAX_ABANDONED, inline: bool = False) -> None:
        self._lock = threading.Lock()
        count_collections()  # slow_call_cause reads the collector's time
        self._name = name
        self._main = _Lane("main", max(1, workers))
        self._quick = _Lane("quick", quick_workers) if quick_workers > 0 else None
        self._timings: OrderedDict[str, _Timing] = OrderedDict()
        self.inline_keys: dict[str, QuickArguments] = {}
        """Functions that run on the event loop (see :data:`INLINE_AFTER`), each with the arguments it
        may run there with (:meth:`.QuickArguments.holds`); read-only outside."""
        self._stuck = 0
        self.max_stuck = max_stuck
        """Most abandoned calls at once (read-only outside)."""
        self.inline = inline
        """Whether a function may qualify for the inline lane (read-only outside; fixed when made)."""
        self._shutdown = False
        self._counter = itertools.count(1)

    # -- submitting ----------------------------------------------------------------------
    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """``Executor.submit``: run on the main lane (no timing kept)."""
        return self.submit_call(lambda: fn(*args, **kwargs))

    def submit_call(self, fn: Callable[[], Any], key: str | None = None, arguments: Any = None) -> PoolFuture:
        """Run ``fn()``; ``key`` names the function for the quick lane's timings (None: main lane only),
        ``arguments`` are the call's JSON arguments, which join the function's set for the inline lane when
        the call is quick (None: they never do).

        Raises:
            RuntimeError: the pool was shut down.
        """
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot run new calls: the worker pool is shut down")
            lane = self._main
            if key is not None and not lane.has_room() and self._quick is not None and self._quick.has_room() \
                    and self._is_quick(key, time.monotonic()):
                lane = self._quick
            if key is not None:
                self._timing(key).queued += 1
            future = PoolFuture(fn, lane, key, arguments)
            lane.queued += 1
            lane.work.put(future)
            if not lane.idle.acquire(blocking=False) and lane.threads < lane.size:
                self._spawn(lane)
        return future

    def too_slow_inline(
        self, key: str, cpu: float | None = None, usage: Any = None, collected: float = 0.0, took: float | None = None
    ) -> None:
        """An inline call of ``key`` took longer than :data:`~.slow_calls.INLINE_SECONDS` (``took``
        seconds, when known): its function goes back to the pool and forgets the arguments it answered
        quickly, unless the loop thread's CPU time,
        usage and the collector's CPU when the call started (``cpu``, ``usage``, ``collected``:
        :func:`~.slow_calls.slow_call_cause`) show the time was not the call's own. There it
        qualifies again, unless the call took :data:`INLINE_WALL_SECONDS` or more, or came within
        :data:`~.slow_calls.INLINE_READMIT_SECONDS` of its previous slow one: then it stays for good."""
        if cpu is not None and slow_call_cause(cpu, usage, collected) in (PREEMPTED, COLLECTED):
            return
        now = time.monotonic()
        with self._lock:
            timing = self._timing(key)
            self._forget(key, timing)
            if took is not None and took < INLINE_WALL_SECONDS and now - timing.slow_at > INLINE_READMIT_SECONDS:
                timing.quick_calls = 0  # it qualifies again: INLINE_AFTER quick calls on the pool
            else:
                timing.pool_only = True
            timing.slow_at = now

    def _is_quick(self, key: str, now: float) -> bool:
        timing = self._timings.get(key)
        if timing is None:
            return True
        if any(f.started_at is not None and now - f.started_at > QUICK_SECONDS for f in timing.running):
            return False
        if timing.last is None:
            return not timing.running and not timing.queued  # unknown yet, and already in flight
        return timing.last <= QUICK_SECONDS

    def _timing(self, key: str) -> _Timing:
        timing = self._timings.get(key)
        if timing is None:
            timing = self._timings[key] = _Timing()
            if len(self._timings) > MAX_TRACKED:
                self.inline_keys.pop(self._timings.popitem(last=False)[0], None)
        else:
            self._timings.move_to_end(key)
        return timing

    def _forget(self, key: str, timing: _Timing) -> None:
        """Take ``key`` off the loop, and forget its arguments (it qualifies again from the start)."""
        self.inline_keys.pop(key, None)
        timing.known.clear()

    def _spawn(self, lane: _Lane) -> None:
        lane.threads += 1
        thread = threading.Thread(target=self._serve, args=(lane,), daemon=True,
                                  name=f"{self._name}-{lane.name}-{next(self._counter)}")
        thread.start()

    # -- running -------------------------------------------------------------------------
    def _serve(self, lane: _Lane) -> None:
        while True:
            future = lane.work.get()
            if future is None:
                return
            with self._lock:
                lane.queued -= 1
                if future.key is not None:
                    timing = self._timing(future.key)
                    timing.queued = max(0, timing.queued - 1)
            if not future.set_running_or_notify_cancel():
                lane.idle.release()
                continue
            candidate = False
            with self._lock:
                future.started_at = time.monotonic()
                lane.running += 1
                if future.key is not None:
                    timing = self._timing(future.key)
                    timing.running.add(future)
                    # the one gate of the inline lane: off, no call is timed for it and none qualifies
                    candidate = self.inline and not timing.pool_only  # (timed once it qualified: new arguments join)
            # the arguments as given (before the function may change them), off the loop
            text = fingerprint(future.arguments) if candidate and future.arguments is not None else None
            _worker.future = future
            cpu = time.thread_time() if candidate else 0.0
            try:
                value, error = future.fn(), None
            except BaseException as exc:
                value, error = None, exc
            if candidate:
                cpu = time.thread_time() - cpu
            _worker.future = None
            with self._lock:
                if future.key is not None:
                    timing = self._timing(future.key)
                    timing.running.discard(future)
                    timing.last = time.monotonic() - future.started_at
                    if future.waited:
                        timing.pool_only = True
                        self._forget(future.key, timing)
                    elif candidate and (cpu > INLINE_CPU_SECONDS or timing.last > INLINE_WALL_SECONDS):
                        timing.quick_calls = 0  # qualifies again from the start ...
                        timing.strikes += 1
                        self._forget(future.key, timing)  # (new arguments that take longer, a first call)
                        if timing.strikes >= INLINE_STRIKES:  # ... unless slow often: the pool for good
                            timing.pool_only = True
                    elif candidate:
                        if text is not None:
                            timing.known.add(text)
                        timing.quick_calls = min(timing.quick_calls + 1, INLINE_AFTER)
                        if timing.quick_calls >= INLINE_AFTER:
                            self.inline_keys[future.key] = timing.known
                abandoned = future.abandoned
                if abandoned:
                    self._stuck -= 1
                else:
                    lane.running -= 1
            future.fn, future.arguments = _done, None  # drop the call's arguments
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(value)
            if abandoned:
                return  # a fresh thread already took this slot
            lane.idle.release()

    def abandon(self, future: Future) -> bool:
        """Give up on a running call: its slot goes to a fresh thread; the call runs on, counted
        in :attr:`stuck`, and its thread exits when it returns. False when the call is not
        running here, or :attr:`max_stuck` calls are already stuck (it keeps its slot)."""
        if not isinstance(future, PoolFuture):
            return False
        with self._lock:
            if future.started_at is None or future.done() or future.abandoned or self._stuck >= self.max_stuck:
                return False
            future.abandoned = True
            self._stuck += 1
            lane = future.lane
            lane.running -= 1
            lane.threads -= 1
            if not self._shutdown:
                self._spawn(lane)
        return True

    # -- state ---------------------------------------------------------------------------
    @property
    def stuck(self) -> int:
        """Calls abandoned after their timeout that have not returned yet."""
        return self._stuck

    @property
    def full_of_stuck(self) -> bool:
        """Whether :attr:`max_stuck` calls are stuck. A call timing out now could not be abandoned:
        it would hold its worker for good, so the server refuses new calls at once (``call_function``)
        until a stuck one returns."""
        return 0 < self.max_stuck <= self._stuck  # max_stuck 0: never abandoned, so never full

    @property
    def busy(self) -> int:
        """Calls running (abandoned ones not counted)."""
        return self._main.running + (self._quick.running if self._quick else 0)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Accept no new calls; ``cancel_futures`` cancels queued ones. Running calls are never
        waited for past ``wait`` (threads are daemons: a stuck call cannot hold the process)."""
        with self._lock:
            self._shutdown = True
            lanes = [lane for lane in (self._main, self._quick) if lane is not None]
        for lane in lanes:
            if cancel_futures:
                while True:
                    try:
                        queued = lane.work.get_nowait()
                    except queue.Empty:
                        break
                    if queued is not None:
                        with self._lock:
                            lane.queued -= 1
                        queued.cancel()
            for _ in range(lane.threads):
                lane.work.put(None)
        if wait:
            deadline = time.monotonic() + 60
            while self.busy and time.monotonic() < deadline:
                time.sleep(0.01)


def _done() -> None:
    return None

