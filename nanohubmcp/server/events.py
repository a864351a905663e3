"""A tiny synchronous event bus: the registry and dispatcher publish, subscribers react.

Events (name → keyword data):

- ``tools_changed`` / ``resources_changed`` / ``prompts_changed``: ``name`` of the component.
- ``call_started``: ``call_id``, ``method``, ``name``, ``session_id``, ``started`` (``time.time()``).
- ``call_finished``: the same plus ``duration_ms`` and ``ok`` (bool) and ``error`` (str or None).
- ``server_started`` / ``server_stopped``: ``url``.

Callbacks run on the publisher's thread, in subscription order; a failing callback is logged
and never breaks the publisher. Subscribers that must touch the event loop schedule themselves.
Nothing polls (``design/architecture.md`` § Events).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger("nanohubmcp")

Callback = Callable[[str, dict[str, Any]], None]


class EventBus:
    """Publish/subscribe for in-process observers (notifier, notebook log, lab panel)."""

    def __init__(self) -> None:
        self._subscribers: list[Callback] = []
        self._lock = threading.Lock()

    def subscribe(self, callback: Callback) -> Callable[[], None]:
        """Call ``callback(event, data)`` for every event; returns a function that unsubscribes."""
        with self._lock:
            self._subscribers = [*self._subscribers, callback]

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers = [cb for cb in self._subscribers if cb is not callback]

        return unsubscribe

    @property
    def active(self) -> bool:
        """True when anyone listens (publishers may skip building event data otherwise)."""
        return bool(self._subscribers)

    def emit(self, event: str, **data: Any) -> None:
        """Deliver ``event`` to every subscriber."""
        for callback in self._subscribers:  # a snapshot: the list is replaced, never mutated
            try:
                callback(event, data)
            except Exception:
                log.exception("event subscriber failed on %s", event)
