"""What running a tool reads of its server: :class:`CheckHost` (the checks before it runs) and :class:`CallHost`
(the run and its result's shaping), each naming only what its functions read.

The core satisfies the checks' (its ``tools/call`` handlers hand them the core); the run's is the core's
:class:`~.call_parts.CallParts` (handed to :func:`~.tool_calls.run_tool` by the handlers and the job service alike),
or whatever a test builds with these members. A call's function gets none of
them: its ``Context`` keeps the call's own seams (:class:`~.call_seams.CallSeams`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from ..registry.registry import Registry
    from ..results.options import ResultOptions
    from ..results.store import ResultStore
    from ..wire.events import EventBus
    from .call_seams import CallSeams

__all__ = ["CallHost", "CheckHost", "Refusing"]


class Refusing(Protocol):
    """What telling a refused call reads: the event bus (its record) and how invalid arguments are answered."""

    bus: EventBus

    def invalid_arguments_as_protocol_error(self, version: str, override: str | None = None) -> bool:
        """Whether invalid tool arguments are a JSON-RPC -32602 for ``version`` (SEP-1303)."""
        ...


class CheckHost(Refusing, Protocol):
    """What :mod:`.tool_checks` reads: the registry (the tool named), and :class:`Refusing`."""

    registry: Registry


class CallHost(Refusing, Protocol):
    """What :mod:`.tool_calls` reads: the worker pool, the time limit, how results are shaped and where large ones
    are kept, and the seams a call's ``Context`` keeps."""

    tool_timeout: float | None
    call_seams: CallSeams

    @property
    def executor(self) -> Executor:
        """The pool running sync functions."""
        ...

    @property
    def result_options(self) -> ResultOptions:
        """How results are shaped."""
        ...

    @property
    def result_store(self) -> ResultStore:
        """Large results kept as resources (made at its first use)."""
        ...
