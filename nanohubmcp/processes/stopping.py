"""What a serve's stop uses of the core it stops: the :class:`Stopping` protocol (a ``ServerCore`` satisfies it).

The drain (:mod:`.drain`) and the exit (:mod:`.process_exit`) are typed against it, and the runner
(:mod:`..serving.runner`) against one that extends it, so this package names no ``ServerCore``: an import contract
in ``pyproject.toml`` holds it. Not this module's: what the stop does with these (the drain's steps, the exit's
wait), nor the core's own parts (``nanohubmcp.server``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import asyncio
    from concurrent.futures import Future

    from ..server.shutdown import Shutdown
    from ..server.wire.request import RequestContext

__all__ = ["EndingJobs", "Stopping"]


class EndingJobs(Protocol):
    """The jobs of a stopping process, as its stop sees them (the core's ``job_service``)."""

    def process_ending(self) -> int:
        """Tell the jobs whose function still runs in this process to cancel: it ends; how many were told."""
        ...

    def settling(self) -> list[Future[None]]:
        """The ends of jobs being stored, which a process that exits waits for."""
        ...

    def work(self) -> set[Future[Any]]:
        """The running functions of jobs in this process (a stop counts them apart from tool calls)."""
        ...


class Stopping(Protocol):
    """The core of a server whose serve stops: its requests in flight, its stop, its jobs, its streams and store."""

    @property
    def in_flight(self) -> set[RequestContext]:
        """The requests being served (loop thread only)."""
        ...

    @property
    def shutdown(self) -> Shutdown:
        """Whether the server is stopping, since when, and its requests' moment to answer."""
        ...

    @property
    def job_service(self) -> EndingJobs:
        """Its jobs, as the stop sees them."""
        ...

    def close_streams(self) -> None:
        """End the streams, once the last answers went on them."""
        ...

    def close_store(self, flush: float) -> asyncio.Task[None] | None:
        """Close the link to the shared state store, flushing at most ``flush`` seconds."""
        ...
