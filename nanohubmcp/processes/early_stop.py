"""A forked worker's stop signals from its fork until its event loop takes them: a stop then is a clean stop.

The ``--workers`` parent forks with SIGINT, SIGTERM and SIGHUP held blocked (:mod:`.supervisor`). Its worker gave
them their default action as it unblocked them, until its event loop took them (:meth:`Runner.serve_forever
<..serving.runner.Runner.serve_forever>`): a stop signal in that moment (the shared store's first read, the socket's
bind, the loop's start) ended the worker at once, and its ``atexit`` handlers (a Rappture tool's program kill, a job
store's flush, the app's own) never ran.

Now the worker, before it unblocks them, gives them a handler that only records the first one and tells the parent
(:func:`take_early`; :meth:`~.workers.WorkerDeaths.stopped_by`, one byte written): raising nothing, it is safe
wherever the interpreter runs it, an at-fork hook or a garbage collector's callback included. Once the event loop
and the exit watch (:mod:`.exit_watch`) took the signals, :func:`replay` raises that one again: it stops the worker
as one sent then would, through the drain and the process's exit. (The exit's bound counts from the replay: the
worker's start takes milliseconds, and its parent's kill stays the backstop.)
"""

from __future__ import annotations

import signal
from types import FrameType

from .workers import WORKER_DEATHS

__all__ = ["replay", "take_early", "taken"]

_TAKEN: list[frozenset[int]] = []
"""The stop signals :func:`take_early` took in this process (none outside a forked worker)."""
_RECEIVED: list[int] = []
"""The first of them received since, until :func:`replay`."""


def take_early(signals: frozenset[int]) -> None:
    """In a worker just forked, ``signals`` (its stop signals, :func:`~.workers.stop_signals` in its parent) still
    blocked: from now on the first of them to come is recorded, for :func:`replay`, and told to the parent; the
    caller unblocks them next. Call it in the main thread, once :meth:`~.workers.WorkerDeaths.forked` named the
    worker."""
    _TAKEN[:] = [signals]
    _RECEIVED.clear()
    for sig in signals:
        signal.signal(sig, _record)


def taken() -> frozenset[int]:
    """The stop signals :func:`take_early` took in this process, for its event loop to take (empty outside a forked
    worker; :func:`~.workers.stop_signals` read now would leave SIGHUP out, handled here)."""
    return _TAKEN[0] if _TAKEN else frozenset()


def replay() -> None:
    """Once the event loop and the exit watch took the stop signals: the first received since :func:`take_early`,
    if any, is raised again in this thread, to be taken as one sent now; nothing otherwise. Each is replayed once."""
    if _RECEIVED:
        signum = _RECEIVED[0]
        _RECEIVED.clear()
        signal.raise_signal(signum)


def _record(signum: int, frame: FrameType | None) -> None:
    if not _RECEIVED:  # (a repeat before the loop runs is the same stop)
        _RECEIVED.append(signum)
        WORKER_DEATHS.stopped_by(signum)
