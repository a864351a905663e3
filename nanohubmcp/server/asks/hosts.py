"""What asking the client reads of its server: :class:`AskHost` (the asks of every era) and :class:`Asking` (a
call's :class:`~.context_asks.ClientAsks`, which bound each ask too).

Narrow on purpose: an ask reaches the pending server→client requests, the job store and the input requests
of running tasks, never the registry, the sessions or anything else the server holds. A call's
:class:`~nanohubmcp.server.calls.call_seams.CallSeams` satisfies both (the core does not: its job store is the job
service's, a layer above).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..jobs.service import JobStore
    from ..results.options import ResultOptions
    from ..wire.pending import ClientRequests
    from .task_inputs import TaskInputs


class AskHost(Protocol):
    """What :mod:`.by_era` reads: the handshake era's pending server→client requests, the job store (a
    2025-11-25 task's record) and the input requests of running tasks (2026-07-28)."""

    @property
    def client_requests(self) -> ClientRequests:
        """Server→client requests awaiting their answers."""
        ...

    @property
    def jobs(self) -> JobStore:
        """The job store (made at its first use)."""
        ...

    @property
    def task_inputs(self) -> TaskInputs:
        """The input requests of running tasks."""
        ...


class Asking(AskHost, Protocol):
    """What a call's :class:`~.context_asks.ClientAsks` reads: :class:`AskHost`, and how results are shaped
    (``max_event_bytes`` bounds one ask)."""

    @property
    def result_options(self) -> ResultOptions:
        """How results are shaped."""
        ...
