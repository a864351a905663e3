"""The bridge's stdio side: the client's lines from stdin, its answers on stdout, until either side ends or a stop
signal comes.

Its stop signals are a stdio server's (:func:`...processes.workers.stop_signals`: SIGINT, SIGTERM, and SIGHUP while
it has its default action, so under ``nohup`` SIGHUP stays ignored), their handlers put back as found once it ends
(:class:`...processes.found_handlers.FoundHandlers`). How it ends is :mod:`.ending`'s.
"""

from __future__ import annotations

import asyncio
import logging

from ...processes.found_handlers import FoundHandlers
from ...processes.log_lines import escaping_handler
from ...processes.workers import HANGUP, stop_signals
from ..lines import LineReader, LineWriter, protect_stdout, stop_on_signals
from .ending import DRAIN_SECONDS, HANGUP_LINE, end_of_input, stopped
from .options import BridgeOptions
from .session import MAX_LINE_BYTES, Bridge

__all__ = ["DRAIN_SECONDS", "run_bridge"]

log = logging.getLogger("nanohubmcp.bridge")


def run_bridge(options: BridgeOptions) -> int:
    """Relay stdin/stdout to ``options.url`` until the client closes stdin, the server's side ends, or a stop
    signal (SIGINT, SIGTERM, SIGHUP unless ignored at start) comes.

    Returns:
        The exit status: 0 when the client ended the session (or a stop signal did), 1 when the server's side did.

    .. versionchanged:: 1.0
       SIGHUP stops it as SIGTERM does (unless ignored at start, as under ``nohup``): its default action ended the
       bridge at once, its client's requests unanswered. At the end of input a request (any but ``initialize``)
       still unanswered after :data:`~..lines.END_OF_INPUT_GRACE_SECONDS` is cancelled on the server; at a stop
       signal every request still unanswered is answered -32000 (the server's answer, should it come, is not
       relayed) and cancelled on the server (:mod:`.ending`).
    """
    writer = LineWriter(protect_stdout())
    if not logging.getLogger().handlers:
        # (a page's text in the log: its escapes written as such)
        logging.basicConfig(level=logging.WARNING, handlers=[escaping_handler("nanohubmcp bridge: %(message)s")])
    found = FoundHandlers()  # put back once the bridge ends
    signals = stop_signals()  # (read before any is taken)

    def obeyed(signum: int) -> None:
        if signum == HANGUP:
            found.hung_up = True
            log.warning("%s", HANGUP_LINE)

    async def main() -> int:
        bridge = Bridge(options, writer)
        reader = LineReader(max_line_bytes=MAX_LINE_BYTES)
        stop = asyncio.Event()
        taken = stop_on_signals(stop, signals, obeyed)
        stopping = asyncio.ensure_future(stop.wait())
        ended = asyncio.ensure_future(bridge.done.wait())
        try:
            while not writer.closed:
                line = await reader.get(stopping, ended)
                if line is None:
                    break
                bridge.receive(line)
        finally:
            reader.close()
            ended.cancel()
        ended_by_server = bridge.done.is_set() and not stop.is_set()
        if ended_by_server:
            stopping.cancel()
            await bridge.close()
            return 1
        if not stop.is_set():
            # The end of input (the client quit), unless a stop signal comes meanwhile: the bridge then stops at once.
            draining = asyncio.ensure_future(end_of_input(bridge))
            await asyncio.wait({draining, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if draining.done():
                stopping.cancel()
                return 0
            draining.cancel()
        await stopped(bridge, taken[0])
        return 0

    try:
        return asyncio.run(main())
    finally:
        found.put_back()
