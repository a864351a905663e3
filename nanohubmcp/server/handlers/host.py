"""What each family of method handlers reads of its server: one protocol per family, each naming only what its
handlers read (and what the functions they call read, which they pass the server on to).

:class:`~nanohubmcp.server.core.ServerCore` satisfies every one; the dispatcher hands it to the handlers, typed as
the union of these (:class:`~nanohubmcp.server.dispatcher.Routed`), and each handler sees it as its own protocol.
The jobs are one member, the job service (:class:`~..executors.job_service.JobService`: its job store, executors,
kept data), read once by a handler and handed on whole to its helpers and the job machinery, never its parts one by
one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..calls.hosts import CheckHost

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from ..asks.request_state import RequestStateCodec
    from ..calls.call_parts import CallParts
    from ..calls.call_seams import CallSeams
    from ..executors.job_service import JobService
    from ..registry.registry import Registry
    from ..results.options import ResultOptions
    from ..results.store import ResultStore
    from ..wire.events import EventBus
    from ..wire.replication import Replication

__all__ = ["FunctionHost", "KeptHost", "ListHost", "PromptsHost", "ResourcesHost", "TasksHost", "ToolsHost"]


class ListHost(Protocol):
    """What a list's pages read (:mod:`.list_pages`): the page size, the key signing cursors, the event bound."""

    list_page_size: int | None

    @property
    def request_codec(self) -> RequestStateCodec:
        """The key signing cursors and ``requestState``."""
        ...

    @property
    def result_options(self) -> ResultOptions:
        """How results are shaped (``max_event_bytes`` bounds a page)."""
        ...


class KeptHost(Protocol):
    """What reading a kept result reads (:mod:`.kept_reader`): the job service (its job store) and the large-result
    store."""

    job_service: JobService

    @property
    def result_store(self) -> ResultStore:
        """Large results kept as resources."""
        ...


class FunctionHost(Protocol):
    """What calling a resource or prompt function reads: the registry, the bus, the worker pool, the time limit,
    and the seams its ``Context`` keeps."""

    registry: Registry
    bus: EventBus
    call_seams: CallSeams

    @property
    def tool_timeout(self) -> float | None:
        """Seconds a call may run, None for no limit."""
        ...

    @property
    def executor(self) -> Executor:
        """The pool running sync functions."""
        ...


class PromptsHost(FunctionHost, ListHost, Protocol):
    """What :mod:`.prompts` reads (``prompts/*``, ``completion/complete``): and the completers."""

    completers: dict[tuple[str, str, str], Any]


class ResourcesHost(FunctionHost, ListHost, KeptHost, Protocol):
    """What :mod:`.resources` reads (``resources/*``): and the replication (subscriptions shared by processes)."""

    replication: Replication | None


class TasksHost(ListHost, Protocol):
    """What :mod:`.tasks` reads (``tasks/*`` of 2025-11-25): the job service (its job store, and a done job's answer:
    :mod:`.answered_result`), the registry (a task's tool), the pages'."""

    registry: Registry
    job_service: JobService


class ToolsHost(CheckHost, TasksHost, Protocol):
    """What :mod:`.tools` reads (``tools/*``): a task's, the checks before a call, and what the call's run reads (the
    core's :class:`~..calls.call_parts.CallParts`)."""

    call_parts: CallParts
