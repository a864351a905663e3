"""MCP Tasks of 2025-11-25: task-augmented ``tools/call`` and ``tasks/*`` on the job machinery.

A task is a job seen through the Tasks API: ``tools/call`` with ``params.task`` answers at
once with ``CreateTaskResult``; ``tasks/get`` polls, ``tasks/result`` waits for the outcome,
``tasks/list`` shows the tasks of the caller's session only (paged as the other lists, by count and by
bytes: :mod:`.list_pages`), ``tasks/cancel`` stops one.

Source: MCP 2025-11-25, Basic § Utilities § Tasks.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

from ...errors import InternalError, InvalidParams, ResultTooLarge
from ...protocol.content import tool_error_result
from ..executors.service import refused_job, start_job
from ..jobs import service as jobmod
from ..registry.components import Tool
from ..results.event_bound import goes_as_event, held_to_schema, hold_task_to_event, task_result_via
from ..results.written import keep_written
from ..wire.request import RequestContext
from .answered_result import answered_result
from .cursors import seal_of
from .list_pages import fitted_page, page_bound, page_count

if TYPE_CHECKING:
    from ..executors.job_service import JobService
    from .host import TasksHost

RELATED_TASK = "io.modelcontextprotocol/related-task"


def task_object(job: jobmod.Job) -> dict[str, Any]:
    """The wire ``Task`` for a job (MCP 2025-11-25, Utilities § Tasks)."""
    return jobmod.task_fields(job, status=job.status, ttl_key="ttl", poll_key="pollInterval")


async def create_task(core: TasksHost, request: RequestContext, tool: Tool, arguments: dict[str, Any],
                      task_params: object) -> dict[str, Any]:
    """Start ``tool`` as a task; answers ``{task: Task}`` at once (a full job store: an ``isError``
    result naming the limit, as a plain call gets)."""
    if not isinstance(task_params, dict):
        raise InvalidParams("tools/call params.task must be an object, e.g. {\"ttl\": 60000}")
    seconds = _ttl_seconds(task_params.get("ttl"))
    try:
        job = await start_job(core.job_service, request, tool, arguments, as_task=True, ttl=seconds)
    except jobmod.JobLimitReached as exc:
        return refused_job(request, exc)
    return {"task": task_object(job)}


def _ttl_seconds(ttl: object) -> float | None:
    """``params.task.ttl`` (milliseconds) in seconds, as a whole number of milliseconds; None (absent or null)
    for the server's ``job_ttl_seconds``. The receiver may keep a task for other than asked (MCP 2025-11-25,
    Utilities § Tasks): a fraction of a millisecond is kept as the next whole one (``0.0001`` and ``1.5``
    are 1 and 2 ms: the task never answers ``ttl: 0``, a value refused here), and a ttl over the server's
    own, however large, is cut to it (:meth:`JobStore.create`).

    Raises:
        InvalidParams: a ttl that is no positive number (a string, a boolean, zero or less), -32602.
    """
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not ttl > 0:
        raise InvalidParams("tools/call params.task.ttl must be a positive number of milliseconds, e.g. "
                            "{\"ttl\": 60000}, or left out for the server's own")
    try:
        return math.ceil(ttl) / 1000.0
    except OverflowError:  # beyond any float (a 400-digit integer, JSON's Infinity): cut to the server's own
        return math.inf


def _job(service: JobService, request: RequestContext, params: dict[str, Any]) -> jobmod.Job:
    task_id = params.get("taskId")
    if not isinstance(task_id, str):
        raise InvalidParams("params.taskId must be the taskId string from CreateTaskResult")
    owner = request.session.id if request.session is not None else None
    return service.job_of(task_id, owner, request.principal)


async def tasks_get(core: TasksHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``tasks/get`` → Task."""
    return task_object(_job(core.job_service, request, params))


async def tasks_result(core: TasksHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``tasks/result``: wait until the task ends, then answer the original request's result,
    whichever process of the server runs the task (:meth:`~..jobs.service.JobStore.ended`).

    A task whose job stored a JSON-RPC error answers that error; a cancelled task, or a failed
    one with no stored result (e.g. settled at restart: "the server stopped while this job
    ran"), answers the ``CallToolResult`` ``{content: [{type: "text", text: <why>}], isError:
    true}``. Every result carries ``_meta["io.modelcontextprotocol/related-task"]``, beside the
    ``_meta`` of the call's own result, which names the call's provenance record
    (``io.nanohub/provenance``; so does a cancelled or failed task's, when it was recorded).

    A completed task whose data is over ``max_inline_bytes`` (and whose tool declares no output schema, whose
    structured content is promised) answers as a direct call of the tool does — a note with a preview, then a
    ``resource_link`` to all of it — never the data itself: see :func:`.answered_result.answered_result`.

    Over the legacy SSE transport the answer is one SSE event: one over the server's ``max_event_bytes`` (default 1 MiB,
    what the official client reads in one; None: no bound) (data under ``max_inline_bytes``, or a tool's with an output
    schema) is the tool error ``{content: [<its size and what to do>], isError: true}`` instead
    (:func:`~..results.event_bound.hold_task_to_event`); the task's result stays stored, and a ``tasks/result`` over
    Streamable HTTP answers it whole.

    .. versionchanged:: 1.0
       Such data was answered whole, into the model's context; a result over 1 MiB answered over legacy SSE was
       an event the official client dropped (the request never answered).
    """
    service = core.job_service
    job = await service.ended(_job(service, request, params), request)
    if job.status not in jobmod.TERMINAL:  # the request was cancelled: its answer goes nowhere
        raise InternalError(f"tasks/result was cancelled before task {job.id} ended; send it again to wait "
                            "for the task's result")
    meta: dict[str, Any] = {RELATED_TASK: {"taskId": job.id}}
    uri = job.provenance_uri()
    if uri is not None:
        meta[jobmod.PROVENANCE_META] = uri
    if job.error is not None:
        raise InvalidParams(job.error.get("message", "the task failed"), job.error.get("data"),
                            code=job.error.get("code"))
    if job.status == jobmod.CANCELLED:
        return tool_error_result("The task was cancelled", meta=meta)
    if job.result is None and job.status == jobmod.FAILED:
        return tool_error_result(job.status_message or "the task failed", meta=meta)
    result = await answered_result(service, job)
    answer = {**result, "_meta": {**(result.get("_meta") or {}), **meta}}
    if goes_as_event(request):  # over the client's 1 MiB: a tool error it reads, not an event it drops
        try:
            text = hold_task_to_event(answer, job.id, job.tool, held=held_to_schema(core.registry.tools, job.tool),
                                      bound=core.result_options.max_event_bytes, via=task_result_via(request))
        except ResultTooLarge as exc:
            return tool_error_result(str(exc), meta=meta)
        if text is not None:
            keep_written(request, answer, text)
    return answer



async def tasks_list(core: TasksHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``tasks/list``: ``{tasks: [Task, ...], nextCursor?}``, the tasks of the caller's session (never anyone
    else's; an ended session's tasks are read by id, not listed), oldest first, paged as the other lists
    are (MCP 2025-11-25, Server § Utilities § Pagination; :mod:`.list_pages`), whatever the transport: at most
    ``MCPServer(list_page_size=N)`` tasks (None: :data:`~.list_pages.TASKS_PAGE_SIZE`, 100) and at most the
    server's ``max_event_bytes`` (default 1 MiB; None: 1 MiB still) of JSON, the page ending before the task that
    would take it over (each task's ``statusMessage`` is cut at 65,536 characters, so one always fits). So a
    principal's 1,000 failed tasks with long messages (~65 MB of JSON) come in pages of ~15, each under a MiB;
    the client follows ``nextCursor`` until none is given.

    ``nextCursor`` names the position of a page's last task, sealed for the caller's session (:mod:`.cursors`:
    opaque, no task id in it); ``cursor`` goes on after that position, even when that task has expired since.

    .. versionchanged:: 1.0
       Unpaged by default, every task in one answer: over legacy SSE, 20 failed tasks with long messages made one
       1.3 MB event, which the official client dropped with its session; as a JSON body, 1,000 such tasks one
       ~65 MB answer. A cursor is taken without a page size.

    Raises:
        InvalidParams: a ``cursor`` this server did not issue to the caller's session for ``tasks/list`` (forged,
            altered, another list's or session's, from before a restart without a shared key), -32602.
    """
    owner = request.session.id if request.session is not None else None
    scope = f"tasks/list\0{owner or ''}"  # a cursor is good in the session it was issued to only
    cursor = params.get("cursor")
    after = _position(seal_of(core.request_codec).open(scope, cursor)) if cursor is not None else None
    service = core.job_service
    jobs, more = service.tasks_of(owner, request.principal, after=after, count=page_count(core, tasks=True))
    return fitted_page("tasks", [task_object(j) for j in jobs], more,
                       lambda i: seal_of(core.request_codec).seal(scope, f"{jobs[i].created!r}/{jobs[i].id}"),
                       method="tasks/list", bound=page_bound(core, request))


def _position(opened: str) -> tuple[float, str]:
    created, _, task_id = opened.partition("/")
    try:
        when = float(created)
    except ValueError:
        when = math.nan
    if not task_id or not math.isfinite(when):
        raise InvalidParams("Invalid cursor: it is not a tasks/list cursor; list again without a cursor")
    return when, task_id


async def tasks_cancel(core: TasksHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``tasks/cancel``: -32602 for a task that already ended; the task is ``cancelled`` on every
    process before the answer, whichever process runs it (:meth:`JobStore.cancel`)."""
    service = core.job_service
    job = _job(service, request, params)
    if job.status not in jobmod.TERMINAL:
        job = service.cancel(job)
        if job.status == jobmod.CANCELLED:
            job.updated = time.time()
            return task_object(job)
    raise InvalidParams(f"Task {job.id} already ended ({job.status}); it cannot be cancelled")
