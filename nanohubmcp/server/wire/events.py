"""A tiny synchronous event bus: the registry and dispatcher publish, subscribers react.

Events (name → keyword data):

- ``tools_changed`` / ``resources_changed`` / ``prompts_changed``: ``name`` of the component.
- ``call_started``: ``call_id``, ``method``, ``name``, ``session_id``, ``started`` (``time.time()``).
- ``call_finished``: the same plus ``duration_ms`` and ``ok`` (bool) and ``error`` (str or None),
  and ``record``: the id of the call's provenance record (None when none is kept).
  A ``tools/call`` refused before the tool ran (unknown tool, arguments that break its schema)
  publishes its ``call_started`` and ``call_finished`` together, ``ok`` false; ``name`` is the
  name the client sent (None when it sent none).
- ``call_progress``: ``call_id`` (as in ``call_started``), ``progress``, ``total`` (or None),
  ``message`` (or None), ``source`` (``"context"`` for ``ctx.report_progress``, ``"tqdm"`` for a
  tqdm bar in the tool); published on the thread that reported it.
- ``server_started`` / ``server_stopped``: ``url`` and ``port`` (the bound TCP port).

Callbacks run on the publisher's thread, in subscription order; a failing callback is logged
and never breaks the publisher. Subscribers that must touch the event loop schedule themselves.
Nothing polls: ``list_changed`` notifications, the notebook's log and the lab panel all subscribe.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

log = logging.getLogger("nanohubmcp")

Callback = Callable[[str, dict[str, Any]], None]


class EventBus:
    """Publish/subscribe for in-process observers (notifier, notebook log, lab panel)."""

    def __init__(self) -> None:
        self._subscribers: list[tuple[Callback, frozenset[str] | None]] = []
        self._lock = threading.Lock()
        self.active = False
        """True when anyone listens to call events (the hot path skips building them otherwise);
        kept up to date by :meth:`subscribe` (a plain attribute: read on every call)."""

    def subscribe(self, callback: Callback, events: Iterable[str] | None = None) -> Callable[[], None]:
        """Call ``callback(event, data)`` for ``events`` (default: every event).

        Returns a function that unsubscribes.
        """
        entry = (callback, frozenset(events) if events is not None else None)
        with self._lock:
            self._subscribers = [*self._subscribers, entry]
            self._refresh()

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers = [e for e in self._subscribers if e is not entry]
                self._refresh()

        return unsubscribe

    def _refresh(self) -> None:
        self.active = any(wanted is None or "call_started" in wanted or "call_finished" in wanted
                          for _, wanted in self._subscribers)

    def emit(self, event: str, **data: Any) -> None:
        """Deliver ``event`` to every subscriber that wants it."""
        for callback, wanted in self._subscribers:  # a snapshot: the list is replaced, never mutated
            if wanted is not None and event not in wanted:
                continue
            try:
                callback(event, data)
            except Exception:
                log.exception("event subscriber failed on %s", event)
