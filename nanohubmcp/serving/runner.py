"""The runner: the one way to start and stop serving.

Three ways to run the same application:

- :meth:`Runner.serve_forever` — blocking, on a fresh event loop (scripts, ``start_mcp``);
  SIGINT/SIGTERM stop it cleanly, and SIGHUP too unless ignored or the application's
  (:func:`..processes.workers.stop_signals`); it returns with their handlers as it found them
  (:mod:`..processes.found_handlers`).
- :meth:`Runner.start_thread` — on an event loop of its own in a daemon thread (notebooks'
  default "thread" mode, :mod:`.server_thread`); returns once the port is bound.
- :meth:`Runner.start_on_loop` — on an event loop that is already running (a Jupyter
  kernel's own loop, "kernel" mode); call it from that loop's thread.

Sockets are bound before anything else but the shared state store's first read
(:meth:`Running.prepare_state <nanohubmcp.serving.servable.Running.prepare_state>`: a process listens only once
nothing of its start waits on the store), so a busy port is reported at once as a
:class:`~nanohubmcp.errors.ConfigurationError` naming the port. HTTP/1.1 keep-alive, a deep
listen backlog, idle and body timeouts come from Tornado's ``HTTPServer``.

Not the runner's: the port and the sockets (:mod:`..processes.ports`), the forked workers of ``--workers``
(:mod:`..processes.workers`), the stop's drain (:mod:`..processes.drain`), the wait for tool calls after a blocking
serve and the exit's bound (:mod:`..processes.process_exit`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import tornado.httpserver

from ..processes.drain import drain, drain_running, drain_stopped
from ..processes.early_stop import replay, taken
from ..processes.exit_grace import DEFAULT_EXIT_GRACE_SECONDS
from ..processes.found_handlers import FoundHandlers
from ..processes.frozen_heap import freeze_start_up, thaw
from ..processes.ports import bind
from ..processes.process_end import was_served
from ..processes.workers import HANGUP, HANGUP_LINE, WORKER_DEATHS, say, stop_signals, watch_parent, worker_task
from ..transports.auth import bind_resource
from ..transports.config import TransportConfig
from ..transports.http_limits import HEADER_TIMEOUT, READ_HEADER_BYTES
from ..transports.http_server import LimitedServer
from ..transports.routes import make_app
from .server_thread import JOIN_MARGIN_SECONDS, ServerThread

if TYPE_CHECKING:
    from ..processes.exit_watch import ExitWatch
    from ..processes.process_exit import StopNotice
    from ..server.registry.registry import Registry
    from ..transports.served import ServedServer
    from .servable import Running

log = logging.getLogger("nanohubmcp")
AFTER_SECONDS = 1.0
"""Seconds from listening to :func:`..processes.warm_up.warm_up` (after a first answer at start: it and its count
stay)."""


def _warm_up(registry: Registry) -> None:
    from ..processes.warm_up import warm_up  # (not with the first answer)

    warm_up(tool.validator for tool in registry.tools.values())  # (the tools registered by now, listed here)

SWEEP_SECONDS = 60.0


class Runner:
    """Serves one ``MCPServer`` on one address.

    Args:
        server: the ``MCPServer`` facade.
        config: transport options (prefix, public URL, origins, body limit).
        host / port: where to listen (port 0 = any free port; see :attr:`port`).
    """

    def __init__(self, server: ServedServer, config: TransportConfig, host: str, port: int) -> None:
        self.server = server
        self._core: Running = server.core  # (what the runner uses of it: servable.Running, not the whole core)
        self.config = config
        self.host = host
        self.requested_port = port
        self.port: int | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._http: tornado.httpserver.HTTPServer | None = None
        self._thread: ServerThread | None = None
        self._stopped: asyncio.Event | None = None
        self._sweeper: asyncio.TimerHandle | None = None
        self._own_loop = False
        self._on_ready: Callable[[], None] | None = None
        self._closing: tornado.httpserver.HTTPServer | None = None
        self._found = FoundHandlers()  # (read again by serve_forever, when it begins)
        self._stopped_by: int | None = None
        self._drain_until: float | None = None  # a background serve's drain deadline (stop(within=)), if any

    @property
    def running(self) -> bool:
        """True while serving."""
        return self._http is not None

    @property
    def ending(self) -> bool:
        """True while the server thread runs, or a stop did not see it end (still draining): kept for a later stop."""
        return self._thread is not None

    def _serve(self, sockets: list[socket.socket]) -> None:
        """Start serving on the current (running) loop."""
        self.loop = asyncio.get_running_loop()
        core = self._core
        self.port = sockets[0].getsockname()[1]
        bind_resource(self.config, self.host, self.port)
        app = make_app(self.server, self.config)
        self._http = LimitedServer(
            app,
            max_body_size=2 * self.config.max_request_bytes + (1 << 20),
            header_timeout=HEADER_TIMEOUT,  # also how long an idle keep-alive connection stays open
            max_header_size=READ_HEADER_BYTES,  # the application answers 431 above MAX_HEADER_BYTES
            body_timeout=None,  # enforced by one timer per loop (http_server.Deadlines; cheaper)
            xheaders=self.config.proxy_headers,  # the scheme and address a reverse proxy reports
        )
        self._http.add_sockets(sockets)
        core.attach(self.loop)
        self._stopped = asyncio.Event()
        self._schedule_sweep()
        core.bus.emit("server_started", url=self.server.url, port=self.port)
        if self._on_ready is not None and worker_task() in (None, 0) and not WORKER_DEATHS.seen:
            self._on_ready()  # once, not once per worker nor again for a worker started again

    def _schedule_sweep(self) -> None:
        assert self.loop is not None
        core = self._core

        def sweep() -> None:
            core.sweep()
            self._schedule_sweep()

        self._sweeper = self.loop.call_later(SWEEP_SECONDS, sweep)

    def _shutdown(self) -> None:
        """Stop accepting, end streams and sessions (on the loop thread)."""
        if self._http is None:
            return
        self._http.stop()
        if self._sweeper is not None:
            self._sweeper.cancel()
        self._core.detach(keep_store=True)  # (connected until the streams ended: _drain closes it)
        core = self._core
        core.close(streams_later=True)  # the streams end in _drain, once the last answers went on them
        core.bus.emit("server_stopped", url=self.server.url, port=self.port)
        self._closing = self._http
        self._http = None
        if self._stopped is not None:
            self._stopped.set()

    async def _drain(self, until: float | None = None, notice: StopNotice | None = None) -> None:
        """The stop's drain (:func:`..processes.drain.drain`) of this runner's server and the HTTP server it stopped."""
        http, self._closing = self._closing, None
        await drain(self._core, http, until, notice)

    # -- blocking ------------------------------------------------------------------------
    def serve_forever(self, workers: int = 1, *, on_ready: Callable[[], None] | None = None,
                      grace: float = DEFAULT_EXIT_GRACE_SECONDS) -> None:
        """Serve until SIGINT/SIGTERM or SIGHUP (:func:`..processes.workers.stop_signals`; or :meth:`stop` from another
        thread).

        Args:
            workers: processes serving the one port (:func:`..processes.supervisor.fork_workers`: the port is
                bound first, then the process forks; a worker that dies is started again). The
                port is checked without ``SO_REUSEPORT``: one another server holds (even a
                ``--workers`` one) raises :class:`~nanohubmcp.errors.ConfigurationError` ("already in use"). On
                Linux each worker listens on a socket of its own (:data:`..processes.ports.SPREAD_BY_KERNEL`).
                Above 1 the server needs a shared state store (``state_url``): each worker
                serves every session. The parent only watches its workers; SIGINT/SIGTERM to
                it stops them all, to one worker stops that one (not started again: the parent
                says so, and exits when the last is gone).
            on_ready: called once serving (by the first worker only), e.g. to print the endpoints.
            grace: the exit grace, seconds from the stop to the process's exit at most
                (:mod:`..processes.exit_grace`: checked by the caller); a ``--workers`` parent kills a worker still
                running :func:`~..processes.exit_grace.kill_wait` after the stop.
        """
        self._on_ready = on_ready
        self._found, self._stopped_by = FoundHandlers(), None  # before anything takes a signal
        self._drain_until = None  # (a stop(within=) of an earlier serve bounds not this one)
        parent = os.getpid()
        if workers > 1:
            from ..processes.supervisor import listen_in_workers  # forking workers: --workers only

            sockets = listen_in_workers(workers, self.host, self.requested_port, self._core.prepare_state,
                                        grace)
        else:
            self._core.prepare_state()  # before listening (the module docstring)
            sockets = bind(self.host, self.requested_port)

        watch: list[ExitWatch] = []
        frozen: list[bool] = []  # whether serving froze the start-up (frozen_heap), once it did
        notice: list[StopNotice] = []  # what the stop said of the calls it waits for, once it began

        def watched() -> float | None:  # the watchdog's deadline, once a stop signal armed it
            return watch[0].deadline if watch else None

        async def main() -> None:
            loop = asyncio.get_running_loop()
            # The stop signals are taken before serving starts: one sent as soon as the banner (or the
            # server_started event) says the server is up stops it cleanly, not by the signal's default action.
            # (Their callbacks run once main() first waits, when serving has started.)
            # (Read once: taking SIGHUP below changes what it reads. A forked worker's were taken as it was forked.)
            signals = taken() or stop_signals()
            for sig in signals:  # (SIGHUP, a closed terminal, too: a clean stop, not a silent death)
                # Not possible off the main thread, or on a platform without signals.
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(sig, self._obey, sig)
            # The exit's bound, even while a tool blocks the loop; a forked worker's too (a repeated signal is
            # its parent's to act on: it kills its workers at once), its parent's kill the backstop beyond it.
            from ..processes.exit_watch import ExitWatch

            watch.append(ExitWatch(grace, lambda: not self.running, HANGUP,
                                   parent=parent if workers > 1 else None))
            watch[0].install(signals)
            replay()  # a stop signal a forked worker received before (early_stop): taken now, as if sent now
            self._serve(sockets)
            # The process is the server's: its start-up is out of full collections (for good in one the command serves).
            frozen.append(freeze_start_up(kept=was_served()))
            loop.call_later(AFTER_SECONDS, _warm_up, self._core.registry)  # a first call's work, once idle
            if workers > 1:
                watch_parent(loop, parent, lambda: self.running, self._shutdown)
            assert self._stopped is not None
            await self._stopped.wait()
            from ..processes.process_exit import EXIT_MARGIN_SECONDS, StopNotice, exit_by_the_grace, exit_deadline

            if workers > 1:
                exit_by_the_grace(asyncio.get_running_loop(), grace)
            notice.append(StopNotice(grace, lambda: self._stopped_by))
            until = exit_deadline(self._core, watched(), grace) - EXIT_MARGIN_SECONDS
            if self._drain_until is not None:  # stop(within=) from another thread: the earlier bound (review r29 #2)
                until = min(until, self._drain_until)
            await self._drain(until, notice[0])

        self._own_loop = True
        try:
            asyncio.run(main())
            from ..processes.process_exit import explain_exit_wait  # (once serving ended: not with the first answer)

            explain_exit_wait(self._core, self._stopped_by, watched=watched(), grace=grace,
                              said=bool(notice) and notice[0].said, until=self._drain_until)
        finally:
            for each in watch:  # what the script does after serving is its own: no watchdog ends it
                each.disarm()
            if frozen:
                thaw(frozen[0])  # and its objects are the collector's again
            self._found.put_back()  # and its signals' handlers as it had them (found_handlers)

    def _obey(self, signum: int) -> None:
        """A stop signal while serving blocking: stop (a forked worker first tells its parent why; a single
        process stopped by SIGHUP says so, its parent says it for the workers)."""
        if signum == HANGUP and not self._found.hung_up:  # said once: a repeat during the stop changes nothing
            self._found.hung_up = True  # ignored after run() too
            if worker_task() is None and self._http is not None:
                say(HANGUP_LINE)
        if self._stopped_by is None:
            self._stopped_by = signum  # (what the wait for running calls names to quit now)
        WORKER_DEATHS.stopped_by(signum)
        self._shutdown()
        # The process ends: the threads jobs handed over at the stop are told to cancel now, not once the drain
        # is over, so that one that looks ends, and its waiters (tasks/result) hear its end, within the drain.
        self._core.job_service.process_ending()

    # -- background thread ---------------------------------------------------------------
    def start_thread(self, timeout: float = 10.0) -> None:
        """Serve on a loop of its own in a daemon thread (:class:`.server_thread.ServerThread`); returns once
        listening."""
        self._drain_until = None  # (a stop(within=) of an earlier serve bounds not this one)
        self._core.prepare_state()
        sockets = bind(self.host, self.requested_port)

        async def until_drained() -> None:
            assert self._stopped is not None
            await self._stopped.wait()
            await self._drain(self._drain_until)

        self._own_loop = True
        self._thread = ServerThread(f"nanohubmcp-{self.requested_port}", lambda: self._serve(sockets), until_drained)
        self._thread.start(timeout)

    # -- an existing loop ----------------------------------------------------------------
    def start_on_loop(self) -> None:
        """Serve on the running loop of the calling thread (Jupyter "kernel" mode)."""
        asyncio.get_running_loop()  # raises RuntimeError when called off-loop
        self._core.prepare_state()
        self._serve(bind(self.host, self.requested_port))

    def stop(self, timeout: float = 10.0, *, within: float | None = None) -> None:
        """Stop serving and free the port; safe to call from any thread, twice. ``within``: the drain (the running
        calls' moment to answer, the answers of those cut off, the connections' closing) ends within that many
        seconds (:func:`..processes.process_exit.drain_step`), not each step's
        :data:`~..processes.process_exit.DRAIN_SECONDS`; a blocking :meth:`serve_forever` stopped from another
        thread drains to the earlier of ``within`` and its exit grace.

        ``timeout``: seconds to wait for a server thread (:meth:`start_thread`) to end, at least ``within`` plus
        :data:`~.server_thread.JOIN_MARGIN_SECONDS`: the stop returns once the drain is over (before, a ``within``
        above 10 s returned at 10 s while the calls still had their time, and a script ending then lost their
        answers). A thread still running after it is kept, for a later stop to wait for."""
        loop = self.loop
        if loop is None or loop.is_closed():
            self._join(timeout, within)
            return
        self._drain_until = time.monotonic() + within if within is not None else None
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._shutdown()
            if not self._own_loop:
                # Serving on a loop we do not own (a kernel's): finish the drain there.
                loop.create_task(self._drain(self._drain_until))
        elif running is None and not self._own_loop and not loop.is_running():  # a kernel's, at its exit
            drain_stopped(loop, self._stop_and_drain, within + JOIN_MARGIN_SECONDS if within is not None else timeout)
        elif not self._own_loop:  # a kernel's, running, from another thread (its shutdown request): drained there
            drain_running(loop, self._stop_and_drain, within + JOIN_MARGIN_SECONDS if within is not None else timeout,
                          wait=within if within is not None else timeout)  # (a busy loop: given up at the deadline)
        else:
            done = threading.Event()

            def shutdown() -> None:
                try:
                    self._shutdown()
                finally:
                    done.set()

            try:
                loop.call_soon_threadsafe(shutdown)
            except RuntimeError:
                return  # the loop already closed
            done.wait(timeout)
        self._join(timeout, within)

    async def _stop_and_drain(self) -> None:
        """Stop accepting, then drain (on the loop served, from a coroutine of it)."""
        self._shutdown()
        await self._drain(self._drain_until)

    def _join(self, timeout: float, within: float | None) -> None:
        """Wait for the server thread (if any, and not this one) to end (:meth:`.server_thread.ServerThread.join`);
        forgotten once ended."""
        if self._thread is not None and self._thread.join(timeout, within):
            self._thread = None

