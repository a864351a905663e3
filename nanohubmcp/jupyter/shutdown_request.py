"""The kernel's shutdown request begins the servers' stop: before the kernel's loop ends, not at the interpreter's exit.

A Jupyter server's kernel manager (JupyterLab's "Shut Down Kernel", "Restart Kernel") sends the kernel a
``shutdown_request`` and SIGTERM ``shutdown_wait_time / 2`` (2.5 s by default) later. The interpreter's exit,
where :mod:`.kernel_exit`'s ``atexit`` hook runs, comes only after the kernel's loops ended and the interpreter
joined its non-daemon threads (a package-metadata read still running: a second and more on a loaded machine):
under load the stop began too late to end before the SIGTERM (calls cut off with no answer, no record). So the
stop begins when the kernel handles the request, in its ``do_shutdown`` (ipykernel's documented override point,
awaited by ``shutdown_request`` in ipykernel 6 and 7 alike): the request's handling, and with it the loops' end,
waits for the stop (on a thread of its own: a "kernel" mode server's drain runs on the kernel's loop, which stays
free).

Example:
    ```python
    shutdown_request.stop_first(kernel, kernel_exit.stop_all)   # once per kernel (the first server)
    ```
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["running_kernel", "stop_first"]

log = logging.getLogger("nanohubmcp")

HOOKED = "_nanohubmcp_stops_first"
"""The attribute marking a kernel whose ``do_shutdown`` :func:`stop_first` wrapped (it wraps it once)."""


def running_kernel() -> Any | None:
    """The ipykernel kernel this process runs (``get_ipython().kernel``), or None: no kernel (a script, a
    terminal IPython)."""
    if "ipykernel" not in sys.modules:
        return None
    from IPython import get_ipython

    return getattr(get_ipython(), "kernel", None)


def stop_first(kernel: Any, stop: Callable[[], None]) -> bool:
    """Make ``kernel``'s shutdown request call ``stop()`` before ipykernel's own ``do_shutdown``; once per kernel.

    ``stop`` runs on a thread of its own while the loop handling the request (the control thread's, or the
    kernel's own) goes on; an error it raises is logged and the shutdown goes on. The reply to the request, and
    the end of the kernel's loops, come after it.

    Args:
        kernel: an ipykernel ``Kernel`` (its ``do_shutdown(restart)`` returns the reply's content, or an
            awaitable of it).
        stop: stops every server of the kernel, within its own bound (:func:`.kernel_exit.stop_all`).
    Returns:
        True when hooked now, False when ``kernel`` was hooked already or has no ``do_shutdown``.
    """
    original = getattr(kernel, "do_shutdown", None)
    if original is None or getattr(kernel, HOOKED, False):
        return False

    async def do_shutdown(restart: bool) -> Any:
        await _off_this_loop(stop)
        content = original(restart)
        return await content if inspect.isawaitable(content) else content

    kernel.do_shutdown = do_shutdown
    setattr(kernel, HOOKED, True)
    return True


async def _off_this_loop(stop: Callable[[], None]) -> None:
    """Run ``stop()`` on a daemon thread and wait for it without holding up the running loop."""
    done: concurrent.futures.Future[None] = concurrent.futures.Future()

    def run() -> None:
        try:
            stop()
        except Exception:  # the kernel still shuts down
            log.warning("stopping the servers at the kernel's shutdown failed", exc_info=True)
        finally:
            done.set_result(None)

    threading.Thread(target=run, name="nanohubmcp-kernel-shutdown", daemon=True).start()
    await asyncio.wrap_future(done)
