"""The tasks extension (``io.modelcontextprotocol/tasks``) on the job machinery of ``@async_tool``.

A client that lists the extension in a request's ``clientCapabilities.extensions`` may get a
task handle instead of a result from ``tools/call`` — ``{resultType: "task", taskId, status,
createdAt, lastUpdatedAt, ttlMs, pollIntervalMs}`` — and follows it with ``tasks/get``
(status, plus ``inputRequests``, ``result`` or ``error``), ``tasks/update`` (answers to input
requests) and ``tasks/cancel``. The server decides per call:

- an ``@async_tool`` becomes a task at once (without the extension it keeps answering with
  its ``get_job_result`` job handle);
- any tool whose task support is ``"optional"`` or ``"required"`` may call
  ``ctx.start_task()`` after it gathered its input (multi round-trip) to continue as a task;
- a tool with task support ``"required"`` refuses clients without the extension (-32021).

A task is the capability: its id is unguessable and there is no listing; jobs started in a
handshake-era session stay invisible to stateless callers. A tool result with ``isError``
is a ``completed`` task; ``failed`` means a JSON-RPC error.

Source: MCP tasks extension ``io.modelcontextprotocol/tasks`` (SEP-2663, ``ext-tasks``
specification); MCP 2026-07-28, Basic § Versioning (capabilities per request).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ...errors import InternalError, InvalidParams, MissingClientCapability, to_error_object
from ...protocol.message_values import show
from ..executors.service import finish_call
from ..handlers.answered_result import answered_result
from ..jobs import service as jobmod
from ..jobs.record import TASK_JOB
from ..registry.components import Tool
from ..wire.request import RequestContext
from .discover import TASKS_EXTENSION

if TYPE_CHECKING:
    from ..executors.job_service import JobService
    from .hosts import TaskHost


def has_tasks_extension(request: RequestContext) -> bool:
    """True when the request's client capabilities list the tasks extension."""
    extensions = (request.client_capabilities or {}).get("extensions")
    return isinstance(extensions, dict) and isinstance(extensions.get(TASKS_EXTENSION), dict)


def require_tasks_extension(request: RequestContext, what: str) -> None:
    """Raise -32021 unless the request declared the tasks extension."""
    if not has_tasks_extension(request):
        raise MissingClientCapability(
            f"Missing required client capability: {what} needs the {TASKS_EXTENSION} extension in "
            "clientCapabilities.extensions", {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}})


def task_status(job: jobmod.Job) -> str:
    """The status the tasks extension tells of ``job``: its own, but ``completed`` for a job whose tool returned
    an ``isError`` result (stored ``failed`` with that result): ``failed`` is a JSON-RPC error only."""
    if job.status == jobmod.FAILED and job.error is None and job.result is not None:
        return jobmod.COMPLETED
    return job.status


def task_handle(job: jobmod.Job) -> dict[str, Any]:
    """The ``Task`` fields of a job (tasks extension, SEP-2663)."""
    return jobmod.task_fields(job, status=task_status(job), ttl_key="ttlMs", poll_key="pollIntervalMs")


def detailed_task(service: JobService, job: jobmod.Job, result: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``DetailedTask`` of a job: its ``Task`` plus ``inputRequests``, ``result`` or ``error`` (a
    result's ``_meta`` names the call's provenance record, ``io.nanohub/provenance``, when it has one).

    ``result`` is the completed task's result as its answer gives it (:func:`~..handlers.answered_result.
    answered_result`, as ``tasks/get`` passes it: large data linked); None: the job's stored result as it is.
    """
    task = task_handle(job)
    status = task["status"]
    if status == jobmod.INPUT_REQUIRED:
        # (a task another process runs: the requests stored with it, JobStore.changed)
        task["inputRequests"] = service.task_inputs.outstanding(job.id) or dict(job.input_requests or {})
    elif status == jobmod.COMPLETED:
        result = task["result"] = dict(result or job.result or {"content": []})
        uri = job.provenance_uri()  # (a job that ended before its record opened stored none in its result)
        if uri is not None:
            result["_meta"] = {**(result.get("_meta") or {}), jobmod.PROVENANCE_META: uri}
    elif status == jobmod.FAILED:
        task["error"] = job.error or to_error_object(InternalError(job.status_message or "the task failed"))
    return task


def create_task_result(job: jobmod.Job) -> dict[str, Any]:
    """The ``CreateTaskResult`` answering ``tools/call``: ``{resultType: "task", ...Task}``."""
    return {"resultType": "task", **task_handle(job)}


def track(service: JobService, job: jobmod.Job) -> None:
    """Forget the task's input bookkeeping once its work ends."""
    if job.task is not None:
        inputs = service.task_inputs
        job.task.add_done_callback(lambda _t: inputs.forget(job.id))


# -- becoming a task mid-call ------------------------------------------------------------
def enable_escalation(service: JobService, request: RequestContext, tool: Tool) -> asyncio.Future[jobmod.Job]:
    """Let the running call turn into a task (``ctx.start_task()``), a job of ``service``; returns the future of
    its job."""
    future: asyncio.Future[jobmod.Job] = request.loop.create_future()

    def escalate(message: str | None) -> bool:
        if request.get(TASK_JOB) is not None:
            return True
        if future.done():
            return False
        try:
            job = service.task_for(request, tool.name, message or None)
        except jobmod.JobLimitReached:
            return False  # the call goes on as a plain call
        job.request = request
        # The call's work is the task's from now on: its progress is kept with the job, and its provenance
        # record (opened when the call answers with the task) is completed when the task ends.
        request.job_id = job.id
        request.put(TASK_JOB, job)  # from now on the call's asks wait for tasks/update
        future.set_result(job)
        return True

    request.allow_escalation(escalate)
    return future


def adopt(service: JobService, request: RequestContext, job: jobmod.Job,
          run: asyncio.Future[dict[str, Any]]) -> None:
    """Make ``job`` follow ``request``'s already running call ``run`` to its end, stored as an ``@async_tool``'s
    job's end is (:func:`~..executors.service.finish_call`: one end for both)."""
    job.task = asyncio.ensure_future(finish_call(service, job, request, run))
    track(service, job)


# -- tasks/get, tasks/update, tasks/cancel -----------------------------------------------
def _job(service: JobService, request: RequestContext, params: dict[str, Any], method: str) -> jobmod.Job:
    require_tasks_extension(request, method)
    task_id = params.get("taskId")
    if not isinstance(task_id, str) or not task_id:
        raise InvalidParams(f"{method} needs params.taskId, the taskId string of the task")
    try:
        return service.job_of(task_id, None, request.principal)
    except InvalidParams:
        raise InvalidParams(
            f"Failed to retrieve task: no task {show(task_id)} (wrong id, or it expired)") from None


async def tasks_get(core: TaskHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``tasks/get`` → the ``DetailedTask``. A completed task's ``result`` is answered as ``tasks/result``
    answers it (:func:`~..handlers.answered_result.answered_result`): data over ``max_inline_bytes`` of a tool
    without an output schema is a note and a ``resource_link``, the very link ``get_job_result`` gives.

    .. versionchanged:: 1.0
       Such data was answered whole, into the model's context.
    """
    service = core.job_service
    job = _job(service, request, params, "tasks/get")
    result = await answered_result(service, job) if job.status == jobmod.COMPLETED else None
    return detailed_task(service, job, result)


async def tasks_update(core: TaskHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``tasks/update``: answers to the task's outstanding input requests → ``{}`` (on any process of
    the server: answers to a task another process runs are handed to it, ``JobStore.answer``).
    Answers not of their request's shape, or a form's content off its requested schema, are -32602
    and none is delivered (``checked_answers``): the task keeps waiting."""
    service = core.job_service
    job = _job(service, request, params, "tasks/update")
    responses = params.get("inputResponses")
    if not isinstance(responses, dict):
        raise InvalidParams(
            "tasks/update needs params.inputResponses, an object of inputRequests keys to results")
    await service.answer_inputs(job, responses)  # (a wrong one: -32602, none delivered)
    return {}


async def tasks_cancel(core: TaskHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``tasks/cancel`` → ``{}`` (also for a task that already ended)."""
    service = core.job_service
    job = _job(service, request, params, "tasks/cancel")
    if job.status not in jobmod.TERMINAL:
        # (its followers are told of its end by the job store)
        service.cancel(job)
    return {}
