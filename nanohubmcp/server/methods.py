"""The per-era method tables: JSON-RPC method name → handler.

The one module that names every handler. :class:`~nanohubmcp.server.core.ServerCore` builds its
dispatcher over :data:`TABLES`; the handlers are typed against
:class:`~nanohubmcp.server.services.Services`, so none of them imports the core.
"""

from __future__ import annotations

from .dispatcher import MethodTables
from .handlers import lifecycle, prompts, resources, tasks, tools
from .stateless import discover, listen
from .stateless import handlers as calls
from .stateless import skills_methods as skills_api
from .stateless import tasks as task_extension

HANDSHAKE_METHODS = {
    "initialize": lifecycle.initialize,
    "ping": lifecycle.ping,
    "logging/setLevel": lifecycle.set_level,
    "tools/list": tools.tools_list,
    "tools/call": tools.tools_call,
    "resources/list": resources.resources_list,
    "resources/templates/list": resources.templates_list,
    "resources/read": resources.resources_read,
    "resources/subscribe": resources.subscribe,
    "resources/unsubscribe": resources.unsubscribe,
    "prompts/list": prompts.prompts_list,
    "prompts/get": prompts.prompts_get,
    "completion/complete": prompts.complete,
    "tasks/get": tasks.tasks_get,
    "tasks/result": tasks.tasks_result,
    "tasks/list": tasks.tasks_list,
    "tasks/cancel": tasks.tasks_cancel,
}
"""Requests of the handshake era (2024-11-05 … 2025-11-25)."""

MODERN_METHODS = {
    "server/discover": discover.server_discover,
    "subscriptions/listen": listen.subscriptions_listen,
    "tools/list": discover.cacheable(tools.tools_list),
    "tools/call": calls.tools_call,
    "resources/list": discover.cacheable(resources.resources_list),
    "resources/templates/list": discover.cacheable(resources.templates_list),
    "resources/read": calls.resources_read,
    "resources/directory/read": skills_api.directory_read,
    "prompts/list": discover.cacheable(prompts.prompts_list),
    "prompts/get": calls.prompts_get,
    "completion/complete": prompts.complete,
    "tasks/get": task_extension.tasks_get,
    "tasks/update": task_extension.tasks_update,
    "tasks/cancel": task_extension.tasks_cancel,
    "skills/list": skills_api.skills_list,
    "skills/get": skills_api.skills_get,
}
"""Requests of the stateless era (2026-07-28); no initialize, ping, logging/setLevel or
resources/subscribe (-32601 there), tasks as the io.modelcontextprotocol/tasks extension."""

NOTIFICATIONS = {
    "notifications/initialized": lifecycle.initialized,
    "initialized": lifecycle.initialized,
    "notifications/cancelled": lifecycle.cancelled,
}
"""Client notifications we act on; others are ignored."""

TABLES = MethodTables(handshake=HANDSHAKE_METHODS, modern=MODERN_METHODS, notifications=NOTIFICATIONS)
