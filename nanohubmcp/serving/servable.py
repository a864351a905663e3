"""What serving uses of the server it serves: the :class:`Servable` protocol (an ``MCPServer`` satisfies it).

The serving package, its runner aside, is typed against it, so neither imports the facade.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..server.core import ServerCore
    from ..server.wire.events import EventBus


class Servable(Protocol):
    """What serving uses of the server it serves (an ``MCPServer``)."""

    @property
    def core(self) -> ServerCore: ...

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
