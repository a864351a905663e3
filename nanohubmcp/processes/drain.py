"""The stop's drain of a server, over HTTP and over stdio alike: its running calls answered, its streams ended, an
HTTP server's connections closed; on a loop that no longer runs (a Jupyter kernel's, at the kernel's exit) too, run
again for it (:func:`drain_stopped`), and on a kernel's loop still running, from another thread, waited for
(:func:`drain_running`).

Not the drain's: the stop itself (what stops accepting and cancels the running work: the runner's
``_shutdown``, stdio's :meth:`~..transports.stdio.StdioTransport.serve`), the bounds of each step
(:func:`.process_exit.drain_step`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ..server.wire.store_close import STORE_CLOSE_LEAST_SECONDS, wait_closed

if TYPE_CHECKING:
    import tornado.httpserver

    from .process_exit import StopNotice
    from .stopping import Stopping

log = logging.getLogger("nanohubmcp")


async def drain(core: Stopping, http: tornado.httpserver.HTTPServer | None, until: float | None = None,
                notice: StopNotice | None = None, *, busy: Callable[[], bool] | None = None,
                settle: bool = True) -> None:
    """Give ``core``'s running calls a moment to answer (they were told to cancel; once the last answered, its
    client a moment to follow it up: :meth:`Shutdown.settling <nanohubmcp.server.shutdown.Shutdown.settling>`);
    answer those still running then with the stopping server's error (:meth:`Shutdown.cut_off
    <nanohubmcp.server.shutdown.Shutdown.cut_off>`), then end the sessions' streams and close every connection of
    ``http`` (the server that stopped accepting), so no client is left waiting on a server that is gone. The shared
    state store (Redis) stays connected until the streams ended, so the answers written meanwhile reach its event
    logs (a client resuming with ``Last-Event-ID`` on another process gets them), then closes within the next
    step's bound.

    Without ``until`` each step takes :data:`~.process_exit.DRAIN_SECONDS` at the most. ``until`` (a
    ``time.monotonic()``: a blocking serve's :func:`.process_exit.exit_deadline` less its margin, or
    ``stop(within=)``'s) bounds them (:func:`.process_exit.drain_step`): the first, the running calls' time to
    answer, lasts until shortly before it (a longer exit grace gives them longer), the others fit in what is left,
    so a loop that took the stop late (an ``async def`` tool blocked it), or a short exit grace, still drains before
    the exit watchdog ends the process; ``notice`` says what the stop waits for as it begins
    (:meth:`.process_exit.StopNotice.draining`).

    ``busy``: whether the transport still serves requests, which the first step waits out (None: ``core``'s requests
    in flight; stdio's: its line tasks, listings included). ``settle`` False: no client can follow an answer up any
    more (stdio's input ended), so the first step ends with the last answer (:meth:`Shutdown.quiet
    <nanohubmcp.server.shutdown.Shutdown.quiet>`). ``http`` None: no connections to close (stdio).
    """
    from .process_exit import drain_step  # (once serving ended: not with the first answer)

    if notice is not None and until is not None:
        await notice.draining(core, until)
    await core.shutdown.quiet(busy or (lambda: bool(core.in_flight)), drain_step(until, first=True), settle=settle)
    answering = core.shutdown.cut_off()
    if answering:  # each writes its error (a JSON body, an SSE event, a stdout line) as it ends
        await asyncio.wait(answering, timeout=drain_step(until))
    core.close_streams()
    # The shared store closes now, not as the stop began: what the drain answered is queued for its event logs
    # (written first, in half of the step at most), for a client resuming on another process.
    step = drain_step(until)
    await wait_closed(core.close_store(flush=step / 2), max(step, STORE_CLOSE_LEAST_SECONDS))
    left = drain_step(until)
    if http is not None and left > 0:  # (none left: they close as the process exits, nothing to wait for)
        try:
            await asyncio.wait_for(http.close_all_connections(), left)
        except asyncio.TimeoutError:
            log.warning("some connections did not close within %.2g s", left)
    core.shutdown.reset()  # stopped: an application of make_app() served elsewhere serves again


def drain_stopped(loop: asyncio.AbstractEventLoop, stop_and_drain: Callable[[], Awaitable[None]],
                  bound: float) -> None:
    """Run ``stop_and_drain()`` (a server's stop and :func:`drain`) on ``loop``, a loop the server does not own that
    no longer runs, from this thread, until it ended: ``bound`` seconds at most.

    That is a Jupyter kernel's loop at the kernel's exit (a "kernel" mode server): the shutdown request stops the
    loop, it does not close it, and the interpreter's exit (:mod:`nanohubmcp.jupyter.kernel_exit`) comes next. The
    calls still running are answered and their records written there, as a server thread's are (before, nothing
    ran the loop again: the client's connection was dropped, no record written). A stop left queued on it (ipykernel
    7's shutdown leaves one) ends a run of the loop early: it is run again until the drain ended."""
    drained = loop.create_task(asyncio.wait_for(stop_and_drain(), bound))
    _run_until(loop, drained, time.monotonic() + bound)
    if not drained.done():  # past the bound: cancelled, and the loop run again (briefly) for it to be taken,
        drained.cancel()  # so that no task is left pending ("Task was destroyed but it is pending!" at the exit)
        _run_until(loop, drained, time.monotonic() + CANCEL_GRACE_SECONDS)
    if not drained.done() or drained.cancelled():
        log.warning("the stop did not drain within %.2g s", bound)
    else:
        _tell(drained.exception(), bound)


CANCEL_GRACE_SECONDS = 0.5
"""How long :func:`drain_stopped` runs the loop again for a drain it cancelled past its bound to end."""


def _run_until(loop: asyncio.AbstractEventLoop, task: asyncio.Task[None], deadline: float) -> None:
    """Run ``loop`` until ``task`` is done or ``deadline`` (``time.monotonic()``) passed, whatever stops a run of
    it early (a stop left queued on it); ``task``'s own end (an exception, its cancellation) is read by the caller."""
    ended = loop.create_future()  # (a future, no task: ended with the task, never raising its exception)
    task.add_done_callback(lambda _: None if ended.done() else ended.set_result(None))
    stop = loop.call_at(loop.time() + max(0.0, deadline - time.monotonic()), loop.stop)
    try:
        while not task.done() and time.monotonic() < deadline:
            with contextlib.suppress(RuntimeError):  # "Event loop stopped before Future completed"
                loop.run_until_complete(ended)
    finally:
        stop.cancel()


def drain_running(loop: asyncio.AbstractEventLoop, stop_and_drain: Callable[[], Awaitable[None]],
                  bound: float, wait: float | None = None) -> None:
    """Run ``stop_and_drain()`` on ``loop``, a loop the server does not own that another thread runs (``bound``
    seconds at most there), and wait until it ended: ``wait`` seconds at most (None: ``bound``).

    That is a Jupyter kernel's loop as the kernel handles its shutdown request (:mod:`nanohubmcp.jupyter.
    shutdown_request`): the request's handling waits for the stop before it stops the loop, so the drain runs
    there while the loop still runs. Before, a stop from another thread returned once the stop had begun, its
    drain left to a loop about to stop. A loop held up (a cell running) drains once free: the wait ends first, at
    ``wait`` (the stop's own deadline: the kernel's other servers stop meanwhile, review r31 F3). A loop closed
    meanwhile runs nothing: no wait, and no coroutine left never awaited."""
    if loop.is_closed():
        return
    drain = stop_and_drain()
    bounded = asyncio.wait_for(drain, bound)
    try:
        drained = asyncio.run_coroutine_threadsafe(bounded, loop)
    except RuntimeError:  # the loop closed meanwhile: nothing runs there any more
        bounded.close()  # (never awaited: closed, not warned of)
        if asyncio.iscoroutine(drain):
            drain.close()
        return
    try:
        drained.result(bound if wait is None else wait)
    except concurrent.futures.TimeoutError:
        log.warning("the stop did not drain within %.2g s", bound if wait is None else wait)
    except concurrent.futures.CancelledError:
        pass
    except Exception as failure:
        _tell(failure, bound)


def _tell(failure: BaseException | None, bound: float) -> None:
    """Log how a drain bounded by ``bound`` seconds failed (None: it did not)."""
    if isinstance(failure, asyncio.TimeoutError):
        log.warning("the stop did not drain within %.2g s", bound)
    elif failure is not None:
        log.warning("the stop's drain failed: %r", failure, exc_info=failure)
