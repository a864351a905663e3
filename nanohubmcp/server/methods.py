"""The per-era method tables: JSON-RPC method name → handler.

The one module that names every handler. :class:`~nanohubmcp.server.core.ServerCore` builds its
dispatcher over :data:`TABLES`; the handlers are typed against
 a protocol of what each family reads (:mod:`.handlers.host`, :mod:`.stateless.hosts`), so none of them
imports the core.

The handlers of the session's lifecycle are imported with this module. Every other handler
module (tools, resources, prompts, tasks, the stateless era's discovery and calls, skills, listen) brings the
machinery of its requests with it — running tools, shaping results, jobs — which a server's
first answer (``initialize``) does not need: its table entry starts as a stand-in that, at the
method's first request, imports the handler, puts it in its place in the table and runs it.
From then on the dispatcher finds the handler itself (the same dictionaries, no extra call).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .dispatcher import MethodTables
from .handlers import lifecycle

if TYPE_CHECKING:
    from collections.abc import Callable

    from .dispatcher import Handler, Routed
    from .wire.request import RequestContext


def _on_first_request(table: dict[str, Handler], method: str, load: Callable[[], Handler]) -> Handler:
    """A stand-in for ``table[method]`` that loads the handler (``load()``) at its first request."""

    async def first(core: Routed, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        handler = table[method] = load()  # the same value from any thread or server: a benign race
        return await handler(core, request, params)

    return first


def _deferred(table: dict[str, Handler], loaders: dict[str, Callable[[], Handler]]) -> None:
    for method, load in loaders.items():
        table[method] = _on_first_request(table, method, load)


def calls_begin() -> None:
    """Before the first call of a user function (a tool, a resource or prompt reader, a completer):
    tqdm bars in it become that call's progress, and ``input()`` in it fails at once instead of
    waiting for the call's time limit. Both hooks are process-wide and idempotent; installed with
    the first handler that calls functions rather than when serving starts, so a server's first
    answer (``initialize``) loads neither."""
    from .calls import stdin_guard, tqdm_progress

    tqdm_progress.watch()
    stdin_guard.guard()


def _tools() -> Any:
    calls_begin()
    from .handlers import tools

    return tools


def _resources() -> Any:
    calls_begin()
    from .handlers import resources

    return resources


def _prompts() -> Any:
    calls_begin()
    from .handlers import prompts

    return prompts


def _tasks() -> Any:
    calls_begin()
    from .handlers import tasks

    return tasks


def _calls() -> Any:
    calls_begin()
    from .stateless import handlers

    return handlers


def _skills() -> Any:
    from .stateless import skills_methods

    return skills_methods


def _listen() -> Any:
    from .stateless import listen

    return listen


def _task_extension() -> Any:
    from .stateless import tasks

    return tasks


def _discover() -> Any:
    from .stateless import discover

    return discover


HANDSHAKE_METHODS: dict[str, Handler] = {
    "initialize": lifecycle.initialize,
    "ping": lifecycle.ping,
    "logging/setLevel": lifecycle.set_level,
}
"""Requests of the handshake era (2024-11-05 … 2025-11-25)."""
_deferred(
    HANDSHAKE_METHODS,
    {
        "tools/list": lambda: _tools().tools_list,
        "tools/call": lambda: _tools().tools_call,
        "resources/list": lambda: _resources().resources_list,
        "resources/templates/list": lambda: _resources().templates_list,
        "resources/read": lambda: _resources().resources_read,
        "resources/subscribe": lambda: _resources().subscribe,
        "resources/unsubscribe": lambda: _resources().unsubscribe,
        "prompts/list": lambda: _prompts().prompts_list,
        "prompts/get": lambda: _prompts().prompts_get,
        "completion/complete": lambda: _prompts().complete,
        "tasks/get": lambda: _tasks().tasks_get,
        "tasks/result": lambda: _tasks().tasks_result,
        "tasks/list": lambda: _tasks().tasks_list,
        "tasks/cancel": lambda: _tasks().tasks_cancel,
    },
)

MODERN_METHODS: dict[str, Handler] = {}
"""Requests of the stateless era (2026-07-28); no initialize, ping, logging/setLevel or
resources/subscribe (-32601 there), tasks as the io.modelcontextprotocol/tasks extension."""
_deferred(
    MODERN_METHODS,
    {
        "server/discover": lambda: _discover().server_discover,
        "subscriptions/listen": lambda: _listen().subscriptions_listen,
        "tools/list": lambda: _discover().cacheable(_tools().tools_list),
        "tools/call": lambda: _calls().tools_call,
        "resources/list": lambda: _discover().cacheable(_resources().resources_list),
        "resources/templates/list": lambda: _discover().cacheable(_resources().templates_list),
        "resources/read": lambda: _calls().resources_read,
        "resources/directory/read": lambda: _skills().directory_read,
        "prompts/list": lambda: _discover().cacheable(_prompts().prompts_list),
        "prompts/get": lambda: _calls().prompts_get,
        "completion/complete": lambda: _prompts().complete,
        "tasks/get": lambda: _task_extension().tasks_get,
        "tasks/update": lambda: _task_extension().tasks_update,
        "tasks/cancel": lambda: _task_extension().tasks_cancel,
        "skills/list": lambda: _skills().skills_list,
        "skills/get": lambda: _skills().skills_get,
    },
)

NOTIFICATIONS = {
    "notifications/initialized": lifecycle.initialized,
    "initialized": lifecycle.initialized,
    "notifications/cancelled": lifecycle.cancelled,
}
"""Client notifications we act on; others are ignored."""

TABLES = MethodTables(handshake=HANDSHAKE_METHODS, modern=MODERN_METHODS, notifications=NOTIFICATIONS)
