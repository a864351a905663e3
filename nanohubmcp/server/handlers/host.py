"""What the method handlers (of both eras) use of their server: :class:`HandlerServices`.

The services (:class:`~nanohubmcp.server.services.Services`), plus the job executors the job
service picks from (:class:`~nanohubmcp.server.executors.service.JobHost`) and the stateless
era's state the client asks use (:class:`~nanohubmcp.server.asks.by_era.AskServices`).
:class:`~nanohubmcp.server.core.ServerCore` satisfies it; the dispatcher hands it to every handler.
"""

from __future__ import annotations

from typing import Protocol

from ..asks.by_era import AskServices
from ..executors.service import JobHost


class HandlerServices(JobHost, AskServices, Protocol):
    """The server as a method handler sees it."""
