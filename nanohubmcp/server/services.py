"""What the parts of the core may use of the server they serve: :class:`Services`.

:class:`~nanohubmcp.server.core.ServerCore` builds these services (the ones a first answer does not
use at their first use, hence the read-only properties) and satisfies this protocol. Everything
below the core — the client asks, the call machinery, the job service, the method handlers, the
dispatcher, the connection seam — is typed against this protocol (or against a narrower one of its
own), never against ``ServerCore``, so no module imports the core: the import graph, type-only
imports counted, points one way.

A part that needs more than this protocol names it in a protocol of its own that extends it (for
example the job service, which also picks executors).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .jobs.service import JobStore
    from .registry.registry import Registry
    from .registry.skill_catalog import SkillCatalog
    from .results.options import ResultOptions
    from .results.store import ResultStore
    from .shutdown import Shutdown
    from .wire.events import EventBus
    from .wire.notifier import Notifier
    from .wire.pending import ClientRequests
    from .wire.replication import Replication
    from .wire.request import RequestContext
    from .wire.sessions import SessionStore


class Services(Protocol):
    """The services of one server, as its parts see them.

    Attributes:
        name / version / instructions: the server's identity (``serverInfo``).
        list_page_size: page size of list results, or None.
        list_changed: whether ``notifications/*/list_changed`` are advertised and sent.
        tool_timeout: seconds a call may run (None: no limit).
        registry: tools, resources, resource templates, prompts.
        sessions: the sessions of the handshake era.
        jobs: the job store (records of ``@async_tool`` jobs and tasks).
        bus: the event bus (component and call events).
        result_store / result_options: large results kept as resources, and how results are shaped.
        client_requests: server→client requests of the handshake era awaiting their answers.
        skills: the published skills (2026-07-28 skills extension).
        notifier: change notifications to sessions while serving, else None.
        replication: the shared state store's session replication, or None (one process).
        loop: the serving event loop once attached, else None.
        completers: argument completion functions by (kind, name, argument).
        in_flight: the requests being served (loop thread only).
        shutdown: whether the server is stopping, and the requests it serves (:mod:`.shutdown`).
    """

    name: str
    version: str
    instructions: str | None
    list_page_size: int | None
    list_changed: bool
    tool_timeout: float | None
    registry: Registry
    sessions: SessionStore
    bus: EventBus
    client_requests: ClientRequests
    notifier: Notifier | None
    replication: Replication | None
    loop: asyncio.AbstractEventLoop | None
    completers: dict[tuple[str, str, str], Any]
    in_flight: set[RequestContext]
    shutdown: Shutdown

    @property
    def executor(self) -> Executor:
        """The pool running sync tool, resource and prompt functions."""
        ...

    @property
    def jobs(self) -> JobStore:
        """The job store (made at its first use)."""
        ...

    @property
    def result_store(self) -> ResultStore:
        """Large results kept as resources (made at its first use)."""
        ...

    @property
    def result_options(self) -> ResultOptions:
        """How results are shaped."""
        ...

    @property
    def skills(self) -> SkillCatalog:
        """The published skills (made at its first use)."""
        ...

    def server_info(self) -> dict[str, Any]:
        """``serverInfo`` of ``initialize`` and ``server/discover``."""
        ...

    def capabilities(self, version: str) -> dict[str, Any]:
        """Server capabilities for ``version``."""
        ...

    def invalid_arguments_as_protocol_error(self, version: str, override: str | None = None) -> bool:
        """Whether invalid tool arguments are a JSON-RPC -32602 for ``version`` (SEP-1303)."""
        ...


class Identity(Protocol):
    """What answering ``initialize`` and ``server/discover`` reads: who the server is, what it offers."""

    instructions: str | None

    def server_info(self) -> dict[str, Any]:
        """``serverInfo``."""
        ...

    def capabilities(self, version: str) -> dict[str, Any]:
        """Server capabilities for ``version``."""
        ...


class Published(Identity, Protocol):
    """What the skills methods and ``server/discover`` read: the registry and the published skills."""

    registry: Registry

    @property
    def skills(self) -> SkillCatalog:
        """The published skills."""
        ...


class Replicated(Protocol):
    """What a cancellation reads: the replication, to reach a request running on another process."""

    replication: Replication | None
