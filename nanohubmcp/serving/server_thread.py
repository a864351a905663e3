"""A server's event loop on a daemon thread of its own (notebooks' default "thread" mode).

:class:`ServerThread` starts the thread and returns once serving began on its loop (the port listens); after
the stop's drain the loop's last tasks are ended (:func:`finish_loop`) and the loop closed; a stop waits for the
thread (:meth:`ServerThread.join`). What serves on the loop, and the stop itself, are the runner's
(:meth:`Runner.start_thread <.runner.Runner.start_thread>`, :meth:`Runner.stop <.runner.Runner.stop>`).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable

from ..errors import ConfigurationError

LEFT_TASKS_SECONDS = 1.0
"""How long a server thread's loop, its stop drained, waits for the tasks still running (cancelled) before it
closes."""
JOIN_MARGIN_SECONDS = LEFT_TASKS_SECONDS + 1.0
"""How much longer than ``stop(within=)`` the stop waits for a server thread: the drain ends within ``within``, the
loop's end (:func:`finish_loop`) within :data:`LEFT_TASKS_SECONDS` after it, and a second for the thread's own
turns."""


def finish_loop(loop: asyncio.AbstractEventLoop) -> None:
    """End what still runs on ``loop`` (a server thread's, its stop drained) before it is closed, as
    ``asyncio.run`` does for a blocking serve: every task left is cancelled and waited for, at most
    :data:`LEFT_TASKS_SECONDS` (one that swallows its cancellation is left), then the async generators are closed.

    Before, the loop closed one turn after the drain: a GET stream's reader cancelled at the stop (its read of
    the session's log in Redis takes a few turns to end) was destroyed later by the collector, "Task was
    destroyed but it is pending!" and "RuntimeError: Event loop is closed" on the script's stderr."""
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.wait(pending, timeout=LEFT_TASKS_SECONDS))
    loop.run_until_complete(loop.shutdown_asyncgens())


class ServerThread:
    """A daemon thread ``name`` that calls ``begin()`` (serving starts) on a new event loop, then awaits ``rest()``
    (serving until stopped, then the drain), then ends the loop's last tasks (:func:`finish_loop`) and closes it."""

    def __init__(self, name: str, begin: Callable[[], None], rest: Callable[[], Awaitable[None]]) -> None:
        self._begin = begin
        self._rest = rest
        self._ready = threading.Event()
        self._failure: list[BaseException] = []
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self, timeout: float) -> None:
        """Start the thread; return once ``begin()`` returned on it.

        Raises:
            ConfigurationError: ``begin()`` had not returned within ``timeout`` seconds.
            BaseException: what ``begin()`` raised (on the thread), raised again here.
        """
        self._thread.start()
        if not self._ready.wait(timeout):
            raise ConfigurationError("the server thread did not start in time")
        if self._failure:
            raise self._failure[0]

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._main())
            finish_loop(loop)
        finally:
            loop.close()

    async def _main(self) -> None:
        try:
            self._begin()
        except BaseException as exc:  # report to the starting thread
            self._failure.append(exc)
            self._ready.set()
            return
        self._ready.set()
        await self._rest()

    def join(self, timeout: float, within: float | None) -> bool:
        """Wait for the thread to end (not from the thread itself): ``timeout`` seconds, or ``within`` plus
        :data:`JOIN_MARGIN_SECONDS` when longer. True once it ended (forget it), False while it runs on."""
        thread = self._thread
        if thread is threading.current_thread():
            return False
        thread.join(max(timeout, within + JOIN_MARGIN_SECONDS) if within is not None else timeout)
        return not thread.is_alive()
