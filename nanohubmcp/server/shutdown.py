"""A stopping server as the requests it serves see it: :class:`Shutdown`.

A stop has two moments. When it **begins** (:meth:`Shutdown.begin`: SIGTERM, Ctrl-C,
``server.stop()``, stdin at its end) every running call is told to cancel (``ctx.is_cancelled()``)
and a request arriving from then on that would start work is refused at once with
:class:`~nanohubmcp.errors.ServerStopping` (:meth:`Shutdown.refuses`; a listing or a ping on a
session that exists, or in the stateless 2026-07-28 era, is still answered, from memory:
:data:`ANSWERED_WHILE_STOPPING`). When its
grace is **over** (:meth:`Shutdown.cut_off`) each request still being served has the task serving
it cancelled, and is answered with the same
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
from collections.abc import Callable

from .wire.request import RequestContext, Slot

__all__ = ["ANSWERED_WHILE_STOPPING", "CUT_OFF", "SETTLE_SECONDS", "STOPPED", "Shutdown", "stop_request"]

ANSWERED_WHILE_STOPPING: frozenset[str] = frozenset({
    "tools/list", "resources/list", "resources/templates/list", "prompts/list", "ping"})
"""The requests a stopping server still answers on a session that exists, and in the stateless 2026-07-28 era
(which has no sessions: every request of it is in none; ``ping`` is no method there): they start no work and
answer from memory. A client may send one after a call's answer, as part of taking it in: the official ``mcp``
client lists the tools after a ``tools/call`` result to check it against the tool's output schema (in either
era), and a refusal there made it raise "not completed; it may be retried" for a call that completed (trial52
N1). Everything else (``tools/call``, ``resources/read``, ``prompts/get``, tasks, ``initialize``,
``server/discover``, a handshake-era request in no session) is refused while the server stops."""

SETTLE_SECONDS = 0.5
"""How long a stop that answered requests keeps its sessions after the last answer (within its drain's bound):
the client's follow-up (the official client's ``tools/list`` after a call's result) reaches a session that
still exists, not one the stop just closed (:meth:`Shutdown.settling`)."""

STOPPED: Slot[bool] = Slot("cancelled by the server's stop")
"""True on a request the stopping server cancelled (:func:`stop_request`). A call that then ends in an
error (a Rappture program or a Sim2L kernel killed at the cancel, a tool raising once told) did not
complete: its answer is :class:`~nanohubmcp.errors.ServerStopping`, as for a call the grace cut off, never
the tool's failure (the client did not cancel; it may send the call again)."""

CUT_OFF: Slot[bool] = Slot("cut off by the server's stop")
"""True on a request still running when the stop's grace ran out (:meth:`Shutdown.cut_off`), whoever had
cancelled it before (its client, ``tool_timeout``): the stop ended its serving, so a call it cuts off is
recorded as one the stop cut short (:data:`~nanohubmcp.server.provenance.layer.STOPPED_TEXT`), with a
record written before the process exits, whatever its client had asked."""


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
        self.answered_at: float | None = None
        """``time.monotonic()`` when a request doing work last answered a result during this stop
        (:meth:`answered`); None before one did."""

    def refuses(self, request: RequestContext) -> bool:
        """Whether ``request``, arriving now, is refused with :class:`~nanohubmcp.errors.ServerStopping`:
        while the server stops, every request but those of :data:`ANSWERED_WHILE_STOPPING` on a session
        that exists or of the stateless era (the one rule of what a stop refuses; :meth:`Connection.serve
        <nanohubmcp.server.connection.Connection.serve>` asks it of each request once :attr:`begun`)."""
        return self.begun and not (request.message.method in ANSWERED_WHILE_STOPPING
                                   and (request.session is not None or request.modern))

    def answered(self, request: RequestContext) -> None:
        """``request`` answered a result during the stop: work (a call) starts :meth:`settling` again; a
        listing or a ping (:data:`ANSWERED_WHILE_STOPPING`) does not, so a client polling cannot hold the
        stop open."""
        if request.message.method not in ANSWERED_WHILE_STOPPING:
            self.answered_at = time.monotonic()

    def settling(self) -> bool:
        """Whether a call answered a result during this stop less than :data:`SETTLE_SECONDS` ago: its
        client may still be taking the answer in (a drain waits, within its bound, before it closes sessions)."""
        return self.answered_at is not None and time.monotonic() - self.answered_at < SETTLE_SECONDS

    async def quiet(self, busy: Callable[[], bool], seconds: float, *, settle: bool = True) -> None:
        """Wait, at most ``seconds``, until ``busy()`` (the transport's requests still being served) is false and,
        with ``settle``, the stop is no longer :meth:`settling`: a drain's first step, the running calls' moment to
        answer and their clients' to follow the answers up (every transport's drain, one rule). ``settle`` False:
        no client can follow up any more (stdio's input ended)."""
        deadline = time.monotonic() + seconds
        while (busy() or (settle and self.settling())) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    def begin(self) -> None:
        """The server stops: requests arriving from now on are refused (:meth:`refuses`)."""
        if not self.begun:
            self.began_at = time.monotonic()
            self.answered_at = None
        self.begun = True

    def cut_off(self) -> set[asyncio.Task[object]]:
        """The grace is over: cancel the task serving each request still running (it answers
        :class:`~nanohubmcp.errors.ServerStopping`); returns those tasks, so the caller can wait
        until their answers are written before it closes connections."""
        tasks: set[asyncio.Task[object]] = set()
        for request, task in list(self.running.items()):
            self.cut.add(request)
            request.slots[CUT_OFF] = True
            stop_request(request, "the server is stopping")
            if task is not None and not task.done():
                task.cancel()
                tasks.add(task)
        return tasks

    def reset(self) -> None:
        """The stop is over (its connections are closed), or the server serves again."""
        self.begun = False
        self.answered_at = None
        self.cut.clear()
