"""Prompts (list, get) and argument completion.

A ``prompts/get`` whose answer goes as one SSE event (legacy SSE; Streamable HTTP once a log message of the get went
first) over the server's ``max_event_bytes`` is a JSON-RPC error naming its size instead
(:func:`~..results.event_bound.hold_prompt_to_event`), as a ``resources/read`` is: the official client would drop the
event (over legacy SSE, with its whole session).

Source: MCP 2025-11-25, Server § Prompts; Server § Utilities § Completion.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ...errors import InvalidParams, UnknownComponent, text_of
from ...schema.paths import echoed, echoed_names
from ..calls.call_endings import cancelled_by_client, client_cancelled
from ..calls.context import Context
from ..calls.invoke import CallRecord, call_function, cancelled_with_its_client
from ..results import shape as results
from ..results.event_bound import goes_as_event, hold_prompt_to_event
from ..results.version_blocks import blocks_for
from ..results.written import keep_written
from ..wire.request import RequestContext
from .completer_values import (
    Suggested,
    completer_named,
    failed,
    is_read_whole,
    suggested,
    suggested_async,
    suggestions,
)
from .list_pages import list_result

if TYPE_CHECKING:
    from ..registry.prompts import Prompt
    from .host import PromptsHost

_SHAPE = "completion/complete needs params.ref {type, name|uri} and params.argument {name, value}"


async def prompts_list(core: PromptsHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``prompts/list``, paged by :func:`.list_pages.list_result`."""
    return list_result(core, request, core.registry.prompts, "prompts", params, "prompts/list")


async def prompts_get(core: PromptsHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``prompts/get`` → ``{description?, messages}``.

    The arguments of a large message (:attr:`~..wire.request.RequestContext.large`) are checked
    and converted on a worker thread: the same refusals, while the loop answers others.

    Raises:
        InternalError: (-32603) the answer goes as one SSE event (:func:`~..results.event_bound.goes_as_event`)
            and is over the server's ``max_event_bytes`` (default 1 MiB; None: no bound)
            (:func:`~..results.event_bound.hold_prompt_to_event`: its message names the size and where the
            prompt is answered whole); the call is recorded as failed.
    """
    name = params.get("name")
    if not isinstance(name, str) or not name:
        raise InvalidParams("prompts/get needs params.name, the prompt's name as a string")
    prompt = core.registry.prompts.get(name)
    if prompt is None:
        raise UnknownComponent(f"Unknown prompt: {echoed(name)}")
    arguments = params.get("arguments") or {}
    if not isinstance(arguments, dict):
        raise InvalidParams("prompts/get params.arguments must be an object of argument names to strings")
    large = request.large  # a large message's arguments are checked and converted on a worker thread
    if large:
        await asyncio.to_thread(check_arguments, prompt, arguments)
    else:
        check_arguments(prompt, arguments)
    call = CallRecord(core.bus, request, "prompts/get", name) if core.bus.active else None
    kwargs: dict[str, Any] | None = None
    try:
        context = Context(core.call_seams, request) if prompt.signature.context_param else None
        if large:
            kwargs = await asyncio.to_thread(prompt.signature.call_arguments, arguments, context, kind="prompt",
                                             name=name)
        else:
            kwargs = prompt.signature.call_arguments(arguments, context, kind="prompt", name=name)
        run = call_function(prompt.fn, kwargs, is_coroutine=prompt.is_coroutine, executor=core.executor,
                            timeout=core.tool_timeout, what=f"prompt '{name}'", arguments=arguments,
                            may_run_inline=context is None)
        value = await (cancelled_with_its_client(request, run) if prompt.is_coroutine else run)
        result = results.prompt_result(value, description=prompt.description)
        if not request.version.every_block:  # (a resource_link, audio an older version lacks)
            result = blocks_for(request.version, result)
        if goes_as_event(request):  # over the client's 1 MiB: an error it reads, not an event it drops
            text = hold_prompt_to_event(result, name, bound=core.result_options.max_event_bytes)
            if text is not None:
                keep_written(request, result, text)
    except Exception as exc:
        if client_cancelled(request):  # no answer is sent, whatever the function did at its client's cancel
            raise cancelled_by_client(request, call) from None
        if call:
            call.finish(False, text_of(exc))
        from ...errors import InternalError, InvalidArguments, ProtocolError

        if isinstance(exc, ProtocolError):
            raise
        if kwargs is None and isinstance(exc, InvalidArguments):  # a value its parameter's type refused
            raise InvalidParams(str(exc), {"prompt": name, "errors": exc.errors}) from None
        raise InternalError(f"Prompt '{name}' failed: {text_of(exc)}") from exc  # (a __str__ that raises: its type)
    if client_cancelled(request):  # a sync function that returned after its client's cancel: not answered
        raise cancelled_by_client(request, call)
    if call:
        call.finish(True)
    return result


def check_arguments(prompt: Prompt, arguments: dict[str, Any]) -> None:
    """Refuse what the client got wrong before the function runs: an argument the prompt does not
    take (unless it takes ``**kwargs``), a required one missing, a value that is not a string.

    Raises:
        InvalidParams: (-32602) naming the arguments at fault and the ones the prompt takes;
            ``data``: ``{"prompt", "arguments": [names it takes], "unknown" | "missing" | "not_strings": [...]}``.
    """
    takes = [a["name"] for a in prompt.arguments]
    listed = ", ".join(f"{a['name']} (required)" if a.get("required") else a["name"] for a in prompt.arguments)
    said = f"it takes: {listed}" if listed else "it takes no arguments"
    data: dict[str, Any] = {"prompt": prompt.name, "arguments": takes}
    if not prompt.signature.var_keyword:
        unknown = sorted(k for k in arguments if k not in takes)
        if unknown:
            raise InvalidParams(f"Prompt '{prompt.name}' has no argument(s) {_names(unknown)}; {said}",
                                {**data, "unknown": [echoed(k) for k in unknown[:_LISTED]]})
    missing = [a["name"] for a in prompt.arguments if a.get("required") and a["name"] not in arguments]
    if missing:
        raise InvalidParams(f"Prompt '{prompt.name}' needs argument(s): {', '.join(missing)}; {said}",
                            {**data, "missing": missing})
    wrong = sorted(k for k, v in arguments.items() if not isinstance(v, str))
    if wrong:
        raise InvalidParams(f"Prompt arguments are strings (MCP Server § Prompts); not: {_names(wrong)}",
                            {**data, "not_strings": [echoed(k) for k in wrong[:_LISTED]]})


_LISTED = 20  # client-sent names an error repeats, at most


def _names(keys: list[str]) -> str:
    return echoed_names(keys, _LISTED)


async def complete(core: PromptsHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``completion/complete``: suggestions for a prompt argument or template variable.

    Raises:
        InvalidParams: ``ref`` or ``argument`` missing or not objects, a ``ref.name``/``ref.uri``,
            ``argument.name`` or ``argument.value`` missing or not a string (all required), an unknown
            ``ref.type`` or resource template, or a malformed ``context``.
        UnknownComponent: no prompt of that name.
    """
    ref = params.get("ref")
    argument = params.get("argument")
    if not isinstance(ref, dict) or not isinstance(argument, dict) or not isinstance(argument.get("name"), str) \
            or "value" not in argument:  # (MCP requires the value: "" when the user typed nothing yet)
        raise InvalidParams(_SHAPE)
    kind = ref.get("type")
    if kind not in ("ref/prompt", "ref/resource"):
        raise InvalidParams("params.ref.type must be 'ref/prompt' or 'ref/resource'")
    key = ref.get("name" if kind == "ref/prompt" else "uri")
    if not isinstance(key, str):  # (not "Unknown prompt: ['greet']", a Python repr of what was sent)
        raise InvalidParams(_SHAPE)
    if kind == "ref/prompt":
        if core.registry.prompts.get(key) is None:
            raise UnknownComponent(f"Unknown prompt: {echoed(key)}")
    elif key not in core.registry.templates and key not in core.registry.resources:
        raise InvalidParams(f"Unknown resource template: {echoed(key)}")
    value = argument["value"]
    if not isinstance(value, str):
        raise InvalidParams("params.argument.value must be a string: what the user typed so far")
    context = params.get("context")
    given = context.get("arguments") if isinstance(context, dict) else None
    context_ok = context is None or isinstance(context, dict)
    given_ok = given is None or (isinstance(given, dict) and all(isinstance(v, str) for v in given.values()))
    if not (context_ok and given_ok):
        raise InvalidParams("params.context must be an object {\"arguments\": {name: string value, ...}}: "
                            "the arguments already given")
    completer = core.completers.get((kind, key, argument["name"]))
    if completer is None:
        return {"completion": {"values": [], "total": 0, "hasMore": False}}
    kwargs: dict[str, Any] = {"value": value}
    if completer.wants_context:
        kwargs["context"] = given or {}
    try:
        if completer.is_coroutine:  # (an async generator too: read on the loop, within the same time limit)
            produced = await cancelled_with_its_client(request, call_function(
                suggested_async, {"fn": completer.fn, "kwargs": kwargs}, is_coroutine=True, executor=core.executor,
                timeout=core.tool_timeout, what="completion"))
            if not is_read_whole(produced):  # (a generator: off the loop)
                produced = await call_function(suggestions, {"produced": produced}, is_coroutine=False,
                                               executor=core.executor, timeout=core.tool_timeout,
                                               what="completion values")
        else:  # the function and the reading of what it gave, on a worker, within tool_timeout
            produced = await call_function(suggested, {"fn": completer.fn, "kwargs": kwargs}, is_coroutine=False,
                                           executor=core.executor, timeout=core.tool_timeout, what="completion",
                                           key=f"completion of {kind} {key!r} {argument['name']!r}", arguments=kwargs)
        values, total, more = produced if isinstance(produced, Suggested) else suggestions(produced)
    except Exception as exc:
        if client_cancelled(request):  # no answer is sent, whatever the function did at its client's cancel
            raise cancelled_by_client(request, None) from None
        raise failed(completer_named(kind, key, argument["name"]), exc, core.tool_timeout) from None
    if client_cancelled(request):  # a sync function that returned after its client's cancel: not answered
        raise cancelled_by_client(request, None)
    completion: dict[str, Any] = {"values": values, "hasMore": more}
    if total is not None:
        completion["total"] = total
    return {"completion": completion}
