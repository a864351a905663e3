"""Turns registry events into ``notifications/*/list_changed``, and resource updates into
``notifications/resources/updated`` for the sessions that subscribed (in any spelling, as
``resources/read`` compares URIs: ``CONFIG://%6Cab`` is ``config://lab``; the message names the URI as
each session subscribed it).

Registration may happen on any thread (a notebook cell runs on the kernel's main thread while
the server loop runs in another), so delivery is handed to the loop with
``call_soon_threadsafe``. A notification goes to each session's standalone stream (GET
``/mcp`` or the legacy SSE stream) — one stream per session, never another session's.

Source: MCP 2025-11-25, Server § Tools/Resources/Prompts § List Changed Notification;
Server § Resources § Subscriptions.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ...protocol import jsonrpc
from ...protocol.uris import comparison_form

if TYPE_CHECKING:
    from .events import EventBus
    from .replication import Replication
    from .sessions import SessionStore


if TYPE_CHECKING:  # for type checkers only: a Protocol class costs ~0.14 M instructions to make at import
    class Notified(Protocol):
        """What the notifier reads of its server: the events, the sessions, the option, the replication."""

        bus: EventBus
        sessions: SessionStore
        list_changed: bool
        replication: Replication | None

_LIST_CHANGED = {
    "tools_changed": "notifications/tools/list_changed",
    "resources_changed": "notifications/resources/list_changed",
    "prompts_changed": "notifications/prompts/list_changed",
}


def updated(uri: str) -> dict[str, Any]:
    """The ``notifications/resources/updated`` message naming ``uri``."""
    return jsonrpc.notification("notifications/resources/updated", {"uri": uri})


class Notifier:
    """Delivers change notifications while a server is serving on ``loop``."""

    def __init__(self, core: Notified, loop: asyncio.AbstractEventLoop) -> None:
        self.core = core
        self.loop = loop
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []
        self._unsubscribe = core.bus.subscribe(self._on_event, events=_LIST_CHANGED)
        if core.replication is not None:
            core.replication.state.broadcasts_to(self._from_elsewhere)

    def close(self) -> None:
        """Stop listening to the registry."""
        self._unsubscribe()

    def _on_event(self, event: str, data: dict[str, Any]) -> None:
        method = _LIST_CHANGED.get(event)
        if method is None or not self.core.list_changed:
            return
        self._later(self._broadcast, method)

    def _later(self, fn: Callable[..., None], *args: Any) -> None:
        if self.loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            fn(*args)
        else:
            self.loop.call_soon_threadsafe(fn, *args)

    def _from_elsewhere(self, method: str, params: dict[str, Any]) -> None:
        """A notification another process of this server sent: for this process's listeners."""
        for listener in self.listeners:
            listener(method, params)

    def _broadcast(self, method: str) -> None:
        message = jsonrpc.notification(method)
        replication = self.core.replication
        if replication is not None:  # every process's sessions: through the shared store
            replication.list_changed(message)
            replication.state.broadcast(method, {})
        for session in self.core.sessions.all() if replication is None else ():
            stream = session.standalone
            # A resumable stream keeps the message while its client reconnects (Last-Event-ID).
            if session.initialized and stream is not None and (stream.sink is not None or stream.resumable):
                stream.send(message)
        for listener in self.listeners:
            listener(method, {})

    def resource_updated(self, uri: str) -> None:
        """Queue ``notifications/resources/updated`` for every subscriber of ``uri``."""
        self._later(self._send_updated, uri)

    def _send_updated(self, uri: str) -> None:
        message = updated(uri)
        replication = self.core.replication
        if replication is not None:
            replication.resource_updated(message, uri)
            replication.state.broadcast("notifications/resources/updated", {"uri": uri})
        key = comparison_form(uri)  # as resources/read compares: CONFIG://%6Cab is config://lab
        for session in self.core.sessions.all() if replication is None else ():
            subscribed = session.subscriptions.get(key)
            if subscribed is not None and session.standalone is not None:
                # Named as the client subscribed it, the one spelling it knows.
                session.standalone.send(message if subscribed == uri else updated(subscribed))
        for listener in self.listeners:
            listener("notifications/resources/updated", {"uri": uri})
