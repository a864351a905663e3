"""What the transports read of the server they serve: the one typed seam between the facade and
the transports.

An ``MCPServer`` satisfies :class:`ServedServer` structurally: the transports never import the
facade (it sits above them) and never see more of it than these members. Everything about
serving a message, and what the routes' documents and probes read, goes through the route's
:class:`~nanohubmcp.server.connection.Connection`; ``core`` is there for making those connections
(``routes``, ``stdio``, ``memory``) and for starting, draining and stopping the core with the loop
(stdio, and :mod:`nanohubmcp.serving.runner`), nothing a request handler reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..server.core import ServerCore


class ServedServer(Protocol):
    """The server a transport serves (an ``MCPServer``)."""

    @property
    def core(self) -> ServerCore:
        """The server's core: registry, sessions, jobs, the event bus."""
        ...

    @property
    def url(self) -> str | None:
        """The URL it is served at while an HTTP runner serves it, else None."""
        ...

    @property
    def state_secret(self) -> str | bytes | None:
        """The key signing 2026-07-28 ``requestState``, when the application gave one."""
        ...
