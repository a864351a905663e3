"""How a process whose blocking serve stopped exits: within its exit grace of the stop (:mod:`.exit_grace`).

What a process supervisor (systemd, Slurm, a container runtime) counts on once it sent SIGTERM. After
:meth:`Runner.serve_forever <nanohubmcp.serving.runner.Runner.serve_forever>` or the stdio
transport returns, :func:`explain_exit_wait` waits, bounded, for the sync tool calls still running
and says so; in a forked worker of ``--workers``, :func:`exit_by_the_grace` ends the process if its
stop outlasts the grace. What serving is and how it stops (the drain) are the runner's
(:mod:`..serving.runner`); the workers themselves are :mod:`.workers`'.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from ..server.wire.quick_exit import quick_exit
from .exit_grace import DEFAULT_EXIT_GRACE_SECONDS
from .workers import HANGUP, WORKER_DEATHS, say, stop_signals, what_runs, worker_task

if TYPE_CHECKING:
    from .stopping import Stopping

log = logging.getLogger("nanohubmcp")

EXIT_GRACE_SECONDS = DEFAULT_EXIT_GRACE_SECONDS
"""The exit grace by default (``run(exit_grace=)``, ``nanohubmcp run --exit-grace``: :mod:`.exit_grace`), each
function here taking the one in force as ``grace``: the longest a blocking serve's process takes to exit once its
stop began (SIGTERM, Ctrl-C, stdio's end of input), what a process supervisor (systemd, Slurm, a container
runtime) can count on. A process (a
single one, or a forked worker of ``--workers``) stopped by a signal keeps it with a watchdog
(:class:`.exit_watch.ExitWatch`, counted from the signal); its drain (:func:`drain_step`) and
the wait for sync calls still running end
:data:`EXIT_MARGIN_SECONDS` before it (:func:`exit_deadline`), then the calls are left behind (their worker
threads are daemons: a stuck tool cannot hold the process)."""
EXIT_MARGIN_SECONDS = 1.0
"""What of :data:`EXIT_GRACE_SECONDS` is left for the process's own exit after the drain and the wait for sync
calls: the explanation's lines are said, the serve returns and disarms the watchdog, all in this second, so the
watchdog (at :data:`EXIT_GRACE_SECONDS`) never cuts a process that is already leaving on its own."""

DRAIN_SECONDS = 2.0
"""On stop, the longest each step of a transport's drain takes (HTTP's :func:`.drain.drain`, stdio's) when no exit
deadline bounds it (a background serve's ``server.stop()``), and each step after the first one of a blocking
serve's: the running calls' moment to answer, then the answers of those cut off
(:class:`~nanohubmcp.errors.ServerStopping`), the state store's closing, the connections' closing. A blocking
serve's first step lasts until shortly before its deadline (:func:`drain_step`)."""
DRAIN_KEPT = 0.5
"""The part of what is left before the exit's deadline that a blocking serve's first drain step (the running calls'
moment to answer) leaves to what follows it, at most :data:`ANSWERS_SECONDS` (the answers of the calls cut off, the
connections' closing, the wait for sync calls still running: :func:`explain_exit_wait`): at a short exit grace the
first step alone took it all, the answers got no time to be written and the lines promised waits of 0.0 s."""
ANSWERS_SECONDS = 1.0
"""The most a blocking serve's first drain step leaves to the steps after it (:data:`DRAIN_KEPT`): the answers of the
calls cut off are written in milliseconds, and a call still running that long after the stop gets no result anyway.
So the running calls have the exit grace less 2 s to answer with their result (8 s of the default 10 s: the
process's exit keeps :data:`EXIT_MARGIN_SECONDS`), as gunicorn's ``--graceful-timeout`` gives requests in flight."""

NOTICE_AFTER_SECONDS = 0.5
"""How long after a stop's drain begins a single process says what it waits for (:meth:`StopNotice.draining`):
the tool calls that answer sooner (a quick call whose client closed stdin right after sending it) are not
waited for, and no line says they were (trial60 F3)."""


def drain_step(until: float | None, *, first: bool = False) -> float:
    """How long, in seconds, the next step of a stop's drain may take. With ``until`` (a ``time.monotonic()``, a
    blocking serve's :func:`exit_deadline` less :data:`EXIT_MARGIN_SECONDS`), what is left before it: all of it
    but :data:`DRAIN_KEPT` of it, at most :data:`ANSWERS_SECONDS`, for the ``first`` step (the running calls'
    moment to answer: a longer exit grace gives them longer), at most :data:`DRAIN_SECONDS` for another; 0 when
    nothing is left. ``until`` None (no deadline): :data:`DRAIN_SECONDS`.

    Example:
        >>> drain_step(None), drain_step(time.monotonic() - 1)
        (2.0, 0.0)
    """
    if until is None:
        return DRAIN_SECONDS
    left = max(0.0, until - time.monotonic())
    if first:
        return left - min(ANSWERS_SECONDS, left * DRAIN_KEPT)
    return min(DRAIN_SECONDS, left)


def exit_deadline(core: Stopping | None = None, watched: float | None = None,
                  grace: float = EXIT_GRACE_SECONDS) -> float:
    """The ``time.monotonic()`` by which the process must be gone: ``watched``, the exit watchdog's own
    deadline (:attr:`.exit_watch.ExitWatch.deadline`, the first stop signal plus the exit grace), or ``grace``
    seconds after the stop of ``core`` began, whichever is first (from now when neither is known). The drain
    and the wait for calls end :data:`EXIT_MARGIN_SECONDS` before it."""
    began = core.shutdown.began_at if core is not None else None
    known = [at for at in (watched, None if began is None else began + grace) if at is not None]
    return min(known) if known else time.monotonic() + grace


def exit_by_the_grace(loop: asyncio.AbstractEventLoop, grace: float = EXIT_GRACE_SECONDS) -> None:
    """In a forked worker whose stop began: end the process ``grace`` seconds later if it is still
    running (its parent waits for it, and a supervisor counts on the grace). A worker's drain is bounded, but
    one was seen, rarely, still waiting on its loop after it, ignoring further signals: its parent then
    exited and left it holding its port's share of connections."""

    def overdue() -> None:
        try:  # (read from another thread: a best guess at what it waits for, for the log)
            waiting = sorted({repr(task.get_coro())[:120] for task in asyncio.all_tasks(loop)})[:8]
        except RuntimeError:
            waiting = []
        log.warning("worker %d: still stopping %s s after its stop began (waiting on %s); exiting",
                    os.getpid(), f"{grace:g}", ", ".join(waiting) or "nothing known")
        logging.shutdown()
        quick_exit(0)

    timer = threading.Timer(grace, overdue)
    timer.daemon = True
    timer.start()


def quit_now_hint(stopped_by: int | None) -> str:
    """How to end the wait for running calls at once, after a stop by the signal ``stopped_by`` (None: the end of
    stdio's input): the same signal again, but SIGHUP, which is ignored then (its terminal is gone)."""
    if stopped_by == signal.SIGINT:
        return "press Ctrl-C again to quit now"
    if stopped_by == signal.SIGTERM:  # a service manager's stop: no Ctrl-C advice in its journal
        return "send SIGTERM again to quit now"
    return "send SIGTERM or SIGINT to quit now"


def explain_exit_wait(core: Stopping | None = None, stopped_by: int | None = None, *,
                      watched: float | None = None, grace: float = EXIT_GRACE_SECONDS, said: bool = False,
                      until: float | None = None) -> None:
    """After a blocking serve ends: wait for tool calls still running, saying so, until the process
    must exit (:func:`exit_deadline` of ``core``, ``watched``, the exit watchdog's deadline if it was armed, and
    ``grace``, the exit grace in seconds, less :data:`EXIT_MARGIN_SECONDS`: the lines are said before the watchdog
    would end the process).
    ``stopped_by``, the signal that stopped it (None: not known, or stdio's end of input), picks the words
    saying how to quit at once (:func:`quit_now_hint`). The caller puts the signals' handlers back afterwards
    (:mod:`.found_handlers`).

    A sync tool runs on a worker thread that cannot be interrupted. Its calls were told to
    cancel when the server stopped, and so are now the ``@async_tool`` jobs of ``core`` whose
    function still runs in this process (their end is stored as "the server stopped while this
    job ran"); those that return in time finish their work, the rest are left behind when the
    process exits (the workers are daemon threads), so a tool that never returns cannot keep a
    stopped server alive. A second Ctrl-C (or SIGTERM) ends the process at once; a SIGHUP (the terminal
    closing) is ignored then, the stop having begun. A forked worker of ``--workers`` says nothing: it
    tells its parent how many calls and jobs it waits for, counted apart as the lines count them
    (:func:`count_running`), none included, and the parent stopped by Ctrl-C says so once for all
    (:meth:`.workers.WorkerDeaths.calls_left`). ``said``: the drain already said what the stop waits for
    (:meth:`StopNotice.draining`): the line is not said again. ``until``: the stop's own bound, a
    ``time.monotonic()`` (``stop(within=)`` from another thread): the wait ends by then if that is earlier.
    """
    from ..server.calls.invoke import RUNNING

    def wait_until() -> float:
        deadline = exit_deadline(core, watched, grace) - EXIT_MARGIN_SECONDS
        return deadline if until is None else min(deadline, until)

    running = [call for call in list(RUNNING) if not call.done()]
    if threading.current_thread() is not threading.main_thread():
        return
    settling = core.job_service.settling() if core is not None else []  # (a job's end being stored: not cut off)
    if not running:
        if worker_task() is not None:
            WORKER_DEATHS.calls_left(0, 0)  # (its parent waits for every worker's count before it says the sum)
        if settling:
            concurrent.futures.wait(settling, timeout=max(0.0, wait_until() - time.monotonic()))
        return
    deadline = wait_until()
    jobs: set[Any] = set()
    if core is not None:
        core.job_service.process_ending()  # the jobs handed over at the stop: the process will not outlive them
        jobs = core.job_service.work()

    def quit_now(signum: int, frame: Any) -> None:
        quick_exit(128 + signum)

    # Handlers first: a Ctrl-C sent as soon as the message shows must already quit.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, quit_now)
    if HANGUP is not None and HANGUP in stop_signals():  # (its default action would end the wait, silently)
        signal.signal(HANGUP, signal.SIG_IGN)
    wait = max(0.0, deadline - time.monotonic())
    if worker_task() is not None:  # a forked worker: its parent says it once for all (WorkerDeaths.calls_left)
        WORKER_DEATHS.calls_left(*count_running(running, jobs))
    elif round(wait, 1) > 0 and not said:  # (the drain took the whole wait, at a short grace: no wait to promise)
        say(_waiting_line(what_runs(*count_running(running, jobs)), wait, grace, stopped_by))
    _, left = concurrent.futures.wait([*running, *settling], timeout=wait)
    left = {work for work in left if work in running}
    if left and worker_task() is None:
        calls, jobs_left = count_running(left, jobs)
        say(f"{what_runs(calls, jobs_left, running=False)} still running; exiting without them (within {grace:g} s "
            "of the stop)")


def count_running(work: Iterable[Future[Any]], jobs: Collection[Future[Any]]) -> tuple[int, int]:
    """Of the pool work ``work`` (:data:`~nanohubmcp.server.calls.invoke.RUNNING`'s futures), how many not done are
    tool calls and how many jobs, as ``(calls, jobs)``: a job is one of ``jobs``, the functions of jobs running in
    this process (:meth:`JobService.work <nanohubmcp.server.executors.job_service.JobService.work>`: handed over at
    the stop, or cancelled by their client and running on), anything else a call. The one rule of a stop's lines, the
    first one and the closing one (trial53 F1: a cancelled job was counted a call).

    Example:
        >>> done, running = Future(), Future()
        >>> done.set_result(None)
        >>> count_running([done, running, Future()], {running})
        (1, 1)
    """
    calls = jobs_running = 0
    for future in work:
        if future.done():
            continue
        if future in jobs:
            jobs_running += 1
        else:
            calls += 1
    return calls, jobs_running


def _waiting_line(what: str, wait: float, grace: float, stopped_by: int | None) -> str:
    """The line of a single process waiting ``wait`` seconds at most for ``what`` (``1 running tool call(s)``)."""
    return (f"stopped; waiting for {what} to return (they were told to cancel; at most {wait:.1f} s more, so that the "
            f"process exits within {grace:g} s of the stop) - {quit_now_hint(stopped_by)}")


class StopNotice:
    """What a blocking serve's stop says, once, of the tool calls it waits for: as its drain begins
    (:meth:`draining`; the running calls' moment to answer lasts seconds, :func:`drain_step`) or, when none ran then,
    after the serve (:func:`explain_exit_wait`, told :attr:`said`).

    Args:
        grace: the exit grace in seconds, which the line names.
        stopped_by: the signal that stopped the serve, read when the drain begins (None: not known, or stdio's end
            of input), which picks how the line says to quit at once (:func:`quit_now_hint`).
    """

    def __init__(self, grace: float, stopped_by: Callable[[], int | None]) -> None:
        self.grace = grace
        self._stopped_by = stopped_by
        self.said = False
        """Whether :meth:`draining` said the line."""

    async def draining(self, core: Stopping, until: float) -> None:
        """The drain of ``core``'s stop begins, to end by ``until`` (a ``time.monotonic()``): with tool calls
        still running :data:`NOTICE_AFTER_SECONDS` later (half of what is left at most), a single process says what
        it waits for, at most until then, and how to quit at once (``nanohubmcp: stopped; waiting for 1 running
        tool call(s) to return (...) - send SIGTERM again to quit now``), the functions of the jobs handed over at
        the stop that still run in this process named too (``1 running tool call(s) and 2 running job(s)``: the
        process waits for them as well, review r28 #8); calls that answer within that moment (stdin closed right
        after a quick call) get no line: they were not waited for (trial60 F3: the line said they were told to
        cancel, and the call then answered normally). A forked worker of ``--workers`` says nothing but tells its
        parent at once how many calls and jobs, counted apart alike (:meth:`.workers.WorkerDeaths.calls_left`),
        which says it once for all at Ctrl-C."""
        def calls_running() -> int:
            return sum(1 for request in core.in_flight if request.message.method == "tools/call")

        if not calls_running():
            return
        from ..server.calls.invoke import RUNNING

        if worker_task() is not None:
            _, jobs = count_running(list(RUNNING), core.job_service.work())
            WORKER_DEATHS.calls_left(calls_running(), jobs)
            return
        moment = time.monotonic() + min(NOTICE_AFTER_SECONDS, max(0.0, until - time.monotonic()) / 2)
        while calls_running() and time.monotonic() < moment:
            await asyncio.sleep(0.02)
        calls = calls_running()
        if not calls:
            return
        _, jobs = count_running(list(RUNNING), core.job_service.work())  # (the calls: those in flight, above)
        wait = max(0.0, until - time.monotonic())
        if round(wait, 1) > 0:  # (none left, the loop having taken the stop late: said after, if at all)
            say(_waiting_line(what_runs(calls, jobs), wait, self.grace, self._stopped_by()))
            self.said = True

