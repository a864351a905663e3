"""State shared by the processes of one server: which store, and how to reach it.

``memory`` (one process, the default) keeps sessions and streams in the process and jobs in the
SQLite file of the state directory; ``redis`` keeps what several processes must share in Redis
(:class:`~nanohubmcp.state.redis_state.RedisState`, imported only when such a URL is given).
The server layer replicates its sessions through :class:`SharedState`; nothing here knows MCP.
"""

from __future__ import annotations

from .base import SharedState
from .errors import StateUnavailable
from .url import ENV_VAR, StateURL, parse, redact, resolve

__all__ = ["ENV_VAR", "SharedState", "StateURL", "StateUnavailable", "open_shared", "parse", "redact", "resolve"]


def open_shared(url: StateURL, name: str, *, idle_seconds: float) -> SharedState | None:
    """The shared store ``url`` names for the server ``name`` (None for memory and SQLite).

    Raises:
        ConfigurationError: a Redis URL without the ``redis`` package installed.
    """
    if not url.shared:
        return None
    from .redis_state import RedisState

    return RedisState(url, name, idle_seconds=idle_seconds)
