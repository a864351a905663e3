"""Waiting for the shared state store's close: a stopping server's, an in-memory client's (bounded, so its loop's end
cancels no flush of queued log entries, and no stop waits on a frozen store for ever).

Apart from :mod:`.store_link` (imported with a shared store only): every stop waits here, whatever its store.
"""

from __future__ import annotations

import asyncio
from contextlib import suppress

from ...state.base import CLOSE_FLUSH_SECONDS

STORE_CLOSE_LEAST_SECONDS = 0.1
"""The least a stop's drain waits for the shared state store to close, even with nothing left before its deadline:
the close begins, and ends the store's background work (its reads of event logs, its heartbeat), before the loop's
end cancels what is left."""


async def wait_closed(closing: asyncio.Task[None] | None, seconds: float = CLOSE_FLUSH_SECONDS + 1.0) -> None:
    """Wait ``seconds`` at most for ``closing``, a store's disconnecting task (:meth:`StoreLink.close
    <.store_link.StoreLink.close>`; None: nothing to wait for); one still running then is cancelled (its ``finally``
    still ends the store's background work), one that failed is its own (the store says why)."""
    if closing is not None:
        with suppress(Exception):
            await asyncio.wait_for(closing, seconds)
