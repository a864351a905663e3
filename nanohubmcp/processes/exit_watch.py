"""A blocking serve's exit bound (a single process's, a forked worker's), kept even while its event loop is blocked.

A blocking serve takes its stop signals on the event loop (``loop.add_signal_handler``): the loop stops
serving, drains and exits within its exit grace (:mod:`.exit_grace`, 10 s by default). But an ``async def`` tool that
blocks the loop (``time.sleep(40)`` instead of ``await asyncio.sleep(40)``) keeps the loop from ever seeing the
signal until it returns. :class:`ExitWatch` also takes the signal at the Python level, which runs in the main
thread between bytecodes (a ``time.sleep`` is interrupted for it and resumed), whatever the loop does: the
first signal arms a watchdog thread that ends the process at the bound if it still runs, saying why, and a
second SIGINT/SIGTERM ends it at once. A tool blocking inside one long C call (no bytecode runs) delays the
signal's Python handler too; the watchdog then starts when the call returns.

A stop that is no signal — stdio's end of input, seen off the event loop (:mod:`..transports.input_end`) — arms it too
(:meth:`ExitWatch.arm`); a stop signal after it then ends the process at once.

A forked worker of ``--workers`` has the same watchdog (``parent=``): its lines name it, and its first stop signal is
written for its parent at once (:meth:`~.workers.WorkerDeaths.stopped_by`, from the signal's Python handler, which
runs while the loop is blocked), so a worker the watchdog ends was still told to stop: not started again. When its
parent was told to stop too (:meth:`~.workers.WorkerDeaths.all_told`: it passes every stop signal on, and a
terminal's Ctrl-C reaches both), a repeated stop signal is not the worker's to act on: the parent, told again, kills
its workers at once, so the worker's line says to signal the parent (after SIGINT: to press Ctrl-C again, as the
parent's own line says). A worker sent the signal alone acts on a repeat as a single process does, and its line
names itself.

The bound is one moment, :attr:`ExitWatch.deadline` (the first stop signal, or :meth:`~ExitWatch.arm`, plus the
grace), which the rest of the stop reads too: the runner's drain and the wait for calls still running
(:func:`.process_exit.explain_exit_wait`) end :data:`~.process_exit.EXIT_MARGIN_SECONDS` before it, so a process
whose loop took the stop, even late, says why it waits and exits on its own before the watchdog would end it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from types import FrameType

from ..server.wire.quick_exit import quick_exit

NOTICE_SECONDS = 1.0
"""How long after the stop began the watchdog says, once, that the event loop has not taken it (a blocked loop:
nothing else is said until the bound), naming how to quit at once."""

WATCHDOG_STATUS = 1
"""The exit status when the watchdog ends a process still running at the bound (as the ``--workers`` parent's
when it had to kill a worker)."""


def _write(line: str) -> None:
    """``nanohubmcp: line`` on stderr with one ``write(2)``: safe inside a signal handler, where the main thread
    may be in the middle of a buffered write to ``sys.stderr``."""
    with contextlib.suppress(OSError):
        os.write(2, f"nanohubmcp: {line}\n".encode(errors="replace"))


class ExitWatch:
    """Bounds a blocking serve's exit after its first stop signal, whether or not its event loop runs.

    Args:
        grace: seconds from the first stop signal to the end of the process, at most.
        loop_took_it: whether the event loop has begun the stop (read by the watchdog, for its line).
        ignored_again: a signal that, once the stop began, neither quits at once nor stops twice
            (SIGHUP: the terminal closing; None for none).
        parent: in a forked worker of ``--workers``, its parent's process id: the first stop signal is written for
            the parent; once the parent was told to stop too, every signal after it is ignored (the parent's to
            act on) and the lines name the worker and, to quit at once, the parent; else they name the worker.
    """

    def __init__(self, grace: float, loop_took_it: Callable[[], bool], ignored_again: int | None = None, *,
                 parent: int | None = None) -> None:
        self.grace = grace
        self._loop_took_it = loop_took_it
        self._ignored_again = ignored_again
        self._parent = parent
        self._speaker = ""
        self._told: Callable[[int], None] = _nobody
        self._all_told: Callable[[], bool] = _never
        if parent is not None:  # (read here, in the main thread: the watchdog's thread imports nothing)
            from .workers import WORKER_DEATHS, worker_task

            self._speaker = f"worker {worker_task()} (pid {os.getpid()}): "
            self._told, self._all_told = WORKER_DEATHS.stopped_by, WORKER_DEATHS.all_told
        self._cause: str | None = None  # what began the stop: a signal's name, or what arm() was told
        self._by_signal = False
        self.deadline: float | None = None
        """``time.monotonic()`` at which the watchdog ends the process: when the stop began (the first stop signal,
        or :meth:`arm`) plus :attr:`grace`; None before."""
        self._armed = threading.Event()
        self._disarmed = False
        self._ended = threading.Event()  # set by disarm(): the watchdog's waits end early
        self._thread = threading.Thread(target=self._watch, name="nanohubmcp-exit-watch", daemon=True)
        self._starting = threading.Lock()  # (never taken by the signal handler)

    def install(self, signals: Iterable[int]) -> None:
        """Take ``signals`` at the Python level too (call it in the main thread after the loop's
        ``add_signal_handler``: the loop still hears of each signal through its wakeup fd). Started here, the
        watchdog thread only waits: the signal handler sets an event, starting no thread itself."""
        installed = False
        for sig in signals:
            with contextlib.suppress(ValueError, OSError):  # off the main thread: the loop alone stops
                signal.signal(sig, self._caught)
                installed = True
        if installed:
            self._start()

    def arm(self, cause: str) -> None:
        """Begin the bound for a stop that is no signal (``cause`` names it in the watchdog's line: "the end of
        input"), from any thread but a signal handler; nothing when a stop already began. Starts the watchdog
        if :meth:`install` took no signal (off the main thread)."""
        if self._cause is not None:
            return
        self.deadline = time.monotonic() + self.grace
        self._cause = cause
        self._start()
        self._armed.set()

    def _start(self) -> None:
        with self._starting:
            if self._thread.ident is None:  # (a thread starts once)
                self._thread.start()

    def disarm(self) -> None:
        """The serve returned (its own exit wait is bounded): the watchdog ends nothing after it."""
        self._disarmed = True
        self._ended.set()
        self._armed.set()

    def _caught(self, signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        if self._cause is None:
            self.deadline = time.monotonic() + self.grace  # (first: the serve's own stop reads it)
            self._cause, self._by_signal = name, True
            self._told(signum)  # (a worker's parent reads it once the worker ended, however it ended)
            self._armed.set()
            return
        if signum == self._ignored_again or self._all_told():
            return
        self._say(f"{name} again while stopping; exiting now" if name == self._cause
               else f"{name} while stopping (after {self._cause}); exiting now")
        quick_exit(128 + signum)

    def _quit_now(self, name: str) -> str:
        """How to quit at once, after the stop began at ``name`` (a signal's name, or what :meth:`arm` was told): the
        same signal again, but one ignored once the stop began (SIGHUP) and a stop that was no signal."""
        ignored = self._ignored_again is not None and name == signal.Signals(self._ignored_again).name
        again = f"{name} again" if self._by_signal and not ignored else "SIGTERM or SIGINT"
        if self._parent is None:
            return f"send {again}"
        if not self._all_told():  # the signal came to this worker alone: it takes the repeat
            return f"send {again} to this worker (pid {os.getpid()})"
        if name == "SIGINT":  # most often a terminal's Ctrl-C: as the server's own line says it
            return f"press Ctrl-C again (SIGINT to the server, pid {self._parent})"
        return f"send {again} to the server (pid {self._parent})"

    def _say(self, line: str) -> None:
        """``line`` on stderr, naming the worker in a forked worker of ``--workers`` (several share the stderr)."""
        _write(self._speaker + line)

    def _watch(self) -> None:
        self._armed.wait()
        deadline = self.deadline
        if deadline is None or self._disarmed:  # (disarmed before any stop)
            return
        name = self._cause or "the stop"
        # from the stop, not from this thread's waking
        self._ended.wait(max(0.0, min(deadline, deadline - self.grace + NOTICE_SECONDS) - time.monotonic()))
        if self._disarmed:
            return
        if not self._loop_took_it():
            self._say(f"stopping at {name}, but the event loop does not answer (an async tool blocking it?): exiting "
                      f"within {max(0.0, deadline - time.monotonic()):.0f} s; {self._quit_now(name)} to quit now")
        self._ended.wait(max(0.0, deadline - time.monotonic()))
        if self._disarmed:
            return
        if self._loop_took_it():
            why = "something still runs"
        else:
            why = ("an async tool blocks the event loop (time.sleep or other blocking work in an `async def` tool: "
                   "make it `def`, or await)")
        self._say(f"still running {self.grace:g} s after {name}: {why}; exiting")
        quick_exit(WATCHDOG_STATUS)


def _nobody(signum: int) -> None:
    """A single process tells no parent of its stop signal."""


def _never() -> bool:
    """A single process has no parent told to stop."""
    return False
