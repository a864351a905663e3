"""What runs inside a batch job (a Slurm job on a compute node): the tool function, with its
``ctx`` and its tqdm bars talking back through the job's folder.

:func:`run_in_job` is the callable a batch executor submits (pickled with the tool function and
its arguments). It never raises for the tool: what the function raised comes back as
``("raised", message, place)`` so the server reports the tool's own message (the scheduler's runner
would otherwise turn it into a traceback); ``place`` is where the function ran (host, pid, thread:
``remote.place()``), for the job's provenance record.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from ...errors import message_of
from ...errors.told import Failure
from .base import Place
from .job_files import FileChannel
from .job_progress import relaying
from .remote import JobTrace, hiding_of, place, run_remote

RETURNED = "returned"
RAISED = "raised"


def run_in_job(
    fn: Callable[..., Any], kwargs: dict[str, Any], is_coroutine: bool, folder: str, job_id: str,
    trace: JobTrace | None = None, warn_after: float | None = None,
) -> tuple[str, Any, Place]:
    """Run the tool function in the batch job; ``(RETURNED, value, place)`` or ``(RAISED, message,
    place)``, ``place`` the job's ``(host, pid, thread)`` (:func:`.remote.place`; a server reads a
    job's 2-tuple of an earlier version too).

    ``trace`` continues the server's trace in the job (see ``remote.run_remote``); ``warn_after``:
    seconds into the run before which the scheduler's warning signal is held back (None: told at
    once)."""
    channel = FileChannel(folder)
    started = time.monotonic()

    def warn() -> None:
        channel.send(job_id, "log", ["warning", "the batch job is close to its time limit", {}])

    def near_the_limit(signum: int, frame: FrameType | None) -> None:
        # The scheduler's warning signal (Slurm: --signal, USR2 before the time limit). The
        # function keeps running; the scheduler ends it at the limit, and the server says so.
        # Slurm may send it up to a minute early (its event resolution): under a short limit,
        # at once; the warning then waits until its time.
        early = (warn_after or 0.0) - (time.monotonic() - started)
        if early > 1.0:
            timer = threading.Timer(early, warn)
            timer.daemon = True
            timer.start()
        else:
            warn()

    with contextlib.suppress(ValueError, OSError):  # not the main thread, or no such signal here
        signal.signal(signal.SIGUSR2, near_the_limit)
    here = place()
    with relaying(channel, job_id):  # its tqdm bars: the job's progress
        try:
            return RETURNED, run_remote(fn, kwargs, is_coroutine, trace), here
        except Exception as exc:  # its message, a Secret value hidden (the result file keeps it until tidied)
            hide = hiding_of(trace)
            return RAISED, Failure(exc, hide).message if hide else message_of(exc), here
