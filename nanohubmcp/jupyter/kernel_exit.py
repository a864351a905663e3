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
plain ``server.run()`` server (:mod:`.kernel_server`). With several, the bound is shared: each stop takes at
most its share of the time left (the time left over the stops still to come), so the last one still answers its
calls before the SIGTERM.

Example:
    ```python
    kernel_exit.stop_at_exit(server, lambda within: kernel_exit.stop_server(server, within))
    kernel_exit.forget(server)   # stopped by the user (or replaced): the exit leaves it alone
    ```
"""

from __future__ import annotations

import atexit
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
"""A stop's least bound in seconds (``stop(within=)`` takes only a positive number): the time was spent by the
stops before it, and its running calls are answered at once."""

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
        stop: called once, at the kernel's shutdown request or the exit, with the seconds it may take (> 0), off
            the kernel's running loop (a thread of its own; at the exit, the exiting thread: the loop ended).
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
    second call stops nothing), in the order they registered, within :data:`EXIT_STOP_SECONDS` in all
    (:func:`stop_within`)."""
    with _LOCK:
        stops = [stop for _, stop in _STOPS]
        _STOPS.clear()
    stop_within(stops, EXIT_STOP_SECONDS)


def stop_within(stops: list[Stop], within: float) -> None:
    """Call each of ``stops`` in turn with its share of the ``within`` seconds left (the time left over the stops
    still to come, at least :data:`SMALLEST_SHARE`). A stop that raises does not keep the others from stopping;
    the first error is raised after them (``atexit`` prints it)."""
    deadline = time.monotonic() + within
    failure: Exception | None = None
    for index, stop in enumerate(stops):
        share = (deadline - time.monotonic()) / (len(stops) - index)
        try:
            stop(max(share, SMALLEST_SHARE))
        except Exception as exc:  # the next servers still stop
            failure = failure or exc
    if failure is not None:
        raise failure


def stop_server(server: Any, within: float) -> None:
    """Stop ``server`` (an ``MCPServer``) as the kernel's process ends, within ``within`` seconds: ``server.stop``,
    then every job whose function runs on in the kernel (a ``threads`` job, which a stop leaves running while the
    process lives on: ``%mcp stop``) is cut short now — ``failed``, "the server stopped while this job ran" — and its
    provenance record written, timed to the stop: the process does not outlive it, and a record left ``working``
    would stay so until a server opened the state folder again (trial57 F6)."""
    server.stop(within=within)
    core = server.core
    if core.core_jobs.process_ended():
        records = core.first_use.provenance_made
        if records is not None:
            records.stopping()  # the jobs' records, written now (the kernel's SIGTERM may come next)
