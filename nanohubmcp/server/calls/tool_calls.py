"""The tool-call service: run a tool and shape its answer (jobs: :mod:`..executors.service`; the tool looked up and
its arguments checked before: :mod:`.tool_checks`).

Every route that calls a tool comes here (``tools/call`` in both eras, tasks, jobs), so they
report alike (MCP 2025-11-25, Server § Tools § Error handling): an unknown tool is -32602 in
every era; invalid arguments are -32602 up to 2025-06-18 and ``isError: true`` from 2025-11-25
(server option ``argument_errors``, SEP-1303); an exception raised by the tool is
``isError: true`` with its message (:func:`~nanohubmcp.errors.message_of`) as the text, never a
traceback; a result that breaks the declared output schema is ``isError: true`` too, and so is one answered as
an SSE event over the official client's 1 MiB (:func:`~..results.event_bound.hold_to_event`).

It imports no method handler: the handlers of both eras and the tasks machinery build on it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import (
    ClientRequestError,
    InvalidArguments,
    InvalidParams,
    ProtocolError,
    ResultTooLarge,
    ToolBusy,
    ToolError,
    ToolTimeout,
    notified_text,
)
from ...errors.told import Failure, told_protocol_error
from ...protocol.content import tool_error_result
from ...protocol.nesting import NestedTooDeep
from ...protocol.result_types import ToolResult
from ...schema.secret_text import Telling
from ...state.errors import StateUnavailable
from ..jobs.record import Job
from ..registry.components import STOPS_WHEN_CANCELLED, Tool
from ..results import convert
from ..results import shape as results
from ..results.convert.mixed import places_of
from ..results.event_bound import AS_EVENT_WHEN, answer_options, goes_as_event, hold_to_event
from ..results.json_values import NotJSON
from ..results.meta_values import MetaNotSendable
from ..results.options import ResultOptions
from ..results.shape import PLAIN_TYPES, SCALAR_TYPES
from ..results.sink import ResultSink, call_sink
from ..results.written import keep_written
from ..shutdown import STOPPED
from ..wire import trace_context
from ..wire.request import ANSWERED_BY_LAYER, RETURNED_ERROR, TIMED_OUT, RequestContext
from ..wire.trace_context import SPAN
from . import progress
from .call_endings import cancelled_by_client, client_cancelled, stopped
from .context import Context
from .invoke import NOT_INLINE, CallRecord, call_function, call_inline, cancelled_with_its_client, is_awaitable
from .tool_checks import refusal_told

if TYPE_CHECKING:
    from .hosts import CallHost

log = logging.getLogger("nanohubmcp.tool")

class JobRunner(Protocol):
    """Where a job's function runs (a :class:`~nanohubmcp.server.executors.base.JobExecutor`)."""

    async def call(self, job: Job, fn: Any, kwargs: dict[str, Any], *, context: Context | None,
                   context_param: str | None, is_coroutine: bool) -> Any: ...


async def run_tool(core: CallHost, request: RequestContext, tool: Tool, arguments: dict[str, Any],
                   *, job: Job | None = None, runner: JobRunner | None = None) -> dict[str, Any]:
    """Call ``tool`` with validated ``arguments``; every failure becomes an ``isError`` result.

    A ``job``'s call runs on its ``runner`` (the job executor the job service chose), with no
    time limit (``tool_timeout`` bounds calls, not jobs).
    """
    record = CallRecord(core.bus, request, "tools/call", tool.name) if core.bus.active else None
    # Asked once: a job's run is a span whenever the request is traced; the steps of a direct call
    # only when steps are traced too (trace_context.STEP_MIN_SECONDS).
    if job is not None:
        traced = request.slots.get(SPAN) is not None
    else:  # the default (no step spans) read here without a call
        traced = trace_context.STEP_MIN_SECONDS is not None and trace_context.steps_traced(request)
    # How its failure is told (answer, records, log, spans): a Secret argument's value hidden, found at a failure
    # (a job's is made with the job; a direct call's when a span or a failure needs it).
    tell = job.telling if job is not None else None
    # The call's progress reporter is made by its first report (ctx.report_progress, a tqdm bar).
    current = progress.CURRENT.set((core.call_seams, request))  # copied into the worker thread with the call
    try:
        signature = tool.signature
        context = Context(core.call_seams, request, job_id=job.id if job is not None else None) \
            if signature.context_param else None
        if request.large:  # a large request's arguments are converted on a worker thread too
            kwargs = await asyncio.to_thread(signature.call_arguments, arguments, context, kind="tool", name=tool.name)
        else:
            kwargs = signature.call_arguments(arguments, context, kind="tool", name=tool.name)
        value: Any
        if traced:
            # A job's run is a span of its own, current while it runs (its context goes to the executor);
            # a direct call's run is timed as a step (a span when it took a while), for the cost of a span.
            timed = trace_context.child if job is not None else trace_context.step
            tell = tell or Telling(tool.secrets, arguments)
            with timed(request, f"execute_tool {tool.name}", _tool_attributes(tool, job), tell):
                value = await _running(core, request, tool, kwargs, arguments, context, job, runner)
            with trace_context.step(request, f"convert_result {tool.name}", {"gen_ai.tool.name": tool.name}, tell):
                result = _shaping(core, request, tool, value, job)
                if not isinstance(result, dict):
                    result = await result
        else:
            # The common case, without a coroutine of ours: a quick sync function run here, on the
            # loop (the pool's inline lane), its plain value shaped at once.
            value = call_inline(tool.fn, kwargs, core.executor, tool.call_key, arguments) \
                if job is None and context is None and not tool.is_coroutine else NOT_INLINE
            if value is NOT_INLINE:
                value = await _running(core, request, tool, kwargs, arguments, context, job, runner)
            elif is_awaitable(value):
                value = await value
            if type(value) in SCALAR_TYPES and tool.output_validator is None:  # one text block, made here
                if job is not None:  # its text read back as the value when polled (get_job_result)
                    job.json_text = True
                result = results.tool_result(value, version=request.version)
            else:
                result = _shaping(core, request, tool, value, job)
                if not isinstance(result, dict):
                    result = await result
        # (goes_as_event's first test, its table read here: a call answered as JSON or a line enters nothing more)
        if job is None and request.transport in AS_EVENT_WHEN[request.stream_opened] and goes_as_event(request):
            # not linked (an output schema), and over the client's 1 MiB
            text = hold_to_event(result, tool.name, held=tool.output_schema is not None,
                                 bound=core.result_options.max_event_bytes)
            if text is not None:  # (its text, written to measure it: the response copies it)
                keep_written(request, result, text)
    except asyncio.CancelledError:
        if record:
            record.finish(False, "cancelled")
        raise
    except BaseException as exc:
        if job is None and client_cancelled(request) and isinstance(exc, Exception):
            # Its client cancelled it (its coroutine's RequestCancelled, or what a sync function raised once it
            # read ctx.is_cancelled()): no answer is sent (or read), its record says cancelled.
            return tool_error_result(cancelled_by_client(request, record).message)
        if not isinstance(exc, Exception):  # InputRequired (2026 multi round-trip) and the like
            if record:
                record.finish(True, "input required")
            raise
        # A Secret argument's value quoted by the error: never kept, sent, logged or traced (the span's Failure).
        failure = (tell or Telling(tool.secrets, arguments)).last(exc)
        if isinstance(exc, InvalidArguments) and job is None:
            # Refused by the tool's own argument check (units, limits, an array's shape) before its code ran,
            # as the schema refuses: no provenance record naming an executor the code never reached.
            request.slots[ANSWERED_BY_LAYER] = True
        if isinstance(exc, InvalidArguments) and core.invalid_arguments_as_protocol_error(
                request.version, request.argument_errors):
            if record:
                record.finish(False, failure.text)
            raise InvalidParams(failure.text, {"errors": refusal_told(exc, failure)}) from None
        if request.modern and isinstance(exc, ProtocolError):
            # 2026-07-28: a protocol error raised in the call (e.g. -32021 when the client cannot
            # answer an input request) is the call's JSON-RPC error, not tool output.
            told = told_protocol_error(failure)  # (a Secret it quotes hidden: the answer, span and record read it)
            if record:
                record.finish(False, told.message)
            if told is exc:
                raise
            raise told from None
        if isinstance(exc, StateUnavailable):
            # The shared store (Redis) is away, e.g. under get_job_result: the call's 503 with
            # Retry-After on every route (nanohubmcp.errors), never tool output read as "no such job".
            if record:
                record.finish(False, failure.text)
            raise
        if job is None and request.slots.get(STOPPED):
            stopped(tool.name, request, failure.message, record)
        _log_failure(tool.name, request, job, failure)
        text = failure.message
        if record:
            record.finish(False, text)
        if isinstance(exc, ToolBusy):
            if job is None:  # the function never started: no provenance record (nothing ran to name)
                request.slots[ANSWERED_BY_LAYER] = True
            return tool_error_result(text, retry_after=exc.retry_after)
        if isinstance(exc, ToolTimeout):
            request.slots[TIMED_OUT] = True
        return tool_error_result(text)
    finally:
        progress.CURRENT.reset(current)
        # No progress after the response (MCP 2025-11-25, Basic § Utilities § Progress): the reporter
        # made by a report is finished; a call that reported nothing is marked so that none is made.
        tracker = request.slots.setdefault(progress.PROGRESS, progress.ANSWERED)
        if isinstance(tracker, progress.CallProgress):
            tracker.finish()
    if request.withdrawn and job is None:  # its client cancelled it, and it returned all the same (a sync
        # function that read ctx.is_cancelled()): cancelled
        return tool_error_result(cancelled_by_client(request, record).message)
    if result.get("isError") and job is None and request.slots.get(STOPPED):
        stopped(tool.name, request, "an error result", record)
    if result.get("isError") and isinstance(value, ToolResult) and value.is_error:  # its own error result
        request.slots[RETURNED_ERROR] = True
    if record:
        record.finish(not result.get("isError", False), None)
    return result


def _running(core: CallHost, request: RequestContext, tool: Tool, kwargs: dict[str, Any], arguments: dict[str, Any],
             context: Context | None, job: Job | None, runner: JobRunner | None) -> Awaitable[Any]:
    """The run of a call's function: a job's on its ``runner``, any other on the loop or the worker
    pool (:func:`~.invoke.call_function`; ``arguments``, the client's, are those the pool remembers when the call is
    quick), bounded by ``tool_timeout``."""
    if job is not None and runner is not None:
        # An executor reports where the job is (queued, running on a node) even to a tool
        # that takes no ctx: it gets the call's Context all the same.
        job.trace_context = trace_context.capture(request)  # the run span, for the executor
        return runner.call(job, tool.fn, kwargs, context=context or Context(core.call_seams, request, job_id=job.id),
                           context_param=tool.signature.context_param, is_coroutine=tool.is_coroutine)
    run = call_function(
        tool.fn, kwargs, is_coroutine=tool.is_coroutine, executor=core.executor,
        timeout=core.tool_timeout, what=tool.call_key, arguments=arguments, may_run_inline=context is None,
        on_timeout=lambda: request.cancel("the call ran out of time (tool_timeout)"),
        stops_when_cancelled=bool(tool.extra.get(STOPS_WHEN_CANCELLED)))
    # A coroutine stops at its client's cancel (its await raises CancelledError); a sync function reads it as
    # ctx.is_cancelled(), nothing can stop its thread.
    return cancelled_with_its_client(request, run) if tool.is_coroutine else run


def _shaping(core: CallHost, request: RequestContext, tool: Tool, value: Any,
             job: Job | None = None) -> dict[str, Any] | asyncio.Future[dict[str, Any]]:
    """A call's value as its ``CallToolResult``: shaped here, or (drawing a figure, encoding an
    array, keeping a long text, walking a large list or dict or one holding any of those:
    :func:`~nanohubmcp.server.results.convert.costly`; not on the event loop) the future of its shaping on
    the worker pool. A ``job``'s :attr:`~nanohubmcp.server.jobs.record.Job.json_text` and ``item_places``
    are found where the value is shaped (they walk the value as the shaping does): :func:`note_value`."""
    # A plain str/number/bool is never offloaded nor converted: no sink, no detour. An answer going as one SSE
    # event links its data over the event's share (answer_options: the client's 1 MiB cap on an event).
    options = core.result_options if job is not None else answer_options(core.result_options, request)
    kind = type(value)
    plain = kind in PLAIN_TYPES and not (kind is str and _kept_aside(options, value))
    # REST (data_only) has no resources/read: its answers carry all of the data, never a link; its job keeps
    # pictures and files as an MCP-started job does (call_sink).
    sink = None if plain else call_sink(options, core.result_store, request, job=job.id if job is not None else None)
    loop = asyncio.get_running_loop()
    # A long text is encoded and written to its file, which may wait for the results folder's lock; a list
    # or dict holding a figure draws it ([fig, {"n": 1}]), a large one is walked and encoded at length.
    if not plain and (kind is str or convert.recognised(value) or convert.costly(value)):
        return loop.run_in_executor(core.executor, functools.partial(
            _spelled_and_shaped, job, tool, value, request.version, sink, data_only=request.data_only))
    if job is not None:  # how its result reads back as the value when polled (get_job_result)
        note_value(job, tool, value, data_only=request.data_only)
    if sink is not None:  # a keep finding the folder's lock held is finished on the pool, never on the loop
        sink.later = []
    if tool.output_validator is None:  # nothing to hold the result to: it is the shaped value
        result = results.tool_result(value, output_schema=tool.output_schema, version=request.version,
                                     sink=sink, data_only=request.data_only)
    else:
        result = shape(tool, value, request.version, sink, data_only=request.data_only)
    if sink is None or not sink.later:
        return result
    # Another process (or a worker of this one) held the lock: wait for it there, so the result lands in
    # the shared folder (read by every process) rather than in this process's memory at once.
    return loop.run_in_executor(core.executor, _finished, sink, result)


async def shaped_job_value(core: CallHost, job: Job, tool: Tool, value: Any, version: str) -> dict[str, Any]:
    """The ``CallToolResult`` of a job's ``value`` that no request waits for (a Dask job re-attached after a
    restart), inlined whatever its size, after ``job``'s ``json_text`` and ``item_places`` (:func:`note_value`):
    where a call's value is shaped, on the worker pool for a costly one (:func:`_shaping`)."""
    shaping = functools.partial(_spelled_and_shaped, job, tool, value, version, None, data_only=False)
    if type(value) is str or convert.recognised(value) or convert.costly(value):
        return await asyncio.get_running_loop().run_in_executor(core.executor, shaping)
    return shaping()


def _spelled_and_shaped(job: Job | None, tool: Tool, value: Any, version: str, sink: ResultSink | None, *,
                        data_only: bool) -> dict[str, Any]:
    """:func:`shape`, on the worker pool, after ``job``'s ``json_text`` and ``item_places`` (:func:`_shaping`)."""
    if job is not None:
        note_value(job, tool, value, data_only=data_only)
    return shape(tool, value, version, sink, data_only=data_only)


def _finished(sink: ResultSink, result: dict[str, Any]) -> dict[str, Any]:
    """``result`` once the keeps its shaping put off (:attr:`ResultSink.later`) are done: off the loop."""
    sink.finish_later()
    return result


def _kept_aside(options: ResultOptions, text: str) -> bool:
    """Whether a text result is longer than ``max_inline_bytes`` (so it may be kept as a resource)
    or ``max_result_bytes`` (so it may be refused)."""
    limits = (options.max_inline_bytes, options.max_result_bytes)
    return any(limit is not None and len(text) > limit for limit in limits)


def _tool_attributes(tool: Tool, job: Job | None) -> dict[str, Any]:
    """The attributes of a tool's run span (the GenAI ``execute_tool`` span's, and the job's)."""
    attributes: dict[str, Any] = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool.name}
    if job is not None:  # not the job's id: it is the capability of sessionless callers
        attributes["nanohubmcp.job.executor"] = job.executor
    return attributes


def _log_failure(name: str, request: RequestContext, job: Job | None, failure: Failure) -> None:
    """The operator's record of a failed call (the client gets its message only), on the
    "nanohubmcp.tool" logger: an unexpected exception's traceback at ERROR (a default run shows it on
    stderr); a failure the tool reported (a ``ToolError``: a Rappture run over its time limit,
    cancelled or exiting non-zero, a Sim2L cell that raised) or a question the client did not answer
    as asked (a ``ClientRequestError`` the tool let through: no capability, a timeout, a refusal, a
    malformed answer) as one line at WARNING, its traceback only when the logger is at DEBUG; a ``meta``
    it returned that cannot be sent (``MetaNotSendable``: its message says all) as one line at WARNING;
    arguments the schema refused (INFO), or a tool that could not start (WARNING), as one line; a result
    nested too deeply to send, or holding a part JSON cannot hold (``NotJSON``: a ``set``, in a dict or an
    object array), at ERROR as one line. The arguments are never logged. The traceback's last line
    keeps an unexpected exception's message whole; the line above it says it as a client is sent it
    (:func:`~nanohubmcp.errors.notified_text`: cut past 65,536 characters), so a 3 MB message is logged once a call,
    not twice. A call with ``Secret`` arguments (``failure.hidden``) has its traceback written here, their values
    ``***`` in every line, the cause's and the context's too (``except KeyError: raise ValueError(...)``)."""
    exc = failure.exc
    said = failure.text
    where = f"(request id {request.message.id}{f', job {job.id}' if job is not None else ''})"
    if isinstance(exc, InvalidArguments):
        log.info("tool %r %s refused its arguments: %s", name, where, said)
    elif isinstance(exc, ToolBusy):
        log.warning("tool %r %s could not start: %s", name, where, said)
    elif isinstance(exc, (NestedTooDeep, NotJSON)):  # the tool's value, not code, is at fault: no traceback to read
        log.error("tool %r failed %s: %s", name, where, said)
    elif isinstance(exc, MetaNotSendable):  # the author's meta, said in full: the server's frames tell no more
        log.warning("tool %r failed %s: %s", name, where, said)
    elif isinstance(exc, ResultTooLarge):  # the server's limit did its job: nothing to debug
        if not exc.logged:  # (a job's data polled: said once per job, naming the job's tool and id)
            log.warning("tool %r %s answered too much: %s", name, where, said)
    elif isinstance(exc, (ToolError, ClientRequestError)):  # reported, or the client's: no bug of the code
        first, _, rest = said.partition("\n")
        more = f" (+{rest.count(chr(10)) + 1} lines sent to the client)" if rest else ""
        if failure.hidden and log.isEnabledFor(logging.DEBUG):
            log.warning("tool %r failed %s: %s%s\n%s", name, where, first, more, failure.frames)
        else:
            log.warning("tool %r failed %s: %s%s", name, where, first, more,
                        exc_info=exc if log.isEnabledFor(logging.DEBUG) else None)
    elif failure.hidden:  # its traceback written here, hidden, not by the log's handler
        log.error("tool %r failed %s: %s: %s\n%s", name, where, type(exc).__name__, notified_text(said),
                  failure.frames)
    else:
        log.error("tool %r failed %s: %s: %s", name, where, type(exc).__name__, notified_text(said), exc_info=exc)


def note_value(job: Job, tool: Tool, value: Any, *, data_only: bool = False) -> None:
    """Keep with ``job`` how its result reads back as ``value`` when polled (``get_job_result``): whether
    its text is the value's JSON (``Job.json_text``) and, for a list mixing blocks with data shaped for MCP
    (no output schema, not REST's ``data_only``), where each item sits in it (``Job.item_places``)."""
    job.json_text = results.json_spelled(value)
    # A JSON-spelled value holds no block (no second walk of a long list of records); a list mixing blocks
    # with data is walked again, for where its items sit.
    mcp_shaped = not data_only and tool.output_schema is None
    job.item_places = places_of(value) if mcp_shaped and not job.json_text else None


def shape(tool: Tool, value: Any, version: str, sink: ResultSink | None = None, *,
          data_only: bool = False) -> dict[str, Any]:
    """Map a return value to a CallToolResult and hold it to the tool's output schema.

    ``sink`` says where results over ``max_inline_bytes`` are kept (see ``results.tool_result``).
    """
    result = results.tool_result(value, output_schema=tool.output_schema, version=version, sink=sink,
                                 data_only=data_only)
    if tool.output_validator is not None and not result.get("isError"):
        # Checked in every version, even those without structuredContent on the wire.
        structured = results.structured_value(value, tool.output_schema)
        if structured is results.UNSET:
            return tool_error_result(
                f"tool '{tool.name}' declares an output schema but returned no structured content")
        problems = tool.output_validator.errors(structured)
        if problems:
            return tool_error_result(
                f"tool '{tool.name}' returned a result that breaks its output schema: " + "; ".join(problems))
    return result
