"""A stopping server as the requests it serves see it: :class:`Shutdown`.

A stop has two moments. When it **begins** (:meth:`Shutdown.begin`: SIGTERM, Ctrl-C,
``server.stop()``, stdin at its end) every running call is told to cancel (``ctx.is_cancelled()``)
and a request arriving from then on is refused at once with
:class:`~nanohubmcp.errors.ServerStopping`. When its grace is **over** (:meth:`Shutdown.cut_off`)
each request still being served has the task serving it cancelled, and is answered with the same
error — a final JSON-RPC error (REST: 503 with ``Retry-After``) the client can act on, written
before its connection closes, instead of a connection dropped without a word. The function of a
sync tool may still run on its worker thread; its result is no longer awaited.

Every transport serves requests through :meth:`Connection.serve
<nanohubmcp.server.connection.Connection.serve>`, which registers each one here while it runs
(:attr:`Shutdown.running`); jobs (``@async_tool``, tasks) are not requests: their handles were
answered at once, and they end as the job store says.
"""

from __future__ import annotations

import asyncio
import time

from .wire.request import RequestContext, Slot

__all__ = ["STOPPED", "Shutdown", "stop_request"]

STOPPED: Slot[bool] = Slot("cancelled by the server's stop")
"""True on a request the stopping server cancelled (:func:`stop_request`). A call that then ends in an
error (a Rappture program or a Sim2L kernel killed at the cancel, a tool raising once told) did not
complete: its answer is :class:`~nanohubmcp.errors.ServerStopping`, as for a call the grace cut off, never
the tool's failure (the client did not cancel; it may send the call again)."""


def stop_request(request: RequestContext, reason: str) -> None:
    """Cancel ``request`` for the server's stop, marked :data:`STOPPED`; one cancelled already (by its
    client, or by ``tool_timeout``) keeps its own cancel and its own answer."""
    if not request.cancelled.is_set():
        request.slots[STOPPED] = True
        request.cancel(reason)


class Shutdown:
    """Whether the server is stopping, and the requests it is serving (loop thread only)."""

    def __init__(self) -> None:
        self.begun = False
        """True from the moment the server began to stop until the stop is over."""
        self.began_at: float | None = None
        """``time.monotonic()`` when the last stop began (kept once it is over: a process that stops
        serving counts its exit's deadline from it); None before the first."""
        self.running: dict[RequestContext, asyncio.Task[object] | None] = {}
        """The requests being served, each with the task serving it: :meth:`Connection.serve
        <nanohubmcp.server.connection.Connection.serve>` adds each request it serves and removes it once
        answered (there, not through a method here: the call path of every request enters no other module
        for it)."""
        self.cut: set[RequestContext] = set()
        """The requests :meth:`cut_off` cancelled: whoever removes one from :attr:`running` and finds it
        here answers the stopping server's error, and discards it."""

    def begin(self) -> None:
        """The server stops: requests arriving from now on are refused."""
        if not self.begun:
            self.began_at = time.monotonic()
        self.begun = True

    def cut_off(self) -> set[asyncio.Task[object]]:
        """The grace is over: cancel the task serving each request still running (it answers
        :class:`~nanohubmcp.errors.ServerStopping`); returns those tasks, so the caller can wait
        until their answers are written before it closes connections."""
        tasks: set[asyncio.Task[object]] = set()
        for request, task in list(self.running.items()):
            self.cut.add(request)
            stop_request(request, "the server is stopping")
            if task is not None and not task.done():
                task.cancel()
                tasks.add(task)
        return tasks

    def reset(self) -> None:
        """The stop is over (its connections are closed), or the server serves again."""
        self.begun = False
        self.cut.clear()
