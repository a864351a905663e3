"""A kernel's exit stops the servers it serves: one hook, one bound, for every server a notebook started.

JupyterLab's "Shut Down Kernel" sends the kernel a shutdown request, and the Jupyter server's kernel manager
sends SIGTERM ``shutdown_wait_time / 2`` (2.5 s by default) later; a kernel ended by it writes nothing more.
So the servers stop as the kernel handles the request (:mod:`.shutdown_request`: before its loops end), within
:data:`EXIT_STOP_SECONDS` all together: a call still running is answered that the server is stopping (REST: 503)
and its provenance record (``failed``) is written, as at ``%mcp stop``; so is a job whose function still runs
(:func:`stop_server`: ``failed``, "the server stopped while this job ran", timed to the stop). The interpreter's
exit (an ``atexit`` hook) stops those still registered: a kernel ended without the request (``exit()``, a plain
interpreter).

A child forked from the kernel (a ``processes`` job's process) starts with none registered: its exit, should it
run ``atexit``, leaves the kernel's servers alone.

Both kinds of notebook server register here: the ``%%mcp_tool`` session's (``%load_ext nanohubmcp``) and each
plain ``server.run()`` server (:mod:`.kernel_server`). With several, they stop together, each on a thread of its
own, against one deadline: a "kernel" mode server whose loop is busy (a cell computing as "Restart Kernel" is
pressed) cannot drain, and its stop gives up at the deadline, while a "thread" mode server's stop beside it answers
its calls and writes their records (review r31 F3: run in turn, the second got 1 ms, past the SIGTERM).

Example:
    ```python
    kernel_exit.stop_at_exit(server, lambda within: kernel_exit.stop_server(server, within))
    kernel_exit.forget(server)   # stopped by the user (or replaced): the exit leaves it alone
    ```
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable
from typing import Any

from ..server.wire.fork_safe import ForkSafeLock, after_fork_in_child
from . import shutdown_request

__all__ = ["EXIT_STOP_SECONDS", "forget", "stop_all", "stop_at_exit", "stop_server", "stop_within"]

EXIT_STOP_SECONDS = 1.5
"""How long the servers' stops take at most, together, when the kernel's process exits (JupyterLab's "Shut Down
Kernel"): a Jupyter server's kernel manager sends the kernel SIGTERM ``shutdown_wait_time / 2`` (2.5 s by default)
after its shutdown request, and a kernel ended by it writes nothing more: the calls still running must be answered,
and their records written, before then (trial53 F5)."""

SMALLEST_SHARE = 0.001
"""A stop's least bound in seconds (``stop(within=)`` takes only a positive number): no time was left, and its
running calls are answered at once."""

JOIN_GRACE_SECONDS = 0.5
"""How long past the deadline :func:`stop_within` waits for the stops to return (a server thread's last turns once
its drain ended); a stop still running then is left to its thread (a daemon)."""

Stop = Callable[[float], None]
"""Stops one server within the given seconds (``lambda within: server.stop(within=within)``)."""

_STOPS: list[tuple[object, Stop]] = []
_LOCK = ForkSafeLock()
_HOOKED: list[bool] = []  # the one atexit hook is registered (at the first server)
after_fork_in_child(_STOPS.clear)  # a forked child (a job's process) serves none of them: its exit stops nothing


def stop_at_exit(owner: object, stop: Stop) -> None:
    """At the kernel's exit, call ``stop(within)`` for ``owner`` (a server, a session); again replaces it.

    Args:
        owner: what is stopped (compared by identity; :func:`forget` takes it).
        stop: called once, at the kernel's shutdown request or the exit, with the seconds it may take (> 0), on a
            thread of its own (off the kernel's loop), beside the other servers' stops (:func:`stop_within`).
    """
    with _LOCK:
        _STOPS[:] = [(o, s) for o, s in _STOPS if o is not owner]
        _STOPS.append((owner, stop))
        if not _HOOKED:
            atexit.register(stop_all)
            _HOOKED.append(True)
    kernel = shutdown_request.running_kernel()
    if kernel is not None:  # (once per kernel)
        shutdown_request.stop_first(kernel, stop_all)


def forget(owner: object) -> None:
    """The exit no longer stops ``owner`` (it was stopped, replaced or unloaded); unknown owners are ignored."""
    with _LOCK:
        _STOPS[:] = [(o, s) for o, s in _STOPS if o is not owner]


def stop_all() -> None:
    """The kernel's shutdown request, and the ``atexit`` hook: stop every registered server (forgotten then: a
    second call stops nothing), all at once, within :data:`EXIT_STOP_SECONDS` (:func:`stop_within`)."""
    with _LOCK:
        stops = [stop for _, stop in _STOPS]
        _STOPS.clear()
    stop_within(stops, EXIT_STOP_SECONDS)


def stop_within(stops: list[Stop], within: float) -> None:
    """Call every one of ``stops`` at once, each on a thread of its own (started in their order), with the seconds
    left until one deadline ``within`` seconds away (at least :data:`SMALLEST_SHARE`), and wait for them until that
    deadline and :data:`JOIN_GRACE_SECONDS` more: a stop that cannot end in time (its loop busy) holds up neither
    the others nor the caller for longer. A stop that raises does not keep the others from stopping; the first
    error (in their order) is raised after them (``atexit`` prints it)."""
    deadline = time.monotonic() + within
    failures: list[Exception | None] = [None] * len(stops)

    def run(index: int, stop: Stop) -> None:
        try:
            stop(max(deadline - time.monotonic(), SMALLEST_SHARE))
        except Exception as exc:  # the other servers still stop
            failures[index] = exc

    threads = []
    for index, stop in enumerate(stops):
        thread = threading.Thread(target=run, args=(index, stop), name="nanohubmcp-stop", daemon=True)
        try:
            thread.start()
        except RuntimeError:  # no thread can start now (the interpreter finalizing): stopped here, in turn
            run(index, stop)
            continue
        threads.append(thread)
    for thread in threads:
        thread.join(max(deadline + JOIN_GRACE_SECONDS - time.monotonic(), 0.0))
    failure = next((exc for exc in failures if exc is not None), None)
    if failure is not None:
        raise failure


def stop_server(server: Any, within: float) -> None:
    """Stop ``server`` (an ``MCPServer``) as the kernel's process ends, within ``within`` seconds: ``server.stop``,
    then every job of the kernel not ended (a ``threads`` job, which a stop leaves running while the process lives
    on: ``%mcp stop``; any job the stop did not settle, its loop held by a cell) is cut short now — ``failed``,
    "the server stopped while this job ran" — and its provenance record written, timed to the stop: the process
    does not outlive it, and a record left ``working`` would stay so until a server opened the state folder again
    (trial57 F6)."""
    server.stop(within=within)
    server.runtime.end_jobs_now()  # their records written now (the kernel's SIGTERM may come next)
