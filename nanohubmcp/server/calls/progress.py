"""One call's progress: ``notifications/progress`` for the client, ``call_progress`` for observers.

A tool call's :class:`CallProgress` is made when something first reports (and kept in the
request); a call that reports nothing makes none. Two sources feed it: ``ctx.report_progress``
and, when the tool's code uses tqdm, tqdm's bars (:mod:`.tqdm_progress`). It sends
``notifications/progress`` when the client gave a progress token, and publishes ``call_progress``
on the server's event bus (the notebook's cell bar and the JupyterLab panel listen) whether or
not it did.

The call in flight is found through :data:`CURRENT`, a context variable set around the
function's run, so code that never sees a Context (a tqdm loop) still reaches its own call
(:func:`current`). Worker threads inherit it because calls run in a copy of the caller's context.

A call answered while its work goes on (an ``@async_tool`` call's job handle) no longer sends
notifications with its token (:func:`end_notifications`): its progress is kept with the job only.
A 2025-11-25 task's token stays valid until the task ends (Basic § Utilities § Tasks, "Task
Progress Notifications"), so a task-augmented call keeps sending until then.
A call its client cancelled (``notifications/cancelled``, a closed stream: the request is *withdrawn*)
sends none from the cancel on (Basic § Utilities § Cancellation: the receiver stops); its reports still
reach observers and a job's record.

Source: MCP 2025-11-25, Basic § Utilities § Progress ("The progress value MUST increase with
each notification"; notifications "MUST only reference tokens that ... are associated with an
in-progress operation": they stop once the request has its response).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import math
import numbers
import threading
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import notified_text
from ...protocol import jsonrpc
from ..wire.request import RAN_ON, RequestContext, Slot

if TYPE_CHECKING:
    from ..jobs.record import JobKeeper
    from ..wire.events import EventBus

__all__ = [
    "ANSWERED",
    "CURRENT",
    "NOTIFIED_NO_MORE",
    "PROGRESS",
    "CallProgress",
    "ProgressHost",
    "checked_progress",
    "current",
    "end_notifications",
    "for_request",
    "ran_here",
]



def checked_progress(progress: float, total: float | None, last: float | None, message: object = None) -> float:
    """``progress`` (with ``total`` and ``message``) as a report may send it after ``last``, the call's last one: the
    one check of ``ctx.report_progress``, in the server's process and in a job's own alike.

    Raises:
        TypeError: either is no number (a bool, which JSON writes as ``true``; a string), or ``message`` is neither
            a ``str`` nor None (MCP's ``message`` is a string).
        ValueError: either is NaN or infinite (JSON has no such number: it would go out as ``null``, which clients
            refuse), or ``progress`` is below ``last`` (it must not decrease).
    """
    if not (_number(progress) and (total is None or _number(total))):
        raise TypeError(f"progress and total must be numbers, not progress={progress!r}, total={total!r}")
    if message is not None and not isinstance(message, str):
        raise TypeError(f"message must be a str (or None), not {type(message).__name__}")
    if not (_finite(progress) and (total is None or _finite(total))):
        raise ValueError(f"progress and total must be finite numbers, not progress={progress!r}, total={total!r}: "
                         "JSON has no NaN or Infinity (leave total out when it is unknown)")
    if last is not None and progress < last:
        raise ValueError(f"progress must not decrease (was {last}, got {progress})")
    return progress


def _number(value: object) -> bool:
    """A real number (an ``int``, a ``float``, a numpy number) and not a bool, which JSON writes as ``true``."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _finite(number: float) -> bool:
    """Not NaN nor infinite; an int beyond any float (``10**400``) is finite (JSON carries it whole)."""
    try:
        return math.isfinite(number)
    except OverflowError:
        return True


class ProgressHost(Protocol):
    """What a call's progress reads of its server: the event bus (observers) and the job store (a job's progress
    is kept with it)."""

    @property
    def bus(self) -> EventBus:
        """The event bus."""
        ...

    @property
    def jobs(self) -> JobKeeper:
        """The job store (made at its first use: only a job's progress reads it)."""
        ...


Pending = tuple[ProgressHost, RequestContext]
"""A call whose progress reporter is not made yet: what :func:`for_request` makes it of."""

CURRENT: contextvars.ContextVar[CallProgress | Pending | None] = contextvars.ContextVar(
    "nanohubmcp_call_progress", default=None
)
"""The call running in this context: its progress reporter, or what makes it (:func:`current`);
None outside calls."""

def ran_here(executor: str) -> None:
    """Note that the function of the call in this context runs on this thread, on ``executor``
    (``"worker-pool"``, ``"kernel"``); call it on that thread just before the function runs. Outside a
    tool call (a resource, a prompt) it does nothing."""
    value = CURRENT.get()
    request = value[1] if isinstance(value, tuple) else value._request if value is not None else None
    if request is not None:
        request.slots[RAN_ON] = (executor, threading.current_thread())


class CallProgress:
    """Progress of one request; thread-safe, never blocks.

    Attributes:
        call_id: the id the ``call_started``/``call_finished`` events of the same call carry.
        last: the last progress value sent (None before the first).
        finished: True once the call has its response; later reports are dropped.
    """

    def __init__(self, bus: EventBus, jobs: JobKeeper, request: RequestContext) -> None:
        self._bus = bus
        self._jobs = jobs
        self._request: RequestContext | None = request  # None once finished (no cycle through its slots)
        self._lock = threading.Lock()
        self.call_id = id(request)
        self.last: float | None = None
        self.finished = False

    def report(
        self, progress: float, total: float | None = None, message: str | None = None, *, source: str = "context"
    ) -> bool:
        """Publish one step. Returns False (and sends nothing) when it would not increase.

        Args:
            progress: amount done so far.
            total: the amount at completion, if known.
            message: a short status line (sent to clients from 2025-03-26 on).
            source: ``"context"`` (``ctx.report_progress``) or ``"tqdm"``, for observers (a
                notebook draws its own bar only for the first: tqdm draws one already).
        """
        with self._lock:  # held while scheduling, so notifications leave in the order checked
            request = self._request
            if request is None or (self.last is not None and progress <= self.last):
                return False
            self.last = progress
            token = request.progress_token
            # A request its client withdrew (cancelled) is no operation in progress any more: nothing for its token.
            if token is not None and not request.withdrawn and not request.slots.get(NOTIFIED_NO_MORE):
                params: dict[str, Any] = {"progressToken": token, "progress": progress}
                if total is not None:
                    params["total"] = total
                if message is not None and request.version.progress_messages:
                    params["message"] = notified_text(message)  # (one SSE event stays within a client's cap)
                _emit(request, jsonrpc.notification("notifications/progress", params))
        bus = self._bus
        if bus.active:
            bus.emit(
                "call_progress", call_id=self.call_id, progress=progress, total=total, message=message, source=source
            )
        job_id = request.job_id
        if job_id is not None:  # a job's progress is kept with it (``%mcp jobs``, the lab panel)
            self._jobs.progress(job_id, progress, total, message)
        return True

    def finish(self) -> None:
        """The call has (or is about to send) its response: nothing more is sent."""
        with self._lock:
            self.finished = True
            # The request keeps this reporter in its slots: let go of it (no reference cycle).
            self._request = None


def _emit(request: RequestContext, message: dict[str, Any]) -> None:
    loop = request.loop
    try:
        on_loop = asyncio.get_running_loop() is loop
    except RuntimeError:
        on_loop = False
    if on_loop:
        request.send_related(message)
    else:
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody listens any more
            loop.call_soon_threadsafe(request.send_related, message)


class _Answered:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ANSWERED"


ANSWERED = _Answered()
"""What a call answered before anything reported leaves in its :data:`PROGRESS` slot (with
``slots.setdefault``, so a report racing the answer on a worker thread finds one or the other)."""

PROGRESS: Slot[CallProgress | _Answered] = Slot("progress")
"""The call's progress reporter, once made (:func:`for_request`), or :data:`ANSWERED`."""

NOTIFIED_NO_MORE: Slot[bool] = Slot("no more progress notifications")
"""True once the call answered while its work goes on: its reports are kept (the job, observers)
but sent to the client no more (:func:`end_notifications`)."""


def end_notifications(request: RequestContext) -> None:
    """``request`` answers now while its work goes on (an ``@async_tool`` call's job handle): from
    now on its progress reaches the job's record and the server's observers, never the client
    (MCP 2025-11-25, Basic § Utilities § Progress: no notifications for a request that has its
    response). Call it before the work can report (before the handle leaves the handler)."""
    request.slots[NOTIFIED_NO_MORE] = True


def for_request(core: ProgressHost, request: RequestContext) -> CallProgress:
    """The request's :class:`CallProgress`, made on first use (from any thread: one per request);
    a finished one, which sends nothing, once the request was answered."""
    slots = request.slots
    tracker = slots.get(PROGRESS)
    if tracker is None:
        tracker = slots.setdefault(PROGRESS, CallProgress(core.bus, core.jobs, request))
    if isinstance(tracker, _Answered):
        tracker = CallProgress(core.bus, core.jobs, request)
        tracker.finish()
    return tracker


def current() -> CallProgress | None:
    """The progress reporter of the call running in this context (made on first use), or None
    outside calls."""
    value = CURRENT.get()
    if type(value) is tuple:
        return for_request(*value)
    return value  # type: ignore[return-value]  # a reporter, or None
