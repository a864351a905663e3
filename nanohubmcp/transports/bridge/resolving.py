"""Name resolution that a deadline can give up on: the lookup runs on a daemon thread of its own.

Tornado's default resolver runs ``getaddrinfo`` on the event loop's default executor. A caller that gives up on
the connection (``asyncio.wait_for``) cancels the await, not the lookup, and ``asyncio.run`` then waits for the
executor's thread at its end, and the interpreter for it at exit: with a DNS server that does not answer
(glibc: 5 s a try, 2 tries a server) a question bounded at 5 s took 10-30 s (review r38 F5). Here the lookup's
thread is a daemon nobody waits for: given up, it ends on its own and its answer is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from typing import Any

from tornado.netutil import Resolver

__all__ = ["DaemonResolver"]


class DaemonResolver(Resolver):
    """A Tornado :class:`~tornado.netutil.Resolver` looking each name up on a new daemon thread; cancelling
    :meth:`resolve` leaves nothing anyone waits for (not ``asyncio.run``, not the interpreter's exit)."""

    async def resolve(self, host: str, port: int, family: socket.AddressFamily = socket.AF_UNSPEC
                      ) -> list[tuple[int, Any]]:
        """``[(family, address), ...]`` for ``host``:``port``, as Tornado's resolvers answer.

        Raises:
            OSError: the lookup failed (``socket.gaierror``: no such name...).
        """
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[list[tuple[int, Any]]] = loop.create_future()

        def settle(result: list[tuple[int, Any]] | None, error: OSError | None) -> None:
            if answer.done():  # given up meanwhile
                return
            if error is not None:
                answer.set_exception(error)
            else:
                answer.set_result(result or [])

        def look_up() -> None:
            result: list[tuple[int, Any]] | None = None
            error: OSError | None = None
            try:
                found = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)
                result = [(entry[0], entry[4]) for entry in found]
            except OSError as exc:
                error = exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: the answer is no longer wanted
                loop.call_soon_threadsafe(settle, result, error)

        threading.Thread(target=look_up, name=f"resolve {host}", daemon=True).start()
        return await answer
