"""What a call's ``Context`` keeps of the server it runs on: :class:`CallSeams`, one per server.

A user's function holds its :class:`~.context.Context`, and through it whatever the Context keeps. So the
Context keeps this, never the server's core: the server's name (the logger a call's messages name), the
event bus (progress observers), the pending server→client requests and, made at their first use, the job
store (a job's progress, a 2025-11-25 task's asks), the input requests of running tasks and how results are
shaped. Not the registry, the sessions, the executors or the dispatcher. (A tool is the server author's own
code: ``ctx.server`` is the application's ``MCPServer``, with all it reaches; these seams keep the core's parts
apart, they are no sandbox. Principals are kept apart by the owner checks of the job store and the handlers.)

It satisfies what the client asks read (:class:`~nanohubmcp.server.asks.hosts.Asking`), what progress
reads (:class:`~.progress.ProgressHost`) and where results are shaped (:class:`~.call_facts.Shaping`).
The core builds one at construction and hands it to each call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from ..asks.task_inputs import TaskInputs
    from ..jobs.service import JobStore
    from ..results.options import ResultOptions
    from ..wire.events import EventBus
    from ..wire.pending import ClientRequests

__all__ = ["CallSeams", "MadeLater"]

T_co = TypeVar("T_co", covariant=True)


class MadeLater(Protocol[T_co]):
    """A service made at its first use (the core's ``first_use.Once``): :meth:`get` makes it, once."""

    def get(self) -> T_co: ...


class CallSeams:
    """The seams of one server a call's ``Context`` uses, and nothing else of it.

    Args:
        name: the server's name.
        bus: the server's event bus.
        client_requests: its pending server→client requests (handshake era).
        jobs / task_inputs / result_options: the job store, the tasks' input requests and how results are shaped,
            each made at its first use (the core's ``FirstUse`` gives them: :meth:`~..first_use.FirstUse.call_seams`).
    """

    __slots__ = ("_jobs", "_result_options", "_task_inputs", "bus", "client_requests", "name")

    def __init__(self, name: str, bus: EventBus, client_requests: ClientRequests, *, jobs: MadeLater[JobStore],
                 task_inputs: MadeLater[TaskInputs], result_options: MadeLater[ResultOptions]) -> None:
        self.name = name
        self.bus = bus
        self.client_requests = client_requests
        self._jobs = jobs
        self._task_inputs = task_inputs
        self._result_options = result_options

    @property
    def jobs(self) -> JobStore:
        """The job store."""
        return self._jobs.get()

    @property
    def task_inputs(self) -> TaskInputs:
        """The input requests of running tasks."""
        return self._task_inputs.get()

    @property
    def result_options(self) -> ResultOptions:
        """How results are shaped."""
        return self._result_options.get()
