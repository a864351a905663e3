"""What running a tool reads of its server, as one object the core owns: :class:`CallParts`.

The core makes one in its constructor and is its only writer: its ``executor``, ``tool_timeout`` and ``loop`` read and
write this object's (the pool is made again after a stop, a notebook sets ``tool_timeout`` while serving, serving
begins on a loop), so whoever holds it sees them as they are now. A ``tools/call`` runs through it
(:func:`~.tool_calls.run_tool`), and the job service holds it, not the core, to run a job's call, shape its value and
store its end on the serving loop. It satisfies :class:`~.hosts.CallHost`. The results' options and store are read
from where they are made at their first use (the core's ``FirstUse``), at each read: a store made again (a testing
client's directory left) is the one read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import asyncio
    from concurrent.futures import Executor

    from ..results.options import ResultOptions
    from ..results.store import ResultStore
    from ..wire.events import EventBus
    from .call_seams import CallSeams

__all__ = ["CallParts", "Results"]


class Results(Protocol):
    """Where results are shaped and kept, made at their first use (the core's ``FirstUse``)."""

    @property
    def result_options(self) -> ResultOptions:
        """How results are shaped."""
        ...

    @property
    def result_store(self) -> ResultStore:
        """Large results kept as resources."""
        ...


class CallParts:
    """The parts of one server a tool's run reads (module docstring).

    Args:
        bus: the event bus (a call's record).
        call_seams: what a call's ``Context`` keeps (:class:`~.call_seams.CallSeams`).
        results: where results are shaped and kept (read at each use).
        executor: the pool running sync functions.
        tool_timeout: seconds a call may run, None for no limit.
        argument_errors: the server's ``argument_errors`` (``"auto"``, ``"protocol"``, ``"tool"``), and
            ``protocol_errors``, its rule for a version (``options.argument_errors_are_protocol_errors``).
    """

    __slots__ = ("_protocol_errors", "_results", "argument_errors", "bus", "call_seams", "executor", "loop",
                 "tool_timeout")

    def __init__(self, bus: EventBus, call_seams: CallSeams, results: Results, *, executor: Executor,
                 tool_timeout: float | None, argument_errors: str,
                 protocol_errors: Callable[[str, str], bool]) -> None:
        self.bus = bus
        self.call_seams = call_seams
        self._results = results
        self.executor = executor
        """The pool running sync tool, resource and prompt functions (made again after a stop)."""
        self.tool_timeout = tool_timeout
        """Seconds a call may run (set while serving by a notebook), None for no limit."""
        self.loop: asyncio.AbstractEventLoop | None = None
        """The loop the server serves on (None before it serves): a job's end is stored there."""
        self.argument_errors = argument_errors
        self._protocol_errors = protocol_errors

    @property
    def result_options(self) -> ResultOptions:
        """How results are shaped."""
        return self._results.result_options

    @property
    def result_store(self) -> ResultStore:
        """Large results kept as resources (made at its first use)."""
        return self._results.result_store

    def invalid_arguments_as_protocol_error(self, version: str, override: str | None = None) -> bool:
        """Whether invalid tool arguments are a JSON-RPC -32602 for ``version`` (SEP-1303): ``override``, a
        request's own choice, else the server's."""
        return self._protocol_errors(override or self.argument_errors, version)
