"""State shared by the processes of one server: which store, and how to reach it.

``memory`` (one process, the default) keeps sessions and streams in the process and jobs in the
SQLite file of the state directory; ``redis`` keeps what several processes must share in Redis
(:class:`~nanohubmcp.state.redis_state.RedisState`, imported only when such a URL is given).
The server layer replicates its sessions through :class:`SharedState`; nothing here knows MCP.
"""

from __future__ import annotations

from ..errors import ConfigurationError
from .base import SharedState
from .errors import StateUnavailable
from .url import ENV_VAR, StateURL, parse, redact, resolve, store_refused, store_unreachable

__all__ = [
    "ENV_VAR", "SharedState", "StateURL", "StateUnavailable", "open_shared", "parse", "reach", "redact", "resolve",
]

REACH_TIMEOUT = 2.0
"""Seconds :func:`reach` waits for the store's answer."""


def open_shared(url: StateURL, name: str, *, idle_seconds: float) -> SharedState | None:
    """The shared store ``url`` names for the server ``name`` (None for memory and SQLite).

    Raises:
        ConfigurationError: a Redis URL without the ``redis`` package installed.
    """
    if not url.shared:
        return None
    from .redis_state import RedisState

    return RedisState(url, name, idle_seconds=idle_seconds)


def reach(url: StateURL) -> None:
    """Check once that the shared store ``url`` answers (``PING``); nothing to check for memory and
    SQLite. ``--workers N`` asks before it forks: a store it cannot reach is a setting to fix, not a
    worker to start again and again.

    Raises:
        ConfigurationError: the store does not answer (wrong host, port or password), or the
            ``redis`` package is not installed; the message shows the URL without its password.
    """
    if not url.shared:
        return
    try:
        import redis
    except ImportError:
        raise ConfigurationError(f"state_url {url.shown} needs the redis package: pip install 'nanohub-mcp[redis]'"
                                 ) from None
    try:
        client = redis.Redis.from_url(url.url, socket_connect_timeout=REACH_TIMEOUT, socket_timeout=REACH_TIMEOUT)
    except (TypeError, ValueError) as exc:  # an option redis-py does not take ('?foo=bar')
        raise store_refused(url.shown, exc) from None
    try:
        client.ping()
    except (TypeError, ValueError, redis.exceptions.ResponseError) as exc:  # 'DB index is out of range'
        raise store_refused(url.shown, exc) from None
    except (redis.exceptions.RedisError, OSError) as exc:
        raise store_unreachable(url.shown, exc) from None
    finally:
        client.close()
