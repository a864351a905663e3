"""The bridge's stdio side: the client's lines from stdin, its answers on stdout, until either side ends."""

from __future__ import annotations

import asyncio
import logging
import sys

from ..lines import LineReader, LineWriter, protect_stdout, stop_on_signals
from .options import BridgeOptions
from .session import MAX_LINE_BYTES, Bridge

DRAIN_SECONDS = 10.0
"""At end of input, how long requests already sent may take to be answered before the bridge exits."""


def run_bridge(options: BridgeOptions) -> int:
    """Relay stdin/stdout to ``options.url`` until the client closes stdin (or SIGINT/SIGTERM).

    Returns:
        The exit status: 0 when the client ended the session, 1 when the server's side did.
    """
    writer = LineWriter(protect_stdout())
    if not logging.getLogger().handlers:
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="nanohubmcp bridge: %(message)s")

    async def main() -> int:
        bridge = Bridge(options, writer)
        reader = LineReader(max_line_bytes=MAX_LINE_BYTES)
        stop = asyncio.Event()
        stop_on_signals(stop)
        stops = (asyncio.ensure_future(stop.wait()), asyncio.ensure_future(bridge.done.wait()))
        try:
            while not writer.closed:
                line = await reader.get(*stops)
                if line is None:
                    break
                bridge.receive(line)
        finally:
            reader.close()
            for waiter in stops:
                waiter.cancel()
            ended_by_server = bridge.done.is_set() and not stop.is_set()
            # At end of input, answers already on their way still reach the client.
            await bridge.close(drain=0.0 if (stop.is_set() or ended_by_server) else DRAIN_SECONDS)
        return 1 if ended_by_server else 0

    return asyncio.run(main())
