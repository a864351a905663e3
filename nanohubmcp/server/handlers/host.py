"""What each family of method handlers reads of its server: one protocol per family, each naming only what its
handlers read (and what the functions they call read, which they pass the server on to).

:class:`~nanohubmcp.server.core.ServerCore` satisfies every one; the dispatcher hands it to the handlers, typed as
the union of these (:class:`~nanohubmcp.server.dispatcher.Routed`), and each handler sees it as its own protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..calls.hosts import CheckHost
from ..executors.service import JobHost

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from ..asks.request_state import RequestStateCodec
    from ..calls.call_seams import CallSeams
    from ..executors.polled_data import PolledData
    from ..jobs.service import JobStore
    from ..registry.registry import Registry
    from ..results.options import ResultOptions
    from ..results.store import ResultStore
    from ..wire.events import EventBus
    from ..wire.replication import Replication

__all__ = ["AnsweredHost", "FunctionHost", "KeptHost", "ListHost", "PromptsHost", "ResourcesHost", "TasksHost",
           "ToolsHost"]


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
    """What reading a kept result reads (:mod:`.kept_reader`): the job store and the large-result store."""

    @property
    def jobs(self) -> JobStore:
        """The job store."""
        ...

    @property
    def result_store(self) -> ResultStore:
        """Large results kept as resources."""
        ...


class AnsweredHost(Protocol):
    """What a done job's answer reads (:mod:`.answered_result`): the registry (its tool), the done jobs' kept data."""

    registry: Registry

    @property
    def polled_data(self) -> PolledData:
        """The done jobs' data kept once per job for their MCP answers."""
        ...


class FunctionHost(Protocol):
    """What calling a resource or prompt function reads: the registry, the bus, the worker pool, the time limit,
    and the seams its ``Context`` keeps."""

    registry: Registry
    bus: EventBus
    tool_timeout: float | None
    call_seams: CallSeams

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


class TasksHost(JobHost, AnsweredHost, ListHost, Protocol):
    """What :mod:`.tasks` reads (``tasks/*`` of 2025-11-25): the job service's, the pages', a done job's answer."""


class ToolsHost(CheckHost, TasksHost, Protocol):
    """What :mod:`.tools` reads (``tools/*``): a task's, and the checks before a call."""
