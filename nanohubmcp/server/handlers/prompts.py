"""Prompts (list, get) and argument completion.

Source: MCP 2025-11-25, Server § Prompts; Server § Utilities § Completion.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import InvalidParams, UnknownComponent
from ...schema.paths import echoed
from ..calls.context import Context
from ..calls.invoke import CallRecord, call_function
from ..registry.registry import list_result
from ..results import shape as results
from ..wire.request import RequestContext

if TYPE_CHECKING:
    from .host import HandlerServices

MAX_COMPLETIONS = 100


async def prompts_list(core: HandlerServices, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``prompts/list``."""
    return list_result(core.registry.prompts, "prompts", request.version, core.list_page_size, params)


async def prompts_get(core: HandlerServices, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``prompts/get`` → ``{description?, messages}``."""
    name = params.get("name")
    if not isinstance(name, str) or not name:
        raise InvalidParams("prompts/get needs params.name, the prompt's name as a string")
    prompt = core.registry.prompts.get(name)
    if prompt is None:
        raise UnknownComponent(f"Unknown prompt: {echoed(name)}")
    arguments = params.get("arguments") or {}
    if not isinstance(arguments, dict):
        raise InvalidParams("prompts/get params.arguments must be an object of argument names to strings")
    wrong = sorted(k for k, v in arguments.items() if not isinstance(v, str))
    if wrong:
        raise InvalidParams(f"Prompt arguments are strings (MCP Server § Prompts); not: {', '.join(wrong)}")
    missing = [a["name"] for a in prompt.arguments if a.get("required") and a["name"] not in arguments]
    if missing:
        raise InvalidParams(f"Prompt '{name}' needs argument(s): {', '.join(missing)}")
    call = CallRecord(core.bus, request, "prompts/get", name) if core.bus.active else None
    try:
        context = Context(core, request) if prompt.signature.context_param else None
        kwargs = prompt.signature.call_arguments(arguments, context, kind="prompt", name=name)
        value = await call_function(prompt.fn, kwargs, is_coroutine=prompt.is_coroutine, executor=core.executor,
                                    timeout=core.tool_timeout, what=f"prompt '{name}'",
                                    may_run_inline=context is None)
        result = results.prompt_result(value, description=prompt.description)
    except Exception as exc:
        if call:
            call.finish(False, str(exc))
        from ...errors import InternalError, ProtocolError

        if isinstance(exc, ProtocolError):
            raise
        raise InternalError(f"Prompt '{name}' failed: {exc}") from exc
    if call:
        call.finish(True)
    return result


async def complete(core: HandlerServices, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``completion/complete``: suggestions for a prompt argument or template variable."""
    ref = params.get("ref")
    argument = params.get("argument")
    if not isinstance(ref, dict) or not isinstance(argument, dict) or not isinstance(argument.get("name"), str):
        raise InvalidParams("completion/complete needs params.ref {type, name|uri} and params.argument {name, value}")
    kind = ref.get("type")
    if kind == "ref/prompt":
        key = ref.get("name")
        if not isinstance(key, str) or core.registry.prompts.get(key) is None:
            raise UnknownComponent(f"Unknown prompt: {echoed(key)}")
    elif kind == "ref/resource":
        key = ref.get("uri")
        if not isinstance(key, str) or (key not in core.registry.templates and key not in core.registry.resources):
            raise InvalidParams(f"Unknown resource template: {echoed(key)}")
    else:
        raise InvalidParams("params.ref.type must be 'ref/prompt' or 'ref/resource'")
    completer = core.completers.get((kind, key, argument["name"]))
    values: list[str] = []
    if completer is not None:
        ctx_args = (params.get("context") or {}).get("arguments") or {}
        kwargs: dict[str, Any] = {"value": str(argument.get("value", ""))}
        if completer.wants_context:
            kwargs["context"] = ctx_args
        produced = await call_function(completer.fn, kwargs, is_coroutine=completer.is_coroutine,
                                       executor=core.executor, timeout=core.tool_timeout, what="completion")
        values = [str(v) for v in (produced or [])]
    total = len(values)
    return {"completion": {"values": values[:MAX_COMPLETIONS], "total": total,
                           "hasMore": total > MAX_COMPLETIONS}}
