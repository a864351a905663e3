"""Why an inline call was slow: the inline lane's time bound and the causes told apart.

A function in the worker pool's inline lane (:mod:`.workers`) runs on the event loop, timed
(:func:`~.invoke.call_function`); a call longer than :data:`INLINE_SECONDS` sends its function back
to the pool (:meth:`.workers.WorkerPool.too_slow_inline`) if the time was its own: it
:data:`WORKED` (more than :data:`INLINE_SECONDS` of the loop thread's CPU, less the garbage
collector's) or :data:`WAITED` (it gave up the CPU itself: a sleep, a lock, I/O). A call slow for
reasons not its own does not count: :data:`PREEMPTED` (the thread's CPU taken by another process of
a busy host) or :data:`COLLECTED` (it carried a garbage collection of the process). Where the
system gives no per-thread usage, every slow call counts. Sent back, a function qualifies again on
the pool, unless it was slow often (:data:`INLINE_READMIT_SECONDS`) or long.

This module owns the measurements (:func:`thread_usage`, the collector's CPU in :data:`GC_SECONDS`)
and the verdict (:func:`slow_call_cause`); what the pool then does with the function is
:mod:`.workers`'s, and timing the call :mod:`.invoke`'s.
"""

from __future__ import annotations

import functools
import gc
import sys
import time
from collections.abc import Callable
from typing import Any

INLINE_SECONDS = 0.001
"""Most wall time an inline call may take; one that takes longer goes back to the pool
(unless the time was not its own: :func:`slow_call_cause`)."""
INLINE_READMIT_SECONDS = 1.0
"""A function sent back from the loop qualifies again on the pool (:data:`~.workers.INLINE_AFTER`
quick calls) and returns to the loop, unless its slow inline call took
:data:`~.workers.INLINE_WALL_SECONDS` or more, or came within this long of its previous one: then
it stays on the pool for good. Besides preemption and collections (not counted at all), a quick
function is sometimes slow on the loop for a reason not its own: another thread of the process
holding the interpreter inside its call (a voluntary switch, 0.3 ms of CPU). Under wrk against 2
workers that sent ``add`` to the pool for good in one worker in 3 of 4 runs, every later call
paying the hand-over to a worker and back (bench/scaleout.md). A tool that blocks is still moved
off at its first slow call, and one blocking 50 ms, or briefly but often, stays off."""

thread_usage: Callable[[], Any]
"""This thread's resource usage (Linux's ``RUSAGE_THREAD``: its voluntary context switches), for
:func:`slow_call_cause`; None where the system gives no per-thread usage."""
if sys.platform == "linux":
    import resource

    thread_usage = functools.partial(resource.getrusage, resource.RUSAGE_THREAD)  # no Python frame per call
else:
    thread_usage = functools.partial(lambda: None)

WAITED, WORKED, COLLECTED, PREEMPTED = "waited", "worked", "collected", "preempted"

GC_SECONDS = [0.0, 0.0]
"""The CPU seconds the garbage collector has taken in this process ([0]; [1]: the running
collection's start), kept once :func:`count_collections` was called (a ``gc.callbacks`` entry)."""


def _time_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        GC_SECONDS[1] = time.thread_time()
    else:
        GC_SECONDS[0] += time.thread_time() - GC_SECONDS[1]


def count_collections() -> None:
    """Keep :data:`GC_SECONDS` from now on (once per process; a :class:`~.workers.WorkerPool` asks)."""
    if _time_collection not in gc.callbacks:
        gc.callbacks.append(_time_collection)


def slow_call_cause(cpu_before: float, usage_before: Any, gc_before: float) -> str:
    """Why this thread's call that started when ``time.thread_time()`` was ``cpu_before``,
    :func:`thread_usage` was ``usage_before`` and ``GC_SECONDS[0]`` was ``gc_before`` took long:

    - :data:`WAITED`: the thread gave up the CPU itself (a voluntary context switch: a sleep, a
      lock, I/O, the GIL), or the system gives no per-thread usage to tell;
    - :data:`WORKED`: more than :data:`INLINE_SECONDS` of its own CPU;
    - :data:`COLLECTED`: within that once the garbage collector's CPU is taken off (without a
      switch no other thread ran Python meanwhile: the collections were this thread's);
    - :data:`PREEMPTED`: little CPU and no collection: the scheduler switched it out (a busy host).

    ``thread_time`` counts the CPU (``getrusage``'s times are only brought up to date at scheduler
    ticks)."""
    cpu = time.thread_time() - cpu_before
    after = thread_usage()
    if usage_before is None or after is None or after.ru_nvcsw > usage_before.ru_nvcsw:
        return WAITED
    collected = GC_SECONDS[0] - gc_before
    if cpu - collected > INLINE_SECONDS:
        return WORKED
    return COLLECTED if collected > 0 else PREEMPTED
