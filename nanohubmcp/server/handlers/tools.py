"""``tools/list`` and ``tools/call`` of the handshake era (the 2026-07-28 ``tools/call`` is in
:mod:`..stateless.handlers`); both run tools through :mod:`nanohubmcp.server.calls.tool_calls`.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from ...errors import InvalidArguments, MethodNotFound
from ...schema import CheckPending
from ..calls.tool_calls import run_tool
from ..calls.tool_checks import checks_loaded, lookup_tool, refuse_arguments, validated
from ..executors.service import start_job_result
from ..registry.components import task_support
from ..results.version_blocks import blocks_for
from ..wire.request import RequestContext
from .list_pages import list_result
from .tasks import create_task

if TYPE_CHECKING:
    from .host import ToolsHost


async def tools_list(core: ToolsHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``tools/list``: ``{tools: [...], nextCursor?}``, paged by :func:`.list_pages.list_result`; on 2025-11-25 a
    tool that takes tasks says so in ``execution.taskSupport`` (absent means "forbidden")."""
    return list_result(core, request, core.registry.tools, "tools", params, "tools/list")


def tools_call(core: ToolsHost, request: RequestContext, params: dict[str, Any]) -> Awaitable[dict[str, Any]]:
    """``tools/call``: run the tool and answer a ``CallToolResult`` (or a task / job handle).

    A plain function handing on the awaitable of the call (no coroutine level of its own); an
    unknown tool or a refusal raises at once. A session of a version without ``resource_link`` blocks
    (before 2025-06-18) gets a text block naming the URI in each one's place (:mod:`..results.link_blocks`),
    one without ``audio`` blocks (2024-11-05) an embedded blob resource in each one's place
    (:mod:`..results.audio_blocks`), a job's result polled with ``get_job_result`` too."""
    answer = _tools_call(core, request, params)
    return answer if request.version.every_block else _blocks_for(request, answer)


async def _blocks_for(request: RequestContext, answer: Awaitable[dict[str, Any]]) -> dict[str, Any]:
    return blocks_for(request.version, await answer)


def _tools_call(core: ToolsHost, request: RequestContext, params: dict[str, Any]) -> Awaitable[dict[str, Any]]:
    tool = lookup_tool(core, request, params)
    arguments: dict[str, Any] = params["arguments"]  # a dict: settled when the pipeline's Request was made
    try:
        arguments = validated(request, tool, arguments)
    except InvalidArguments as exc:
        return _answered(refuse_arguments(core, request, tool, exc, arguments))
    except CheckPending as pending:
        return _when_loaded(core, request, params, pending)
    task = params.get("task")
    if task is not None and not request.modern:
        if task_support(tool) == "forbidden":
            # MCP 2025-11-25, Utilities § Tasks § Tool-level negotiation: SHOULD answer -32601.
            raise MethodNotFound(f"Tool '{tool.name}' does not run as a task (its taskSupport is \"forbidden\"); "
                                 "call it without params.task")
        return create_task(core, request, tool, arguments, task)
    if tool.background:
        return start_job_result(core.job_service, request, tool, arguments)
    return run_tool(core.call_parts, request, tool, arguments)


async def _answered(result: dict[str, Any]) -> dict[str, Any]:
    return result


async def _when_loaded(core: ToolsHost, request: RequestContext, params: dict[str, Any],
                       pending: CheckPending) -> dict[str, Any]:
    """The call, once what the tool's argument check loads is loaded off the loop."""
    await checks_loaded(pending)
    return await _tools_call(core, request, params)
