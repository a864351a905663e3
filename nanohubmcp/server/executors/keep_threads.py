"""The threads a done job's data is kept on for an MCP answer (:meth:`.polled_data.PolledData.kept`):
:func:`off_loop`, a small pool of this process's own, not the event loop's default executor.

A keep may wait: for another process's reservation of the job's record (up to
:data:`.kept_slot.RESERVED_SECONDS` for a process on another host), or for this process's first keep of the
job. On the default executor (``asyncio.to_thread``) a few such waits held every thread it has, and everything
else run there waited too (the parsing of large bodies, JWT key refresh). Here they wait among keeps only, at
most :data:`KEEP_THREADS` at once; further keeps queue for a thread.
What this module does not do: keep anything (:mod:`.polled_data`).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Final, TypeVar

__all__ = ["KEEP_THREADS", "off_loop"]

T = TypeVar("T")

KEEP_THREADS: Final = 4
"""Threads of the keep pool: the most keeps (each a write of the data, or a wait for another's) at once."""

_pool: tuple[int, ThreadPoolExecutor] | None = None  # (the pid it was made in: a forked worker makes its own)


async def off_loop(fn: Callable[..., T], /, *args: object) -> T:
    """``fn(*args)`` run on a thread of the keep pool with the caller's context (as ``asyncio.to_thread``
    runs it on the default executor's); its value, or what it raised."""
    call = functools.partial(contextvars.copy_context().run, fn, *args)
    return await asyncio.get_running_loop().run_in_executor(_executor(), call)


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None or _pool[0] != os.getpid():
        _pool = (os.getpid(), ThreadPoolExecutor(KEEP_THREADS, thread_name_prefix="nanohubmcp-keep"))
    return _pool[1]
