"""``tools/call``, ``prompts/get`` and ``resources/read`` in the stateless era.

They run the same functions as in the handshake era; what differs is around them:

- a function that asks for input it does not have yet ends the call with an
  ``input_required`` result (multi round-trip); the retry carries the answers and a signed
  ``requestState`` (see :mod:`..asks.input_requests`);
- ``tools/call`` may answer with a task handle (see :mod:`.tasks`): an ``@async_tool``
  called with the tasks extension becomes a task at once, other task-capable tools when
  they call ``ctx.start_task()``;
- a tool whose task support is ``"required"`` refuses a client without the tasks extension
  (-32021) before it runs;
- ``prompts/get`` and ``resources/read`` results carry caching hints when complete.

Source: MCP 2026-07-28, Server § Tools / Prompts / Resources; Basic § Patterns § Multi
Round-Trip Requests; tasks extension (SEP-2663).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ...errors import InvalidArguments, JobLimitReached
from ...schema import CheckPending
from ..asks.input_requests import Exchange, InputRequired, begin, begin_large
from ..calls import tool_calls as toolcalls
from ..calls import tool_checks
from ..executors import service as job_machinery
from ..handlers import prompts as prompt_handlers
from ..handlers import resources as resource_handlers
from ..jobs.record import TASK_JOB
from ..registry.components import task_support
from ..wire.request import RequestContext
from .discover import PRIVATE, with_cache_hints
from .tasks import (
    adopt,
    create_task_result,
    enable_escalation,
    has_tasks_extension,
    require_tasks_extension,
    track,
)

if TYPE_CHECKING:
    from .hosts import ModernHost


async def tools_call(core: ModernHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``tools/call`` → ``CallToolResult``, ``input_required``, or a task handle."""
    tool = tool_checks.lookup_tool(core, request, params)
    given = tool_checks.call_arguments(params)
    support = task_support(tool)
    if support == "required":
        require_tasks_extension(request, f"tool '{tool.name}'")
    # Only a tool with a Context parameter can ask for input (``ctx.elicit``...): its exchange, and
    # the digest of the arguments as they arrived that binds a requestState to them, are made
    # before it runs. A retry's requestState and inputResponses are checked whatever the tool.
    exchange = None
    if tool.signature.context_param is not None or "requestState" in params or "inputResponses" in params:
        exchange = await begin_large(core.request_codec, request, "tools/call", tool.name, given, params) \
            if request.large else begin(core.request_codec, request, "tools/call", tool.name, given, params)
    try:
        try:
            arguments = tool_checks.validated(request, tool, given)
        except CheckPending as pending:  # its check loads something first (pint's units): off the loop
            await tool_checks.checks_loaded(pending)
            arguments = tool_checks.validated(request, tool, given)
    except InvalidArguments as exc:
        return tool_checks.refuse_arguments(core, request, tool, exc, given)
    tasks_ok = has_tasks_extension(request) and support != "forbidden"
    if tool.background:
        if tasks_ok:
            try:
                job = await job_machinery.start_job(core.job_service, request, tool, arguments, as_task=True)
            except JobLimitReached as exc:
                return job_machinery.refused_job(request, exc)
            request.put(TASK_JOB, job)  # the job's asks wait for tasks/update
            request.allow_escalation(lambda _message: True)  # it runs as a task already (ctx.start_task())
            track(core.job_service, job)
            return create_task_result(job)
        return await job_machinery.start_job_result(core.job_service, request, tool, arguments)
    escalated = enable_escalation(core.job_service, request, tool) if tasks_ok else None
    if escalated is None:  # nothing to race: run the tool in this task (a Task per call showed in the profile)
        try:
            return await toolcalls.run_tool(core.call_parts, request, tool, arguments)
        except InputRequired as need:
            return _input_required(core, request, tool.name, given, params, exchange, need)
    run = asyncio.ensure_future(toolcalls.run_tool(core.call_parts, request, tool, arguments))
    try:
        racing: set[asyncio.Future[Any]] = {run, escalated}
        await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
        if escalated.done():  # ctx.start_task(): the call goes on as a task
            job = escalated.result()
            adopt(core.job_service, request, job, run)
            return create_task_result(job)
        return await run
    except InputRequired as need:
        return _input_required(core, request, tool.name, given, params, exchange, need)
    except asyncio.CancelledError:
        run.cancel()  # the server is shutting down under this request
        raise


def _input_required(core: ModernHost, request: RequestContext, name: str, given: object, params: dict[str, Any],
                    exchange: Exchange | None, need: InputRequired) -> dict[str, Any]:
    """The ``input_required`` result of a tool that asked; a tool without a Context parameter can
    only raise :class:`InputRequired` itself, and its exchange is made then."""
    if exchange is None:
        exchange = begin(core.request_codec, request, "tools/call", name, given, params)
    return exchange.input_required(need)


async def prompts_get(core: ModernHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``prompts/get`` → ``GetPromptResult`` or ``input_required``."""
    name, given = str(params.get("name")), params.get("arguments") or {}
    exchange = await begin_large(core.request_codec, request, "prompts/get", name, given, params) \
        if request.large else begin(core.request_codec, request, "prompts/get", name, given, params)
    try:
        return await prompt_handlers.prompts_get(core, request, params)
    except InputRequired as need:
        return exchange.input_required(need)


async def resources_read(core: ModernHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``resources/read`` → ``ReadResourceResult`` (with caching hints) or ``input_required``."""
    exchange = begin(core.request_codec, request, "resources/read", str(params.get("uri")), {}, params)
    try:
        result = await resource_handlers.resources_read(core, request, params)
    except InputRequired as need:
        return exchange.input_required(need)
    return with_cache_hints(result, PRIVATE)
