"""The tasks a coroutine call starts, timed into that call (for :mod:`.loop_hold`).

An ``async def`` tool that runs a helper as a task of its own (``asyncio.gather``, ``create_task``, a
``TaskGroup``, Python 3.11's ``wait_for``) holds the event loop in that task's steps, not its own: a blocking
call there is the tool's all the same. A task is made in some step: while a step of a call runs (its own, or one
of a task it started), the loop's task factory is that call's (:func:`made`), and a task made then gets a
:class:`TaskSteps` for its coroutine, which times each of its steps into the call (:meth:`Call.task_step`).
Between steps the loop's factory is the one it had: a task made elsewhere (another request, a loop callback)
costs nothing more, and a loop is left as it was found.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Generator
from types import CoroutineType
from typing import Any, Protocol

__all__ = ["Call", "TaskSteps", "made"]

TaskFactory = Callable[..., "asyncio.Future[Any]"]


class Call(Protocol):
    """A coroutine call, told of the steps of the tasks it started."""

    def task_step(self, took: float, coro: Coroutine[Any, Any, Any]) -> None:
        """A step of the task running ``coro`` took ``took`` seconds (wall time)."""


def made(loop: asyncio.AbstractEventLoop, coro: Any, options: dict[str, Any], call: Call,
         previous: TaskFactory | None) -> asyncio.Future[Any]:
    """The task of ``coro`` made in a step of ``call``: its steps timed into the call (a coroutine's), made by
    ``previous``, the factory the loop had (None: as the loop makes one)."""
    if type(coro) is CoroutineType:
        coro = TaskSteps(coro, call, loop)
    if previous is not None:
        task: asyncio.Future[Any] = previous(loop, coro, **options)
        return task
    return asyncio.Task(coro, loop=loop, **options)


class TaskSteps(Coroutine[Any, Any, Any]):
    """The coroutine of a task a call started: ``coro``'s, each step (send or throw) timed into ``call``, and the
    loop's task factory while it runs (a task it starts is the call's too). It reads as ``coro`` does (name, code,
    frame, state: a task's repr, ``inspect.getcoroutinestate``), and a cancel before its first step reaches
    ``coro`` as it would unwrapped (no "never awaited" warning)."""

    __slots__ = ("_call", "_coro", "_loop", "_previous")

    def __init__(self, coro: Coroutine[Any, Any, Any], call: Call, loop: asyncio.AbstractEventLoop) -> None:
        self._coro = coro
        self._call = call
        self._loop = loop
        self._previous: TaskFactory | None = None

    def send(self, value: Any) -> Any:
        loop = self._loop
        self._previous = previous = loop.get_task_factory()
        loop.set_task_factory(self)
        start = time.perf_counter()
        try:
            return self._coro.send(value)
        finally:
            loop.set_task_factory(previous)
            self._call.task_step(time.perf_counter() - start, self._coro)

    def throw(self, kind: Any, value: Any = None, traceback: Any = None) -> Any:
        loop = self._loop
        self._previous = previous = loop.get_task_factory()
        loop.set_task_factory(self)
        start = time.perf_counter()
        try:
            if value is None and traceback is None:
                return self._coro.throw(kind)
            return self._coro.throw(kind, value, traceback)  # (the old form, for a caller that uses it)
        finally:
            loop.set_task_factory(previous)
            self._call.task_step(time.perf_counter() - start, self._coro)

    def close(self) -> None:
        self._coro.close()

    def __await__(self) -> Generator[Any, None, Any]:
        return self._coro.__await__()

    def __call__(self, loop: asyncio.AbstractEventLoop, coro: Any, **options: Any) -> asyncio.Future[Any]:
        # The loop's task factory during a step of this task.
        return made(loop, coro, options, self._call, self._previous)

    def __getattr__(self, name: str) -> Any:
        # What a coroutine has that this class does not: __qualname__, __name__, cr_code, cr_frame, cr_running,
        # cr_await, cr_suspended (a task's repr, inspect.getcoroutinestate) are ``coro``'s.
        return getattr(self._coro, name)
