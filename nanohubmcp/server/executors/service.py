"""The job service's machinery: start ``@async_tool`` jobs and MCP tasks, poll them, hand them over when the
server stops, re-attach them after a restart.

A job is a tool call that answers at once and is polled later. These functions take the job service
(:class:`~.job_service.JobService`, built by the core's constructor; what they read of it: :class:`JobParts`) and
start a job on the job executor the tool names (or the server's), record it in the job store (:mod:`..jobs`), and
finish its record with the call's result, shaped by the tool-call service (:mod:`..calls.tool_calls`) like any
call's. The job store calls back here, through the
service's hooks, to hand over a job whose function runs on after the server stopped and to re-attach one that a
dead server process left with an executor that still holds it (Dask).

Source: MCP 2025-11-25, Basic § Utilities § Tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import secrets
from collections.abc import Awaitable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import message_of, notified_text, to_error_object
from ...protocol import jsonenc, versions
from ...protocol.content import tool_error_result
from ...schema.kept_arguments import kept_arguments
from ...schema.secret import stored_arguments
from ...schema.secret_text import UNTOLD, Telling
from ..calls import progress
from ..calls.tool_calls import note_value, run_tool, shape, shaped_job_value
from ..jobs import service as jobmod
from ..jobs.job_sessions import keyed
from ..jobs.record import owner_key, subject_of
from ..registry.components import Tool
from ..results import shape as results
from ..results.sink import call_sink
from ..wire import trace_context
from ..wire.request import ANSWERED_BY_LAYER, RequestContext
from . import JOB_EXECUTOR, JOB_OPTIONS
from .folder_budget import input_bytes
from .job_files import FolderJobExecutor
from .job_folders import run_files_bytes

if TYPE_CHECKING:
    from ..calls.call_parts import CallParts
    from ..registry.registry import Registry
    from .runners import JobRunners

log = logging.getLogger("nanohubmcp.jobs")


class JobParts(Protocol):
    """What these functions read of the job service (:class:`~.job_service.JobService` is the one object that has
    them, built by the core; this names them here so that the service may import this module at its first job
    without a cycle): the registry, the job executors, the job store, what a call's run reads (the core's
    :class:`~..calls.call_parts.CallParts`, never the core) and the serving loop."""

    registry: Registry
    runners: JobRunners
    calls: CallParts

    @property
    def jobs(self) -> jobmod.JobStore:
        """The job store (made at its first use)."""
        ...

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop the server serves on (None before it serves)."""
        ...


def runner_of(service: JobParts, tool: Tool) -> Any:
    """The job executor of ``tool`` (its own executor and options, else the server's)."""
    return service.runners.runner_for(tool.extra.get(JOB_EXECUTOR), tool.extra.get(JOB_OPTIONS))


async def start_job(
    service: JobParts,
    request: RequestContext,
    tool: Tool,
    arguments: dict[str, Any],
    *,
    as_task: bool = False,
    ttl: float | None = None,
) -> jobmod.Job:
    """Start ``tool`` as a job owned by the caller's session and principal; returns once it is
    stored, without waiting for its run.

    What the job's record keeps of the arguments (secrets out, at most 64 KiB of JSON:
    :func:`~nanohubmcp.schema.kept_arguments.kept_arguments`) is made on a worker thread for a large
    request (:attr:`~..wire.request.RequestContext.large`): writing megabytes of arguments to JSON
    would hold the event loop for seconds.

    A batch job (``slurm``, ``submit``: its folder keeps the inputs whole until it ends) is charged the size of
    its arguments pickled against the caller's :mod:`.folder_budget` (``max_kept_bytes_per_owner``).

    Raises:
        JobLimitReached: the job store is full (in total or for this caller), or the caller's waiting batch jobs
            hold ``max_kept_bytes_per_owner`` bytes of inputs with this one's.

    .. versionchanged:: 1.0
       A coroutine (the arguments of a large request are bounded off the loop).
    """
    folder = isinstance(runner_of(service, tool), FolderJobExecutor)
    kept, size = await asyncio.to_thread(_kept_and_size, tool, arguments, folder) if request.large else (
        _kept(tool, arguments, bound=False), input_bytes(arguments) if folder else 0)
    with trace_context.child(request, f"queue_job {tool.name}", {"gen_ai.tool.name": tool.name}):
        return _start_job(service, request, tool, arguments, kept, as_task=as_task, ttl=ttl, size=size)


def _kept_and_size(tool: Tool, arguments: dict[str, Any], folder: bool) -> tuple[dict[str, Any], int]:
    """:func:`_kept`, and the bytes of ``arguments`` pickled when ``folder`` (a batch job's inputs), else 0."""
    return _kept(tool, arguments), input_bytes(arguments) if folder else 0


def _kept(tool: Tool, arguments: dict[str, Any], *, bound: bool = True) -> dict[str, Any]:
    """What a job's record keeps of ``arguments``: a Secret's value never, at any depth; ``bound``: at
    most 64 KiB of JSON already (else the job store bounds them, on the calling thread)."""
    stored = stored_arguments(arguments, tool.secrets)
    return kept_arguments(stored) if bound and stored else stored


def _start_job(service: JobParts, request: RequestContext, tool: Tool, arguments: dict[str, Any],
               kept: dict[str, Any], *, as_task: bool, ttl: float | None, size: int) -> jobmod.Job:
    # Inside the queueing span: the job's task copies the context, so its run is the span's child.
    owner = request.session.id if request.session is not None else None
    runner = runner_of(service, tool)
    budget = service.runners.folder_budget if isinstance(runner, FolderJobExecutor) else None
    pending = f"pending:{secrets.token_hex(8)}"  # (charged before the job is made: a refused call makes none)
    charged = owner_key(keyed(owner), subject_of(request.principal))
    if budget is not None:
        budget.take(charged, pending, size)
    try:
        job = service.jobs.create(
            tool.name, owner, principal=request.principal,
            arguments=kept,  # (bounded again by the store: at once when they are kept_arguments' already)
            as_task=as_task, ttl=ttl, executor=runner.name, detached=runner.survives_restart,
            provenance_id=request.provenance_id)
    except BaseException:
        if budget is not None:
            budget.release(pending, charged)
        raise
    if budget is not None:
        budget.moved(pending, job.id)
    job.request = request
    job.telling = Telling(tool.secrets, arguments)  # (its arguments whole: every end of the job tells its failure so)
    request.job_id = job.id

    job.task = asyncio.ensure_future(
        finish_call(service, job, request, run_tool(service.calls, request, tool, arguments, job=job, runner=runner)))
    return job


async def finish_call(service: JobParts, job: jobmod.Job, request: RequestContext,
                      call: Awaitable[dict[str, Any]]) -> None:
    """Await ``call`` (the ``tools/call`` run of ``request``, a ``CallToolResult``) and end ``job`` with it.

    The one end of every job that follows a call: an ``@async_tool``'s job and a 2026-07-28 call gone on as a
    task (``ctx.start_task()``, :func:`~..stateless.tasks.adopt`). The result is stored as the job store keeps it
    (:func:`finish_with`); a call cancelled (by its client, or its task) ends ``cancelled``, but ``failed`` with
    :data:`~..jobs.settle.CLIENT_CLOSED` when its task was cancelled by the end of a loop the server does not serve
    on (a testing client's ``asyncio.run`` returning: :func:`_cancelled`); a protocol error
    raised by the call ends ``failed`` with that error. Nothing is stored once another follower took the job
    over (the server stopped, or the loop ended, meanwhile: ``hand_over`` or ``carry_over`` stores its end).
    """
    try:
        result = await call
    except asyncio.CancelledError:
        if not job.followed_elsewhere:
            _cancelled(service, job)
        return
    except Exception as exc:  # a protocol error from the tool path
        if not job.followed_elsewhere:
            job.finish(jobmod.FAILED, error=to_error_object(exc), message=notified_text(str(exc)))
        return
    if job.followed_elsewhere:
        return
    if request.cancelled.is_set():
        job.finish(jobmod.CANCELLED, message=request.cancel_reason or "cancelled")
    else:
        finish_with(job, result)


def _cancelled(service: JobParts, job: jobmod.Job) -> None:
    """End ``job``, whose task was cancelled. Not by ``Job.cancel`` (its call is not marked cancelled), on a
    loop the server does not serve on: that loop ends (``asyncio.run`` returns after an ``async with
    MemoryClient`` block), the job fails with :data:`~..jobs.settle.CLIENT_CLOSED`, and its waiters on the
    server's loop (``tasks/result`` over HTTP) are woken."""
    server_loop = service.loop
    request = job.request
    if server_loop is None or server_loop is asyncio.get_running_loop() or server_loop.is_closed() or \
            (request is not None and request.cancelled.is_set()):
        job.finish(jobmod.CANCELLED, message="cancelled")
        return
    job.finish(jobmod.FAILED, message=jobmod.CLIENT_CLOSED)
    with contextlib.suppress(RuntimeError):  # the server's loop closed meanwhile: nobody waits there
        server_loop.call_soon_threadsafe(job.done.set)


def finish_with(job: jobmod.Job, result: dict[str, Any]) -> None:
    """End ``job`` with the ``CallToolResult`` of its call. An ``isError`` result's job is ``failed`` with the
    result's text as its status message, cut at :data:`~nanohubmcp.errors.sent_text.MAX_NOTIFIED_CHARS` characters
    (``tasks/get`` and ``tasks/list`` tell it, in one SSE event over legacy SSE).

    A job always ends: when the result cannot be stored (nested too deeply for the encoder, the
    store refuses it), the job ends ``failed`` with a message saying so, and the error is logged.
    """
    try:
        result = jsonenc.plain(result)  # job stores keep it as JSON text of their own
        if result.get("isError"):
            # (its status message, told with every Task of it: its text cut as a sent text is; the result has it all)
            job.finish(jobmod.FAILED, result=result, message=notified_text(_text_of(result)))
        else:
            job.finish(jobmod.COMPLETED, result=result)
    except Exception as exc:
        log.error("job %s of tool %r: its result could not be stored", job.id, job.tool, exc_info=True)
        reason = "it is nested too deeply" if isinstance(exc, RecursionError) else message_of(exc)
        message = f"the tool returned, but its result could not be stored: {reason}"
        try:
            if job.status not in jobmod.TERMINAL:
                job.finish(jobmod.FAILED, message=message)
        finally:
            job.done.set()  # (also when the store failed after the end was set: waiters see it)


def hand_over(service: JobParts, job: jobmod.Job) -> bool:
    """The job store's hook at server stop: keep following ``job`` when its function runs on in
    this process (a worker thread), storing its end when it comes — the process, and so the
    job, outlives the server (a notebook's ``%mcp stop``). False when it does not run on."""
    tool = service.registry.tools.get(job.tool)
    work = service.runners.outliving(job)
    if tool is None or work is None:
        return False
    request = job.request
    version = request.version if request is not None else versions.LATEST_HANDSHAKE
    data_only = request is not None and request.data_only  # a REST call's job: shaped as its own call shapes it
    calls = service.calls
    sink = call_sink(calls.result_options, calls.result_store, request, job=job.id) if request is not None else None

    loop = service.loop
    settled = job.settled = Future()  # done once its end is stored: a process's exit waits for it

    def ended(done: Any) -> None:  # on the worker thread
        try:
            settle(done)
        finally:
            settled.set_result(None)
        if loop is not None:  # the end was set on this thread: wake its waiters' loop (tasks/result)
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits there any more
                loop.call_soon_threadsafe(job.done.set)

    def settle(done: Any) -> None:
        if done.cancelled() or (request is not None and request.cancelled.is_set() and request.cancelled.seen):
            # Told to stop as the process ends (JobStore.process_ending), and the function saw it
            # (ctx.is_cancelled()): whatever it returned then, the server stopped while the job ran.
            # One that never looked ran to its own end within the stop's wait: its end is stored.
            jobmod.cut_short(job)
            return
        try:
            value = done.result()
            result = (
                tool_error_result(f"tool '{tool.name}' returned an awaitable after its server stopped")
                if inspect.isawaitable(value)
                else shape(tool, value, version, sink, data_only=data_only)
            )
            note_value(job, tool, value, data_only=data_only)
        except Exception as exc:  # what the function raised, or a result that cannot be shaped
            result = tool_error_result((job.telling or UNTOLD).last(exc).message)
        finish_with(job, result)

    work.add_done_callback(ended)
    return True


def reattach(service: JobParts, job: jobmod.Job) -> bool | None:
    """The job store's hook for a job of a dead server process that its executor may still hold
    (Dask): True once followed here, False when it cannot be, None when not serving yet (the
    store asks again when a request wants the job)."""
    if not service.runners.holds_after_restart(job):
        return False
    if service.loop is None or service.loop.is_closed():
        return None
    return follow_reattached(service, job)


def follow_reattached(service: JobParts, job: jobmod.Job) -> bool:
    """Follow a job of a dead server process that the executor still holds, to its end.

    Returns False when the executor no longer holds it (or its tool is gone).
    """
    tool = service.registry.tools.get(job.tool)
    if tool is None:
        return False
    runner = service.runners.runner_for(job.executor)
    waiting = runner.reattach(job)
    if waiting is None:
        return False
    if isinstance(runner, FolderJobExecutor):  # its inputs count against its caller's budget again
        service.runners.folder_budget.recount(job.owner_key(), job.id, run_files_bytes(job, runner))
    _follow_on_server_loop(service, job, tool, waiting, versions.LATEST_HANDSHAKE)
    return True


def carry_over(service: JobParts, job: jobmod.Job) -> bool:
    """The job store's hook when a testing client's event loop ends while the server serves on its own:
    follow ``job``, started on that loop, on the server's loop from now on when its executor can
    (:meth:`~.base.JobExecutor.carry_on`: a Dask job), storing its end there; False when it cannot."""
    tool = service.registry.tools.get(job.tool)
    loop = service.loop
    if tool is None or loop is None or loop.is_closed():
        return False
    waiting = service.runners.carry_on(job)
    if waiting is None:
        return False
    job.carried = True  # (before its first task is cancelled: that task stores no end)
    request = job.request
    _follow_on_server_loop(service, job, tool, waiting, request.version if request is not None
                           else versions.LATEST_HANDSHAKE)
    return True


def _follow_on_server_loop(service: JobParts, job: jobmod.Job, tool: Tool, waiting: Awaitable[Any],
                           version: str) -> None:
    """Await ``waiting`` (the job's value) on the server's loop and store the job's end, shaped there."""

    async def follow() -> None:
        try:
            value = await waiting
        except asyncio.CancelledError:
            job.finish(jobmod.CANCELLED, message="cancelled")
            return
        except Exception as exc:  # (after a restart its arguments are gone: told as it is)
            finish_with(job, tool_error_result((job.telling or UNTOLD).last(exc).message))
            return
        try:
            result = await shaped_job_value(service.calls, job, tool, value, version)
        except Exception as exc:  # a value that cannot be shaped
            result = tool_error_result((job.telling or UNTOLD).last(exc).message)
        finish_with(job, result)

    job.task = asyncio.run_coroutine_threadsafe(follow(), service.loop)  # type: ignore[arg-type,assignment]


def _text_of(result: dict[str, Any]) -> str:
    texts = [c.get("text", "") for c in result.get("content", []) if c.get("type") == "text"]
    return "\n".join(texts)


def refused_job(request: RequestContext, exc: jobmod.JobLimitReached) -> dict[str, Any]:
    """The answer to a call the full job store refused, whatever asked for the job (a plain call of
    an ``@async_tool``, a task of either era): an ``isError`` result naming the limit, as documented (a
    client's quota is no server fault, never -32603), its ``_meta`` naming the seconds until a slot
    frees when known (:mod:`~..jobs.slot_free`). No job was made and nothing ran: no provenance
    record."""
    request.slots[ANSWERED_BY_LAYER] = True
    return tool_error_result(str(exc), retry_after=exc.retry_after)


async def start_job_result(
    service: JobParts, request: RequestContext, tool: Tool, arguments: dict[str, Any]
) -> dict[str, Any]:
    """The immediate answer to an ``@async_tool`` call: the job handle, as documented (an
    ``isError`` result saying why when the job store is full). The call's progress token ends with
    it: the job's progress is polled (``get_job_result``'s ``progress``), not notified."""
    try:
        job = await start_job(service, request, tool, arguments)
    except jobmod.JobLimitReached as exc:
        return refused_job(request, exc)
    # The handle ends the request (set before the job's task first runs): the job's progress is polled from
    # here on, never sent with the call's token. A task (create_task) keeps its token until it ends.
    progress.end_notifications(request)
    handle = {
        "status": "running",
        "job_id": job.id,
        "message": f'Job started. Poll with get_job_result(job_id="{job.id}")',
    }
    return results.tool_result(handle, output_schema=None, version=request.version)
