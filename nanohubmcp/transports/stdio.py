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
closes. A stop signal does the same (SIGINT, SIGTERM, SIGHUP while it has its default action: the blocking
serve's process, :mod:`nanohubmcp.serving.stdio_process`), and a request read while it stops is refused with that
error, but a listing (``tools/list``, ...) or a ``ping`` (:data:`~nanohubmcp.server.shutdown.ANSWERED_WHILE_STOPPING`):
after a signal the server keeps reading a moment after a call's answer, so the client's follow-up listing is answered.
The stop's drain is the HTTP runner's (:func:`..processes.drain.drain`).

Source: MCP 2025-11-25, Basic § Transports § stdio; MCP 2026-07-28, Basic § Transports § stdio.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..processes.drain import drain
from ..server.connection import Connection
from ..server.wire.principal import Principal
from .lines import END_OF_INPUT_GRACE_SECONDS, MAX_LINE_BYTES, LineReader, LineWriter, protect_stdout
from .one_peer import OnePeer
from .served import ServedServer

if TYPE_CHECKING:
    from ..processes.process_exit import StopNotice
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
        self.stop_taken = False
        """True once the event loop took the stop (the end of input, ``stop``): read by the exit watchdog of
        :func:`~nanohubmcp.serving.stdio_process.serve_stdio` from its thread, so that the loop's moment for the
        running calls at the end of input, before the server's own stop begins, is not taken for a blocked loop."""

    def _write(self, event_id: str | None, message: Any) -> None:
        """The sink of every stream of this transport: one message, one line on stdout."""
        self.writer.write(message)

    async def serve(self, stop: asyncio.Event | None = None, *, on_input_end: Callable[[], None] | None = None,
                    process_ends: bool = False, drain_until: Callable[[], float] | None = None,
                    notice: StopNotice | None = None) -> None:
        """Serve until end of input (or ``stop`` is set), then close the server. ``on_input_end`` is called
        once, from any thread, as soon as the client closed the input, even while the event loop is blocked
        (:class:`~.lines.LineReader`'s ``on_end``). ``process_ends``: the process ends with the serve
        (:func:`..serving.stdio_process.serve_stdio`): the ``threads`` jobs handed over at the stop are told to cancel
        as it begins.
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
            self.stop_taken = True
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
        # Answered on the path the in-memory transport takes too (one_peer), written to stdout as a line.
        task = asyncio.ensure_future(self.peer.reply(line, self.writer.write))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # -- the end -----------------------------------------------------------------------------
    async def _shutdown(self) -> None:
        """Refuse new requests, cancel what runs and settle the jobs (as the HTTP runner's stop does: a job's
        waiter hears its end within the drain), then the stop's drain, the HTTP runner's too
        (:func:`..processes.drain.drain`: the running calls' moment to answer and, the input still open, its client's
        to follow the answer up; the stopping server's error, :class:`~nanohubmcp.errors.ServerStopping`, for what
        still runs then; the streams ended, the shared store closed), then close the server."""
        core = self.core
        until = self._drain_until() if self._drain_until is not None else None

        ended = self._ended
        if ended is not None and ended.done():
            # The client closed its input: what still runs a moment later is its cancel (an async def tool's
            # coroutine is cancelled, as a closed POST's). Its output may still be read (printf ... |): a call that
            # ends within the moment, or a function that returns once cancelled, is answered.
            if self.tasks:
                await asyncio.wait(set(self.tasks), timeout=END_OF_INPUT_GRACE_SECONDS)
            for request in list(self.connection.in_flight):
                Connection.peer_gone(request, "the client closed its input", read_on=True)
        core.detach(keep_store=True)  # (connected until the streams ended: the drain closes it)
        core.close(streams_later=True)  # (the session's stream stays open for the answers: the drain ends it)
        if self._process_ends:
            core.job_service.process_ending()
        if ended is None or not ended.done():
            self.connection.close("the server is stopping")
        # A stop by a signal (the input still open) keeps the session a moment after the last answer, for its
        # client's follow-up (the official client's tools/list), as HTTP's; at the end of input nobody follows up.
        await drain(core, None, until, self._notice, busy=lambda: bool(self.tasks),
                    settle=ended is not None and not ended.done())
        for task in list(self.tasks):  # (what was no call: each error line of those cut off is written)
            task.cancel()
        core.bus.emit("server_stopped", url=None)
