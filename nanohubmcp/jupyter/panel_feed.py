"""What the followed server's events become on the JupyterLab panel: call entries, batches, snapshots.

:class:`PanelFeed` is held by :class:`nanohubmcp.jupyter.comm.PanelLink` (which keeps the comm
plumbing and which server the panel follows, and hands the feed three callables: what the panel
shows, whether a panel listens, and how to send). The feed owns the call log and what waits to be
sent, under a lock of its own. Events arrive on any thread; call entries
are flushed in batches at most every :data:`FLUSH_DELAY` seconds from the loop that published
them, status and components once the kernel's loop is free (the cell that changed them is done).
The message shapes are in :mod:`nanohubmcp.jupyter.panel_messages`.
"""

from __future__ import annotations

import asyncio
import collections
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from comm.base_comm import BaseComm
    from tornado.ioloop import IOLoop

    from .panel_messages import Shown

from . import panel_messages

FLUSH_DELAY = 0.1
"""Seconds events wait to be batched into one message (a busy client cannot flood the page)."""


Send = Callable[[list[dict[str, Any]], "list[BaseComm] | None"], None]
"""How the feed sends messages: to the given comms, or (None) to every open panel."""


class PanelFeed:
    """The call log and the batched messages of one kernel's panel link.

    Args:
        subject: what the panel shows now (a ``KernelSession`` or ``kernel_server.KernelRun``), or None.
        listening: True while at least one panel has a comm open.
        send: sends messages to the given comms, or to every open panel.
        capacity: calls kept in the log (a ring buffer).
        kernel_loop: the kernel's Tornado loop (status and components wait for it), or None.

    Attributes:
        calls: the finished calls, oldest first (at most ``capacity``).
    """

    def __init__(
        self,
        subject: Callable[[], Shown | None],
        listening: Callable[[], bool],
        send: Send,
        *,
        capacity: int,
        kernel_loop: IOLoop | None,
    ) -> None:
        self._subject = subject
        self._listening = listening
        self._send = send
        self._kernel_loop = kernel_loop
        self.calls: collections.deque[dict[str, Any]] = collections.deque(maxlen=capacity)
        self._lock = threading.RLock()
        self._in_flight: dict[object, dict[str, Any]] = {}
        self._next_id = 0
        self._outbox: list[dict[str, Any]] = []
        self._dirty: set[str] = set()
        self._calls_pending = False
        self._jobs_dirty = False
        self._state_pending = False

    # -- events (any thread) -------------------------------------------------------------
    def on_event(self, event: str, data: dict[str, Any]) -> None:
        """A server event (``nanohubmcp.server.wire.events``): batch what the panel should hear of it."""
        with self._lock:
            if event == "call_started":
                self._outbox.append(self._started(data))
            elif event == "call_finished":
                self._outbox.append(self._finished(data))
            elif event == "call_progress":
                self._jobs_dirty = True  # a job's progress is in the store now
                entry = self._in_flight.get(data.get("call_id"))
                if entry is not None:  # one that started before the panel listened is shown from its next start
                    entry.update(progress=data.get("progress"), total=data.get("total"), message=data.get("message"))
                    self._outbox.append(entry)
            elif event.endswith("_changed"):
                self._dirty.add("components")
            elif event in ("server_started", "server_stopped"):
                self._dirty.add("status")
            else:
                return
        if event.startswith("call_"):
            with self._lock:
                self._jobs_dirty = True  # a job starts, ends or moves with its call
            self._schedule_calls()
            return
        if event == "server_stopped":
            self.flush_calls()  # the server's loop ends now: a flush scheduled on it would never run
        self._schedule_state()

    def changed(self, *parts: str) -> None:
        """``"status"`` and/or ``"components"`` changed: send them once the kernel's loop is free."""
        with self._lock:
            self._dirty.update(parts)
        self._schedule_state()

    def forget_in_flight(self) -> None:
        """The panel stops following a server: its running calls are no longer tracked."""
        with self._lock:
            self._in_flight.clear()

    def clear(self) -> None:
        """Empty the call log (and what waits to be sent of it)."""
        with self._lock:
            self.calls.clear()
            self._outbox.clear()

    def _started(self, data: dict[str, Any]) -> dict[str, Any]:
        """A running call's entry (lock held)."""
        self._next_id += 1
        entry = {
            "id": self._next_id,
            "time": data.get("started"),
            "method": data.get("method"),
            "name": data.get("name"),
            "session": data.get("session_id"),
            "ok": None,
            "error": None,
            "duration_ms": None,
        }
        self._in_flight[data.get("call_id")] = entry
        return entry

    def _finished(self, data: dict[str, Any]) -> dict[str, Any]:
        """The finished call's entry, kept in the log (lock held)."""
        started = self._in_flight.pop(data.get("call_id"), None)
        if started is None:  # it started before the panel listened
            started = self._started(data)
            self._in_flight.pop(data.get("call_id"), None)
        entry = {
            **started,
            "ok": bool(data.get("ok")),
            "error": data.get("error"),
            "duration_ms": round(float(data.get("duration_ms") or 0.0), 2),
            "record": data.get("record"),
        }
        self.calls.append(entry)
        return entry

    def _schedule_calls(self) -> None:
        """Flush call entries soon, on the loop that published them (the server's: live during cells)."""
        with self._lock:
            if self._calls_pending:
                return
            self._calls_pending = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush_calls()
            return
        loop.call_later(FLUSH_DELAY, self.flush_calls)

    def _schedule_state(self) -> None:
        """Send status/components once the kernel's loop is free: the cell that changed them is done."""
        with self._lock:
            if self._state_pending:
                return
            self._state_pending = True
        loop = self._kernel_loop
        if loop is None:
            self.flush_state()
        else:
            loop.add_callback(self.flush_state)  # thread-safe

    def flush_calls(self) -> None:
        """Send the call entries gathered since the last flush to every open panel."""
        with self._lock:
            self._calls_pending = False
            entries, self._outbox = self._outbox, []
            jobs_dirty, self._jobs_dirty = self._jobs_dirty, False
        if not (entries or jobs_dirty) or not self._listening():
            return
        latest: dict[int, dict[str, Any]] = {}
        for entry in entries:  # started then finished in one batch: send the final state only
            latest[entry["id"]] = entry
        messages = [self._jobs_message()] if jobs_dirty else []
        if latest:
            messages.insert(
                0,
                {
                    "type": "calls",
                    "reset": False,
                    "capacity": self.calls.maxlen,
                    "stuck": self._stuck(),
                    "calls": [dict(entry) for entry in latest.values()],
                },
            )
        self._send(messages, None)

    def flush_state(self) -> None:
        """Send the status and/or components the events changed to every open panel."""
        with self._lock:
            self._state_pending = False
            dirty, self._dirty = self._dirty, set()
        if not self._listening():
            return
        messages = []
        if "status" in dirty:
            messages.append(self._status_message())
        if "components" in dirty:
            messages.append(self._components_message())
        self._send(messages, None)

    # -- messages ------------------------------------------------------------------------
    def snapshot(self) -> list[dict[str, Any]]:
        """Everything a panel shows: status, components, the whole call log, the jobs."""
        return [
            self._status_message(),
            self._components_message(),
            self.calls_message(reset=True),
            self._jobs_message(),
        ]

    def _status_message(self) -> dict[str, Any]:
        return panel_messages.status(self._subject())

    def _components_message(self) -> dict[str, Any]:
        return panel_messages.components(self._subject())

    def _jobs_message(self) -> dict[str, Any]:
        return panel_messages.jobs(self._subject())

    def calls_message(self, reset: bool) -> dict[str, Any]:
        """The ``calls`` message: the log and the calls in flight (``reset``: the panel starts over)."""
        with self._lock:
            calls = [*self.calls, *(dict(entry) for entry in self._in_flight.values())]
        return {"type": "calls", "reset": reset, "capacity": self.calls.maxlen, "stuck": self._stuck(), "calls": calls}

    def _stuck(self) -> int:
        """Calls past ``tool_timeout`` whose functions still hold a worker thread."""
        subject = self._subject()
        return subject.server.runtime.stuck_calls if subject is not None else 0
