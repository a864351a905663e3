"""What became, at its cancel, of a sync function a coroutine handed to the worker pool.

A notebook's sync tool is registered as a coroutine (``nanohubmcp.jupyter.calls``) that runs the function on
the server's worker pool. Past ``tool_timeout`` :func:`~.invoke.call_function` cancels that coroutine, and
by itself would answer that the call "was cancelled"; but nothing cancels the function, which runs on in its
thread. The coroutine tells :func:`handed_off` what the pool did with it (abandoned it to its thread, or kept
its worker: ``max_stuck_calls`` reached), and the timeout's answer says that, as for a sync tool of a script.

:func:`watching` is entered by :func:`~.invoke.call_function` around a coroutine's run; the tasks made in it
copy its context, so the coroutine's report reaches the :class:`HandOff` it returns.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["HandOff", "handed_off", "watching"]


@dataclass
class HandOff:
    """A coroutine's report: ``reported`` once it said its function ran on at its cancel; ``abandoned`` when
    the pool abandoned that function to its thread (its worker serves other calls), False when it keeps it."""

    reported: bool = False
    abandoned: bool = False


_CURRENT: contextvars.ContextVar[HandOff | None] = contextvars.ContextVar("nanohubmcp_hand_off", default=None)


@contextlib.contextmanager
def watching() -> Iterator[HandOff]:
    """A fresh :class:`HandOff`, which :func:`handed_off` called inside the block (or a task made in it) fills."""
    report = HandOff()
    token = _CURRENT.set(report)
    try:
        yield report
    finally:
        _CURRENT.reset(token)


def handed_off(*, abandoned: bool) -> None:
    """Told by a coroutine cancelled while the sync function it handed to the worker pool was running:
    the function runs on (``abandoned``: the pool gave it up to its thread). Outside :func:`watching`, nothing."""
    report = _CURRENT.get()
    if report is not None:
        report.reported = True
        report.abandoned = abandoned
