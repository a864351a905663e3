"""The process around a blocking stdio serve (``run(transport="stdio")``, ``nanohubmcp run --transport stdio``): its
event loop, its stop signals, its exit's bound, the signal handlers it puts back.

The same parts as the HTTP runner's blocking serve (:meth:`.runner.Runner.serve_forever`), from :mod:`..processes`:
the stop signals (:func:`..processes.workers.stop_signals`: SIGINT, SIGTERM, and SIGHUP while it has its default
action — a desktop client's terminal closing — said in one line, :data:`~..processes.workers.HANGUP_LINE`), the exit
watchdog (:class:`..processes.exit_watch.ExitWatch`), the handlers found and put back
(:class:`..processes.found_handlers.FoundHandlers`), the wait for what still runs (:func:`..processes.process_exit.
explain_exit_wait`); the stop's drain is :func:`..processes.drain.drain` too, which the transport runs.

Not this module's: the lines in and out and what a stop does to the server (:mod:`..transports.stdio`), the caller's
token (:mod:`..transports.stdio_auth`).
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING

from ..processes.exit_watch import ExitWatch
from ..processes.found_handlers import FoundHandlers
from ..processes.process_exit import (
    EXIT_GRACE_SECONDS,
    EXIT_MARGIN_SECONDS,
    StopNotice,
    exit_deadline,
    explain_exit_wait,
)
from ..processes.workers import HANGUP, HANGUP_LINE, say, stop_signals
from ..transports.lines import protect_stdout, stop_on_signals
from ..transports.stdio import StdioTransport

if TYPE_CHECKING:
    from ..auth.verifiers import TokenVerifier
    from ..transports.served import ServedServer


def serve_stdio(server: ServedServer, verifier: TokenVerifier | None = None,
                grace: float = EXIT_GRACE_SECONDS) -> None:
    """Serve ``server`` on stdin/stdout until end of input or a stop signal (:func:`..processes.workers.stop_signals`;
    blocking).

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
    signals = stop_signals()  # (read once, before any is taken: taking SIGHUP changes what it reads)

    def obeyed(signum: int) -> None:
        if signum == HANGUP and not found.hung_up:  # said once: a repeat during the stop changes nothing
            found.hung_up = True  # ignored after serving too
            say(HANGUP_LINE)

    async def main() -> int | None:
        principal = expiry = None
        if verifier is not None:
            from ..transports.stdio_auth import environment_principal, token_expiry

            principal = await environment_principal(verifier)
            expiry = token_expiry(principal, verifier)
        transport = StdioTransport(server, out_fd=out_fd, principal=principal, expiry=expiry)
        served.append(transport)
        stop = asyncio.Event()
        taken = stop_on_signals(stop, signals, obeyed)
        watch.install(signals)  # (after the loop's handlers: exit_watch)
        notice.append(StopNotice(grace, lambda: taken[0] if taken else None))
        await transport.serve(stop, on_input_end=functools.partial(watch.arm, "the end of input"), process_ends=True,
                              drain_until=lambda: exit_deadline(server.core, watch.deadline, grace)
                              - EXIT_MARGIN_SECONDS, notice=notice[0])
        return taken[0] if taken else None  # the signal that stopped it, None at the end of input

    # The exit's bound, even while an async tool blocks the loop: from a stop signal or the client closing stdin. The
    # loop took the stop once a stop began after this point (``began_at`` stays once the stop is over: the process may
    # then wait for a threads job, and the loop, done, does not answer by design), or once it saw the end of input:
    # it gives the running calls a moment (END_OF_INPUT_GRACE_SECONDS, as long as the watchdog's notice waits)
    # before the server's stop begins (trial76 F2: that moment was taken for a blocked loop).
    earlier = server.core.shutdown.began_at
    served: list[StdioTransport] = []
    watch = ExitWatch(grace, lambda: server.core.shutdown.began_at != earlier or any(t.stop_taken for t in served),
                      HANGUP)
    notice: list[StopNotice] = []  # what the stop said of the calls it waits for, as its drain began
    try:
        stopped_by = asyncio.run(main())
        # (the lines before the watchdog)
        explain_exit_wait(server.core, stopped_by, watched=watch.deadline, grace=grace,
                          said=bool(notice) and notice[0].said)
    finally:
        watch.disarm()  # what the script does after serving is its own
        found.put_back()
