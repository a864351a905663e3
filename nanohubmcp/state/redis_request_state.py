"""The stateless era's ``requestState`` in Redis: the key that signs it, the same in every process
(``rs:key``, made once by whichever process comes first), and the nonces already used
(``rs:used:<nonce>``, each kept until the state it belongs to would have expired anyway).

Both are asked for off the asyncio path (while the server starts, and from the code that checks
a ``requestState``), so a synchronous client serves them, made on first use. What this module
does not own: the connection settings and the outage log
(:class:`~nanohubmcp.state.redis_state.RedisState` passes both in).
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Callable
from typing import Any

from .errors import StateBusy, StateUnavailable
from .redis_refusals import refusal
from .url import store_refused, store_unreachable


def shared_key(client: Any, name: str) -> bytes:
    """The key held at ``name`` (``rs:key``) by ``client`` (a synchronous ``redis.Redis``), made (32 random bytes
    as hex) by whichever process asks first; raises what the client raises."""
    client.set(name, secrets.token_hex(32), nx=True)
    value = client.get(name)
    assert value is not None
    return value if isinstance(value, bytes) else str(value).encode()


class RedisRequestState:
    """The ``requestState`` key and used nonces (module docstring).

    Args:
        connect: makes a synchronous ``redis.Redis`` client of the store.
        key: builds a namespaced key from its parts.
        went_down: called with the exception when the store cannot be reached.
        refused: called with the text of an error reply refusing writes (``OOM ...``,
            :func:`.redis_refusals.refusal`); returns the error to raise.
        shown: the store's URL without its password, for messages.
    """

    def __init__(
        self,
        connect: Callable[[], Any],
        key: Callable[..., str],
        went_down: Callable[[BaseException], None],
        refused: Callable[[str], StateUnavailable],
        shown: str,
    ) -> None:
        self._connect = connect
        self._key = key
        self._went_down = went_down
        self._refused = refused
        self.shown = shown
        self._client: Any = None

    def _sync(self) -> Any:
        """The synchronous client (made on first use)."""
        if self._client is None:
            self._client = self._connect()
        return self._client

    def consume_nonce(self, nonce: str, expires: float) -> bool:
        """Mark a nonce used until ``expires`` (epoch seconds); False when it already was.

        Raises:
            StateBusy: every connection of the client's pool is in use (a state URL's small
                ``max_connections``); the store is not taken for down.
            StateUnavailable: the store cannot be reached, or refuses writes (``OOM``, ``READONLY``).
        """
        import redis.exceptions as redis_errors

        try:
            return bool(
                self._sync().set(
                    self._key("rs", "used", nonce), "1", nx=True, exat=max(int(expires) + 1, int(time.time()) + 1)
                )
            )
        except redis_errors.MaxConnectionsError:  # a ConnectionError too, but the store is up
            raise StateBusy() from None
        except (redis_errors.ConnectionError, redis_errors.TimeoutError, OSError) as exc:
            self._went_down(exc)
            raise StateUnavailable() from None
        except redis_errors.ResponseError as exc:
            reason = refusal(exc)
            if reason is None:
                raise
            raise self._refused(reason) from None

    def key(self) -> bytes:
        """The signing key, the same in every process (made by the first to ask).

        Raises:
            ConfigurationError: the store cannot be reached (the server cannot start without it).
        """
        import redis.exceptions as redis_errors

        try:
            client = self._connect()
        except (TypeError, ValueError) as exc:  # an option redis-py does not take ('?foo=bar')
            raise store_refused(self.shown, exc) from None
        try:
            return shared_key(client, self._key("rs", "key"))
        except (TypeError, ValueError, redis_errors.ResponseError) as exc:  # 'DB index is out of range'
            raise store_refused(self.shown, exc) from None
        except (redis_errors.ConnectionError, redis_errors.TimeoutError, OSError) as exc:
            raise store_unreachable(self.shown, exc) from None
        finally:
            client.close()

    def close(self) -> None:
        """Close the synchronous client, if one was made."""
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.close()
            self._client = None
