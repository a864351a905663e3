"""Before a tool runs: the tool a ``tools/call`` names, its arguments checked, and the refusal answered.

Every route that calls a tool (``tools/call`` in both eras, tasks) looks its tool up and checks its arguments
here before the tool-call service runs it (:mod:`.tool_calls`): an unknown tool is -32602 in every era; arguments
that break the input schema are -32602 up to 2025-06-18 and ``isError: true`` from 2025-11-25 (server option
``argument_errors``, SEP-1303). A refused call is still published to call observers. The arguments of a large
request, or of a tool whose own check may take long, are checked on a worker thread (:func:`validated`).
Every tool failure answers with :func:`~nanohubmcp.protocol.content.tool_error_result`.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any

from ...errors import InvalidArguments, InvalidParams, UnknownComponent
from ...errors.told import Failure
from ...protocol.content import tool_error_result
from ...protocol.jsonrpc import json_kind
from ...schema import CheckPending
from ...schema.paths import echoed
from ...schema.secret_text import Telling
from ..registry.components import Tool
from ..wire import trace_context
from ..wire.request import ANSWERED_BY_LAYER, UNKNOWN_TOOL, RequestContext, Slot
from .invoke import CallRecord

if TYPE_CHECKING:
    from .hosts import CheckHost, Refusing

__all__ = [
    "OFF_LOOP_CHECK",
    "call_arguments",
    "checks_loaded",
    "lookup_tool",
    "refusal_told",
    "refuse_arguments",
    "validated",
]

OFF_LOOP_CHECK: Slot[dict[str, Any] | Exception] = Slot("arguments checked on a worker thread")
"""What checking a large request's arguments off the loop found (see :func:`validated`)."""


def lookup_tool(core: CheckHost, request: RequestContext, params: dict[str, Any]) -> Tool:
    """The tool named by ``params.name``; raises -32602 for a missing, malformed or unknown name.

    A refused call is still published to call observers (``call_finished`` with ``ok`` false), so
    the notebook log and the lab panel show calls that never reached a function.
    """
    name = params.get("name")
    if not isinstance(name, str) or not name:
        _refused(core, request, None, "tools/call needs params.name, the tool's name as a string")
        raise InvalidParams("tools/call needs params.name, the tool's name as a string")
    tool = core.registry.tools.by_name.get(name)
    if tool is None:
        request.slots[UNKNOWN_TOOL] = True  # (REST's 404)
        _refused(core, request, name, f"Unknown tool: {echoed(name)}")
        raise UnknownComponent(f"Unknown tool: {echoed(name)}")
    return tool


def validated(request: RequestContext, tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` checked against the tool's input schema (with its defaults filled in), in a
    ``validate_arguments`` span of a traced request.

    The arguments of a large request (:attr:`~..wire.request.RequestContext.large`), and every call's
    of a tool whose own check may take long (``check_off_loop``: a Sim2L job tool), are checked on
    a worker thread: the first call raises ``CheckPending``, whose wait checks them there, and the
    call after it answers what that check found (the same arguments, or the same refusal).

    Raises:
        InvalidArguments: they break the schema (answer with :func:`refuse_arguments`).
        CheckPending: the tool's own check must first load something slow, or the request is a
            large one: await :func:`checks_loaded`, then call this again.
    """
    if request.large or tool.validator.off_loop:
        return _checked_off_loop(request, tool, arguments)
    if trace_context.STEP_MIN_SECONDS is None or not trace_context.steps_traced(request):  # the default: no step spans
        return tool.validator.validate(arguments)
    with trace_context.step(request, f"validate_arguments {tool.name}", {"gen_ai.tool.name": tool.name},
                            Telling(tool.secrets, arguments)):
        return tool.validator.validate(arguments)


def _checked_off_loop(request: RequestContext, tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """:func:`validated` of a large request: what :func:`_check` found on a worker thread, or
    ``CheckPending`` whose wait runs it there."""
    found = request.slots.pop(OFF_LOOP_CHECK, None)
    if found is None:
        raise CheckPending(functools.partial(_check, request, tool, arguments))
    if isinstance(found, Exception):
        raise found
    return found


def _check(request: RequestContext, tool: Tool, arguments: dict[str, Any]) -> None:
    """On a worker thread: check a large request's arguments (loading first what the tool's own
    check needs) and keep the outcome, the checked arguments or the exception, for
    :func:`_checked_off_loop`."""
    found: dict[str, Any] | Exception
    try:
        with trace_context.step(request, f"validate_arguments {tool.name}", {"gen_ai.tool.name": tool.name},
                                Telling(tool.secrets, arguments)):
            try:
                found = tool.validator.validate(arguments)
            except CheckPending as pending:  # already on a thread: load it here, then check
                pending.wait()
                found = tool.validator.validate(arguments)
    except Exception as exc:  # raised on the loop by the call that reads it, as a check there would be
        found = exc
    request.slots[OFF_LOOP_CHECK] = found


async def checks_loaded(pending: CheckPending) -> None:
    """Run what a tool's argument check loads first (``pending.wait``: pint's unit registry for a
    Rappture job tool, about a second once per process) on a worker thread, so the loop serves
    other requests meanwhile; then :func:`validated` checks the arguments at once."""
    await asyncio.to_thread(pending.wait)


def refuse_arguments(core: Refusing, request: RequestContext, tool: Tool, exc: InvalidArguments,
                     arguments: dict[str, Any]) -> dict[str, Any]:
    """Answer ``arguments`` that break the tool's input schema (``exc``), per version: a -32602 error (raised)
    where the client's version wants one, else an ``isError`` result (MCP 2025-11-25, SEP-1303).
    The tool never ran: the result is marked so (:data:`~..wire.request.ANSWERED_BY_LAYER`), and
    leaves no provenance record naming the tool's code or an executor. A ``Secret`` argument's value the
    refusal quotes (an instance's repr, a model validator's message) is ``***`` (:func:`refusal_told`)."""
    request.slots[ANSWERED_BY_LAYER] = True
    failure = Telling(tool.secrets, arguments)(exc)
    _refused(core, request, tool.name, failure.text)
    if core.invalid_arguments_as_protocol_error(request.version, request.argument_errors):
        raise InvalidParams(failure.text, {"errors": refusal_told(exc, failure)}) from None
    return tool_error_result(failure.text)


def refusal_told(exc: InvalidArguments, failure: Failure) -> list[str]:
    """The ``errors`` of a refusal's -32602 (one per violation) as ``failure`` tells them (a secret hidden)."""
    return [failure.hide(error) for error in exc.errors] if failure.hidden else exc.errors


def _refused(core: Refusing, request: RequestContext, name: str | None, error: str) -> None:
    if core.bus.active:
        CallRecord(core.bus, request, "tools/call", name).finish(False, error)


def call_arguments(params: dict[str, Any]) -> dict[str, Any]:
    """``params.arguments`` as a dict (missing or null means no arguments).

    Raises:
        InvalidParams: ``arguments`` is neither an object nor null (an array, a string, …).
    """
    arguments = params.get("arguments")
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise InvalidParams(f"tools/call params.arguments must be an object of argument names to values, not "
                            f"{json_kind(arguments)}: send {{}} (or leave it out) for a tool without arguments")
    return arguments
