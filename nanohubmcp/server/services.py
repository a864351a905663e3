"""Protocols several parts of the core share for what they read of the server they serve: :class:`Identity`
(``initialize``, ``server/discover``), :class:`Published` (the skills methods, ``server/discover``),
:class:`Replicated` (a cancellation).

There is no protocol of the whole server here: each part names what it reads, in a protocol of its own beside
it (the client asks' :mod:`.asks.hosts`, the calls' :mod:`.calls.hosts`, progress's ``ProgressHost``, each family
of method handlers' :mod:`.handlers.host` and :mod:`.stateless.hosts`, the intake's ``Received``, the connection's
``ConnectionHost``, the notifier's ``Notified``), and :class:`~nanohubmcp.server.core.ServerCore` satisfies them
where it is passed (mypy checks it there). The jobs are reached through one member of the core, the job service it
builds (:class:`~.executors.job_service.JobService`: the job store, ``jobs``, and the executors, ``runners``; the
core has no other door to them), named by those protocols as that member and handed on whole; below the job service
a call's own seams carry the job store (:mod:`.calls.call_seams`). No module of the core imports ``ServerCore``: the
import graph, type-only imports counted, points one way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .registry.registry import Registry
    from .registry.skill_catalog import SkillCatalog
    from .wire.replication import Replication


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
