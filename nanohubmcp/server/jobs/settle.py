"""What becomes of a job whose run ended: its server stopped, or its process died.

A job that was running when its process died is reported as failed (:data:`SERVER_STOPPED`),
unless its executor still holds it (Dask, a batch system) and takes it back (:data:`Reattach`);
one another live process of the server runs is left to that process (:func:`revive`). A server
that stops while its process lives on (a notebook's ``%mcp stop``, a restart after a setting
changed) does not fail a job whose function runs on in a thread of the process: the tool-call
service follows it (:data:`HandOver`), its end is stored when it comes, and the restarted server
reads it (:func:`stop_run`); when the process itself ends (SIGTERM, Ctrl-C), those jobs are
told to cancel (:func:`process_ending`); when it ends without waiting for them (a notebook kernel's shutdown),
they are cut short at once (:func:`process_ended`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .record import FAILED, TERMINAL, Job

if TYPE_CHECKING:
    import asyncio

    from .leftovers import Leftovers
    from .record import JobKeeper
    from .runs import Runs

__all__ = ["CLIENT_CLOSED", "SERVER_STOPPED", "HandOver", "JobHooks", "Reattach", "cut_short", "loop_ending",
           "process_ended", "process_ending", "revive", "stop_run"]

SERVER_STOPPED = "the server stopped while this job ran: it did not complete; it may be run again"
"""The status message of a job failed because its run ended (:func:`cut_short`)."""

CLIENT_CLOSED = "the testing client that started this job closed while it ran"
"""The status message of a job failed because the event loop of the testing client that started it ended."""

Reattach = Callable[[Job], "bool | None"]
"""An executor's hook: take back a job whose server process died — True if it did, False if
it cannot (the job fails), None if it cannot tell yet (asked again later)."""

HandOver = Callable[[Job], bool]
"""The tool-call service's hook at server stop: True when it keeps following ``job``, whose
function runs on in this process, and stores its end (the job is then not failed)."""


class JobHooks(Protocol):
    """The job store's hooks into its server, one object (the job service): :data:`Reattach`, :data:`HandOver`, and
    the folders the executors keep jobs in."""

    def reattach(self, job: Job) -> bool | None: ...

    def hand_over(self, job: Job) -> bool: ...

    def folders(self) -> Leftovers: ...


def cut_short(job: Job) -> None:
    """End ``job``, whose run the server's stop or its process's end cut short: ``failed`` with
    :data:`SERVER_STOPPED` — the one end of every such job, whatever ran it (a worker thread, a job
    process, an ``async def`` tool on the loop, a Rappture program or a Sim2L kernel the stop killed).
    Never ``cancelled``: that is a client's cancel (``tasks/cancel``, ``cancel_job``), and a client
    reading it would not run the job again. A job that ended first keeps its end."""
    job.finish(FAILED, message=SERVER_STOPPED)


def revive(job: Job, *, runs: Runs, reattach: Reattach | None, keeper: JobKeeper, live: dict[str, Job]) -> Job:
    """``job`` as read from its record, settled if its run ended: taken back by its executor (kept
    by ``keeper``, followed in ``live``), failed, or left as it is — ended, of this run, another
    live process's, or one its executor cannot tell of yet (asked again on the next look)."""
    if job.status in TERMINAL or job.runner == runs.runner:
        return job
    if runs.elsewhere(job.runner):
        return job  # another live server process runs it
    # A dead process's job, or one an earlier run of this process left to its executor at its
    # stop (not followed here any more: followed jobs are in ``live``).
    taken = reattach(job) if job.executor_ref and reattach is not None else False
    if taken is None:
        return job  # its executor may hold it: asked again on the next look
    job.store = keeper
    if taken:
        live[job.id] = job
        return job
    cut_short(job)
    return job


def stop_run(live: dict[str, Job], hand_over: HandOver | None) -> None:
    """Settle every running job of ``live`` at the server's stop.

    A job its executor keeps running without this process (``executor_ref`` set: Dask) is left
    as it is, for a restarted server to take back (and dropped from ``live``). One whose function
    runs on in this process (a worker thread) is handed over (``hand_over``): it stays working and
    its end is stored when it comes. Every other one fails with :data:`SERVER_STOPPED`.
    """
    for job in list(live.values()):
        if job.status in TERMINAL or job.handed_over:
            continue
        if job.executor_ref is None and hand_over is not None and hand_over(job):
            job.handed_over = True
        elif job.executor_ref is None:
            if job.request is not None:
                job.request.cancel(SERVER_STOPPED)
            cut_short(job)
        else:  # left to its executor: the record stays "working" for the next server
            del live[job.id]
            job.abandoned = True
            job.store = None
        if job.task is not None and not job.task.done():
            job.task.cancel()


def loop_ending(live: dict[str, Job], loop: asyncio.AbstractEventLoop, hand_over: HandOver | None,
                carry_over: HandOver | None = None, started: Callable[[Job], bool] | None = None,
                *, ends: bool = True) -> list[asyncio.Task[Any]]:
    """Settle the running jobs of ``live`` whose task runs on ``loop``, a testing client's event loop that
    ends while the server serves on another (``in_memory``'s block ended, a ``MemoryClient`` closed):
    those ``started`` accepts (None: all). One whose function runs on in this process is handed over
    (``hand_over``: its end is stored when it comes); one whose executor can wait for it elsewhere is
    followed on the server's loop (``carry_over``: a Dask job); any other fails with :data:`CLIENT_CLOSED`
    when ``ends`` (the loop stops now: ``in_memory``), else is left running on ``loop`` (a ``MemoryClient``
    closed, its loop may go on: such a job fails only if the loop's end cancels it). Called on ``loop``;
    returns the jobs' tasks, cancelled, for it to let them end.

    .. versionchanged:: 1.0
       ``carry_over``, ``started`` and ``ends``.
    """
    cancelled: list[asyncio.Task[Any]] = []
    for job in list(live.values()):
        task = job.task
        if job.status in TERMINAL or job.followed_elsewhere or not _runs_on(task, loop) or \
                (started is not None and not started(job)):
            continue
        assert task is not None  # (for mypy: _runs_on)
        if hand_over is not None and hand_over(job):
            job.handed_over = True
        elif carry_over is None or not carry_over(job):
            if not ends:
                continue  # it runs on the loop, which goes on for now
            if job.request is not None:
                job.request.cancel(CLIENT_CLOSED)
            job.finish(FAILED, message=CLIENT_CLOSED)
        if not task.done():
            task.cancel()
            cancelled.append(task)
    return cancelled


def _runs_on(task: Any, loop: asyncio.AbstractEventLoop) -> bool:
    """Whether ``task`` is an asyncio task of ``loop`` (a job followed from another thread has a
    ``concurrent.futures.Future`` there: :func:`~..executors.service.follow_reattached`)."""
    get_loop = getattr(task, "get_loop", None)
    return get_loop is not None and get_loop() is loop


def process_ending(live: dict[str, Job]) -> int:
    """The process ends (a blocking serve stopped by SIGTERM or Ctrl-C): tell every job of ``live``
    handed over at the stop to cancel (its function's ``ctx.is_cancelled()`` turns true), so a tool
    that looks returns before the exit. Its end is then stored as :func:`cut_short`'s, what a job the
    process's end cuts short answers (the hand-over's ``ended``). Returns how many were told.
    """
    told = 0
    for job in list(live.values()):
        if job.handed_over and job.status not in TERMINAL and job.request is not None:
            job.request.cancel(SERVER_STOPPED)
            told += 1
    return told


def process_ended(live: dict[str, Job]) -> int:
    """The process ends now without waiting for its jobs (a notebook kernel's shutdown: its kernel manager's
    SIGTERM follows within 2.5 s): every job of ``live`` that has not ended — handed over at the stop, or not
    settled by it at all (the stop's drain had not run on a loop a cell held: review r32 F8) — is told to
    cancel and cut short now (:func:`cut_short`: ``failed``, its end and provenance record stored with the
    time of the stop), not left ``working`` until a server opens the state folder again; one its executor
    keeps running without this process (``executor_ref``: Dask) is left for a restarted server, as
    :func:`stop_run` leaves it. A function that returns later, or a drain that runs later, changes nothing (a
    job keeps its first end). Returns how many were cut short."""
    ended = 0
    for job in list(live.values()):
        if job.status not in TERMINAL and (job.handed_over or job.executor_ref is None):
            if job.request is not None:
                job.request.cancel(SERVER_STOPPED)
            cut_short(job)
            ended += 1
    return ended
