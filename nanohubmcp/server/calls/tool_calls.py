"""The tool-call service: run a tool, shape its answer, start and poll ``@async_tool`` jobs.

Every route that calls a tool comes here (``tools/call`` in both eras, tasks, jobs), so they
report alike (MCP 2025-11-25, Server § Tools § Error handling): an unknown tool is -32602 in
every era; invalid arguments are -32602 up to 2025-06-18 and ``isError: true`` from 2025-11-25
(server option ``argument_errors``, SEP-1303); an exception raised by the tool is
``isError: true`` with ``str(exc)`` as the text, never a traceback; a result that breaks the
declared output schema is ``isError: true`` too.

It imports no method handler: the handlers of both eras and the tasks machinery build on it.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ...errors import (
    RETRY_AFTER_META,
    InvalidArguments,
    InvalidParams,
    ProtocolError,
    ToolBusy,
    UnknownComponent,
    to_error_object,
)
from ...protocol import versions
from ...protocol.result_types import ToolResult
from ..jobs import service as jobmod
from ..registry.components import Tool
from ..results import convert
from ..results import shape as results
from ..results.store import ResultSink, owner_of
from ..wire.request import RequestContext
from . import progress, stdin_guard, tqdm_progress
from .context import Context
from .invoke import CallRecord, build_kwargs, call_function, make_context

if TYPE_CHECKING:
    from ..core import ServerCore

log = logging.getLogger("nanohubmcp.tool")

JOB_EXECUTOR = "job_executor"
"""``Tool.extra`` key of an ``@async_tool``'s own executor (``executor=``), if any."""
JOB_OPTIONS = "job_executor_options"
"""``Tool.extra`` key of an ``@async_tool``'s own ``executor_options``, if any."""


def runner_of(core: ServerCore, tool: Tool) -> Any:
    """The job executor of ``tool`` (its own executor and options, else the server's)."""
    return core.runner_for(tool.extra.get(JOB_EXECUTOR), tool.extra.get(JOB_OPTIONS))


def error_result(text: str, *, retry_after: int | None = None) -> dict[str, Any]:
    """An ``isError: true`` CallToolResult carrying ``text`` (and, for a tool that could not start,
    ``_meta`` naming the seconds after which to retry: :class:`~nanohubmcp.errors.ToolBusy`)."""
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": True}
    if retry_after is not None:
        result["_meta"] = {RETRY_AFTER_META: retry_after}
    return result


def lookup_tool(core: ServerCore, request: RequestContext, params: dict[str, Any]) -> Tool:
    """The tool named by ``params.name``; raises -32602 for a missing, malformed or unknown name.

    A refused call is still published to call observers (``call_finished`` with ``ok`` false), so
    the notebook log and the lab panel show calls that never reached a function.
    """
    name = params.get("name")
    if not isinstance(name, str) or not name:
        _refused(core, request, None, "tools/call needs params.name, the tool's name as a string")
        raise InvalidParams("tools/call needs params.name, the tool's name as a string")
    tool = core.registry.tools.get(name)
    if tool is None:
        _refused(core, request, name, f"Unknown tool: {name}")
        raise UnknownComponent(f"Unknown tool: {name}")
    return tool


def refuse_arguments(core: ServerCore, request: RequestContext, tool: Tool, exc: InvalidArguments) -> dict[str, Any]:
    """Answer arguments that break the tool's input schema, per version: a -32602 error (raised)
    where the client's version wants one, else an ``isError`` result (MCP 2025-11-25, SEP-1303)."""
    _refused(core, request, tool.name, str(exc))
    if core.invalid_arguments_as_protocol_error(request.version, request.argument_errors):
        raise InvalidParams(str(exc), {"errors": exc.errors}) from None
    return error_result(str(exc))


def _refused(core: ServerCore, request: RequestContext, name: str | None, error: str) -> None:
    if core.bus.active:
        CallRecord(core, request, "tools/call", name).finish(False, error)


def call_arguments(params: dict[str, Any]) -> dict[str, Any]:
    """``params.arguments`` as a dict (missing or null means no arguments)."""
    arguments = params.get("arguments")
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise InvalidParams("tools/call params.arguments must be an object of argument names to values")
    return arguments


async def run_tool(core: ServerCore, request: RequestContext, tool: Tool, arguments: dict[str, Any],
                   *, job: jobmod.Job | None = None) -> dict[str, Any]:
    """Call ``tool`` with validated ``arguments``; every failure becomes an ``isError`` result.

    A ``job``'s call runs on the job executor, with no time limit (``tool_timeout`` bounds
    calls, not jobs).
    """
    record = CallRecord(core, request, "tools/call", tool.name) if core.bus.active else None
    tracker = progress.for_request(core, request)
    current = progress.CURRENT.set(tracker)  # copied into the worker thread with the call
    tqdm_progress.watch()
    stdin_guard.guard()  # input() in the tool fails at once instead of waiting for the time limit
    try:
        context = make_context(core, tool.signature, request, job.id if job is not None else None)
        kwargs = build_kwargs(tool.signature, arguments, kind="tool", name=tool.name, context=context)
        if job is not None:
            # An executor reports where the job is (queued, running on a node) even to a tool
            # that takes no ctx: it gets the call's Context all the same.
            value = await runner_of(core, tool).call(job, tool.fn, kwargs,
                                                     context=context or Context(core, request, job_id=job.id),
                                                     context_param=tool.signature.context_param,
                                                     is_coroutine=tool.is_coroutine)
        else:
            value = await call_function(
                tool.fn, kwargs, is_coroutine=tool.is_coroutine, executor=core.executor,
                timeout=core.tool_timeout, what=f"tool '{tool.name}'",
                on_timeout=lambda: request.cancel("the call ran out of time (tool_timeout)"))
        sink = ResultSink(core.result_options, core.result_store, owner_of(request))
        if convert.recognised(value):  # drawing a figure or encoding an array: not on the event loop
            loop = asyncio.get_running_loop()
            result = await loop.run_in_executor(core.executor, functools.partial(
                shape, tool, value, request.version, sink, lists_as_data=request.lists_as_data))
        else:
            result = shape(tool, value, request.version, sink, lists_as_data=request.lists_as_data)
    except asyncio.CancelledError:
        if record:
            record.finish(False, "cancelled")
        raise
    except BaseException as exc:
        if not isinstance(exc, Exception):  # InputRequired (2026 multi round-trip) and the like
            if record:
                record.finish(True, "input required")
            raise
        if isinstance(exc, InvalidArguments) and core.invalid_arguments_as_protocol_error(
                request.version, request.argument_errors):
            if record:
                record.finish(False, str(exc))
            raise InvalidParams(str(exc), {"errors": exc.errors}) from None
        if request.modern and isinstance(exc, ProtocolError):
            # 2026-07-28: a protocol error raised in the call (e.g. -32021 when the client cannot
            # answer an input request) is the call's JSON-RPC error, not tool output.
            if record:
                record.finish(False, str(exc))
            raise
        _log_failure(tool.name, request, job, exc)
        text = str(exc) or type(exc).__name__
        if record:
            record.finish(False, text)
        return error_result(text, retry_after=exc.retry_after if isinstance(exc, ToolBusy) else None)
    finally:
        tracker.finish()  # no progress after the response (MCP 2025-11-25, Basic § Utilities § Progress)
        progress.CURRENT.reset(current)
    if record:
        record.finish(not result.get("isError", False), None)
    return result


def _log_failure(name: str, request: RequestContext, job: jobmod.Job | None, exc: Exception) -> None:
    """The operator's record of a failed call (the client gets ``str(exc)`` only), on the
    "nanohubmcp.tool" logger: the traceback at ERROR (a default run shows it on stderr); arguments the
    schema refused, or a tool that could not start, as one line. The arguments are never logged."""
    where = f"(request id {request.message.id}{f', job {job.id}' if job is not None else ''})"
    if isinstance(exc, InvalidArguments):
        log.info("tool %r %s refused its arguments: %s", name, where, exc)
    elif isinstance(exc, ToolBusy):
        log.warning("tool %r %s could not start: %s", name, where, exc)
    else:
        log.error("tool %r failed %s: %s: %s", name, where, type(exc).__name__, exc, exc_info=exc)


def shape(tool: Tool, value: Any, version: str, sink: ResultSink | None = None, *,
          lists_as_data: bool = False) -> dict[str, Any]:
    """Map a return value to a CallToolResult and hold it to the tool's output schema.

    ``sink`` says where results over ``max_inline_bytes`` are kept (see ``results.tool_result``).
    """
    result = results.tool_result(value, output_schema=tool.output_schema, version=version, sink=sink,
                                 lists_as_data=lists_as_data)
    if tool.output_validator is not None and not result.get("isError"):
        # Checked in every version, even those without structuredContent on the wire.
        structured = results.structured_value(value)
        if structured is results.UNSET:
            return error_result(
                f"tool '{tool.name}' declares an output schema but returned no structured content")
        problems = tool.output_validator.errors(structured)
        if problems:
            return error_result(
                f"tool '{tool.name}' returned a result that breaks its output schema: " + "; ".join(problems))
    return result


# -- background jobs (@async_tool) ----------------------------------------------------------
def start_job(core: ServerCore, request: RequestContext, tool: Tool, arguments: dict[str, Any], *,
              as_task: bool = False, ttl: float | None = None) -> jobmod.Job:
    """Start ``tool`` as a job owned by the caller's session and principal; returns at once.

    Raises:
        JobLimitReached: the job store is full (in total or for this caller).
    """
    owner = request.session.id if request.session is not None else None
    runner = runner_of(core, tool)
    job = core.jobs.create(tool.name, owner, principal=request.principal, arguments=arguments, as_task=as_task,
                           ttl=ttl, executor=runner.name, detached=runner.survives_restart)
    job.request = request
    request.job_id = job.id

    async def work() -> None:
        try:
            result = await run_tool(core, request, tool, arguments, job=job)
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
    """End ``job`` with the ``CallToolResult`` of its call."""
    if result.get("isError"):
        job.finish(jobmod.FAILED, result=result, message=_text_of(result))
    else:
        job.finish(jobmod.COMPLETED, result=result)


def hand_over(core: ServerCore, job: jobmod.Job) -> bool:
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
        if done.cancelled():
            job.finish(jobmod.FAILED, message=jobmod.SERVER_STOPPED)
            return
        try:
            value = done.result()
            result = (error_result(f"tool '{tool.name}' returned an awaitable after its server stopped")
                      if inspect.isawaitable(value) else shape(tool, value, version, sink))
        except Exception as exc:  # what the function raised, or a result that cannot be shaped
            result = error_result(str(exc) or type(exc).__name__)
        finish_with(job, result)

    work.add_done_callback(ended)
    return True


def reattach(core: ServerCore, job: jobmod.Job) -> bool | None:
    """The job store's hook for a job of a dead server process that its executor may still hold
    (Dask): True once followed here, False when it cannot be, None when not serving yet (the
    store asks again when a request wants the job)."""
    if not core.holds_after_restart(job):
        return False
    if core.loop is None or core.loop.is_closed():
        return None
    return follow_reattached(core, job)


def follow_reattached(core: ServerCore, job: jobmod.Job) -> bool:
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
            text = str(exc) or type(exc).__name__
            finish_with(job, error_result(text))
            return
        finish_with(job, shape(tool, value, versions.LATEST_HANDSHAKE))

    job.task = asyncio.run_coroutine_threadsafe(follow(), core.loop)  # type: ignore[arg-type,assignment]
    return True


def _text_of(result: dict[str, Any]) -> str:
    texts = [c.get("text", "") for c in result.get("content", []) if c.get("type") == "text"]
    return "\n".join(texts)


async def start_job_result(core: ServerCore, request: RequestContext, tool: Tool,
                           arguments: dict[str, Any]) -> dict[str, Any]:
    """The immediate answer to an ``@async_tool`` call: the job handle, as documented (an
    ``isError`` result saying why when the job store is full)."""
    try:
        job = start_job(core, request, tool, arguments)
    except jobmod.JobLimitReached as exc:
        return error_result(str(exc))
    handle = {
        "status": "running",
        "job_id": job.id,
        "message": f'Job started. Poll with get_job_result(job_id="{job.id}")',
    }
    return results.tool_result(handle, output_schema=None, version=request.version)


def job_status(job: jobmod.Job) -> dict[str, Any]:
    """What ``get_job_result`` answers for ``job`` (idempotent until the job expires)."""
    if job.status in (jobmod.WORKING, jobmod.INPUT_REQUIRED):
        return {"status": "running", "job_id": job.id}
    if job.status == jobmod.COMPLETED:
        return {"status": "done", "job_id": job.id, "result": job_value(job.result or {})}
    if job.status == jobmod.CANCELLED:
        return {"status": "cancelled", "job_id": job.id}
    error = job.status_message or (job.error or {}).get("message") or "the job failed"
    return {"status": "error", "job_id": job.id, "error": error}


def job_value(result: dict[str, Any]) -> Any:
    """The plain value of a finished job: structured content, else its text, else its blocks."""
    if "structuredContent" in result:
        return result["structuredContent"]
    content = result.get("content", [])
    if len(content) == 1 and content[0].get("type") == "text":
        return content[0]["text"]
    return content


def job_result_tool(core: ServerCore) -> Callable[..., Awaitable[dict[str, Any] | ToolResult]]:
    """The built-in ``get_job_result`` tool of ``core``: an ``@async_tool`` caller polls it."""

    async def get_job_result(ctx: Context, job_id: str) -> dict[str, Any] | ToolResult:
        """Get the status or result of a job started by an async tool.

        Args:
            job_id: the job_id returned when the async tool was called.
        """
        try:
            job = core.jobs.get(job_id, ctx.session_id, ctx.principal)
        except UnknownComponent:
            # A tool error (isError), still carrying the status object pollers read.
            return ToolResult(is_error=True, structured_content={
                "status": "not_found", "job_id": job_id,
                "error": "No such job for this session (wrong id, expired, or started elsewhere)"})
        return job_status(job)

    return get_job_result
