"""The tool's ``ctx`` where a job runs outside the server process (a pool process, a Dask worker).

:class:`RemoteContext` is pickled with the call. Its ``report_progress``, log methods and
``is_cancelled`` travel over a :class:`Channel` of the executor (a queue of a process pool,
Dask's event topics and ``distributed.Event``); in the server :func:`deliver` hands what arrives
to the call's real Context, which sends ``notifications/progress``/``notifications/message`` to
the client and keeps the progress with the job. Requests to the client (elicitation, sampling,
roots) need the server's connection and are refused here with a message saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import os
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from ...errors.told import Failure
from ..calls import call_log
from ..calls.call_log import LOGGED, Logged
from ..calls.progress import checked_progress
from ..wire.request import LOG_LEVELS
from ..wire.trace_context import continued
from .base import Place

if TYPE_CHECKING:
    from ..calls.context import Context
    from ..jobs.record import Job, JobKeeper

CANCEL_POLL_SECONDS = 0.25
"""How often ``is_cancelled()`` asks the channel at most (it may cost a network round trip)."""

JobTrace = tuple[str, dict[str, str]] | tuple[str, dict[str, str], Callable[[str], str]]
"""What continues a job's trace where it runs (:func:`job_trace`): its tool's name, the W3C carrier (empty: not
traced), and for a call with ``Secret`` values what hides them (a failure's span, and what a Dask worker or a
batch job keeps of it, tells them as ``***``)."""


class HiddenFailure(Exception):
    """What a Dask job with ``Secret`` values raised, as its :class:`~nanohubmcp.errors.told.Failure` tells it:
    the message is the tool's exception's (:func:`~nanohubmcp.errors.message_of`: its type leads where its text
    says nothing, ``KeyError: '***'``) with their values hidden, the traceback its frames. Raised on the worker in
    the exception's place (:func:`hidden_failure`), so that what Dask logs (``distributed.worker``'s ``Compute
    Failed ... Exception:``) and keeps for the erred task (the scheduler, ``Client.get_events``) never quotes
    one; the server answers its message as the call's error."""


class Channel(Protocol):
    """A job's way back to the server, usable in the process where the job runs."""

    def send(self, job_id: str, kind: str, payload: list[Any]) -> None:
        """Send ``("progress", [progress, total, message])`` or ``("log", [level, message, data])``."""

    def cancelled(self) -> bool:
        """True once the job was cancelled."""


class RemoteCancel:
    """``ctx.cancel_event`` of a remote job: ``is_set()`` and a polling ``wait(timeout)``."""

    def __init__(self, context: RemoteContext) -> None:
        self._context = context

    def is_set(self) -> bool:
        return self._context.is_cancelled()

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(CANCEL_POLL_SECONDS)
        return True


class RemoteContext:
    """What a job's function gets as ``ctx`` on another process or machine.

    Attributes:
        job_id, request_id, session_id, progress_token, protocol_version, inline_limit: as on ``Context``.
    """

    def __init__(
        self,
        job_id: str,
        channel: Channel,
        executor: str,
        *,
        request_id: str | int | None = None,
        session_id: str | None = None,
        progress_token: str | int | None = None,
        protocol_version: str = "",
        inline_limit: int | None = None,
    ) -> None:
        self.job_id = job_id
        self.request_id = request_id
        self.session_id = session_id
        self.progress_token = progress_token
        self.protocol_version = protocol_version
        self.inline_limit = inline_limit
        self._channel = channel
        self._executor = executor
        self._last: float | None = None
        self._cancelled = False
        self._asked = 0.0

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"ctx.{name} is not available while the job runs on the {self._executor!r} executor "
            "(outside the server process); there ctx offers report_progress, debug/info/warning/error/log, "
            "is_cancelled and cancel_event. Use job_executor='threads' for tools that ask the client."
        )

    # -- progress and logging ---------------------------------------------------------------
    def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> Logged:
        """Send progress to the server (and its client); checked as in the server's process
        (:func:`~..calls.progress.checked_progress`: numbers, finite, not decreasing). Returns what a log method
        returns (``await ctx.report_progress(...)`` works too)."""
        self._last = checked_progress(progress, total, self._last, message)
        self._channel.send(self.job_id, "progress", [progress, total, message])
        return LOGGED

    def log(self, level: str, message: str, **data: Any) -> Logged:
        """Send a log message to the server (and its client, at the level it asked for); awaiting what it returns
        does nothing."""
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        self._channel.send(self.job_id, "log", [level, message, data])
        return LOGGED

    debug = call_log.debug
    info = call_log.info
    warning = call_log.warning
    error = call_log.error

    # -- cancellation -----------------------------------------------------------------------
    def is_cancelled(self) -> bool:
        """True once the client cancelled the job (asked at most every 0.25 s)."""
        now = time.monotonic()
        if not self._cancelled and now - self._asked >= CANCEL_POLL_SECONDS:
            self._asked = now
            self._cancelled = self._channel.cancelled()
        return self._cancelled

    @property
    def cancel_event(self) -> RemoteCancel:
        """The cancellation flag: ``is_set()`` and ``wait(timeout)``."""
        return RemoteCancel(self)


def remote_context(job: Job, context: Context | None, channel: Channel, executor: str) -> RemoteContext:
    """The stand-in for ``context`` (the call's Context, or None) of ``job``."""
    if context is None:
        return RemoteContext(job.id, channel, executor)
    return RemoteContext(
        job.id,
        channel,
        executor,
        request_id=context.request_id,
        session_id=context.session_id,
        progress_token=context.progress_token,
        protocol_version=context.protocol_version,
        inline_limit=context.inline_limit,
    )


def run_remote(fn: Callable[..., Any], kwargs: dict[str, Any], is_coroutine: bool,
               trace: JobTrace | None = None) -> Any:
    """Call the tool function where the job runs (a coroutine function on a loop of its own).

    ``trace``: ``(tool name, W3C carrier)`` of a traced job (:func:`job_trace`): the function
    runs in a span ``run_job {tool}`` continuing the server's trace (imports OpenTelemetry only
    then; without a tracer provider configured there the server's span is still the current one).
    """
    if trace is None:
        return _run(fn, kwargs, is_coroutine)
    tool, carrier, *_ = trace
    hide = hiding_of(trace)
    tell = functools.partial(Failure, hide=hide) if hide else None
    with continued(carrier, f"run_job {tool}", {"gen_ai.tool.name": tool}, tell):
        return _run(fn, kwargs, is_coroutine)


def hiding_of(trace: JobTrace | None) -> Callable[[str], str] | None:
    """What hides the job's ``Secret`` values in a text (the third member of ``trace``), or None when it has none."""
    return trace[2] if trace is not None and len(trace) > 2 else None


def hidden_failure(exc: Exception, trace: JobTrace | None) -> Exception:
    """``exc``, what the job's function raised, as it may leave where the job runs: itself for a job without
    ``Secret`` values, else a :class:`HiddenFailure` telling it with them hidden, ``exc``'s traceback its own."""
    hide = hiding_of(trace)
    if hide is None:
        return exc
    return HiddenFailure(Failure(exc, hide).message).with_traceback(exc.__traceback__)


def place() -> Place:
    """Where this runs: ``(host name, pid, thread name)``, which a job's wrapper sends back with the
    function's value, for the job's ``where`` (``base.ran_away``); called on the thread that runs
    the function."""
    return socket.gethostname(), os.getpid(), threading.current_thread().name


def job_trace(job: Job) -> JobTrace | None:
    """What :func:`run_remote` needs to continue ``job``'s trace where it runs (the ``trace`` argument every
    executor passes along with the function): ``(tool, carrier)``, and the call's
    :class:`~nanohubmcp.schema.secret_text.SecretText` third when it has ``Secret`` values — traced or not (the
    carrier then empty): the span there, a Dask worker's failure (:func:`hidden_failure`) and a batch job's
    result file tell a failure quoting one as ``***``, as the server does. None: neither traced nor secret."""
    hide = job.telling.hide if job.telling is not None else None
    carrier = job.trace_context or {}
    if hide:
        return job.tool, carrier, hide
    return (job.tool, carrier) if carrier else None


def _run(fn: Callable[..., Any], kwargs: dict[str, Any], is_coroutine: bool) -> Any:
    value = fn(**kwargs)
    if is_coroutine or inspect.isawaitable(value):
        return asyncio.run(_awaited(value))
    return value


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value


def deliver(context: Context | None, store: JobKeeper | None, job_id: str, kind: str, payload: list[Any]) -> None:
    """In the server: hand a message from a remote job to its Context (or, for a job taken
    back after a restart, which has none, record its progress in the store)."""
    if kind == "progress":
        progress, total, message = payload
        if context is not None:
            with contextlib.suppress(ValueError):  # a value that did not increase: dropped, as the spec wants
                context.report_progress(progress, total, message)
        elif store is not None:
            store.progress(job_id, progress, total, message)
    elif kind == "log" and context is not None:
        level, message, data = payload
        context.log(level, message, **(data or {}))
