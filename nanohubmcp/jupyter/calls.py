"""How a function defined in a notebook cell is called when a client asks for it.

The server's own loop (a daemon thread in "thread" mode, the kernel loop in "kernel" mode)
receives the request; this module decides where the function body runs:

``"pool"`` (sync functions)
    the server's worker pool, so the kernel stays free and the endpoint keeps answering while
    cells run. Measured: 1-30 ms per call during a busy cell (``jupyter-integration.md`` § 1.3).
``"kernel"`` (``async def`` functions, and sync ones marked ``--main``)
    the kernel's own event loop, on the kernel's main thread: where an ``async def`` tool's
    awaitables usually belong, and the only safe place for code that is not thread-safe
    (widgets, pyplot). Such a call waits while a synchronous cell runs: nothing can interrupt a
    cell, so a call that cannot *start* before the timeout is answered with a "kernel busy"
    tool error instead of leaving the client hanging.

Either way the call runs in the context of the defining cell (:class:`~.output.CellOutput`),
so its output lands there. :func:`wrap` builds the callable handed to ``MCPServer.add_tool``;
``functools.wraps`` keeps the name, docstring and signature the schema is generated from.

Failures: when the function raises, ``on_failure(name, traceback_text)`` is told before the
error goes on to the server (which sends clients only the message); the session keeps the
last one for ``%mcp log``.

Timeouts: the server's core bounds every call by its ``tool_timeout`` (the session keeps it equal to
``NanohubMCP.tool_timeout``, so ``%config`` applies at the next call), as in a script, for these tools and
``%mcp rappture`` / ``%mcp sim2l`` ones alike; ``--async`` job tools are never timed out. The core cancels a
wrapper at the limit: a call that had not started yet is then answered as ``ToolBusy`` ("kernel busy",
"every worker was busy"), saying ``timeout()``'s seconds; one that started gets the core's answer, which for a
sync function on the pool says, as a script's does, that it was abandoned and may still be running (nothing
stops a thread: :mod:`nanohubmcp.server.calls.hand_off`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import inspect
import math
import traceback
from collections.abc import Callable
from typing import Any

from ..errors import ToolBusy, ToolError
from ..server.calls.hand_off import handed_off
from ..server.calls.progress import ran_here
from .output import CellOutput

__all__ = ["KernelCall", "policy_for", "wrap"]

Timeout = Callable[[], "float | None"]
OnFailure = Callable[[str, str], None]


def policy_for(fn: Callable[..., Any], *, main: bool) -> str:
    """``"kernel"`` for coroutine functions and ``--main``; ``"pool"`` otherwise."""
    return "kernel" if main or inspect.iscoroutinefunction(fn) else "pool"


class KernelCall:
    """One call scheduled onto the kernel loop; knows whether it started (busy vs slow).

    The kernel loop runs :meth:`begin`; the server side waits on :attr:`future`. A call whose
    caller gave up before it began is skipped when the kernel finally gets to it.
    """

    def __init__(self, fn: Callable[..., Any], kwargs: dict[str, Any], cell: CellOutput) -> None:
        self.fn = fn
        self.kwargs = kwargs
        self.cell = cell
        self.future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.started = False
        self.abandoned = False
        self._task: asyncio.Task[Any] | None = None

    def begin(self) -> None:
        """Run on the kernel loop: call the function in its cell's context."""
        if self.abandoned or not self.future.set_running_or_notify_cancel():
            return
        self.started = True
        ran_here("kernel")  # the call's provenance record names the kernel's thread
        try:
            value = self.cell.run(self._start)
        except BaseException as exc:  # reported to the caller, as the tool's failure
            self.future.set_exception(exc)
            return
        if not inspect.isawaitable(value):
            self.future.set_result(value)

    def _start(self) -> Any:
        value = self.fn(**self.kwargs)
        if inspect.isawaitable(value):
            # Created inside the cell's context, so the task (and its output) keeps it.
            self._task = asyncio.ensure_future(value)
            self._task.add_done_callback(self._finished)
        return value

    def _finished(self, task: asyncio.Task[Any]) -> None:
        if task.cancelled():
            self.future.set_exception(ToolError("the call was cancelled"))
        elif (error := task.exception()) is not None:
            self.future.set_exception(error)
        else:
            self.future.set_result(task.result())

    def cancel(self) -> None:
        """Give up: skip the call if it has not begun, cancel its task if it is async."""
        self.abandoned = True
        self.future.cancel()  # fails (harmlessly) once the call is running
        task = self._task
        if task is not None and not task.done():
            task.get_loop().call_soon_threadsafe(task.cancel)


def _busy_message(name: str, timeout: float, is_async: bool) -> str:
    where = (
        "async def tools run on the kernel's event loop" if is_async else "--main tools run on the kernel's main thread"
    )
    return (
        f"kernel busy: tool '{name}' could not start within {timeout:g} s because the notebook "
        f"kernel is running a cell ({where}); try again when the cell has finished"
    )


async def _on_kernel(
    name: str,
    fn: Callable[..., Any],
    kwargs: dict[str, Any],
    cell: CellOutput,
    loop: asyncio.AbstractEventLoop,
    timeout: float | None,
) -> Any:
    call = KernelCall(fn, kwargs, cell)
    loop.call_soon_threadsafe(call.begin, context=contextvars.copy_context())  # the call's progress goes along
    try:
        return await asyncio.wrap_future(call.future)
    except asyncio.CancelledError:
        started = call.started
        call.cancel()
        if started or not timeout:
            raise
        # Never started (the core's tool_timeout ran out): the kernel runs a cell. A client may retry
        # (REST: 503 with Retry-After).
        raise ToolBusy(
            _busy_message(name, timeout, inspect.iscoroutinefunction(fn)), retry_after=max(1, math.ceil(timeout))
        ) from None


async def _on_pool(
    name: str,
    fn: Callable[..., Any],
    kwargs: dict[str, Any],
    cell: CellOutput,
    executor: concurrent.futures.Executor,
    timeout: float | None,
) -> Any:
    # Run in a copy of this (the request's) context, so the call's progress goes along.
    work = executor.submit(contextvars.copy_context().run, _in_pool, cell, fn, kwargs)
    try:
        return await asyncio.wrap_future(work)
    except asyncio.CancelledError:
        abandon = getattr(executor, "abandon", None)  # the server's WorkerPool: its worker goes back
        abandoned = bool(callable(abandon) and abandon(work))
        if abandoned or not work.cancel():
            if not work.done():  # it started and runs on: the core's answer says so, not "it was cancelled"
                handed_off(abandoned=abandoned)
            raise  # the core answers it (did not finish within ...)
        if not timeout:
            raise
        # Not started yet (the core's tool_timeout ran out): it never will.
        raise ToolBusy(
            f"tool '{name}' could not start within {timeout:g} s: every worker was busy with other calls "
            "(make long tools --async)",
            retry_after=max(1, math.ceil(timeout)),
        ) from None


def _in_pool(cell: CellOutput, fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    ran_here("worker-pool")  # the call's provenance record names this thread
    return cell.run(fn, **kwargs)


def _traced(fn: Callable[..., Any], name: str, on_failure: OnFailure | None) -> Callable[..., Any]:
    """``fn``, telling ``on_failure`` the traceback (from the function's own frame) when it raises."""
    if on_failure is None:
        return fn
    report = on_failure

    def tell(exc: Exception) -> None:
        tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None  # skip this wrapper
        report(name, "".join(traceback.format_exception(type(exc), exc, tb)))

    if inspect.iscoroutinefunction(fn):

        async def traced_async(**kwargs: Any) -> Any:
            try:
                return await fn(**kwargs)
            except Exception as exc:
                tell(exc)
                raise

        return traced_async

    def traced(**kwargs: Any) -> Any:
        try:
            return fn(**kwargs)
        except Exception as exc:
            tell(exc)
            raise

    return traced


def wrap(
    fn: Callable[..., Any],
    *,
    name: str,
    policy: str,
    cell: CellOutput,
    kernel_loop: asyncio.AbstractEventLoop | None,
    executor: Callable[[], concurrent.futures.Executor],
    timeout: Timeout,
    background: bool = False,
    on_failure: OnFailure | None = None,
) -> Callable[..., Any]:
    """The callable to register for ``fn``, defined in ``cell``.

    Args:
        fn: the user's function (sync or ``async def``).
        name: the component's name, for messages.
        policy: ``"pool"`` or ``"kernel"`` (see :func:`policy_for`).
        cell: where its output goes.
        kernel_loop: the kernel's event loop; None outside a kernel, where "kernel" calls run
            on the server's loop (coroutines) or the pool (sync functions).
        executor: returns the worker pool (the server's, created lazily).
        timeout: returns the current per-call limit in seconds (None: no limit), which the server's
            core enforces: said in the answer of a call it cut before the call started.
        background: a job tool (``--async``): the job machinery runs it, without a timeout.
        on_failure: told ``(name, traceback text)`` when ``fn`` raises (not for timeouts).
    Returns:
        A function with ``fn``'s name, docstring and signature (``__wrapped__``).
    """
    call = _traced(fn, name, on_failure)  # what runs; fn gives the name, docstring and signature
    if policy == "kernel" and kernel_loop is not None:
        loop = kernel_loop

        async def on_kernel(**kwargs: Any) -> Any:
            return await _on_kernel(name, call, kwargs, cell, loop, None if background else timeout())

        return functools.wraps(fn)(on_kernel)
    if inspect.iscoroutinefunction(fn):
        # No kernel loop to go to (plain IPython): run on the server's loop, in the cell's context.
        async def on_server(**kwargs: Any) -> Any:
            return await cell.run(lambda: asyncio.ensure_future(call(**kwargs)))

        return functools.wraps(fn)(on_server)
    if background:
        # The job machinery already runs sync job tools on its own pool.
        def in_job(**kwargs: Any) -> Any:
            return cell.run(call, **kwargs)

        return functools.wraps(fn)(in_job)

    async def on_pool(**kwargs: Any) -> Any:
        return await _on_pool(name, call, kwargs, cell, executor(), timeout())

    return functools.wraps(fn)(on_pool)
