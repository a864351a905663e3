"""The job service: start ``@async_tool`` jobs and MCP tasks, poll them, hand them over when the
server stops, re-attach them after a restart.

A job is a tool call that answers at once and is polled later. This service starts one on the
job executor the tool names (or the server's), records it in the job store
(:mod:`..jobs`), and finishes its record with the call's result, shaped by the tool-call
service (:mod:`..calls.tool_calls`) like any call's. The job store calls back here, through the
hooks the core gives it at construction, to hand over a job whose function runs on after the
server stopped and to re-attach one that a dead server process left with an executor that
still holds it (Dask).

Source: MCP 2025-11-25, Basic § Utilities § Tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import math
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import INTERNAL_MESSAGE, InternalError, NanohubMCPError, UnknownComponent, message_of, to_error_object
from ...protocol import jsonenc, versions
from ...protocol.encoded import Encoded
from ...protocol.result_types import ToolResult
from ...schema.kept_arguments import kept_arguments
from ...schema.secret import stored_arguments
from ..asks.by_era import AskServices
from ..calls import progress
from ..calls.context import Context
from ..calls.tool_calls import error_result, note_value, run_tool, shape, shaped_job_value
from ..jobs import service as jobmod
from ..jobs.visibility import echoed_id
from ..registry.components import Tool
from ..results import shape as results
from ..results.named_blocks import in_place, placeholders
from ..results.owners import owner_of
from ..results.sink import ResultSink
from ..wire import trace_context
from ..wire.request import ANSWERED_BY_LAYER, RequestContext
from . import JOB_EXECUTOR, JOB_OPTIONS

if TYPE_CHECKING:
    from .base import JobExecutor

log = logging.getLogger("nanohubmcp.jobs")


def runner_of(core: JobHost, tool: Tool) -> Any:
    """The job executor of ``tool`` (its own executor and options, else the server's)."""
    return core.runner_for(tool.extra.get(JOB_EXECUTOR), tool.extra.get(JOB_OPTIONS))


class JobHost(AskServices, Protocol):
    """What the job service uses of its server besides :class:`~nanohubmcp.server.services.Services`:
    the job executors."""

    def runner_for(self, spec: Any = None, options: dict[str, Any] | None = None) -> JobExecutor:
        """The job executor named ``spec`` with ``options`` (None: the server's)."""
        ...

    def holds_after_restart(self, job: jobmod.Job) -> bool:
        """Whether the executor of ``job``, a job of a dead server process, may still hold it."""
        ...

    def outliving(self, job: jobmod.Job) -> Future[Any] | None:
        """The future of ``job``'s function when it runs on in this process after the server stops."""
        ...


async def start_job(
    core: JobHost,
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

    Raises:
        JobLimitReached: the job store is full (in total or for this caller).

    .. versionchanged:: 1.0
       A coroutine (the arguments of a large request are bounded off the loop).
    """
    kept = await asyncio.to_thread(_kept, tool, arguments) if request.large else _kept(tool, arguments, bound=False)
    with trace_context.child(request, f"queue_job {tool.name}", {"gen_ai.tool.name": tool.name}):
        return _start_job(core, request, tool, arguments, kept, as_task=as_task, ttl=ttl)


def _kept(tool: Tool, arguments: dict[str, Any], *, bound: bool = True) -> dict[str, Any]:
    """What a job's record keeps of ``arguments``: a Secret's value never, at any depth; ``bound``: at
    most 64 KiB of JSON already (else the job store bounds them, on the calling thread)."""
    stored = stored_arguments(arguments, tool.secrets)
    return kept_arguments(stored) if bound and stored else stored


def _start_job(core: JobHost, request: RequestContext, tool: Tool, arguments: dict[str, Any],
               kept: dict[str, Any], *, as_task: bool, ttl: float | None) -> jobmod.Job:
    # Inside the queueing span: the job's task copies the context, so its run is the span's child.
    owner = request.session.id if request.session is not None else None
    runner = runner_of(core, tool)
    job = core.jobs.create(
        tool.name,
        owner,
        principal=request.principal,
        arguments=kept,  # (bounded again by the store: at once when they are kept_arguments' already)
        as_task=as_task,
        ttl=ttl,
        executor=runner.name,
        detached=runner.survives_restart,
        provenance_id=request.provenance_id,
    )
    job.request = request
    request.job_id = job.id

    async def work() -> None:
        try:
            result = await run_tool(core, request, tool, arguments, job=job, runner=runner)
        except asyncio.CancelledError:
            if not job.handed_over:
                job.finish(jobmod.CANCELLED, message="cancelled")
            return
        except Exception as exc:  # a protocol error from the tool path
            if not job.handed_over:
                job.finish(jobmod.FAILED, error=to_error_object(exc), message=str(exc))
            return
        if job.handed_over:
            return  # the server stopped meanwhile: hand_over stores the end
        if request.cancelled.is_set():
            job.finish(jobmod.CANCELLED, message=request.cancel_reason or "cancelled")
        else:
            finish_with(job, result)

    job.task = asyncio.ensure_future(work())
    return job


def finish_with(job: jobmod.Job, result: dict[str, Any]) -> None:
    """End ``job`` with the ``CallToolResult`` of its call.

    A job always ends: when the result cannot be stored (nested too deeply for the encoder, the
    store refuses it), the job ends ``failed`` with a message saying so, and the error is logged.
    """
    try:
        result = jsonenc.plain(result)  # job stores keep it as JSON text of their own
        if result.get("isError"):
            job.finish(jobmod.FAILED, result=result, message=_text_of(result))
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


def hand_over(core: JobHost, job: jobmod.Job) -> bool:
    """The job store's hook at server stop: keep following ``job`` when its function runs on in
    this process (a worker thread), storing its end when it comes — the process, and so the
    job, outlives the server (a notebook's ``%mcp stop``). False when it does not run on."""
    tool = core.registry.tools.get(job.tool)
    work = core.outliving(job)
    if tool is None or work is None:
        return False
    request = job.request
    version = request.version if request is not None else versions.LATEST_HANDSHAKE
    sink = ResultSink(core.result_options, core.result_store, owner_of(request)) if request is not None else None

    def ended(done: Any) -> None:  # on the worker thread
        if done.cancelled() or (request is not None and request.cancelled.is_set()):
            # Told to stop as the process ends (JobStore.process_ending): whatever the function
            # returned then, the server stopped while the job ran.
            job.finish(jobmod.FAILED, message=jobmod.SERVER_STOPPED)
            return
        try:
            value = done.result()
            result = (
                error_result(f"tool '{tool.name}' returned an awaitable after its server stopped")
                if inspect.isawaitable(value)
                else shape(tool, value, version, sink)
            )
            note_value(job, tool, value)
        except Exception as exc:  # what the function raised, or a result that cannot be shaped
            result = error_result(message_of(exc))
        finish_with(job, result)

    work.add_done_callback(ended)
    return True


def reattach(core: JobHost, job: jobmod.Job) -> bool | None:
    """The job store's hook for a job of a dead server process that its executor may still hold
    (Dask): True once followed here, False when it cannot be, None when not serving yet (the
    store asks again when a request wants the job)."""
    if not core.holds_after_restart(job):
        return False
    if core.loop is None or core.loop.is_closed():
        return None
    return follow_reattached(core, job)


def follow_reattached(core: JobHost, job: jobmod.Job) -> bool:
    """Follow a job of a dead server process that the executor still holds, to its end.

    Returns False when the executor no longer holds it (or its tool is gone).
    """
    tool = core.registry.tools.get(job.tool)
    if tool is None:
        return False
    waiting = core.runner_for(job.executor).reattach(job)
    if waiting is None:
        return False

    async def follow() -> None:
        try:
            value = await waiting
        except asyncio.CancelledError:
            job.finish(jobmod.CANCELLED, message="cancelled")
            return
        except Exception as exc:
            finish_with(job, error_result(message_of(exc)))
            return
        try:
            result = await shaped_job_value(core, job, tool, value, versions.LATEST_HANDSHAKE)
        except Exception as exc:  # a value that cannot be shaped
            result = error_result(message_of(exc))
        finish_with(job, result)

    job.task = asyncio.run_coroutine_threadsafe(follow(), core.loop)  # type: ignore[arg-type,assignment]
    return True


def _text_of(result: dict[str, Any]) -> str:
    texts = [c.get("text", "") for c in result.get("content", []) if c.get("type") == "text"]
    return "\n".join(texts)


def refused_job(request: RequestContext, exc: jobmod.JobLimitReached) -> dict[str, Any]:
    """The answer to a call the full job store refused, whatever asked for the job (a plain call of
    an ``@async_tool``, a task of either era): an ``isError`` result naming the limit, as documented (a
    client's quota is no server fault, never -32603). No job was made and nothing ran: no provenance
    record."""
    request.slots[ANSWERED_BY_LAYER] = True
    return error_result(str(exc))


async def start_job_result(
    core: JobHost, request: RequestContext, tool: Tool, arguments: dict[str, Any]
) -> dict[str, Any]:
    """The immediate answer to an ``@async_tool`` call: the job handle, as documented (an
    ``isError`` result saying why when the job store is full). The call's progress token ends with
    it: the job's progress is polled (``get_job_result``'s ``progress``), not notified."""
    try:
        job = await start_job(core, request, tool, arguments)
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


def job_status(job: jobmod.Job) -> dict[str, Any]:
    """What ``get_job_result`` answers for ``job`` (idempotent until the job expires): while it runs
    ``{"status": "running", "job_id"}``, with ``"queued": true`` (and ``ahead``, or the batch queue's
    ``message``) while it waits, and ``"progress": {"progress", "total"?, "message"?}`` once it reported
    some (:meth:`~nanohubmcp.server.jobs.record.Job.progress_report`); then ``done`` with its
    ``result``, ``error`` with the ``error``, or ``cancelled``."""
    if job.status in (jobmod.WORKING, jobmod.INPUT_REQUIRED):
        running: dict[str, Any] = {"status": "running", "job_id": job.id}
        if job.waiting is not None:  # waiting for a turn at its executor (jobs.fair), in this process
            running.update(queued=True, ahead=job.waiting())
        elif job.status_message == jobmod.QUEUED:  # the same, seen from another process
            running["queued"] = True
        elif jobmod.queued_elsewhere(job.status_message):  # in a batch system's queue (Slurm: with its reason)
            running.update(queued=True, message=job.status_message)
        report = job.progress_report()  # the last ctx.report_progress, from the job's record on any process
        if report is not None:
            running["progress"] = report
        return running
    if job.status == jobmod.COMPLETED:
        return {"status": "done", "job_id": job.id, "result": job_value(job.result or {}, json_text=job.json_text,
                                                                     places=job.item_places)}
    if job.status == jobmod.CANCELLED:
        return {"status": "cancelled", "job_id": job.id}
    error = job.status_message or (job.error or {}).get("message") or "the job failed"
    return {"status": "error", "job_id": job.id, "error": error}


def job_value(result: dict[str, Any], *, json_text: bool = False, places: list[Any] | None = None) -> Any:
    """The plain value of a finished job, as the tool's direct call answers it: a list mixing blocks
    with data as a REST call answers it, each block named in its place (``places``, the job's
    ``item_places``: ``["<image: content[0]>", "cap", {"n": 1}]``), a number, boolean,
    list or dict of data as that value (its one text block is its JSON: ``json_text``), None as
    None (no block at all), an array's or a table's data as its JSON value (its structured content's
    ``"result"``, as a list's: the value was not a dict, so ``{"result": ...}`` wraps it; a job
    stored by an earlier version reads so too), else the structured content, else the text, else the blocks as
    :func:`placeholders` (a picture's place says ``"<image: content[i]>"``; its data is in block i,
    never in the value). A non-finite number keeps its text (``"Infinity"``: JSON has no such
    number, and null would read as no value)."""
    if places is not None:  # a list mixing blocks with data, shaped for MCP: answered as over REST
        whole = in_place(result, places)
        if whole is not None:
            return whole
    content = result.get("content", [])
    if json_text and not content:
        return None  # the tool returned None: null, not the empty block list
    single = len(content) == 1 and content[0].get("type") == "text"
    if single and json_text:
        text = content[0]["text"]
        try:
            value = json.loads(text)
        except ValueError:  # (never written so; a record's text is still an answer)
            return text
        return text if isinstance(value, float) and not math.isfinite(value) else value
    if "structuredContent" in result:
        structured = result["structuredContent"]
        if not json_text and isinstance(structured, dict) and structured.keys() == {"result"}:
            return structured["result"]  # an array's or a table's data (not a dict: a dict's text is its JSON)
        return structured
    if single:
        return content[0]["text"]
    return placeholders(content)


def job_result_tool(core: JobHost) -> Callable[..., Awaitable[dict[str, Any] | ToolResult]]:
    """The built-in ``get_job_result`` tool of ``core``: an ``@async_tool`` caller polls it."""

    async def get_job_result(ctx: Context, job_id: str) -> dict[str, Any] | ToolResult:
        """Get the status or result of a job started by an async tool.

        Args:
            job_id: the job_id returned when the async tool was called.
        """
        with own_faults():
            try:
                job = core.jobs.get(job_id, ctx.session_id, ctx.principal)
            except UnknownComponent:
                return not_found(job_id)
            return job_answer(job)

    return get_job_result


@contextlib.contextmanager
def own_faults() -> Iterator[None]:
    """Inside, an exception of no kind the package raises on purpose is a fault of the server's own
    job tools, not of the tool a user wrote: the caller gets :data:`~nanohubmcp.errors.INTERNAL_MESSAGE`
    (REST 500 ``{"error": "Internal error; see the server log"}``), the log its traceback — never its
    message, which names the server's internals (a codec, a store, a path)."""
    try:
        yield
    except NanohubMCPError:  # meant for the caller: not found, the store away (503), a limit
        raise
    except Exception as exc:
        raise InternalError(INTERNAL_MESSAGE) from exc


def not_found(job_id: str) -> ToolResult:
    """The answer of the job tools for a job the caller may not see: a tool error (isError), still
    carrying the status object pollers read (``job_id`` as sent, or its first 64 characters and "…")."""
    return ToolResult(
        is_error=True,
        structured_content={
            "status": "not_found",
            "job_id": echoed_id(job_id),
            "error": "No such job for this caller (wrong id, expired, or started by another user or session)",
        },
    )


def job_cancel_tool(core: JobHost) -> Callable[..., Awaitable[dict[str, Any] | ToolResult]]:
    """The built-in ``cancel_job`` tool of ``core``: a client without MCP Tasks cancels a job with
    it, under the same owner checks as ``get_job_result`` (:meth:`JobStore.cancel`: on any
    process of the server)."""

    async def cancel_job(ctx: Context, job_id: str) -> dict[str, Any] | ToolResult:
        """Cancel a job started by an async tool: it stops and ends "cancelled" (a job that already
        ended is left as it is, and its status is answered).

        Args:
            job_id: the job_id returned when the async tool was called.
        """
        with own_faults():
            try:
                job = core.jobs.get(job_id, ctx.session_id, ctx.principal)
            except UnknownComponent:
                return not_found(job_id)
            if job.status in jobmod.TERMINAL:
                status = job_status(job)
                status.pop("result", None)
                return {**status, "message": "the job had already ended; get_job_result gives its outcome"}
            return job_status(core.jobs.cancel(job, "cancelled by the client"))

    return cancel_job


def job_answer(job: jobmod.Job) -> dict[str, Any] | ToolResult:
    """``get_job_result``'s answer: :func:`job_status` (its JSON text block and structured
    content), followed, once the job is done, by the non-text blocks of its result (images,
    embedded resources, resource links: a Rappture plot, a submit run's output files) in their
    order — a ``<content[i]>`` in the result names block i of the job's own result. Once the job
    ended (done, error or cancelled), the answer's ``_meta["io.nanohub/provenance"]`` names the
    job's provenance record (:meth:`~nanohubmcp.server.jobs.record.Job.provenance_uri`), as the
    job handle did: REST carries it as the ``Link`` header."""
    status = job_status(job)
    uri = job.provenance_uri()
    meta = {jobmod.PROVENANCE_META: uri} if uri is not None else None
    if status["status"] != "done":
        return status if meta is None else ToolResult(structured_content=status, meta=meta)
    blocks = [block for block in (job.result or {}).get("content", ())
              if isinstance(block, dict) and block.get("type") != "text"]
    # The job's value was held to MAX_JSON_DEPTH when it ended; the status around it is one level
    # more, which is not the tool's to answer for: its text is written here, as it is.
    text = jsonenc.dumps(status)
    return ToolResult(content=[{"type": "text", "text": text}, *blocks], structured_content=Encoded(text),
                      meta=meta)
