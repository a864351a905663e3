"""What serving uses of the server it serves: the :class:`Servable` protocol (an ``MCPServer`` satisfies it), and
:class:`Running`, what the runner uses of its core (a ``ServerCore`` satisfies it).

The serving package is typed against them, so it imports not the facade, and its runner names no ``ServerCore``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..processes.stopping import Stopping

if TYPE_CHECKING:
    import asyncio

    from ..runtime import Runtime
    from ..server.core import ServerCore
    from ..server.registry.registry import Registry
    from ..server.wire.events import EventBus


class Servable(Protocol):
    """What serving uses of the server it serves (an ``MCPServer``)."""

    @property
    def core(self) -> ServerCore: ...

    @property
    def runtime(self) -> Runtime: ...

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def events(self) -> EventBus: ...

    @property
    def auth(self) -> object: ...

    @property
    def token_requirement(self) -> str | None: ...

    @property
    def url(self) -> str | None: ...

    @property
    def port(self) -> int | None: ...

    @property
    def running(self) -> bool: ...

    @property
    def token(self) -> str | None: ...

    @property
    def state_secret(self) -> str | bytes | None: ...

    def start(
        self,
        host: str = ...,
        port: int | None = ...,
        path_prefix: str = ...,
        *,
        quiet: bool = ...,
        loop: str = ...,
        **options: Any,
    ) -> object: ...

    def stop(self, *, within: float | None = ...) -> None: ...


class Running(Stopping, Protocol):
    """What the runner (:mod:`.runner`) uses of the core of the server it serves, besides what its stop uses
    (:class:`~nanohubmcp.processes.stopping.Stopping`): the shared store read before listening, the loop attached
    and detached, the periodic sweep, the events said, the tools warmed up."""

    @property
    def bus(self) -> EventBus:
        """Where ``server_started`` and ``server_stopped`` are said."""
        ...

    @property
    def registry(self) -> Registry:
        """The tools whose argument checks the warm-up compiles."""
        ...

    def prepare_state(self) -> None:
        """The shared state store's first read, before the process listens."""
        ...

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Serving began on ``loop``."""
        ...

    def detach(self, *, keep_store: bool = ...) -> object:
        """Serving stopped (the store kept connected while the streams end, with ``keep_store``)."""
        ...

    def close(self, *, streams_later: bool = ...) -> None:
        """The stop: running work told to cancel, sessions ended (their streams later, with ``streams_later``)."""
        ...

    def sweep(self) -> None:
        """Expired sessions, jobs and results let go of (every minute while serving)."""
        ...
