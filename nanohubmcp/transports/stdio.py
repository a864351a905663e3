"""The stdio transport: newline-delimited JSON-RPC on standard input and output.

A desktop client (Claude Desktop, VS Code, Cursor, ...) starts the server as a child process,
writes one JSON-RPC message per line to its stdin and reads one per line from its stdout.
Nothing but MCP messages may appear on stdout, so :func:`protect_stdout` moves the process's
file descriptor 1 onto stderr before anything else runs: a tool's ``print()``, warnings,
logging and the output of child processes all land on stderr, and the protocol writes go to a
private duplicate of the original stdout.

Both eras are served on one stream: a client that opens with ``initialize`` gets the
handshake era (one session for the life of the process: progress, log messages,
server→client requests — elicitation, sampling, roots — and change notifications flow on
stdout; batches where 2024-11-05/2025-03-26 allow them); a request whose ``params._meta``
carries ``io.modelcontextprotocol/protocolVersion`` is served statelessly as 2026-07-28.
``notifications/cancelled`` cancels a request of either era. Requests are served
concurrently, so a client can answer an elicitation while the tool that asked waits.

With ``auth=``, the caller is the one whose token ``$MCP_TOKEN`` holds, checked once before
serving (:mod:`.stdio_auth`): every request carries that principal, so per-tool scopes are
checked as over HTTP; once a token with an expiry (a JWT's ``exp``) has expired, each request
is refused as HTTP refuses an expired token (-32600 "Unauthorized: ..."). Without ``auth=``
requests carry no principal.

End of input ends the server: running calls are cancelled and given the exit grace to answer, less 2 s
(:func:`~..processes.process_exit.drain_step`); a request still running then is answered with
:class:`~nanohubmcp.errors.ServerStopping` (-32000, "The server is stopping ..."), then the server
closes. SIGINT/SIGTERM do the same, and a request read while it stops is refused with that error, but a listing
(``tools/list``, ...) or a ``ping`` (:data:`~nanohubmcp.server.shutdown.ANSWERED_WHILE_STOPPING`): after a signal
the server keeps reading a moment after a call's answer, so the client's follow-up listing is answered.

Source: MCP 2025-11-25, Basic § Transports § stdio; MCP 2026-07-28, Basic § Transports § stdio.
"""

from __future__ import annotations

import asyncio
import functools
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..auth.verifiers import TokenVerifier
from ..processes.exit_watch import ExitWatch
from ..processes.found_handlers import FoundHandlers
from ..processes.process_exit import (
    EXIT_GRACE_SECONDS,
    EXIT_MARGIN_SECONDS,
    StopNotice,
    drain_step,
    exit_deadline,
    explain_exit_wait,
)
from ..server.connection import Connection
from ..server.wire.principal import Principal
from ..server.wire.store_close import STORE_CLOSE_LEAST_SECONDS, wait_closed
from .lines import MAX_LINE_BYTES, LineReader, LineWriter, protect_stdout, stop_on_signals
from .one_peer import OnePeer
from .served import ServedServer

if TYPE_CHECKING:
    from .stdio_auth import TokenExpiry


class StdioTransport:
    """Serves one ``MCPServer`` on a pair of file descriptors (by default stdin and the protected stdout).

    Args:
        server: the ``MCPServer`` facade.
        in_fd: the descriptor to read lines from (default standard input, 0).
        out_fd: the descriptor to write messages to (default :func:`protect_stdout`).
        max_line_bytes: longest accepted line.
        principal: the caller, carried by every request (None: no authorization).
        expiry: when the caller's token expires (:func:`.stdio_auth.token_expiry`): each request
            read after it is refused; None: never (no authorization, a token without ``exp``).
    """

    def __init__(
        self, server: ServedServer, *, in_fd: int = 0, out_fd: int | None = None, max_line_bytes: int = MAX_LINE_BYTES,
        principal: Principal | None = None, expiry: TokenExpiry | None = None,
    ) -> None:
        self.server = server
        self.core = server.core
        self.connection = Connection(self.core, "stdio", server, one_peer=True)
        self.writer = LineWriter(protect_stdout() if out_fd is None else out_fd,
                                 unsendable=self.connection.unsendable_parts)
        self.in_fd = in_fd
        self.max_line_bytes = max_line_bytes
        self.peer = OnePeer(self.connection, self._write, principal=principal, expiry=expiry,
                            max_bytes=max_line_bytes, streams_text=True)
        """Each line answered (:mod:`.one_peer`), as the in-memory transport answers a message."""
        self.tasks: set[asyncio.Task[None]] = set()
        self._ended: asyncio.Future[None] | None = None
        self._process_ends = False
        self._drain_until: Callable[[], float] | None = None
        self._notice: StopNotice | None = None

    def _write(self, event_id: str | None, message: Any) -> None:
        """The sink of every stream of this transport: one message, one line on stdout."""
        self.writer.write(message)

    async def serve(self, stop: asyncio.Event | None = None, *, on_input_end: Callable[[], None] | None = None,
                    process_ends: bool = False, drain_until: Callable[[], float] | None = None,
                    notice: StopNotice | None = None) -> None:
        """Serve until end of input (or ``stop`` is set), then close the server. ``on_input_end`` is called
        once, from any thread, as soon as the client closed the input, even while the event loop is blocked
        (:class:`~.lines.LineReader`'s ``on_end``). ``process_ends``: the process ends with the serve
        (:func:`serve_stdio`): the ``threads`` jobs handed over at the stop are told to cancel as it begins.
        ``drain_until``: read once the stop began, the ``time.monotonic()`` by which the drain's steps end (a
        blocking serve's exit deadline less its margin, :func:`..processes.process_exit.exit_deadline`: the first
        step, the running calls' moment to answer, lasts until shortly before it,
        :func:`..processes.process_exit.drain_step`); None: each step takes
        :data:`~..processes.process_exit.DRAIN_SECONDS`. ``notice``: says, as the drain begins, what it waits for
        (:meth:`..processes.process_exit.StopNotice.draining`)."""
        self._process_ends = process_ends
        self._drain_until, self._notice = drain_until, notice
        loop = asyncio.get_running_loop()
        ended = self._ended = loop.create_future()
        reader = LineReader(self.in_fd, self.max_line_bytes, on_line=self._receive,  # each line as it is read
                            on_end=on_input_end)
        self.core.attach(loop)
        self.core.bus.emit("server_started", url=None)
        stopper = asyncio.ensure_future((stop or asyncio.Event()).wait())
        try:
            await asyncio.wait({ended, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopper.cancel()
            try:  # lines still read while it stops (after a signal) are refused, not left unanswered
                await self._shutdown()
            finally:
                reader.close()

    def _receive(self, line: bytes | None) -> None:
        """One line read (None: end of input); served as a task of its own, so a client can answer
        a server->client request while the call that asked waits."""
        ended = self._ended
        if ended is None:
            return
        if line is None or self.writer.closed:  # end of input; or nobody reads our answers any more
            if not ended.done():
                ended.set_result(None)
            return
        if ended.done() and not self.core.shutdown.begun:
            return
        task = asyncio.ensure_future(self._serve(line))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _serve(self, line: bytes) -> None:
        answer = await self.peer.answer(line)  # the path the in-memory transport takes too (one_peer)
        if answer is not None:
            self.writer.write(answer)

    # -- the end -----------------------------------------------------------------------------
    async def _shutdown(self) -> None:
        """Refuse new requests, cancel what runs and settle the jobs (as the HTTP runner's stop does: a job's
        waiter hears its end within the drain), give it a moment to answer (and, the input still open, its client
        a moment to follow the answer up: :meth:`Shutdown.quiet <nanohubmcp.server.shutdown.Shutdown.quiet>`),
        answer what still runs then with
        the stopping server's error (:class:`~nanohubmcp.errors.ServerStopping`), then close the server."""
        core, shutdown = self.core, self.core.shutdown
        until = self._drain_until() if self._drain_until is not None else None

        core.close(streams_later=True)  # (the session's stream stays open for the answers: close_streams below)
        if self._process_ends:
            core.core_jobs.process_ending()
        self.connection.close("the server is stopping")
        if self._notice is not None and until is not None:
            await self._notice.draining(core, until)
        ended = self._ended
        # The running calls' moment to answer; a stop by a signal (the input still open) then keeps the session a
        # moment after the last answer, for its client's follow-up (the official client's tools/list), as HTTP's.
        await shutdown.quiet(lambda: bool(self.tasks), drain_step(until, first=True),
                             settle=ended is not None and not ended.done())
        answering = shutdown.cut_off()
        if answering:  # each writes its error line as it ends
            await asyncio.wait(answering, timeout=drain_step(until))
        for task in list(self.tasks):
            task.cancel()
        closing = core.detach()  # (a shared store's close writes what is queued for its event logs first)
        core.close_streams()
        await wait_closed(closing, max(drain_step(until), STORE_CLOSE_LEAST_SECONDS))  # (review r29 #6)
        shutdown.reset()  # stopped: the server may serve again
        core.bus.emit("server_stopped", url=None)


def serve_stdio(server: ServedServer, verifier: TokenVerifier | None = None,
                grace: float = EXIT_GRACE_SECONDS) -> None:
    """Serve ``server`` on stdin/stdout until end of input or SIGINT/SIGTERM (blocking).

    Args:
        server: the ``MCPServer``.
        verifier: its token verifier when ``auth=`` is configured, else None: the token in
            ``$MCP_TOKEN`` is checked with it once, before the first line is read, and requests
            read after its expiry (a JWT's ``exp``, with the verifier's leeway) are refused.
        grace: the exit grace, seconds from the stop (a signal, the end of input) to the process's exit at
            most (:mod:`..processes.exit_grace`: checked by the caller).

    Raises:
        ConfigurationError: a verifier is given and ``$MCP_TOKEN`` is unset, empty, refused or
            expired (nothing is served; the message names the variable and why).
    """
    out_fd = protect_stdout()  # before the verifier runs: what it prints must not reach the client
    found = FoundHandlers()  # put back once serving ended (found_handlers)

    async def main() -> int | None:
        principal = expiry = None
        if verifier is not None:
            from .stdio_auth import environment_principal, token_expiry

            principal = await environment_principal(verifier)
            expiry = token_expiry(principal, verifier)
        transport = StdioTransport(server, out_fd=out_fd, principal=principal, expiry=expiry)
        stop = asyncio.Event()
        taken = stop_on_signals(stop)
        watch.install((signal.SIGINT, signal.SIGTERM))  # (after the loop's handlers: exit_watch)
        notice.append(StopNotice(grace, lambda: taken[0] if taken else None))
        await transport.serve(stop, on_input_end=functools.partial(watch.arm, "the end of input"), process_ends=True,
                              drain_until=lambda: exit_deadline(server.core, watch.deadline, grace)
                              - EXIT_MARGIN_SECONDS, notice=notice[0])
        return taken[0] if taken else None  # the signal that stopped it, None at the end of input

    # The exit's bound, even while an async tool blocks the loop: from a stop signal or the client closing stdin. The
    # loop took the stop once a stop began after this point (``began_at`` stays once the stop is over: the process may
    # then wait for a threads job, and the loop, done, does not answer by design).
    earlier = server.core.shutdown.began_at
    watch = ExitWatch(grace, lambda: server.core.shutdown.began_at != earlier)
    notice: list[StopNotice] = []  # what the stop said of the calls it waits for, as its drain began
    try:
        stopped_by = asyncio.run(main())
        # (the lines before the watchdog)
        explain_exit_wait(server.core, stopped_by, watched=watch.deadline, grace=grace,
                          said=bool(notice) and notice[0].said)
    finally:
        watch.disarm()  # what the script does after serving is its own
        found.put_back()
